// The shapes that cross the VM ↔ host boundary for `infer`. The VM (through driver.ts) builds an
// `InferRequest` per attempt; the host answers it with one `InferReply` — one model exchange,
// nothing else. Repairs, validation, retries and confidence are the driver's, never the host's.
import type { RenderedPrompt, Tiers } from '../context/render.js';
import type { JsonSchema } from './schema.js';

export interface ValidationIssue {
  /** JSON Pointer into the reply envelope, e.g. `/value/score` ("" = the whole reply) */
  path: string;
  message: string;
}

export interface Feedback {
  /** the raw reply that was rejected */
  reply: string;
  issues: ValidationIssue[];
}

export interface InferRequest {
  /** run-unique id of this `infer` (all its attempts share it) */
  id: string;
  pid: number;
  typeName: string;
  /** the schema of the Turn type (JSON Schema 2020-12) */
  schema: JsonSchema;
  /** what the model is asked to produce: `{"value": <schema>, "confidence": number}`, no `$schema` */
  wireSchema: JsonSchema;
  /** the program's prompt (the infer block's last expression), as text */
  prompt: string;
  /** the process's context entries in render order (P0, P2, P1) */
  context: string[];
  tiers: Tiers;
  rendered: RenderedPrompt;
  /** 1 for the first ask, 2.. for re-asks */
  attempt: number;
  /** the rejected replies of earlier attempts of this infer, oldest first */
  feedback: Feedback[];
}

export interface TokenLogprob {
  /** the token's text; when every token has one and they concatenate to the reply, only the value's tokens count */
  token?: string;
  logprob: number;
}

export interface InferReply {
  /** the model's raw reply text (the usual case) */
  text?: string;
  /** an already-parsed reply value (hosts that call no model, tests): the value itself, not an envelope */
  value?: unknown;
  /** a confidence the model reported outside the text */
  confidence?: number;
  logprobs?: TokenLogprob[];
  usage?: { inputTokens?: number; outputTokens?: number; cachedTokens?: number };
  /** `length` when the reply was cut off at the output token limit */
  finishReason?: string;
  /** provider-specific facts for the trace (model, HTTP status, request id) — never a secret */
  meta?: Record<string, unknown>;
}

/** What a host can do while it answers: report events (HTTP retries) to the run's event stream. */
export interface InferIO {
  emit(event: HttpRetry): void;
}

/** An HTTP provider's retry after a 429, a 5xx or a time-out (an event of the run's stream). */
export interface HttpRetry {
  kind: 'http.retry';
  provider: string;
  attempt: number;
  status: number | null;
  waitMs: number;
  reason: string;
}
