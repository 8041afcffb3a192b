// Model providers are pure transforms. A local provider (mock, script) turns a request into a
// reply; an HTTP provider (OpenAI-compatible, Anthropic) turns a request into the description of
// an HTTP call and an HTTP response into a reply. Neither performs I/O nor sees a secret: the
// host (transport.ts) sends the call, injecting the credential named by `auth` at that moment.
import type { InferReply, InferRequest } from '../infer/types.js';

export interface LocalProvider {
  kind: 'local';
  /** e.g. `mock`, `script:replies.json` */
  name: string;
  answer(request: InferRequest): InferReply;
}

/** Where the host puts a credential: the provider names it, the host resolves it. */
export interface AuthSpec {
  /** name of the environment variable holding the key (a vault reference later) */
  env: string;
  /** header to set, e.g. `authorization` or `x-api-key` */
  header: string;
  /** text before the secret in the header, e.g. `Bearer ` */
  prefix: string;
  /** fail before sending when the key is missing (true for hosted APIs) */
  required: boolean;
}

export interface HttpCall {
  method: 'POST';
  url: string;
  /** headers without any credential */
  headers: Record<string, string>;
  body: string;
  auth?: AuthSpec;
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
  encode(request: InferRequest): HttpCall;
  /** the reply, or throws ProviderError (retryable or not) */
  decode(response: HttpResult, request: InferRequest): InferReply;
}

export type Provider = LocalProvider | HttpProvider;

/** Options of the host's HTTP transport. */
export interface TransportOptions {
  /** per HTTP attempt, headers and body included (default 60 000) */
  timeoutMs: number;
  /** extra HTTP attempts after a retryable failure: 429, 5xx, timeout, broken connection (default 2) */
  retries: number;
  /** first back-off wait; doubles per retry (default 500) */
  backoffMs: number;
  /** the longest wait the host accepts (a longer retry-after fails at once; default 30 000) */
  maxWaitMs: number;
}

export const DEFAULT_TRANSPORT: TransportOptions = { timeoutMs: 60_000, retries: 2, backoffMs: 500, maxWaitMs: 30_000 };

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
