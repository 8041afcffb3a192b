// The fetch of the authorization flow: every request the SDK's `auth()` makes — protected resource
// and authorization server metadata, registration, the token endpoint — goes through here. An
// authorization server is named by the MCP server's metadata, so it is outside the run and
// hostile: each URL is held to the run's network capability (asked for approval where the grant
// says), to https (http only on a loopback host), to a time limit, and its reply to
// MAX_OAUTH_RESPONSE_BYTES. Redirects are not followed. A request that carries a credential of
// the client's — an authorization code, a refresh token, a client secret, an assertion — goes only to the origin
// `tokenOrigin()` names (the issuer the metadata was checked against): a metadata document that
// points its token endpoint at another host never receives one.
import { check, requireApproval, EffectDenied, type ApprovalHook, type ApprovalRecord, type Capabilities } from '../../effects/capabilities.js';
import { McpError } from '../server.js';
import { MAX_OAUTH_RESPONSE_BYTES } from './options.js';

export interface AuthFetchAuthority {
  capabilities: Capabilities;
  approve?: ApprovalHook;
  journal?: (entry: ApprovalRecord) => void;
  pid?: number;
  fetch?: typeof globalThis.fetch;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether `u` may carry an OAuth exchange: https, or http to this machine. */
export function secureEnough(u: URL): boolean {
  return u.protocol === 'https:' || (u.protocol === 'http:' && (LOOPBACK.has(u.hostname) || u.hostname.endsWith('.localhost')));
}

/** Whether a request's body or headers carry one of the client's credentials. */
function carriesCredential(init: RequestInit | undefined): boolean {
  const body = init?.body;
  const params = body instanceof URLSearchParams ? body : typeof body === 'string' ? new URLSearchParams(body) : undefined;
  if (params && ['code', 'code_verifier', 'refresh_token', 'client_secret', 'client_assertion', 'assertion', 'subject_token'].some((k) => params.has(k))) return true;
  return new Headers(init?.headers).has('authorization');
}

/** Reads at most `max` bytes of a body; more is an error (the reader is cancelled). */
async function boundedBytes(response: Response, max: number, what: string): Promise<Uint8Array<ArrayBuffer>> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(new ArrayBuffer(0));
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => undefined);
      throw new McpError(`${what} is over ${max.toLocaleString('en-US')} bytes: refused`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(new ArrayBuffer(size));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function authorizationFetch(a: AuthFetchAuthority, timeoutMs: number, tokenOrigin: () => string | undefined): typeof globalThis.fetch {
  const approved = new Set<string>();
  const base = a.fetch ?? globalThis.fetch;
  return async (input, init) => {
    const u = new URL(input instanceof Request ? input.url : String(input));
    const what = `${u.origin}${u.pathname}`;
    if (!secureEnough(u)) throw new EffectDenied(`the authorization flow refuses ${what}: OAuth needs https (http only to this machine)`);
    const method = init?.method ?? 'GET';
    const verdict = check(a.capabilities, { kind: 'network', url: u.href, method });
    if (!verdict.ok) throw new EffectDenied(`the authorization flow cannot reach ${what}: ${verdict.message}`);
    if (verdict.approve && !approved.has(u.origin)) {
      await requireApproval(true, { effect: 'network', summary: `sign in to an MCP server through ${u.origin}`, ...(a.pid !== undefined ? { pid: a.pid } : {}) }, a.approve, a.journal);
      approved.add(u.origin);
    }
    if (carriesCredential(init)) {
      const allowed = tokenOrigin();
      if (allowed === undefined || u.origin !== allowed) {
        throw new EffectDenied(`the authorization server's metadata sends the client's credentials to ${u.origin}, not to its issuer ${allowed ?? '(unchecked)'}: refused`);
      }
    }
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    let response: Response;
    try {
      response = await base(u.href, { ...init, redirect: 'manual', signal });
    } catch (e) {
      if (timeout.aborted) throw new McpError(`${what} did not answer within ${timeoutMs / 1000} s`);
      throw e;
    }
    const bytes = await boundedBytes(response, MAX_OAUTH_RESPONSE_BYTES, `the reply of ${what}`);
    // a Response is rebuilt from what was read: the SDK parses it whole
    return new Response(response.status === 204 || response.status === 304 ? null : bytes, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
