// The command line's shared vocabulary: exit codes, the usage error, option parsing.
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** 0 success (or suspended), 1 run-time error, 2 compile error or unreadable file, 3 waiting, 64 usage, 70 a bug. */
export const EXIT = { ok: 0, runtimeError: 1, compileError: 2, waiting: 3, usage: 64, internal: 70 } as const;

export class UsageError extends Error {}

export function parse<T extends Options>(args: string[], options: T) {
  try {
    return parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function numberOption(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} needs a whole number >= 0, got \`${String(value)}\``);
  return n;
}

export function singleFile(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`\`turn ${command}\` takes exactly one FILE, got ${positionals.length}`);
  return positionals[0];
}

export function err(line: string): void {
  process.stderr.write(line.endsWith('\n') ? line : line + '\n');
}
