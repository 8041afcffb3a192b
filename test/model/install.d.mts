export const PACKAGE: string;
export const MODEL_FILE: string;
export function cacheDir(): string;
export function ensureModel(log?: (line: string) => void): { file: string; ms: number; cached: boolean };
