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
 * become maps, arrays become lists.
 */
export function fromReply(value: unknown, schema: unknown): Value {
  const s = (schema && typeof schema === 'object' ? schema : {}) as Record<string, unknown>;
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) return value.map((x) => fromReply(x, s.items));
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (s.properties ?? {}) as Record<string, unknown>;
    if (typeof s.title === 'string' && s.properties) {
      const fields = new Map<string, Value>();
      for (const k of Object.keys(props)) fields.set(k, fromReply(obj[k], props[k]));
      return new StructVal(s.title, fields);
    }
    const m = new Map<string, Value>();
    for (const [k, x] of Object.entries(obj)) m.set(k, fromReply(x, props[k] ?? s.additionalProperties));
    return m;
  }
  return null;
}
