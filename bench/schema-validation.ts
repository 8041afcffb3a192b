// The cost of validating one `infer` reply against its type's JSON Schema (Ajv, compiled once,
// strict mode) — what every `infer` pays before a value binds — against a hand-written JavaScript
// type check of the same shape, measured in the same run. Turn's paper reports 2–3 µs per infer.
import { typeToSchema, type StructInfo } from '../runtime/infer/schema.js';
import { issues, validatorFor } from '../runtime/infer/validate.js';
import { interpret } from '../runtime/infer/driver.js';
import type { TypeExpr } from '../runtime/syntax/ast.js';
import { measurePair, perOp, row, withPaper, type Row } from './harness.js';

export const N = 20_000;

const span = { start: 0, end: 0 };
const named = (name: string, args: TypeExpr[] = []): TypeExpr => ({ kind: 'NamedType', name, args, span });
const STRUCTS: Record<string, StructInfo> = {
  Tag: { name: 'Tag', typeParams: [], fields: [{ name: 'name', type: named('Str') }, { name: 'weight', type: named('Num') }] },
  Review: {
    name: 'Review',
    typeParams: [],
    fields: [
      { name: 'ok', type: named('Bool') },
      { name: 'score', type: named('Num') },
      { name: 'mood', type: { kind: 'EnumType', values: ['happy', 'sad'], span } },
      { name: 'tags', type: named('List', [named('Tag')]) },
      { name: 'main', type: named('Tag') },
    ],
  },
};

export const REVIEW_SCHEMA = typeToSchema(named('Review'), { struct: (n) => STRUCTS[n], alias: () => undefined });

/** Fresh reply objects (as JSON.parse would give), so no check can be cached by identity. */
export function replies(): unknown[] {
  const out: unknown[] = [];
  for (let i = 0; i < N; i++) {
    out.push({
      ok: i % 2 === 0,
      score: i / 7,
      mood: i % 3 === 0 ? 'sad' : 'happy',
      tags: [{ name: 'perf' + (i % 5), weight: i % 11 }, { name: 'api', weight: 1 }],
      main: { name: 'cache', weight: i },
    });
  }
  return out;
}

function isTag(x: unknown): boolean {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const o = x as Record<string, unknown>;
  for (const k in o) if (k !== 'name' && k !== 'weight') return false;
  return typeof o.name === 'string' && typeof o.weight === 'number';
}

/** The anchor: what a careful programmer would write by hand for this one type. */
export function handCheck(x: unknown): boolean {
  if (typeof x !== 'object' || x === null || Array.isArray(x)) return false;
  const o = x as Record<string, unknown>;
  for (const k in o) if (k !== 'ok' && k !== 'score' && k !== 'mood' && k !== 'tags' && k !== 'main') return false;
  if (typeof o.ok !== 'boolean' || typeof o.score !== 'number') return false;
  if (o.mood !== 'happy' && o.mood !== 'sad') return false;
  if (!Array.isArray(o.tags)) return false;
  for (const t of o.tags) if (!isTag(t)) return false;
  return isTag(o.main);
}

/** Two rows for the paper section: validation alone, and the whole reply path of one infer. */
export async function schemaValidationBenchmark(): Promise<Row[]> {
  const data = replies();
  validatorFor(REVIEW_SCHEMA); // compiled once per type, as the compiler does
  let bad = 0;
  const { ours, anchor } = await measurePair(
    () => {
      for (let i = 0; i < N; i++) if (issues(REVIEW_SCHEMA, data[i], '/value') !== null) bad++;
    },
    () => {
      for (let i = 0; i < N; i++) if (!handCheck(data[i])) bad++;
    },
    { warmup: 5, samples: 15 },
  );
  if (bad !== 0) throw new Error('a valid reply was rejected');
  // The whole reply path of one infer: parse the text, unwrap the envelope, validate, confidence.
  const texts = data.slice(0, 5000).map((v) => JSON.stringify({ value: v, confidence: 0.8 }));
  const { ours: whole, anchor: wholeAnchor } = await measurePair(
    () => {
      for (const t of texts) if (interpret(REVIEW_SCHEMA, { text: t }).issues.length) bad++;
    },
    () => {
      for (const t of texts) {
        const env = JSON.parse(t) as { value: unknown; confidence: number };
        if (!handCheck(env.value) || typeof env.confidence !== 'number') bad++;
      }
    },
    { warmup: 5, samples: 15 },
  );
  if (bad !== 0) throw new Error('a valid reply was rejected');
  return [
    withPaper(
      row(
        'JSON Schema validation of one infer reply (µs; nested struct, Ajv compiled once, strict)',
        perOp(ours, N),
        'hand-written JS check of the same type',
        perOp(anchor, N),
        `${N.toLocaleString('en')} fresh reply objects per sample`,
      ),
      '2–3 µs',
      3,
    ),
    withPaper(
      row(
        'whole reply path of one infer (µs; parse, envelope, validate, confidence)',
        perOp(whole, texts.length),
        'JSON.parse + hand-written check',
        perOp(wholeAnchor, texts.length),
        `${texts.length.toLocaleString('en')} reply texts per sample; runtime/infer/driver.ts interpret()`,
      ),
      '2–3 µs',
      3,
    ),
  ];
}
