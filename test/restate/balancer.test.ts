// The test balancer in front of `turn serve` workers (runtime/restate/balancer.ts): an answer passes
// through whole, and a stream whose worker goes away before its answer ends is reset towards Restate,
// whichever way the worker's connection closes (a stream left open makes Restate wait out its
// inactivity and abort timeouts: 11 minutes by default).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as http2 from 'node:http2';
import * as net from 'node:net';
import { startBalancer, type Balancer } from '../../runtime/restate/balancer.js';

const closers: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of closers.reverse()) await c();
});

/** `server` on a free loopback port; closed (its connections destroyed) after the tests. */
async function listen(server: net.Server): Promise<string> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (sock: net.Socket) => sockets.add(sock));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  closers.push(
    () =>
      new Promise<void>((r) => {
        for (const sock of sockets) sock.destroy();
        server.close(() => r());
      }),
  );
  return `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
}

async function balancerOver(workers: string[]): Promise<Balancer> {
  const b = await startBalancer(workers);
  closers.push(() => b.close());
  return b;
}

interface Outcome {
  status?: number;
  body: string;
  rstCode: number;
  error?: string;
}

/** One request through the balancer, as Restate makes it (a POST whose body stays open while it waits). */
function invoke(b: Balancer, endBody = false): Promise<Outcome> {
  const client = http2.connect(b.url);
  client.on('error', () => {});
  closers.push(() => void client.destroy());
  const stream = client.request({ ':method': 'POST', ':path': '/invoke/TurnRun/run' }, { endStream: false });
  const out: Outcome = { body: '', rstCode: -1 };
  stream.on('response', (h) => (out.status = Number(h[':status'])));
  stream.on('data', (d: Buffer) => (out.body += d.toString()));
  stream.on('error', (e) => (out.error = (e as Error).message));
  stream.write('journal');
  if (endBody) stream.end();
  return new Promise((resolve) =>
    stream.on('close', () => {
      out.rstCode = stream.rstCode ?? -1;
      resolve(out);
    }),
  );
}

test('an answer passes through whole: status, headers and body, and the stream ends without a reset', async () => {
  const worker = http2.createServer();
  worker.on('stream', (s) => {
    let got = '';
    s.on('data', (d: Buffer) => (got += d.toString()));
    s.on('end', () => {
      s.respond({ ':status': 200, 'content-type': 'application/restate' });
      s.end(`worker read: ${got}`);
    });
  });
  const b = await balancerOver([await listen(worker)]);
  const out = await invoke(b, true);
  assert.deepEqual(out, { status: 200, body: 'worker read: journal', rstCode: http2.constants.NGHTTP2_NO_ERROR });
  assert.deepEqual(b.forwarding(), []);
});

// A worker killed after its kernel accepted the balancer's connection but before the worker read the
// HTTP/2 preface closes that connection cleanly (FIN): the stream pending on it is cancelled with its
// readable side ended, without an error. This is the hang the Restate scale test met under load.
for (const [how, close] of [
  ['closes the connection cleanly before the preface (FIN)', (s: net.Socket) => s.end()],
  ['destroys the connection before the preface', (s: net.Socket) => s.destroy()],
  ['resets the connection (RST)', (s: net.Socket) => s.resetAndDestroy()],
] as const) {
  test(`a worker that ${how}: the stream towards Restate is reset, not left open`, { timeout: 60_000 }, async () => {
    const b = await balancerOver([await listen(net.createServer(close))]);
    const out = await invoke(b);
    assert.equal(out.status, undefined, 'no answer was forwarded');
    assert.equal(out.rstCode, http2.constants.NGHTTP2_INTERNAL_ERROR);
    assert.deepEqual(b.forwarding(), []);
  });
}

test('a worker that dies after answering the headers: the stream towards Restate is reset, not ended as if complete', { timeout: 60_000 }, async () => {
  const worker = http2.createServer();
  const sockets: net.Socket[] = [];
  worker.on('connection', (sock: net.Socket) => sockets.push(sock));
  worker.on('stream', (s) => {
    s.respond({ ':status': 200 });
    s.write('partial', () => sockets.forEach((sock) => sock.destroy()));
  });
  const b = await balancerOver([await listen(worker)]);
  const out = await invoke(b);
  assert.equal(out.status, 200);
  assert.equal(out.rstCode, http2.constants.NGHTTP2_INTERNAL_ERROR);
});

test('with no workers in its rotation it answers 503 at once', async () => {
  const b = await balancerOver([]);
  const out = await invoke(b);
  assert.equal(out.status, 503);
  assert.equal(out.body, 'no workers');
});
