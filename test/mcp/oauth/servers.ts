// A protected MCP server and its authorization server on 127.0.0.1, for the OAuth tests: the
// authorization server registers clients, redirects /authorize at once (no person), checks PKCE
// (S256) at /token and refreshes; the MCP server (the official SDK's) wants a bearer token it
// issued, answers 401 with its protected resource metadata, and 403 insufficient_scope for a
// tools/call whose token lacks `callScope`. Every request each one gets is recorded.
import * as http from 'node:http';
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface Seen {
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, string>;
  authorization?: string;
}

async function bodyOf(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString();
}

export async function listen(handler: (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => unknown): Promise<{ url: string; seen: Seen[]; close(): void }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    void (async () => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      const text = req.method === 'POST' ? await bodyOf(req) : '';
      let body: Record<string, string> = {};
      if (text && (req.headers['content-type'] ?? '').includes('json')) body = JSON.parse(text) as Record<string, string>;
      else if (text) body = Object.fromEntries(new URLSearchParams(text));
      const s: Seen = { method: req.method ?? 'GET', path: u.pathname, query: Object.fromEntries(u.searchParams), body, ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}) };
      seen.push(s);
      (req as { rawBody?: string }).rawBody = text;
      await handler(req, res, s);
    })().catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

const json = (res: http.ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}) =>
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));

export interface AuthServer {
  url: string;
  seen: Seen[];
  /** access token → its scopes */
  issued: Map<string, string[]>;
  /** what the metadata says, changed by a test (e.g. a token endpoint elsewhere) */
  metadata: Record<string, unknown>;
  /** the `iss` the authorization answer carries (RFC 9207), changed by a test: none by default, 'issuer' for its own */
  answer: { iss?: string };
  close(): void;
}

/** `issued`: shared with another authorization server's, for a resource server that trusts both; `clientPrefix`: its client ids' (`client-1`, ...). */
export async function authServer(issued = new Map<string, string[]>(), clientPrefix = 'client'): Promise<AuthServer> {
  const challenges = new Map<string, { challenge: string; scope: string }>();
  let n = 0;
  const metadata: Record<string, unknown> = {};
  const answer: { iss?: string } = {};
  const as = await listen((req, res, s) => {
    if (s.path === '/.well-known/oauth-authorization-server') {
      return json(res, 200, {
        issuer: as.url,
        authorization_endpoint: `${as.url}/authorize`,
        token_endpoint: `${as.url}/token`,
        registration_endpoint: `${as.url}/register`,
        response_types_supported: ['code'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['none'],
        ...metadata,
      });
    }
    if (s.path === '/register') return json(res, 201, { client_id: `${clientPrefix}-${++n}`, redirect_uris: s.body.redirect_uris ?? [] });
    if (s.path === '/authorize') {
      const code = `code-${++n}`;
      challenges.set(code, { challenge: s.query.code_challenge, scope: s.query.scope ?? '' });
      const back = new URL(s.query.redirect_uri);
      back.searchParams.set('code', code);
      back.searchParams.set('state', s.query.state);
      if (answer.iss !== undefined) back.searchParams.set('iss', answer.iss === 'issuer' ? as.url : answer.iss);
      return res.writeHead(302, { location: back.href }).end();
    }
    if (s.path === '/token') {
      let scope: string;
      if (s.body.grant_type === 'authorization_code') {
        const c = challenges.get(s.body.code);
        const verified = c && createHash('sha256').update(s.body.code_verifier ?? '').digest('base64url') === c.challenge;
        if (!verified) return json(res, 400, { error: 'invalid_grant' });
        challenges.delete(s.body.code);
        scope = c.scope;
      } else if (s.body.grant_type === 'refresh_token' && s.body.refresh_token?.startsWith('rt-')) {
        scope = s.body.scope ?? 'read';
      } else if (s.body.grant_type === 'client_credentials' && s.authorization?.startsWith('Basic ')) {
        scope = s.body.scope ?? '';
      } else return json(res, 400, { error: 'invalid_grant' });
      const token = `at-${++n}-${'x'.repeat(12)}`;
      issued.set(token, scope.split(' ').filter(Boolean));
      return json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: 3600, refresh_token: `rt-${n}-${'y'.repeat(12)}`, ...(scope ? { scope } : {}) });
    }
    res.writeHead(404).end();
  });
  return { ...as, issued, metadata, answer };
}

export interface McpServer {
  url: string;
  seen: Seen[];
  /** what the protected resource metadata says, changed by a test */
  resource: Record<string, unknown>;
  close(): void;
}

/** `callScope`: a tools/call needs it (403 insufficient_scope, asking for it); `never`: every call is refused so. */
export async function mcpServer(as: AuthServer, o: { callScope?: string; never?: boolean } = {}): Promise<McpServer> {
  const resource: Record<string, unknown> = {};
  const rs = await listen(async (req, res, s) => {
    if (s.path === '/.well-known/oauth-protected-resource/mcp') return json(res, 200, { resource: `${rs.url}/mcp`, authorization_servers: [as.url], ...resource });
    if (s.path !== '/mcp') return res.writeHead(404).end();
    const token = s.authorization?.startsWith('Bearer ') ? s.authorization.slice(7) : undefined;
    const meta = `${rs.url}/.well-known/oauth-protected-resource/mcp`;
    if (!token || !as.issued.has(token)) return json(res, 401, { error: 'invalid_token' }, { 'www-authenticate': `Bearer resource_metadata="${meta}"` });
    const text = (req as { rawBody?: string }).rawBody ?? '';
    const message = text ? (JSON.parse(text) as { method?: string }) : undefined;
    if (message?.method === 'tools/call' && (o.never || (o.callScope && !as.issued.get(token)!.includes(o.callScope)))) {
      return json(res, 403, { error: 'insufficient_scope' }, { 'www-authenticate': `Bearer error="insufficient_scope", scope="${o.callScope ?? 'admin'}", resource_metadata="${meta}"` });
    }
    const server = new Server({ name: 'protected', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'whoami', inputSchema: { type: 'object' } }] }));
    // the reply echoes the credential it was sent: the run must never show it
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: `you sent ${s.authorization}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    await server.connect(transport);
    await transport.handleRequest(req, res, message);
  });
  return { ...rs, resource };
}

/** A browser without a person: opens the URL and follows its redirects (to Turn's loopback listener). */
export function headlessBrowser(opened: string[]): (url: string) => Promise<void> {
  return async (start) => {
    opened.push(start);
    let url = new URL(start);
    for (let hop = 0; hop < 5; hop++) {
      const r = await fetch(url, { redirect: 'manual' });
      await r.body?.cancel();
      const location = r.headers.get('location');
      if (!location) return;
      url = new URL(location, url);
    }
  };
}
