// The shapes that cross the VM ↔ host boundary for `infer`. The VM (through driver.ts) builds an
// `InferRequest` per attempt; the host answers it with one `InferReply` — one model exchange,
// nothing else. Repairs, validation, retries and confidence are the driver's, never the host's.
import type { RenderedPrompt, Tiers } from '../context/render.js';
import type { JsonSchema } from './schema.js';
import type { MediaVal } from '../values/index.js';
import type { InferOptions } from './options.js';
import type { JournaledApprovals } from '../ports/approval.js';

export interface ValidationIssue {
  /** JSON Pointer into the reply envelope, e.g. `/value/score` ("" = the whole reply) */
  path: string;
  message: string;
}

export interface Feedback {
  /** the raw reply that was rejected, as the re-ask quotes it: at most REJECTED_EXCERPT_CHARS (repair.ts), head and tail */
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
  /** the output token bound derived from the wire schema (runtime/infer/bounds.ts); a provider sends it unless the run or the spec sets one */
  maxTokens?: number;
  /** what the run asks of the sampler (`--seed`, `--temperature`, `--max-tokens`), set by the host */
  sampling?: Sampling;
  /** self-consistency: which of the attempt's k samples this is (1..k; absent when k = 1) */
  sample?: number;
  /** the images and documents of the prompt (std/media), in prompt order: each provider sends them as its content parts */
  media?: MediaVal[];
  /** the infer's own `with { ... }` options: the host and the transport take them over the run's */
  options?: InferOptions;
  /**
   * Native tool calls (`infer T with { tools: [...] }`): the tools this infer offers the model, sent
   * through the provider's own tool-call API. Absent when the infer offers none.
   */
  tools?: ToolOffer[];
  /** the tool loop so far, oldest first: each round's calls (as the model made them) and their results */
  toolRounds?: ToolRound[];
}

/** A tool an `infer` offers the model: its wire name, what it does, and its parameters' JSON Schema (an object schema). */
export interface ToolOffer {
  /** unique within the infer; `^[a-zA-Z0-9_-]{1,64}$` (the strictest providers' rule) */
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** A call the model asked for in a reply: the provider's call id, the tool's wire name and its arguments (parsed JSON; the raw text when it did not parse). */
export interface ToolCallRequest {
  id: string;
  name: string;
  arguments: unknown;
  /** the arguments as the model wrote them, when they were not valid JSON (the loop answers with an error result) */
  argumentsText?: string;
  /** an opaque token the provider gave with the call, sent back with it in later rounds (Gemini's `thoughtSignature`) */
  signature?: string;
}

/** One round of the tool loop: what the model said and the calls it made, then each call's result (same order, same ids). */
export interface ToolRound {
  /** text the model wrote beside its calls, if any */
  text?: string;
  calls: ToolCallRequest[];
  results: ToolResult[];
}

/** A tool call's outcome as the model is told it: JSON text of the value, or an error message when `isError`. */
export interface ToolResult {
  id: string;
  name: string;
  content: string;
  isError?: boolean;
}

/** Sampling parameters a provider sends where its API takes them (and records in the reply's `meta.sampling`). */
export interface Sampling {
  seed?: number;
  temperature?: number;
  maxTokens?: number;
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
  /** tokens in and out; `totalTokens` alone where a provider reports only a sum (Turn v1's legacy driver reply) */
  usage?: { inputTokens?: number; outputTokens?: number; cachedTokens?: number; totalTokens?: number };
  /** `length` when the reply was cut off at the output token limit; `tool_calls` when the model asked for tools */
  finishReason?: string;
  /** the tool calls the model asked for (native tool calls); a reply with calls and no final value continues the loop */
  toolCalls?: ToolCallRequest[];
  /** provider-specific facts for the trace (model, HTTP status, request id, `sampling`, self-consistency `samples`) — never a secret */
  meta?: Record<string, unknown>;
  /** self-consistency (consistency.ts): k samples were asked and `agreeing` of them gave this value; the confidence is their share */
  agreement?: { samples: number; agreeing: number };
  /**
   * The run's calibration of this reply's confidence (runtime/calibration/apply.ts), set by the host
   * as the reply arrives, so a durable run journals it and a replay binds the same value. Used only
   * when its source and raw value are the ones the reply itself gives.
   */
  calibration?: ReplyCalibration;
}

/** A confidence through a calibration map: its source, the raw value, the calibrated one and the map's id. */
export interface ReplyCalibration {
  source: string;
  raw: number;
  value: number;
  map: string;
}

/** What a host can do while it answers: report events (HTTP retries, streamed text) to the run's event stream. */
export interface InferIO {
  emit(event: HttpRetry | InferDelta): void;
  /** a durable run's approvals of this model call (`--approve-effects model`): journaled, replayed on resume */
  approvals?: JournaledApprovals;
}

/** Text of a reply as it streams in (an event of the run's stream; the driver adds the infer's id, pid and attempt). */
export interface InferDelta {
  kind: 'infer.delta';
  /** the text this chunk added */
  delta: string;
  /** chunks (about one token each) received so far in this attempt */
  tokens: number;
  /** since the request was sent */
  elapsedMs: number;
  /** self-consistency: which sample is streaming */
  sample?: number;
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
