// The labeled cases `turn calibrate` runs (docs/inference.md, *Calibration*): JSON Lines, one case a
// line — `{"prompt": "...", "expected": V, "choices"?: ["a", "b"], "system"?: "...", "id"?: "..."}`.
// The case is asked as `infer T { prompt; }` where T follows from it: the choices as a union of
// string literals (`"a" | "b"`), else `Str`, `Num` or `Bool` by the expected value's JSON type.
// The file is outside input: bounded in bytes, lines and text lengths, and every bad line refused
// with its line number (`cases.jsonl:12: ...`), before any model is asked.
import * as fs from 'node:fs';
import type { JsonSchema } from '../infer/schema.js';

export const MAX_DATASET_BYTES = 16 * 1024 * 1024;
export const MAX_CASES = 10_000;
export const MAX_PROMPT_CHARS = 16_384;
export const MAX_CHOICES = 64;

export interface LabeledCase {
  /** the case's id (`id`, else its line number) */
  id: string;
  line: number;
  prompt: string;
  system?: string;
  expected: string | number | boolean;
  choices?: string[];
  /** the infer's type as Turn writes it, and its schema */
  typeName: string;
  schema: JsonSchema;
}

export class DatasetError extends Error {}

const KEYS = new Set(['id', 'prompt', 'system', 'expected', 'choices']);

/** Reads a dataset file; throws DatasetError naming the file and line. */
export function readDataset(file: string): { cases: LabeledCase[]; bytes: Buffer } {
  let st;
  try {
    st = fs.statSync(file);
  } catch (e) {
    throw new DatasetError(`${file}: cannot be read: ${(e as Error).message}`);
  }
  if (!st.isFile()) throw new DatasetError(`${file}: not a file`);
  if (st.size > MAX_DATASET_BYTES) throw new DatasetError(`${file}: ${st.size} bytes, more than a dataset may have (${MAX_DATASET_BYTES})`);
  const bytes = fs.readFileSync(file);
  return { cases: parseDataset(bytes.toString('utf8'), file), bytes };
}

export function parseDataset(text: string, file: string): LabeledCase[] {
  const cases: LabeledCase[] = [];
  const ids = new Set<string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = i + 1;
    const src = lines[i].trim();
    if (src === '') continue;
    const bad = (what: string): never => {
      throw new DatasetError(`${file}:${line}: ${what}`);
    };
    if (cases.length >= MAX_CASES) bad(`more than ${MAX_CASES} cases`);
    let j: unknown;
    try {
      j = JSON.parse(src);
    } catch (e) {
      return bad(`not valid JSON: ${(e as Error).message}`);
    }
    if (!j || typeof j !== 'object' || Array.isArray(j)) bad('a case is a JSON object: {"prompt": "...", "expected": ...}');
    const o = j as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!KEYS.has(k)) bad(`unknown key "${k.slice(0, 40)}" (a case has prompt, expected, choices, system, id)`);
    if (typeof o.prompt !== 'string' || o.prompt.trim() === '') bad('"prompt" must be a non-empty string');
    const prompt = o.prompt as string;
    if (prompt.length > MAX_PROMPT_CHARS) bad(`"prompt" has ${prompt.length} characters, more than ${MAX_PROMPT_CHARS}`);
    if (o.system !== undefined && (typeof o.system !== 'string' || o.system.length > MAX_PROMPT_CHARS)) bad(`"system" must be a string of at most ${MAX_PROMPT_CHARS} characters`);
    const expected = o.expected;
    if (typeof expected !== 'string' && typeof expected !== 'boolean' && !(typeof expected === 'number' && Number.isFinite(expected))) {
      bad('"expected" must be a string, a number or a boolean');
    }
    let choices: string[] | undefined;
    if (o.choices !== undefined) {
      const c = o.choices;
      if (!Array.isArray(c) || c.length < 2 || c.length > MAX_CHOICES || !c.every((x) => typeof x === 'string' && x.length > 0 && x.length <= 200)) {
        bad(`"choices" must be a list of 2 to ${MAX_CHOICES} non-empty strings (at most 200 characters each)`);
      }
      choices = [...new Set(c as string[])];
      if (choices.length !== (c as string[]).length) bad('"choices" has the same string twice');
      if (!choices.includes(expected as string)) bad(`"expected" must be one of the choices (${JSON.stringify(expected)} is not)`);
    }
    const id = o.id === undefined ? String(line) : typeof o.id === 'string' && o.id.length <= 200 ? o.id : bad('"id" must be a string of at most 200 characters');
    if (ids.has(id)) bad(`the id "${id}" is used twice`);
    ids.add(id);
    cases.push({ id, line, prompt, ...(typeof o.system === 'string' ? { system: o.system } : {}), expected: expected as LabeledCase['expected'], ...(choices ? { choices } : {}), ...typeOf(expected as LabeledCase['expected'], choices) });
  }
  if (cases.length === 0) throw new DatasetError(`${file}: no cases (one JSON object a line)`);
  return cases;
}

function typeOf(expected: LabeledCase['expected'], choices: string[] | undefined): { typeName: string; schema: JsonSchema } {
  if (choices) return { typeName: choices.map((c) => JSON.stringify(c)).join(' | '), schema: { type: 'string', enum: choices } };
  if (typeof expected === 'number') return { typeName: 'Num', schema: { type: 'number' } };
  if (typeof expected === 'boolean') return { typeName: 'Bool', schema: { type: 'boolean' } };
  return { typeName: 'Str', schema: { type: 'string' } };
}

/** Whether a bound value is the expected one: equal, a string without regard to case and surrounding spaces. */
export function isRight(c: LabeledCase, value: unknown): boolean {
  if (typeof c.expected === 'string' && typeof value === 'string') return c.choices ? value === c.expected : value.trim().toLowerCase() === c.expected.trim().toLowerCase();
  if (typeof c.expected === 'number' && typeof value === 'number') return Math.abs(value - c.expected) < 1e-9;
  return value === c.expected;
}
