// The fetch an MCP session over Streamable HTTP uses under `identity::oauth("name")`: it sends the
// stored access token (to the server's origin only: the session's own fetch refuses any other),
// refreshes it shortly before it expires, and answers the server's refusals as the authorization
// section of the 2025-11-25 revision says: a 401 signs in (the scope its WWW-Authenticate names,
// else the protected resource's scopes_supported, else none), a 403 `insufficient_scope` signs in
// again for the wider scope (step-up). The request is then sent again; a request is signed in for
// at most MAX_AUTHORIZATIONS times, then its refusal is the answer (no endless loop with a server
// that is never satisfied).
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { McpError } from '../server.js';
import { openLoopback } from './loopback.js';
import { MAX_AUTHORIZATIONS } from './options.js';
import type { TurnOAuthProvider } from './provider.js';

/** A token this close to its expiry is refreshed before it is sent. */
const EXPIRY_MARGIN_MS = 30_000;

/** The scopes of `a` and `b` together (space-separated sets, order kept). */
export function scopeUnion(a: string | undefined, b: string | undefined): string | undefined {
  const all = [...new Set([...(a ?? '').split(' '), ...(b ?? '').split(' ')].filter(Boolean))];
  return all.length ? all.join(' ') : undefined;
}

/** The port of a stored registration's loopback redirect, reused so an authorization server that matches redirect URIs exactly still matches. */
function registeredPort(redirectUris: unknown): number {
  const first = Array.isArray(redirectUris) ? redirectUris[0] : undefined;
  try {
    const u = new URL(String(first));
    return u.hostname === '127.0.0.1' && u.port ? Number(u.port) : 0;
  } catch {
    return 0;
  }
}

/** `personActs`: how the wait for a person runs (the host stops the tool calls' clocks meanwhile). */
export function signInFetch(server: URL, provider: TurnOAuthProvider, next: typeof globalThis.fetch, asFetch: typeof globalThis.fetch, personActs: <T>(f: () => Promise<T>) => Promise<T> = (f) => f()): typeof globalThis.fetch {
  // one sign-in at a time: concurrent requests that meet a 401 wait for the one under way
  let signingIn: Promise<void> | undefined;

  const authorize = (resourceMetadataUrl: URL | undefined, scope: string | undefined): Promise<void> => {
    signingIn ??= (async () => {
      // discovery afresh at each sign-in: the protected resource metadata may name another
      // authorization server by now (SEP-2352), and then auth() registers there anew, never
      // presenting the credentials stamped for the previous one
      await provider.invalidateCredentials('discovery');
      const client = await provider.clientInformation();
      // a machine client has no redirect to wait for
      const loopback = provider.interactive ? await openLoopback(registeredPort((client as { redirect_uris?: unknown } | undefined)?.redirect_uris)) : undefined;
      provider.loopback = loopback;
      try {
        const options = { serverUrl: server, fetchFn: asFetch, ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}), ...(scope ? { scope } : {}) };
        // the browser is opened inside auth() and the redirect waited for after it: a person's time, not the call's
        let result = provider.interactive ? await personActs(() => auth(provider, options)) : await auth(provider, options);
        if (result === 'REDIRECT') {
          const authorizationCode = await personActs(() => provider.redirected());
          result = await auth(provider, { ...options, authorizationCode });
        }
        if (result !== 'AUTHORIZED') throw new McpError(`the sign-in to ${server.origin} did not complete`);
      } finally {
        loopback?.close();
        provider.loopback = undefined;
      }
    })().finally(() => (signingIn = undefined));
    return signingIn;
  };

  const send = async (input: string | URL | Request, init: RequestInit | undefined): Promise<Response> => {
    const headers = new Headers(init?.headers);
    const tokens = await provider.tokens();
    if (tokens) headers.set('authorization', `Bearer ${tokens.access_token}`);
    return next(input, { ...init, headers });
  };

  return async (input, init) => {
    if (signingIn) await signingIn.catch(() => undefined);
    const held = await provider.tokens();
    if (held?.refresh_token && held.expires_at !== undefined && held.expires_at - EXPIRY_MARGIN_MS <= Date.now()) {
      await authorize(undefined, held.scope); // auth() refreshes it (or signs in again when the refresh is refused)
    }
    let response = await send(input, init);
    for (let attempts = 0; response.status === 401 || response.status === 403; attempts++) {
      const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(response);
      if (response.status === 403 && error !== 'insufficient_scope') return response;
      if (attempts >= MAX_AUTHORIZATIONS) {
        await response.body?.cancel().catch(() => undefined);
        throw new McpError(`${server.origin}${server.pathname} still refuses the request after ${MAX_AUTHORIZATIONS} sign-ins (${response.status}${error ? ` ${error}` : ''}${scope ? `, scope "${scope.slice(0, 200)}"` : ''})`);
      }
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 403) {
        // step-up: a new authorization for the scopes held and the ones the server asks for
        const wider = scopeUnion((await provider.tokens())?.scope, scope);
        await provider.invalidateCredentials('tokens');
        await authorize(resourceMetadataUrl, wider);
      } else {
        await authorize(resourceMetadataUrl, scope);
      }
      response = await send(input, init);
    }
    return response;
  };
}
