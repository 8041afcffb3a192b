// Model providers are pure transforms. A local provider (mock, script) turns a request into a
// reply; an HTTP provider (OpenAI-compatible, Anthropic) turns a request into the description of
// an HTTP call and an HTTP response into a reply. Neither performs I/O nor sees a secret: the
// host (transport.ts) sends the call, injecting the credential named by `auth` at that moment.
import type { InferIO, InferReply, InferRequest } from '../infer/types.js';

export interface LocalProvider {
  kind: 'local';
  /** e.g. `mock`, `script:replies.json` */
  name: string;
  answer(request: InferRequest, io?: InferIO): InferReply | Promise<InferReply>;
  /** frees what it holds (an in-process model's context) when the run ends */
  dispose?(): Promise<void>;
  /**
   * It sends an infer's tools through its API's own tool calls (`InferRequest.tools`, `toolRounds`)
   * and reads the calls the model makes (`InferReply.toolCalls`); std/react reads it to choose
   * native calls over tools described in the prompt.
   */
  nativeTools?: boolean;
}

/** Where the host puts a credential: the provider names it, the host resolves it. */
export interface AuthSpec {
  kind?: 'header';
  /** name of the environment variable holding the key (a vault reference later) */
  env: string;
  /** header to set, e.g. `authorization` or `x-api-key` */
  header: string;
  /** text before the secret in the header, e.g. `Bearer ` */
  prefix: string;
  /** fail before sending when the key is missing (true for hosted APIs) */
  required: boolean;
}

/**
 * AWS Signature Version 4 (Bedrock): the host signs the call at the moment it sends, with the
 * credentials read from the environment variables named here (runtime/providers/sigv4.ts).
 */
export interface SigV4Auth {
  kind: 'sigv4';
  /** the signing name, e.g. `bedrock` */
  service: string;
  region: string;
  accessKeyEnv: string;
  secretKeyEnv: string;
  /** a temporary credential's session token (optional: long-term keys have none) */
  sessionTokenEnv: string;
}

/** How a call is authorized: a secret in a header, or a signature over the whole request. */
export type CallAuth = AuthSpec | SigV4Auth;

export interface HttpCall {
  method: 'POST';
  url: string;
  /** headers without any credential */
  headers: Record<string, string>;
  body: string;
  auth?: CallAuth;
  /** the body asks for a stream (SSE or NDJSON); a server that answers with plain JSON is decoded as usual */
  stream?: boolean;
  /** the output token bound the body carries: the host stops reading a stream that runs well past it */
  maxTokens?: number;
}

/**
 * A provider's JSON POST: `body` as JSON, streamed when `stream` (the accept header names the
 * stream's type, `streamAccept`, and plain JSON, which a server may answer with instead), with the
 * output token bound the host watches a stream against.
 */
export function jsonPost(
  url: string,
  body: unknown,
  o: { auth: CallAuth | undefined; stream: boolean; streamAccept?: string; maxTokens: number | undefined; headers?: Record<string, string> },
): HttpCall {
  const accept = o.stream ? `${o.streamAccept ?? 'text/event-stream'}, application/json` : 'application/json';
  return {
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', accept, ...o.headers },
    body: JSON.stringify(body),
    auth: o.auth,
    ...(o.stream ? { stream: true } : {}),
    ...(o.maxTokens !== undefined ? { maxTokens: o.maxTokens } : {}),
  };
}

export interface HttpResult {
  status: number;
  /** lower-case names */
  headers: Record<string, string>;
  body: string;
}

export interface HttpProvider {
  kind: 'http';
  name: string;
  /**
   * The environment variable its API key is read from (the same as every call's `auth.env`), so
   * the host can add the key to its Redactor before the run starts (runtime/run/host.ts).
   */
  keyEnv?: string;
  /** more environment variables holding its credentials (AWS's secret key and session token), redacted like `keyEnv` */
  secretEnvs?: readonly string[];
  /**
   * What it does with a seed (docs/inference.md, *Seeds*): `none` — its API takes none, a seeded
   * call is not sent one; `best-effort` (default) — sent, but the server does not promise equal
   * replies. A seeded call's trace says which (`meta.seedGuarantee`).
   */
  seed?: 'none' | 'best-effort';
  /**
   * It sends an infer's tools through its API's own tool calls (`InferRequest.tools`, `toolRounds`)
   * and reads the calls the model makes (`InferReply.toolCalls`); std/react reads it to choose
   * native calls over tools described in the prompt.
   */
  nativeTools?: boolean;
  encode(request: InferRequest): HttpCall;
  /** the reply, or throws ProviderError (retryable or not) */
  decode(response: HttpResult, request: InferRequest): InferReply;
  /** how its streamed replies are read, when `encode` asks for a stream */
  stream?: StreamFormat;
}

/** A provider's streamed reply format: the framing and a decoder per reply. */
export interface StreamFormat {
  /** `aws-eventstream`: AWS's binary event-stream messages (Bedrock's ConverseStream; frames.ts) */
  framing: Framing;
  decoder(request: InferRequest): StreamDecoder;
}

export type Framing = 'sse' | 'ndjson' | 'aws-eventstream';

/** What a frame of a reasoning model's thinking gives (`StreamDecoder.push`): generation, but not the reply. */
export const THINKING = Symbol('thinking');

/** Reads one streamed reply, frame by frame (an SSE event's data, or one NDJSON line). */
export interface StreamDecoder {
  /**
   * Takes one frame (for `aws-eventstream`, a message's payload, with `event` its `:event-type`, or
   * `exception:TYPE` for an exception message); returns the reply text it adds (for the progress events), THINKING for a
   * reasoning model's thinking (the model is generating: the silence timer is reset, no text is
   * shown), or undefined (metadata, an empty delta, a ping). Throws ProviderError for an error frame.
   */
  push(data: string, event: string | undefined): string | typeof THINKING | undefined;
  /**
   * The whole reply, once the stream ended (validated by the driver exactly like a buffered one).
   * Throws ProviderError for a stream that ended early (without its last frame) — unless
   * `stoppedByHost`: the host stopped reading a server that ran past the token bound.
   */
  finish(status: number, stoppedByHost?: boolean): InferReply;
}

export type Provider = LocalProvider | HttpProvider;

/**
 * Options of the host's HTTP transport (docs/inference.md, *Timeouts*; docs/reliability.md,
 * *Bounds*). A model call has phases, each with its own limit: connecting, waiting for the first
 * byte of the response (the server's queue and the prompt's evaluation; for an unstreamed reply
 * the whole generation), and silence between pieces of content once it streams; a deadline covers
 * the whole call, attempts and back-off waits included, and nothing the server sends extends it.
 * The time a call waits in the host's own queue (`concurrency`) counts against none of them. Only
 * a failure before the first byte came back is sent again: once a server answered, its generation
 * had begun. A reply is bounded in bytes, and so is each line or event of a stream.
 */
export interface TransportOptions {
  /** connecting (TCP and TLS) (default 10 000) */
  connectTimeoutMs: number;
  /** from sending to the first byte of the response, and for a stream to its first content (default 300 000: a slow local model's prompt, a reasoning model, or a whole unstreamed reply) */
  firstByteTimeoutMs: number;
  /** the longest silence once the response started: between chunks of a buffered body, between pieces of content of a stream (keep-alives do not count) (default 60 000) */
  idleTimeoutMs: number;
  /** the whole call, from its first attempt's start to its reply, every attempt and back-off wait included; 0 = no limit (default 600 000) */
  totalTimeoutMs: number;
  /** the most bytes of one response body (default 8 MiB) */
  maxReplyBytes: number;
  /** the most bytes of one line, or one event's data, of a streamed response (default 1 MiB) */
  maxFrameBytes: number;
  /** extra HTTP attempts after a failure before any byte came back: 429, 5xx, connect or first-byte timeout, refused connection (default 2) */
  retries: number;
  /** first back-off wait; doubles per retry (default 500) */
  backoffMs: number;
  /** the longest wait the host accepts (a longer retry-after fails at once; default 30 000) */
  maxWaitMs: number;
  /** model calls in flight at once to one server (0 = no limit); a loopback server gets 1 unless told (default: 1 for 127.0.0.1/localhost/::1, else 0) */
  concurrency?: number;
}

export const DEFAULT_TRANSPORT: TransportOptions = {
  connectTimeoutMs: 10_000,
  firstByteTimeoutMs: 300_000,
  idleTimeoutMs: 60_000,
  totalTimeoutMs: 600_000,
  maxReplyBytes: 8 * 1024 * 1024,
  maxFrameBytes: 1024 * 1024,
  retries: 2,
  backoffMs: 500,
  maxWaitMs: 30_000,
};

/** A failed model call. `retryable` failures are retried by the transport, within its budget. */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly retryable = false,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/** A model spec that cannot be used (unknown provider, bad fixture file, bad option). */
export class ModelConfigError extends Error {}
