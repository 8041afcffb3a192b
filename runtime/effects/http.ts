// The host's HTTP effect. Order matters: the network capability is checked before anything else,
// approval is asked next, and only then is the identity's secret resolved from the vault and
// injected. Errors, results and journal entries are redacted so the secret never comes back.
import {
  check, requireApproval, EffectDenied, type ApprovalHook, type ApprovalRecord, type Capabilities,
} from './capabilities.js';
import { describeIdentity, injectIdentity, isFileIdentity, parseIdentity, secretName, secretOptional, IdentityError, type IdentityHandle } from './identity.js';
import { Redactor, secretEnvName, type Vault } from './vault.js';
import { markRefusedBeforeSending } from '../ports/refusal.js';

export interface HttpRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  /** Added to the URL's query string (values stringified; arrays repeat the key). */
  query?: Record<string, string | number | boolean | null | undefined | (string | number | boolean)[]>;
  /** A string is sent as is; anything else as JSON (with content-type application/json). */
  body?: unknown;
  identity?: IdentityHandle;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** the body's bytes, instead of `body`, when the context asks for `binary` (std/media) */
  bytes?: Uint8Array;
}

/** Methods a retry may send again without a key: they change nothing. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface HttpContext {
  vault: Vault;
  capabilities: Capabilities;
  approve?: ApprovalHook;
  /** Defaults to Node's global fetch. */
  fetch?: typeof globalThis.fetch;
  /** Default 30 000 ms. */
  timeoutMs?: number;
  /** Receives every secret resolved (share it with trace/journal/stdout). A private one otherwise. */
  redactor?: Redactor;
  journal?: (entry: ApprovalRecord) => void;
  /** The effect's journal key: sent as `Idempotency-Key` on a request that is not idempotent. */
  idempotencyKey?: string;
  /** The W3C trace context of the effect's span (runtime/telemetry): sent as `traceparent` unless the program set one. */
  traceparent?: string;
  /** Redirects followed (each re-checked against the capability); default 5. */
  maxRedirects?: number;
  /** Largest response body read, in bytes; default 10 MiB. */
  maxBodyBytes?: number;
  /** Aborts the request (headers or body) when its process is cancelled or the run ends. */
  signal?: AbortSignal;
  /** Return the body as bytes (`bytes`), not as text: an image or a document (std/media). */
  binary?: boolean;
}

/** A failed HTTP effect (capability, identity, network, timeout). Its message never holds a secret. */
export class HttpEffectError extends Error {}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export async function performHttp(request: HttpRequest, ctx: HttpContext): Promise<HttpResponse> {
  const redactor = ctx.redactor ?? new Redactor();
  const method = String(request.method ?? 'GET').toUpperCase();
  if (!METHODS.has(method)) throw new HttpEffectError(`unsupported HTTP method "${request.method}"`);

  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    throw new HttpEffectError(`"${request.url}" is not a valid URL`);
  }
  for (const [k, v] of Object.entries(request.query ?? {})) {
    if (v === undefined || v === null) continue;
    if (Array.isArray(v)) for (const x of v) url.searchParams.append(k, String(x));
    else url.searchParams.append(k, String(v));
  }
  if (url.username || url.password) throw new HttpEffectError('credentials in a URL are not allowed: use grant identity::basic(...)');

  // 1. Authority: the capability, before anything else.
  const verdict = check(ctx.capabilities, { kind: 'network', url: url.href, method });
  if (!verdict.ok) throw new EffectDenied(verdict.message);

  // 2. Approval.
  const who = request.identity ? ` with ${describeIdentity(request.identity)}` : '';
  await requireApproval(verdict.approve, { effect: 'network', summary: `${method} ${url.origin}${url.pathname}${who}` }, ctx.approve, ctx.journal);

  // 3. Headers and body.
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers ?? {})) {
    if (/[\r\n\0]/.test(String(v))) throw new HttpEffectError(`the header ${k} contains a line break`);
    headers[k.toLowerCase()] = String(v);
  }
  // a service that deduplicates sees one request, however often an unknown outcome is retried
  if (ctx.idempotencyKey !== undefined && !SAFE_METHODS.has(method) && headers['idempotency-key'] === undefined) headers['idempotency-key'] = ctx.idempotencyKey;
  if (ctx.traceparent !== undefined && headers.traceparent === undefined) headers.traceparent = ctx.traceparent;
  let body: string | undefined;
  if (request.body !== undefined && request.body !== null && method !== 'GET' && method !== 'HEAD') {
    if (typeof request.body === 'string') body = request.body;
    else {
      body = JSON.stringify(request.body);
      headers['content-type'] ??= 'application/json';
    }
  }

  // 4. The secret, only now.
  let secret: string | undefined;
  if (request.identity && isFileIdentity(request.identity)) {
    throw new HttpEffectError(`${describeIdentity(request.identity)} is a file authority and cannot authenticate an HTTP request`);
  }
  if (request.identity) {
    let name: string;
    try {
      name = secretName(request.identity);
    } catch (e) {
      throw new HttpEffectError((e as Error).message);
    }
    secret = await ctx.vault.resolve(name);
    if (secret === undefined && secretOptional(request.identity)) {
      // identity::network without a secret: the request goes without a credential
    } else if (secret === undefined) {
      throw markRefusedBeforeSending(
        new HttpEffectError(`the secret "${name}" for ${describeIdentity(request.identity)} is not set (set ${secretEnvName(name)} or add it to the --secrets file)`),
      );
    }
    if (secret !== undefined) redactor.add(name, secret);
    // `identity::basic("user:name")` sends base64("user:" + secret): redact that exact encoding too
    const spec = parseIdentity(request.identity.kind, request.identity.name);
    if (spec.ok && spec.spec.kind === 'basic' && spec.spec.user !== undefined) redactor.add(name, `${spec.spec.user}:${secret}`);
  }

  const doFetch = ctx.fetch ?? globalThis.fetch;
  const timeoutMs = ctx.timeoutMs ?? 30_000;
  const maxRedirects = ctx.maxRedirects ?? 5;
  const origin = url.origin;
  let current = url;
  let currentMethod = method;
  let currentBody = body;
  try {
    for (let hop = 0; ; hop++) {
      const out = { url: new URL(current.href), headers: { ...headers } };
      // The credential goes only to the origin the program asked for, never to a redirect elsewhere.
      if (request.identity && secret !== undefined && current.origin === origin) {
        try {
          injectIdentity(out, request.identity, secret);
        } catch (e) {
          if (e instanceof IdentityError) throw new HttpEffectError(e.message);
          throw e;
        }
      }
      const res = await doFetch(out.url.href, {
        method: currentMethod,
        headers: out.headers,
        body: currentBody,
        redirect: 'manual',
        signal: ctx.signal ? AbortSignal.any([AbortSignal.timeout(timeoutMs), ctx.signal]) : AbortSignal.timeout(timeoutMs),
      });
      const location = res.headers.get('location');
      if ([301, 302, 303, 307, 308].includes(res.status) && location && hop < maxRedirects) {
        await res.body?.cancel().catch(() => undefined);
        const next = new URL(location, current);
        const again = check(ctx.capabilities, { kind: 'network', url: next.href, method: currentMethod });
        if (!again.ok) throw new EffectDenied(`redirect refused: ${again.message}`, true); // an outcome: the first request was sent
        if (res.status === 303 || ((res.status === 301 || res.status === 302) && currentMethod === 'POST')) {
          currentMethod = 'GET';
          currentBody = undefined;
          delete headers['content-type'];
        }
        current = next;
        continue;
      }
      const raw = await readBody(res, ctx.maxBodyBytes ?? 10 * 1024 * 1024);
      const resHeaders: Record<string, string> = {};
      res.headers.forEach((v, k) => {
        resHeaders[k] = v;
      });
      if (ctx.binary) return { ...redactor.redactDeep({ status: res.status, headers: resHeaders, body: '' }), bytes: raw };
      return redactor.redactDeep({ status: res.status, headers: resHeaders, body: raw.toString('utf8') });
    }
  } catch (e) {
    if (e instanceof EffectDenied) throw new EffectDenied(redactor.redact(e.message), e.outcome);
    if (e instanceof HttpEffectError) throw new HttpEffectError(redactor.redact(e.message));
    const err = e as Error;
    const target = `${currentMethod} ${current.origin}${current.pathname}`;
    if (ctx.signal?.aborted) throw new HttpEffectError(`${target} cancelled: ${abortReason(ctx.signal)}`);
    if (err.name === 'TimeoutError' || err.name === 'AbortError') throw new HttpEffectError(`${target} timed out after ${timeoutMs} ms`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    const detail = cause?.code ?? cause?.message ?? err.message;
    throw new HttpEffectError(redactor.redact(`${target} failed: ${detail}`));
  }
}

function abortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  return r instanceof Error ? r.message : typeof r === 'string' ? r : 'aborted';
}

async function readBody(res: Response, limit: number): Promise<Buffer> {
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw new HttpEffectError(`the response body is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}
