// A POST's journal key reaches the service as `Idempotency-Key`, identical on every retry, so a
// service that deduplicates performs the side effect once, wherever the run is killed.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { runIdOf, turnAsync } from './helpers.js';

/** A payments service that deduplicates by Idempotency-Key: each key charges once. */
async function dedupServer(): Promise<{ server: Server; url: string; keys: string[]; charges: () => number }> {
  const seen = new Map<string, number>();
  const keys: string[] = [];
  let charges = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const key = req.headers['idempotency-key'];
      keys.push(String(key));
      if (typeof key === 'string' && seen.has(key)) {
        res.end(JSON.stringify({ charge: seen.get(key), replayed: true }));
        return;
      }
      charges++;
      if (typeof key === 'string') seen.set(key, charges);
      res.end(JSON.stringify({ charge: charges, amount: JSON.parse(body || '{}').amount }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, keys, charges: () => charges };
}

const program = (url: string) => `let net = use "std/net";
let r = net.post(null, "${url}/charge", {"amount": 42});
call("echo", "charged: " + r["body"]);
return r["status"];
`;

test('the journal key is sent as Idempotency-Key on a POST, and is the same on a retry after turn resolve --retry', async () => {
  const svc = await dedupServer();
  try {
    // kill at every journal write of the POST (its intent and its outcome, before and after)
    for (const point of ['1:before', '1:after', '2:before', '2:after']) {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-idem-'));
      fs.writeFileSync(path.join(dir, 'p.tn'), program(svc.url));
      const before = svc.charges();
      const keysBefore = svc.keys.length;
      const flags = ['--store', 'st', '--allow-net', '127.0.0.1:*'];
      const killed = await turnAsync(['run', 'p.tn', ...flags], dir, { TURN_CRASH_AT: point });
      assert.equal(killed.signal, 'SIGKILL', `${point}: ${killed.stderr}`);
      const id = runIdOf(killed.stderr);
      let r = await turnAsync(['resume', id, '--store', 'st'], dir);
      if (r.code === 3) {
        // the POST's outcome is unknown: a person decides to send it again, with the same key
        const step = /unknown: step (\d+)/.exec(r.stderr)![1];
        assert.equal((await turnAsync(['resolve', id, step, '--retry', '--store', 'st'], dir)).code, 0);
        r = await turnAsync(['resume', id, '--store', 'st'], dir);
      }
      assert.equal(r.code, 0, `${point}: ${r.stderr}`);
      const sent = svc.keys.slice(keysBefore);
      assert.ok(sent.length >= 1 && sent.length <= 2, `${point}: ${sent.length} requests`);
      assert.equal(new Set(sent).size, 1, `${point}: one key on every send: ${sent.join(', ')}`);
      assert.match(sent[0], new RegExp(`^turn:${id}:e1$`), 'the key is the journal key of the effect');
      assert.equal(svc.charges() - before, 1, `${point}: the service charged once`);
    }
  } finally {
    svc.server.close();
  }
});

test('a run without a store sends no Idempotency-Key', async () => {
  const svc = await dedupServer();
  try {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-idem-'));
    fs.writeFileSync(path.join(dir, 'p.tn'), program(svc.url));
    const plain = await turnAsync(['run', 'p.tn', '--allow-net', '127.0.0.1:*'], dir);
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual(svc.keys, ['undefined']);
  } finally {
    svc.server.close();
  }
});
