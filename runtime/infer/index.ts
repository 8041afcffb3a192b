// Inference support: Turn types as JSON Schema, reply repair, validation and conversion,
// confidence, the retry driver, and the mock model.
import { StructVal, type Value } from '../values/index.js';

export { typeToSchema, SchemaError, SCHEMA_DIALECT, type JsonSchema, type StructInfo, type TypeEnv } from './schema.js';
export { mockReply, mockValue, MOCK_CONFIDENCE } from './mock.js';
export { validate, validatorFor, issues, formatIssue } from './validate.js';
export { parseReply } from './repair.js';
export { wireSchema, taskText, feedbackText } from './prompt.js';
export { runInfer, interpret, DEFAULT_INFER_RETRIES, type InferCall, type InferOutcome, type InferFailure, type AskModel } from './driver.js';
export { UNREPORTED_CONFIDENCE, logprobConfidence, type ConfidenceInfo, type ConfidenceSource } from './confidence.js';
export type { InferRequest, InferReply, InferIO, ValidationIssue, Feedback, TokenLogprob } from './types.js';

/**
 * Converts a (validated) JSON reply into Turn values guided by its schema: an object whose
 * schema has a `title` becomes a struct of that name (fields in declaration order), other objects
 * become maps, arrays become lists. Iterative: the driver refuses replies nested more than
 * MAX_JSON_DEPTH levels, but a value journaled before it did must still replay.
 */
export function fromReply(value: unknown, schema: unknown): Value {
  // [JSON container, its schema, the empty Turn container to fill]
  const fill: [unknown, Record<string, unknown>, Value][] = [];
  const convert = (v: unknown, sch: unknown): Value => {
    const s = (sch && typeof sch === 'object' ? sch : {}) as Record<string, unknown>;
    if (v === null || v === undefined) return null;
    if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v !== 'object') return null;
    const out: Value = Array.isArray(v) ? [] : typeof s.title === 'string' && s.properties ? new StructVal(s.title, new Map()) : new Map<string, Value>();
    fill.push([v, s, out]);
    return out;
  };
  const root = convert(value, schema);
  while (fill.length > 0) {
    const [v, s, out] = fill.pop()!;
    if (Array.isArray(v)) {
      for (const x of v) (out as Value[]).push(convert(x, s.items));
      continue;
    }
    const obj = v as Record<string, unknown>;
    const props = (s.properties ?? {}) as Record<string, unknown>;
    if (out instanceof StructVal) {
      for (const k of Object.keys(props)) out.fields.set(k, convert(obj[k], props[k]));
    } else {
      for (const [k, x] of Object.entries(obj)) (out as Map<string, Value>).set(k, convert(x, props[k] ?? s.additionalProperties));
    }
  }
  return root;
}
