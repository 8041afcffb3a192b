// Shared by the conformance tiers: the conformance CLI sends no headers of its own, and `turn mcp
// --port` requires a bearer token.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A proxy on 127.0.0.1 that adds `Authorization: Bearer <token>` to every request it forwards to
 * `upstream` (the conformance CLI sends no headers of its own). A request for the proxy's own host
 * is sent for the upstream's; any other Host header is kept, so DNS rebinding is still refused.
 */
export async function withToken(upstream: string, token: string): Promise<{ url: string; close(): void }> {
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    const port = (server.address() as AddressInfo).port;
    const own = req.headers.host === `127.0.0.1:${port}` || req.headers.host === `localhost:${port}`;
    const headers = { ...req.headers, authorization: `Bearer ${token}`, ...(own ? { host: target.host } : {}) };
    const out = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => res.destroy());
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${target.pathname}`, close: () => server.close() };
}
