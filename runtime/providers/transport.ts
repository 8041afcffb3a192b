// The host side of a model call: performs the HTTP call an HttpProvider describes, with the
// credential injected here and nowhere else, a timeout on every attempt (headers and body), and a
// bounded number of retries for retryable failures (429 with retry-after, 5xx, timeouts, broken
// connections). Every way it can fail ends in a ProviderError with a message, never a hang.
import type { InferIO, InferReply, InferRequest } from '../infer/types.js';
import { DEFAULT_TRANSPORT, ProviderError, type HttpCall, type HttpProvider, type HttpResult, type Provider, type TransportOptions } from './types.js';

export interface SecretSource {
  /** the secret named `name`, or undefined */
  get(name: string): string | undefined;
}

export const envSecrets: SecretSource = { get: (name) => process.env[name] || undefined };

export type Fetch = typeof fetch;

export interface Exchange {
  (request: InferRequest, io?: InferIO): Promise<InferReply>;
}

/**
 * The `io` of an exchange may carry the signal of the process that asked: the VM aborts it when the
 * process is cancelled or the run ends while the call is in flight, and the HTTP call stops then.
 */
export interface CancellableIO extends InferIO {
  signal?: AbortSignal;
}

/** The host's model call for any provider. */
export function exchangeFor(provider: Provider, options: Partial<TransportOptions> = {}, secrets: SecretSource = envSecrets, fetchImpl: Fetch = fetch): Exchange {
  if (provider.kind === 'local') return async (request) => provider.answer(request);
  const opts = { ...DEFAULT_TRANSPORT, ...options };
  return (request, io) => httpExchange(provider, request, opts, secrets, fetchImpl, io);
}

/** Waits `ms`, or less when `signal` aborts meanwhile. */
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });

function cancelled(signal: AbortSignal, url: string): ProviderError {
  const r: unknown = signal.reason;
  const why = r instanceof Error ? r.message : typeof r === 'string' ? r : 'aborted';
  return new ProviderError(`the request to ${url} was cancelled: ${why}`, false);
}

async function httpExchange(
  provider: HttpProvider,
  request: InferRequest,
  opts: TransportOptions,
  secrets: SecretSource,
  fetchImpl: Fetch,
  io?: CancellableIO,
): Promise<InferReply> {
  const call = provider.encode(request);
  const headers = withSecret(call, secrets);
  const signal = io?.signal;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw cancelled(signal, call.url);
    const started = performance.now();
    let err: ProviderError;
    try {
      const res = await send(call, headers, opts.timeoutMs, fetchImpl, signal);
      const reply = provider.decode(res, request);
      reply.meta = { ...reply.meta, httpAttempts: attempt, httpMs: Math.round(performance.now() - started) };
      return reply;
    } catch (e) {
      err = e instanceof ProviderError ? e : new ProviderError(String((e as Error)?.message ?? e));
    }
    const last = attempt > opts.retries;
    if (!err.retryable || last) {
      if (err.retryable && attempt > 1) throw new ProviderError(`${err.message} (gave up after ${attempt} HTTP attempts)`, false, err.status);
      throw err;
    }
    const wait = err.retryAfterMs ?? opts.backoffMs * 2 ** (attempt - 1);
    if (wait > opts.maxWaitMs) {
      throw new ProviderError(`${err.message} (asked to wait ${Math.ceil(wait / 1000)} s, more than the ${Math.ceil(opts.maxWaitMs / 1000)} s the host waits)`, false, err.status);
    }
    io?.emit({ kind: 'http.retry', provider: provider.name, attempt: attempt + 1, status: err.status ?? null, waitMs: wait, reason: err.message });
    await sleep(wait, signal);
  }
}

/** The headers to send: the call's own plus the credential, resolved now. */
function withSecret(call: HttpCall, secrets: SecretSource): Record<string, string> {
  const headers = { ...call.headers };
  if (call.auth) {
    const secret = secrets.get(call.auth.env);
    if (secret === undefined) {
      if (call.auth.required) throw new ProviderError(`no API key: the environment variable ${call.auth.env} is not set`);
    } else {
      headers[call.auth.header] = call.auth.prefix + secret;
    }
  }
  return headers;
}

async function send(call: HttpCall, headers: Record<string, string>, timeoutMs: number, fetchImpl: Fetch, signal?: AbortSignal): Promise<HttpResult> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const onCancel = () => controller.abort();
  signal?.addEventListener('abort', onCancel, { once: true });
  try {
    const res = await fetchImpl(call.url, { method: call.method, headers, body: call.body, signal: controller.signal });
    const body = await res.text();
    const out: Record<string, string> = {};
    res.headers.forEach((v, k) => (out[k.toLowerCase()] = v));
    return { status: res.status, headers: out, body };
  } catch (e) {
    if (signal?.aborted) throw cancelled(signal, call.url);
    if (controller.signal.aborted) throw new ProviderError(`no complete reply from ${call.url} within ${timeoutMs} ms`, true);
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? (e as Error).message;
    throw new ProviderError(`cannot reach ${call.url}: ${detail}`, true);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onCancel);
  }
}

/** The call as the trace may show it: headers without the credential. */
export function redactedCall(call: HttpCall): { url: string; headers: Record<string, string>; auth: string | null } {
  return { url: call.url, headers: call.headers, auth: call.auth ? `${call.auth.header}: <${call.auth.env}>` : null };
}
