// `turn mcp --port`: Streamable HTTP on 127.0.0.1, for the operator only. Every request must carry
// the bearer token made (or read from `--token-file`) at start, checked before anything of the
// request's body is read; a body over the message bound is answered 413 with a JSON-RPC error,
// never held.
import * as fs from 'node:fs';
import type * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServeOptions, Serving } from './options.js';
import { ServeError } from './discover.js';
import { servedServer, type ServedContext } from './handlers.js';
import type { ServerSdk } from './sdk.js';
import { MAX_MESSAGE_BYTES } from './stdio-transport.js';

type StreamableHTTPServerTransport = InstanceType<ServerSdk['StreamableHTTPServerTransport']>;

/** The shortest token `--token-file` may hold (the one made at start has 43 characters: 32 random bytes, base64url). */
export const MIN_TOKEN_LENGTH = 32;

/** The token clients must send: read from `tokenFile` (owner-only, long enough), or 32 random bytes. Throws ServeError. */
export async function bearerToken(tokenFile: string | undefined): Promise<{ value: string; generated: boolean }> {
  const crypto = await import('node:crypto');
  if (tokenFile === undefined) return { value: crypto.randomBytes(32).toString('base64url'), generated: true };
  let stat: fs.Stats;
  let text: string;
  try {
    stat = fs.statSync(tokenFile);
    text = fs.readFileSync(tokenFile, 'utf8');
  } catch (e) {
    throw new ServeError(`cannot read the token file ${tokenFile}: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
    const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
    throw new ServeError(`the token file ${tokenFile} is accessible to other users (mode ${mode}); refusing to use it. Run: chmod 600 ${tokenFile}`);
  }
  const value = text.trim();
  if (value.length < MIN_TOKEN_LENGTH || /\s/.test(value)) {
    throw new ServeError(`the token file ${tokenFile} must hold one token of at least ${MIN_TOKEN_LENGTH} characters, without spaces (e.g. openssl rand -base64 32)`);
  }
  return { value, generated: false };
}

/**
 * Whether a request carries `Authorization: Bearer <token>`. The comparison takes the same time
 * whatever the header holds: both sides are hashed to 32 bytes and compared with timingSafeEqual.
 */
function authorized(req: http.IncomingMessage, expected: Buffer, crypto: typeof import('node:crypto')): boolean {
  const header = req.headers.authorization;
  const given = typeof header === 'string' && /^Bearer /i.test(header) ? header.slice(7).trim() : '';
  const digest = crypto.createHash('sha256').update(given).digest();
  return crypto.timingSafeEqual(digest, expected);
}

/** How long the connection of a refused request stays open, unread, after the answer (`refuse`). */
const REFUSED_LINGER_MS = 2000;

/**
 * Answers a request without the token: 401 `WWW-Authenticate: Bearer`, written on the socket
 * itself. Through the ServerResponse, Node would read the rest of the body to discard it (to keep
 * the connection alive) or close the connection at once, which makes a client still sending its
 * body fail with EPIPE before it reads the answer. Here nothing more is read (the unread request
 * stops the socket once its buffer is full), the answer is followed by the end of our side, and the
 * connection is dropped a little later, the client having had time to read why.
 */
function refuse(req: http.IncomingMessage): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'unauthorized: send Authorization: Bearer <the token turn mcp printed, or the one in --token-file>' }, id: null });
  const head = ['HTTP/1.1 401 Unauthorized', 'WWW-Authenticate: Bearer realm="turn mcp"', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
  const socket = req.socket;
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
}

/** Streamable HTTP on 127.0.0.1 (a session per client, DNS rebinding protection on, the operator's token required). */
export async function serveHttp(sdk: ServerSdk, ctx: ServedContext, options: ServeOptions, port: number, token: { value: string; generated: boolean }): Promise<Serving> {
  const { StreamableHTTPServerTransport, randomUUID } = sdk;
  const isInitializeRequest = sdk.types.isInitializeRequest;
  const maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const crypto = await import('node:crypto');
  const expected = crypto.createHash('sha256').update(token.value).digest();
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  // the 2026-07-28 revision beside this one (serve-next/modern.ts): stateless, no session
  const modern = options.modern ? await options.modern(ctx) : undefined;
  let allowedHosts: string[] = [];
  const reply = (res: http.ServerResponse, status: number, message: string): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
  };
  const serveRequest = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    if (!authorized(req, expected, crypto)) return refuse(req);
    void (async () => {
      if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return reply(res, 404, 'the MCP endpoint is /mcp');
      const id = req.headers['mcp-session-id'];
      const known = typeof id === 'string' ? sessions.get(id) : undefined;
      if (req.method !== 'POST') {
        if (!known) return reply(res, 400, 'invalid or missing session id');
        return known.handleRequest(req, res);
      }
      const chunks: Buffer[] = [];
      let length = 0;
      for await (const c of req) {
        length += (c as Buffer).length;
        if (length > maxBytes) {
          // nothing more is read: the answer, then the connection is dropped (as for a refused request)
          // the socket is taken now: once the answer is written Node detaches it (req.socket is
          // then null), and the timer ran into that on a loaded machine
          const socket = req.socket;
          res.writeHead(413, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: `the message is over ${maxBytes.toLocaleString('en-US')} bytes, the most one message to this server may be` }, id: null }));
          setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
          return;
        }
        chunks.push(c as Buffer);
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32700, message: 'parse error' }, id: null }));
      }
      if (!known && modern && (await modern(req, res, body))) return;
      if (known) return known.handleRequest(req, res, body);
      if (typeof id === 'string') return reply(res, 404, 'no such session');
      if (!isInitializeRequest(body)) return reply(res, 400, 'a session starts with initialize');
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => void sessions.set(sid, transport),
        enableDnsRebindingProtection: true,
        allowedHosts,
      });
      transport.onclose = () => {
        if (transport.sessionId !== undefined) sessions.delete(transport.sessionId);
      };
      await servedServer(sdk, ctx, options.version).connect(transport);
      await transport.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) reply(res, 500, 'internal error');
    });
  };
  const httpServer = sdk.createServer(serveRequest);
  // a client that asks before sending its body (`Expect: 100-continue`) is told to go on only with the token
  httpServer.on('checkContinue', (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!authorized(req, expected, crypto)) return refuse(req);
    res.writeContinue();
    serveRequest(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    httpServer.once('error', reject);
    httpServer.listen(port, '127.0.0.1', () => resolve());
  });
  const bound = (httpServer.address() as AddressInfo).port;
  allowedHosts = [`127.0.0.1:${bound}`, `localhost:${bound}`];
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await Promise.all([...sessions.values()].map((t) => t.close().catch(() => undefined)));
      await new Promise<void>((resolve) => httpServer.close(() => resolve()));
    })());
  return { tools: ctx.served.tools, served: ctx.served, url: `http://127.0.0.1:${bound}/mcp`, token, closed: new Promise(() => {}), close };
}
