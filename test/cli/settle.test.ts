// A settled unknown step (issue 28, item 5): after `turn resolve RUN STEP --retry` the step still
// showed as unknown in `turn inspect` and its `--json` (so in the Runs view), and settling it again
// failed with "idempotency key ...:d1 is already used". A settled step shows as decided, and a
// second settle says it is already settled.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { test, after, before } from 'node:test';
import { runIdOf, turnAsync } from '../durability/helpers.js';

let server: Server;
let url = '';
before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end('{"charged": true}'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
after(() => server.close());

/** A run killed after its POST's intent was journaled: on resume, the POST's outcome is unknown. */
async function unknownRun(): Promise<{ dir: string; id: string; step: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-settle-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), `let net = use "std/net";\nlet r = net.post(null, "${url}/charge", {"amount": 42});\ncall("echo", "charged: " + r["body"]);\n`);
  const killed = await turnAsync(['run', 'p.tn', '--store', 'st', '--allow-net', '127.0.0.1:*'], dir, { TURN_CRASH_AT: '1:after' });
  assert.equal(killed.signal, 'SIGKILL', killed.stderr);
  const id = runIdOf(killed.stderr);
  const r = await turnAsync(['resume', id, '--store', 'st'], dir);
  assert.equal(r.code, 3, r.stderr);
  const step = /unknown: step (\d+)/.exec(r.stderr)![1];
  return { dir, id, step };
}

interface View {
  open: { seq: number; status: string; decision: string | null }[];
  journal: { seq: number; status: string; decision: string | null }[];
}

async function inspect(dir: string, id: string): Promise<{ text: string; json: View }> {
  const text = await turnAsync(['inspect', id, '--store', 'st'], dir);
  const json = await turnAsync(['inspect', id, '--store', 'st', '--json'], dir);
  assert.equal(text.code, 0, text.stderr);
  return { text: text.stdout, json: JSON.parse(json.stdout) as View };
}

test('a step settled with --retry shows as decided, and a second settle says it is already settled', async () => {
  const { dir, id, step } = await unknownRun();
  const before = await inspect(dir, id);
  assert.equal(before.json.open.find((e) => e.seq === Number(step))?.status, 'unknown');
  assert.equal((await turnAsync(['resolve', id, step, '--retry', '--store', 'st'], dir)).code, 0);
  const after = await inspect(dir, id);
  const entry = after.json.open.find((e) => e.seq === Number(step));
  assert.equal(entry?.status, 'decided');
  assert.equal(entry?.decision, 'retry');
  assert.match(after.text, new RegExp(`step ${step}  decided: runs again on resume`));
  assert.doesNotMatch(after.text, new RegExp(`step ${step}  unknown`));
  const again = await turnAsync(['resolve', id, step, '--retry', '--store', 'st'], dir);
  assert.notEqual(again.code, 0);
  assert.match(again.stderr, new RegExp(`step ${step} of run ${id} is already settled: it runs again on resume`));
  assert.doesNotMatch(again.stderr, /idempotency key|already used/);
  // and the run resumes, sending the POST again
  const resumed = await turnAsync(['resume', id, '--store', 'st'], dir);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /charged: \{"charged": true\}|charged: /);
});

test('a step settled with --ok is shown as settled, and settling it again (any way) says so', async () => {
  const { dir, id, step } = await unknownRun();
  assert.equal((await turnAsync(['resolve', id, step, '--ok', '{"status": 200, "body": "by hand"}', '--store', 'st'], dir)).code, 0);
  const after = await inspect(dir, id);
  assert.equal(after.json.open.length, 0);
  assert.equal(after.json.journal.find((e) => e.seq === Number(step))?.decision, 'ok');
  assert.match(after.text, /\(settled: --ok\)/);
  for (const how of [['--ok', '1'], ['--retry'], ['--error', 'no']]) {
    const again = await turnAsync(['resolve', id, step, ...how, '--store', 'st'], dir);
    assert.notEqual(again.code, 0);
    assert.match(again.stderr, new RegExp(`step ${step} of run ${id} is already settled: with a result \\(--ok\\)`));
  }
  const resumed = await turnAsync(['resume', id, '--store', 'st'], dir);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.match(resumed.stdout, /charged: by hand/);
});
