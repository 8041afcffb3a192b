// The host side of a model call: performs the HTTP call an HttpProvider describes, with the
// credential injected here and nowhere else. A call has phases, each with its own limit
// (docs/inference.md, *Timeouts*): connecting, the first byte of the response, silence between
// pieces of content, and a deadline for the whole call (every attempt and back-off wait) that
// nothing extends. A reply is bounded in bytes too (`max_reply_bytes`, and `max_frame_bytes` per
// streamed line or event): a server cannot make the host buffer without end. Only a failure before
// the server answered is sent again (429, 5xx, refused or timed-out connections, no first byte):
// once response headers came back, the server had started on it, and a resend would throw that
// generation away. A streamed reply (SSE or NDJSON, providers' `stream`) is read frame by frame,
// its text reported as `infer.delta` events, and decoded when complete; only content resets the
// silence timer, so keep-alives (SSE comments, empty deltas, Anthropic pings, Ollama's empty
// lines) cannot hold a call open. Calls to one server wait in the host's queue (`concurrency`),
// where no clock runs. Every way it can fail ends in a ProviderError that says what came over the
// wire (status, content type, bytes, time) and which option to change, never a hang.
import type * as http from 'node:http';
import type { InferIO, InferReply, InferRequest } from '../infer/types.js';
import { FrameTooLarge, MalformedMessage, readFrames } from './frames.js';
import { markRefusedBeforeSending } from '../ports/refusal.js';
import { signRequest, type SigV4Credentials } from './sigv4.js';
import { DEFAULT_TRANSPORT, ProviderError, THINKING, type Framing, type HttpCall, type HttpProvider, type HttpResult, type Provider, type SigV4Auth, type StreamDecoder, type TransportOptions } from './types.js';

export interface SecretSource {
  /** the secret named `name`, or undefined */
  get(name: string): string | undefined;
}

export const envSecrets: SecretSource = { get: (name) => process.env[name] || undefined };

/**
 * Where a call's URL is sent: the identity by default. A test maps a fixed hosted origin (a Wasm
 * driver's `https://api.example.com`) to a local fake on 127.0.0.1; the call keeps its URL otherwise.
 */
export type Dial = (url: string) => string;

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

/** The host's model call for any provider. A local provider (mock, script) answers at once. */
export function exchangeFor(provider: Provider, options: Partial<TransportOptions> = {}, secrets: SecretSource = envSecrets, dial: Dial = (u) => u): Exchange {
  if (provider.kind === 'local') return async (request, io) => provider.answer(request, io);
  const opts = { ...DEFAULT_TRANSPORT, ...options };
  return (request, io) => httpExchange(provider, request, opts, secrets, dial, io);
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

// ---- the host's queue per server

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** How many calls may be in flight to `url`'s server at once (0 = no limit). */
export function concurrencyFor(url: string, opts: Pick<TransportOptions, 'concurrency'>): number {
  if (opts.concurrency !== undefined) return opts.concurrency;
  try {
    return LOOPBACK.has(new URL(url).hostname) ? 1 : 0;
  } catch {
    return 0;
  }
}

class Gate {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly limit: number) {}

  /** Resolves once a slot is free; the returned function frees it. */
  async enter(signal?: AbortSignal): Promise<() => void> {
    if (this.limit > 0 && this.active >= this.limit) {
      await new Promise<void>((resolve, reject) => {
        const go = () => {
          signal?.removeEventListener('abort', stop);
          resolve();
        };
        const stop = () => {
          const i = this.waiting.indexOf(go);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(new Error('cancelled while queued'));
        };
        this.waiting.push(go);
        signal?.addEventListener('abort', stop, { once: true });
      });
    }
    this.active++;
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      this.active--;
      this.waiting.shift()?.();
    };
  }
}

const gates = new Map<string, Gate>();

function gateFor(url: string, limit: number): Gate {
  const origin = new URL(url).origin;
  const key = `${origin} ${limit}`;
  let g = gates.get(key);
  if (!g) gates.set(key, (g = new Gate(limit)));
  return g;
}

// ---- one call

/** The transport's limits with an infer's own (`with { timeout_ms: 60000 }`) over the spec's. */
function callOptions(opts: TransportOptions, request: InferRequest): TransportOptions {
  const o = request.options;
  if (!o) return opts;
  const out = { ...opts };
  if (o.connectTimeoutMs !== undefined) out.connectTimeoutMs = o.connectTimeoutMs;
  if (o.firstByteTimeoutMs !== undefined) out.firstByteTimeoutMs = o.firstByteTimeoutMs;
  if (o.idleTimeoutMs !== undefined) out.idleTimeoutMs = o.idleTimeoutMs;
  if (o.timeoutMs !== undefined) out.totalTimeoutMs = o.timeoutMs;
  return out;
}

async function httpExchange(provider: HttpProvider, request: InferRequest, specOpts: TransportOptions, secrets: SecretSource, dial: Dial, io?: CancellableIO): Promise<InferReply> {
  const opts = callOptions(specOpts, request);
  const call = provider.encode(request);
  // a header's secret is resolved once; a signature (SigV4) per attempt, as it carries the time
  const sigv4 = call.auth?.kind === 'sigv4' ? call.auth : undefined;
  if (sigv4) credentialsFor(sigv4, secrets); // missing credentials fail before the queue
  const headers = sigv4 ? undefined : withSecret(call, secrets);
  const signal = io?.signal;
  // the call's deadline (timeout_ms) counts its attempts and back-off waits, not the host's queue
  let spent = 0;
  const taken = performance.now();
  let queuedMs = 0;
  const left = () => (opts.totalTimeoutMs > 0 ? opts.totalTimeoutMs - spent : Infinity);
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) throw cancelled(signal, call.url);
    let err: ProviderError;
    let leave: (() => void) | undefined;
    const queued = performance.now();
    try {
      leave = await gateFor(call.url, concurrencyFor(call.url, opts)).enter(signal);
    } catch {
      throw cancelled(signal!, call.url);
    }
    const started = performance.now();
    queuedMs += started - queued;
    try {
      const decoder = call.stream && provider.stream ? provider.stream.decoder(request) : undefined;
      const sent = headers ?? (await signed(call, secrets, dial));
      const got = await send(call, sent, { ...opts, callLeftMs: left(), attempt }, dial, decoder, provider.stream?.framing ?? 'sse', io, signal);
      const reply = got.streamed ?? decodeResult(provider, got, request);
      const sentMs = started - taken;
      const phases: CallPhases = {
        queuedMs: Math.round(queuedMs),
        sentMs: Math.round(sentMs),
        firstByteMs: got.firstByteMs !== undefined ? Math.round(sentMs + got.firstByteMs) : null,
        lastByteMs: got.lastByteMs !== undefined ? Math.round(sentMs + got.lastByteMs) : null,
      };
      reply.meta = { ...reply.meta, httpAttempts: attempt, httpMs: Math.round(performance.now() - started), phases, ...(got.streamed ? { streamed: true } : {}) };
      if (request.sampling || request.maxTokens !== undefined) reply.meta.sampling = sentSampling(call);
      // no server promises that a seed reproduces a reply; some APIs take none (docs/inference.md, *Seeds*)
      if (request.sampling?.seed !== undefined) reply.meta.seedGuarantee = provider.seed ?? 'best-effort';
      return reply;
    } catch (e) {
      err = e instanceof ProviderError ? e : new ProviderError(String((e as Error)?.message ?? e));
    } finally {
      leave();
      spent += performance.now() - started;
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
    if (wait >= left()) {
      throw new ProviderError(`${err.message} (not sent again: the call's deadline, timeout_ms=${opts.totalTimeoutMs}, ends before another attempt could start; raise timeout_ms to wait longer)`, false, err.status);
    }
    io?.emit({ kind: 'http.retry', provider: provider.name, attempt: attempt + 1, status: err.status ?? null, waitMs: wait, reason: err.message });
    const waited = performance.now();
    await sleep(wait, signal);
    spent += performance.now() - waited;
  }
}

/** A buffered response decoded by its provider; what it refuses says what came over the wire. */
function decodeResult(provider: HttpProvider, got: Sent, request: InferRequest): InferReply {
  try {
    return provider.decode(got.result!, request);
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    // a message that names the status already (`HTTP 500 from …`) gets the rest of the account
    const wire = e.message.includes(`HTTP ${got.result!.status} `) ? got.wire!.replace(/^HTTP \d+, /, '') : got.wire;
    throw new ProviderError(`${e.message} (${wire})`, e.retryable, e.status, e.retryAfterMs);
  }
}

/** The sampling parameters the body actually carries (for the journal: `meta.sampling`). */
function sentSampling(call: HttpCall): Record<string, number> {
  const out: Record<string, number> = {};
  try {
    const b = JSON.parse(call.body) as Record<string, unknown>;
    // Ollama's native API: options; Gemini: generationConfig; Bedrock: inferenceConfig
    const opts = (b.options ?? b.generationConfig ?? b.inferenceConfig ?? {}) as Record<string, unknown>;
    for (const [k, v] of [
      ['seed', b.seed ?? opts.seed],
      ['temperature', b.temperature ?? opts.temperature],
      ['maxTokens', b.max_tokens ?? b.max_completion_tokens ?? b.max_output_tokens ?? opts.num_predict ?? opts.maxOutputTokens ?? opts.maxTokens],
    ] as const) {
      if (typeof v === 'number') out[k] = v;
    }
  } catch {
    // not JSON: nothing to record
  }
  return out;
}

/** The headers to send: the call's own plus the credential, resolved now. */
function withSecret(call: HttpCall, secrets: SecretSource): Record<string, string> {
  const headers = { ...call.headers };
  const auth = call.auth;
  if (auth && auth.kind !== 'sigv4') {
    const secret = secrets.get(auth.env);
    if (secret === undefined) {
      if (auth.required) throw markRefusedBeforeSending(new ProviderError(`no API key: the environment variable ${auth.env} is not set`));
    } else {
      headers[auth.header] = auth.prefix + secret;
    }
  }
  return headers;
}

/** The AWS credentials a SigV4 call names, read now; missing ones fail before anything is sent. */
function credentialsFor(auth: SigV4Auth, secrets: SecretSource): SigV4Credentials {
  const accessKeyId = secrets.get(auth.accessKeyEnv);
  const secretAccessKey = secrets.get(auth.secretKeyEnv);
  if (accessKeyId === undefined || secretAccessKey === undefined) {
    const missing = [accessKeyId === undefined ? auth.accessKeyEnv : '', secretAccessKey === undefined ? auth.secretKeyEnv : ''].filter(Boolean).join(' and ');
    throw markRefusedBeforeSending(new ProviderError(`no AWS credentials: the environment variable${missing.includes(' and ') ? 's' : ''} ${missing} ${missing.includes(' and ') ? 'are' : 'is'} not set`));
  }
  const sessionToken = secrets.get(auth.sessionTokenEnv);
  return { accessKeyId, secretAccessKey, ...(sessionToken !== undefined ? { sessionToken } : {}) };
}

/** The call's headers signed with SigV4 for the URL it is sent to. */
async function signed(call: HttpCall, secrets: SecretSource, dial: Dial): Promise<Record<string, string>> {
  const auth = call.auth as SigV4Auth;
  try {
    return await signRequest(auth, credentialsFor(auth, secrets), dial(call.url), call.headers, call.body);
  } catch (e) {
    if (e instanceof ProviderError) throw e;
    throw new ProviderError(`cannot sign the request to ${call.url} (SigV4): ${(e as Error).message}`);
  }
}

/** Chunks past the bound the request asked for before the host stops reading (a server that ignores max_tokens). */
const TOKEN_SLACK = 32;

interface Sent {
  /** a buffered response, for the provider's decode */
  result?: HttpResult;
  /** what came over the wire for it: `HTTP 500, application/json, 138 bytes in 12 ms` */
  wire?: string;
  /** a streamed reply, decoded */
  streamed?: InferReply;
  /** when the response's first byte (its headers) and last byte came, in ms since the request was sent */
  firstByteMs?: number;
  lastByteMs?: number;
}

/**
 * The phases of a model call, in reply.meta.phases (ms, from the transport taking the call): how
 * long it waited in the host's queue for its server (all attempts), when its last attempt was sent,
 * and when that attempt's first and last byte came. The panel draws queue, network and generation
 * as distinct parts of the call's bar from them.
 */
export interface CallPhases {
  queuedMs: number;
  sentMs: number;
  firstByteMs: number | null;
  lastByteMs: number | null;
}

/** One attempt's options: the transport's, with what is left of the call's deadline. */
interface AttemptOptions extends TransportOptions {
  /** milliseconds left of the call's deadline (Infinity: none) */
  callLeftMs: number;
  attempt: number;
}

/** What came over the wire so far, for messages: `HTTP 200, text/event-stream, 12345 bytes in 812 ms`. */
class Wire {
  status?: number;
  type = '';
  bytes = 0;
  readonly t0 = performance.now();
  firstByte?: number;
  lastByte?: number;
  /** the response's first and last byte, for the call's phases */
  times(): Pick<Sent, 'firstByteMs' | 'lastByteMs'> {
    return { ...(this.firstByte !== undefined ? { firstByteMs: this.firstByte } : {}), ...(this.lastByte !== undefined ? { lastByteMs: this.lastByte } : {}) };
  }
  ms(): number {
    return Math.round(performance.now() - this.t0);
  }
  toString(): string {
    if (this.status === undefined) return `no response after ${this.ms()} ms`;
    return `HTTP ${this.status}${this.type ? `, ${this.type}` : ''}, ${this.bytes} bytes in ${this.ms()} ms`;
  }
}

function send(
  call: HttpCall,
  headers: Record<string, string>,
  opts: AttemptOptions,
  dial: Dial,
  decoder: StreamDecoder | undefined,
  framing: Framing,
  io: CancellableIO | undefined,
  signal: AbortSignal | undefined,
): Promise<Sent> {
  const url = call.url;
  return new Promise<Sent>((resolve, reject) => {
    let target: URL;
    try {
      target = new URL(dial(url));
    } catch {
      reject(new ProviderError(`cannot send to ${url}: not a URL`));
      return;
    }
    // node:http and node:https (with net and tls) are required on the first call, not at every start
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const lib = (target.protocol === 'https:' ? require('node:https') : require('node:http')) as typeof http;
    const body = Buffer.from(call.body, 'utf8');
    const wire = new Wire();
    let answered = false; // response headers came back: the server has the request
    let settled = false;
    let phase: ReturnType<typeof setTimeout> | undefined;
    let total: ReturnType<typeof setTimeout> | undefined;
    const finish = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(phase);
      clearTimeout(total);
      signal?.removeEventListener('abort', onCancel);
      f();
    };
    const fail = (e: ProviderError) => {
      finish(() => reject(e));
      req.destroy();
    };
    const arm = (ms: number, what: () => ProviderError) => {
      clearTimeout(phase);
      if (ms > 0) phase = setTimeout(() => fail(what()), ms);
    };
    /** A failure once the server had started on the request: never sent again. */
    const midReply = (what: string, change: string) =>
      new ProviderError(`${what} from ${url} (${wire}); not sent again, as the server had started on it${change ? ` (${change})` : ''}`, false, wire.status);
    const onCancel = () => {
      finish(() => reject(cancelled(signal!, url)));
      req.destroy();
    };

    const req = lib.request(target, { method: call.method, headers: { ...headers, 'content-length': String(body.length) } });
    arm(opts.connectTimeoutMs, () => new ProviderError(`cannot reach ${url}: no connection within ${opts.connectTimeoutMs} ms (connect_timeout_ms)`, true));
    if (opts.callLeftMs !== Infinity) {
      // the call's deadline: content does not move it, keep-alives do not, a resend does not
      const deadline = `the call's deadline, timeout_ms=${opts.totalTimeoutMs}, passed`;
      total = setTimeout(
        () =>
          fail(
            answered
              ? midReply(`no complete reply: ${deadline}`, 'raise timeout_ms for a reply that takes longer')
              : new ProviderError(`no response from ${url}: ${deadline} (${wire}, attempt ${opts.attempt}; raise timeout_ms, or first_byte_timeout_ms for a server slow to start)`, false),
          ),
        Math.max(0, opts.callLeftMs),
      );
    }
    signal?.addEventListener('abort', onCancel, { once: true });
    const firstByte = () =>
      arm(opts.firstByteTimeoutMs, () =>
        answered
          ? midReply(`no first byte of the body within ${opts.firstByteTimeoutMs} ms of the headers`, 'raise first_byte_timeout_ms')
          : new ProviderError(`no reply from ${url} within ${opts.firstByteTimeoutMs} ms of sending (first_byte_timeout_ms)`, true),
      );
    let sentAt = wire.t0;
    req.on('socket', (socket) => {
      const connected = () => {
        sentAt = performance.now();
        firstByte();
      };
      if (!socket.connecting) connected();
      else socket.once(target.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
    });
    req.on('error', (e: Error & { code?: string }) => {
      if (settled) return;
      const detail = e.code ?? e.message;
      fail(answered ? midReply(`the connection was dropped (${detail})`, '') : new ProviderError(`cannot reach ${url}: ${detail}`, true));
    });
    req.on('response', (res) => {
      answered = true;
      wire.firstByte = wire.ms();
      const status = res.statusCode ?? 0;
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
      const type = out['content-type'] ?? '';
      wire.status = status;
      wire.type = type.split(';')[0].trim();
      const streaming = decoder !== undefined && status >= 200 && status < 300 && /event-stream|eventstream|ndjson|jsonl/.test(type);
      const chunks: Buffer[] = [];
      let tokens = 0;
      const bound = call.maxTokens;
      // silence: a buffered body resets it with any bytes, a stream only with content (a delta)
      const silence = () =>
        arm(opts.idleTimeoutMs, () =>
          midReply(
            streaming ? `no content for ${opts.idleTimeoutMs} ms (idle_timeout_ms; keep-alives and empty events do not count)` : `the reply stopped: no data for ${opts.idleTimeoutMs} ms (idle_timeout_ms)`,
            'raise idle_timeout_ms for a model that pauses longer',
          ),
        );
      const frames = streaming
        ? readFrames(
            framing,
            (data, event) => {
              const delta = decoder.push(data, event);
              if (delta === THINKING) silence(); // generation, not yet the reply
              else if (delta) {
                tokens++;
                silence(); // the first content replaces the first-byte timer
                io?.emit({ kind: 'infer.delta', delta, tokens, elapsedMs: wire.ms() });
                if (bound !== undefined && tokens > bound + TOKEN_SLACK) throw new StopReading();
              }
            },
            opts.maxFrameBytes,
          )
        : undefined;
      // what a decoder refused (an error event, no choices, a stream that ended early), with the wire's account
      const malformed = (e: unknown) =>
        e instanceof ProviderError
          ? new ProviderError(`${e.message} (${wire})`, e.retryable, e.status ?? wire.status, e.retryAfterMs)
          : e instanceof FrameTooLarge
            ? midReply(`refused the stream: ${e.message} (max_frame_bytes)`, 'raise max_frame_bytes if the server really sends such frames')
            : e instanceof MalformedMessage
            ? midReply(`the stream is malformed: ${e.message}`, '')
            : midReply(`the stream is malformed: ${(e as Error).message}`, '');
      res.on('data', (c: Buffer) => {
        if (settled) return;
        wire.bytes += c.length;
        if (wire.bytes > opts.maxReplyBytes) {
          fail(midReply(`refused the reply: it is over ${opts.maxReplyBytes} bytes (max_reply_bytes)`, 'raise max_reply_bytes for a larger reply'));
          return;
        }
        if (!frames) {
          silence(); // any bytes of a buffered body
          chunks.push(c);
          return;
        }
        try {
          frames.push(c);
        } catch (e) {
          if (e instanceof StopReading) {
            // the server ignored the bound: the reply ends here, as if it had stopped at its limit
            let reply: InferReply;
            try {
              reply = decoder!.finish(status, true);
            } catch (err) {
              fail(malformed(err));
              return;
            }
            reply.finishReason = 'length';
            wire.lastByte = wire.ms();
            finish(() => resolve({ streamed: reply, ...wire.times() }));
            req.destroy();
            return;
          }
          fail(malformed(e));
        }
      });
      res.on('end', () => {
        if (settled) return;
        wire.lastByte = wire.ms();
        try {
          if (frames) {
            frames.end();
            // decoded before `finish`: a decoder that throws (no choices, a refusal, a stream that
            // ended early) must reach `fail` while the call is still unsettled
            const streamed = decoder!.finish(status);
            finish(() => resolve({ streamed, ...wire.times() }));
          } else {
            const result = { status, headers: out, body: Buffer.concat(chunks).toString('utf8') };
            finish(() => resolve({ result, wire: String(wire), ...wire.times() }));
          }
        } catch (e) {
          fail(malformed(e));
        }
      });
      res.on('error', (e: Error & { code?: string }) => fail(midReply(`the connection was dropped mid-reply (${e.code ?? e.message})`, '')));
      res.on('aborted', () => fail(midReply('the connection was dropped mid-reply', '')));
      if (streaming) {
        // Until its first content, a stream has what is left of first_byte_timeout_ms since the
        // request was sent (a reasoning model, a slow prompt): keep-alives and empty events do not
        // reset it; from the first content on, idle_timeout_ms times the silence between pieces.
        const left = Math.max(1, opts.firstByteTimeoutMs - (performance.now() - sentAt));
        arm(opts.firstByteTimeoutMs > 0 ? left : 0, () =>
          midReply(`no content within ${opts.firstByteTimeoutMs} ms of sending (first_byte_timeout_ms; keep-alives and empty events do not count)`, 'raise first_byte_timeout_ms for a model slow to start'),
        );
      } else firstByte(); // the body's first byte, then silence between chunks
    });
    req.end(body);
  });
}

class StopReading extends Error {}

/** The call as the trace may show it: headers without the credential. */
export function redactedCall(call: HttpCall): { url: string; headers: Record<string, string>; auth: string | null } {
  const auth = call.auth;
  const shown = !auth ? null : auth.kind === 'sigv4' ? `SigV4 ${auth.service}/${auth.region}: <${auth.accessKeyEnv}>, <${auth.secretKeyEnv}>` : `${auth.header}: <${auth.env}>`;
  return { url: call.url, headers: call.headers, auth: shown };
}
