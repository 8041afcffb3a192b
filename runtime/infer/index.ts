// Inference support: Turn types as JSON Schema, reply repair, validation and conversion,
// confidence, the retry driver, and the mock model.
export { typeToSchema, SchemaError, SCHEMA_DIALECT, type JsonSchema, type StructInfo, type TypeEnv } from './schema.js';
export { mockReply, mockValue, MOCK_CONFIDENCE } from './mock.js';
export { validate, validateValue, issues, formatIssue, type ValidateOptions } from './validate.js';
export { validatorFor } from './compiled.js';
export { fromReply } from './reply-value.js';
export { strictSchema } from './provider-schema.js';
export { parseReply } from './repair.js';
export { wireSchema, taskText, feedbackText } from './prompt.js';
export { runInfer, interpret, DEFAULT_INFER_RETRIES, type InferCall, type InferOutcome, type InferFailure, type AskModel } from './driver.js';
export { UNREPORTED_CONFIDENCE, logprobConfidence, type ConfidenceInfo, type ConfidenceSource } from './confidence.js';
export type { InferRequest, InferReply, InferIO, ValidationIssue, Feedback, TokenLogprob } from './types.js';

