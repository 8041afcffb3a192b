// Cancellation aborts work in flight (issue 15, point 4): a cancelled process's HTTP request and a
// cancelled task's model call are aborted — the local server on 127.0.0.1 sees the connection
// close before it answers — and a run whose main has ended does not wait for requests of processes
// it abandoned. The server never answers the slow requests: a run that waited would never end.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { startRun } from '../../runtime/run/index.js';

let server: http.Server;
let base = '';
/** paths of the requests whose connection the client closed before any answer */
const aborted: string[] = [];
const arrived = new Map<string, () => void>();
const arrivals = new Map<string, Promise<void>>();
const closings = new Map<string, () => void>();
const closed = new Map<string, Promise<void>>();

function expect(p: string): void {
  arrivals.set(p, new Promise((r) => arrived.set(p, r)));
  closed.set(p, new Promise((r) => closings.set(p, r)));
}

before(async () => {
  server = http.createServer((req, res) => {
    const p = new URL(req.url ?? '/', 'http://x').pathname;
    if (p.startsWith('/ready/')) {
      // answers once the request it names has arrived: the program knows the other one is in flight
      const other = '/' + p.slice('/ready/'.length);
      void arrivals.get(other)!.then(() => res.end('ready'));
      return;
    }
    const key = p.startsWith('/v1/chat/completions') ? '/model' : p;
    arrived.get(key)?.();
    res.on('close', () => {
      if (!res.writableEnded) {
        aborted.push(key);
        closings.get(key)?.();
      }
    }); // never answered
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-cancel-'));
async function run(name: string, source: string, model = 'mock') {
  const file = path.join(dir, name);
  fs.writeFileSync(file, source);
  const lines: string[] = [];
  const r = await startRun({ file, cwd: dir, model, authority: { allowNet: ['127.0.0.1:*'], approve: 'none' }, fetchSchemas: false, onOutput: (l) => lines.push(l) });
  return { result: await r.start(), lines };
}

test('cancelling a process aborts its HTTP request, and the reason reaches gather', { timeout: 30_000 }, async () => {
  expect('/slow-cancel');
  const { result, lines } = await run('cancel.tn', `
let net = use "std/net";
let worker = spawn turn() { return net.get(null, "${base}/slow-cancel"); };
net.get(null, "${base}/ready/slow-cancel");
call("cancel", worker, "no longer needed");
let r = gather worker;
call("echo", r["type"] + ": " + r["message"]);
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['Cancelled: no longer needed']);
  await closed.get('/slow-cancel');
  assert.ok(aborted.includes('/slow-cancel'));
});

test('a run ends when main ends, aborting the request of a process it abandoned', { timeout: 30_000 }, async () => {
  expect('/slow-orphan');
  const { result, lines } = await run('orphan.tn', `
let net = use "std/net";
spawn turn() { return net.get(null, "${base}/slow-orphan"); };
net.get(null, "${base}/ready/slow-orphan");
call("echo", "main is done");
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['main is done']);
  await closed.get('/slow-orphan');
  assert.ok(aborted.includes('/slow-orphan'));
});

test("first_success cancels the losing task and aborts its model call", { timeout: 30_000 }, async () => {
  expect('/model');
  const { result, lines } = await run('first.tn', `
let net = use "std/net";
let winner = scope first_success {
    task turn() -> Str { return infer Str { "Take your time."; }; };
    task turn() -> Str { net.get(null, "${base}/ready/model"); return "fast"; };
};
call("echo", winner);
`, `ollama:slow?base_url=${base}/v1&retries=0`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(lines, ['fast']);
  await closed.get('/model');
  assert.ok(aborted.includes('/model'));
});
