// A per-request HTTP/2 balancer in front of several workers, registered with Restate as their one
// deployment. Restate pins an invocation to the deployment it started on and keeps one HTTP/2
// connection per deployment, so N workers need one address that spreads invocations (each an
// HTTP/2 stream) over them and skips a dead one: in production a load balancer that speaks h2c
// (Envoy, a Kubernetes Service with an h2c-aware proxy); on one machine and in the tests, this.
// A stream whose worker dies mid-invocation is reset; Restate retries the invocation from its
// journal through the balancer, which sends it to a live worker.
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';

export interface Balancer {
  url: string;
  /** the worker URLs it spreads over (may be changed while it runs) */
  workers: string[];
  /** the streams it is forwarding now, one line each (what a test prints when runs stop making progress) */
  forwarding(): string[];
  close(): Promise<void>;
}

interface Forwarded {
  target: string;
  path: string;
  since: number;
  answered: boolean;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'host']);

export async function startBalancer(workers: string[], options: { port?: number; host?: string } = {}): Promise<Balancer> {
  const sessions = new Map<string, http2.ClientHttp2Session>();
  const inbound = new Set<http2.ServerHttp2Session>();
  const open = new Set<Forwarded>();
  let next = 0;
  const session = (url: string): http2.ClientHttp2Session => {
    let s = sessions.get(url);
    if (!s || s.closed || s.destroyed) {
      s = http2.connect(url);
      const mine = s;
      const drop = () => {
        if (sessions.get(url) === mine) sessions.delete(url);
      };
      s.on('error', drop);
      s.on('close', drop);
      s.on('goaway', drop);
      sessions.set(url, s);
    }
    return s;
  };
  const balancer: Balancer = {
    url: '',
    workers: [...workers],
    forwarding: () => [...open].map((f) => `${f.path} -> ${f.target}, ${f.answered ? 'answered' : 'not answered'}, open ${((Date.now() - f.since) / 1000).toFixed(0)} s`),
    close: async () => {},
  };
  const server = http2.createServer();
  server.on('session', (s) => {
    inbound.add(s);
    s.on('close', () => inbound.delete(s));
    s.on('error', () => {});
  });
  server.on('stream', (front, headers) => {
    front.on('error', () => {});
    const list = balancer.workers;
    if (list.length === 0) {
      front.respond({ ':status': 503 });
      front.end('no workers');
      return;
    }
    const target = list[next++ % list.length];
    const out: http2.OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(headers)) if (!HOP.has(k) && k !== ':authority' && k !== ':scheme') out[k] = v;
    let back: http2.ClientHttp2Stream;
    try {
      back = session(target).request(out, { endStream: false });
    } catch {
      front.close(http2.constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    const forwarded: Forwarded = { target, path: String(headers[':path']), since: Date.now(), answered: false };
    open.add(forwarded);
    back.on('response', (h) => {
      forwarded.answered = true;
      const r: http2.OutgoingHttpHeaders = {};
      for (const [k, v] of Object.entries(h)) if (!HOP.has(k)) r[k] = v;
      if (front.closed || front.headersSent) return;
      front.respond(r);
      back.pipe(front);
    });
    back.on('error', () => {
      if (!front.closed) front.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    });
    back.on('close', () => {
      // Unless the worker answered and ended its answer, reset the front stream too, so Restate
      // retries the invocation at once instead of waiting out its inactivity and abort timeouts
      // (11 minutes by default). A stream that never got an answer can close without an error: a
      // worker killed after its kernel accepted the connection but before it read the preface closes
      // it cleanly, and the stream still pending on it is cancelled with its readable side ended.
      const completed = forwarded.answered && back.readableEnded && back.rstCode === http2.constants.NGHTTP2_NO_ERROR;
      if (!completed && !front.closed) front.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    });
    front.on('close', () => {
      open.delete(forwarded);
      if (!back.closed) back.close(front.rstCode ?? http2.constants.NGHTTP2_CANCEL);
    });
    front.pipe(back);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  balancer.url = `http://${options.host ?? '127.0.0.1'}:${(server.address() as AddressInfo).port}`;
  balancer.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sessions.values()) s.destroy();
      for (const s of inbound) s.destroy();
      server.close(() => resolve());
    });
  return balancer;
}
