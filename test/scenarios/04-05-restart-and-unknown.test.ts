// Scenarios 4 and 5 (docs/knowledge.md) through the real CLI with a durable store:
// (4) the OS process exits while the agent waits on an external result; after a restart the run
//     resumes without repeating the model calls it had recorded;
// (5) an external action whose outcome was never recorded is shown as awaiting confirmation, not
//     as success, until a person settles it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { ROOT, countingModel, runIdOf, turnAsync } from '../durability/helpers.js';

interface Lab {
  url: string;
  requests: string[];
  /** resolves when the n-th request has arrived */
  arrived(n: number): Promise<void>;
  /** answer held requests from now on */
  open(): void;
  close(): void;
}

/** A server that holds requests (never answering) until opened, like a job still running. */
async function lab(answer: string): Promise<Lab> {
  const requests: string[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];
  let opened = false;
  const server = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    for (const w of waiters.filter((w) => requests.length >= w.n)) w.resolve();
    if (opened) res.end(answer);
    // else: held — the client sees no reply (the OS process is killed meanwhile)
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    arrived: (n) => new Promise<void>((resolve) => (requests.length >= n ? resolve() : waiters.push({ n, resolve }))),
    open: () => (opened = true),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** Starts `turn run` and kills it with SIGKILL once `when` resolves. */
function runThenKill(args: string[], cwd: string, env: NodeJS.ProcessEnv, when: Promise<void>): Promise<{ stderr: string; signal: string | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'turn.js'), ...args], { cwd, env: { ...process.env, TURN_TEST_KEY: 'k', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    void when.then(() => child.kill('SIGKILL'));
    child.on('close', (_code, signal) => resolve({ stderr, signal }));
  });
}

test('scenario 4: the OS process exits while waiting; the resumed run does not repeat recorded calls', { timeout: 60_000 }, async () => {
  const model = await countingModel();
  const job = await lab('Lab report: sample 17 negative.');
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-s4-'));
  fs.writeFileSync(path.join(cwd, 'agent.tn'), `
    let kb = use "std/knowledge";
    let net = use "std/net";
    let plan = infer Str { "Plan the investigation of sample 17."; };
    let intake = kb.material("notes/intake.md", "Sample 17 sent to the lab.", {});
    call("echo", "plan: " + plan);
    let result = net.get(null, "${job.url}/sample/17");
    let summary = infer Str { "Summarise: " + result["body"]; };
    call("echo", "summary: " + summary);
    return summary;
  `);
  const args = ['run', 'agent.tn', '--store', 'store', '--model', model.spec, '--allow-net', '127.0.0.1:*', '--allow-knowledge'];
  try {
    const first = await runThenKill(args, cwd, {}, job.arrived(1));
    assert.equal(first.signal, 'SIGKILL', 'the OS process died while waiting on the lab');
    assert.deepEqual(model.asked(), ['Plan the investigation of sample 17.']);
    job.open();
    const resumed = await turnAsync(['resume', runIdOf(first.stderr), '--store', 'store', '--model', model.spec], cwd);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, /^summary: R[0-9a-f]{8}$/m);
    // the plan was recorded, so it is not asked again; only the new question is
    assert.deepEqual(model.asked(), ['Plan the investigation of sample 17.', 'Summarise: Lab report: sample 17 negative.']);
    // the lab GET is idempotent, so it was asked again with the same key
    assert.deepEqual(job.requests, ['GET /sample/17', 'GET /sample/17']);
  } finally {
    job.close();
    await model.server.close();
  }
});

test('scenario 5: an action with an unknown outcome awaits confirmation and is never reported as success', { timeout: 60_000 }, async () => {
  const payments = await lab('{"refund": "done"}');
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-s5-'));
  fs.writeFileSync(path.join(cwd, 'refund.tn'), `
    let net = use "std/net";
    let res = net.post(null, "${payments.url}/refunds", "{\\"order\\": 17}");
    call("echo", "refund answered " + res["status"]);
    return res["status"];
  `);
  try {
    const first = await runThenKill(['run', 'refund.tn', '--store', 'store', '--allow-net', '127.0.0.1:*'], cwd, {}, payments.arrived(1));
    const run = runIdOf(first.stderr);
    payments.open();

    const resumed = await turnAsync(['resume', run, '--store', 'store'], cwd);
    assert.equal(resumed.code, 3, 'waiting for a decision');
    assert.match(resumed.stderr, new RegExp(`waiting: ${run}\\s*$`), 'the last line says the run waits');
    assert.doesNotMatch(resumed.stdout, /refund answered/, 'nothing claims the refund happened');
    assert.deepEqual(payments.requests, ['POST /refunds'], 'a POST whose outcome is unknown is not sent again');

    const inspected = await turnAsync(['inspect', run, '--store', 'store'], cwd);
    assert.match(inspected.stdout + inspected.stderr, /unknown\s+tool http_request\s+not idempotent/);
    const runs = await turnAsync(['runs', '--store', 'store'], cwd);
    assert.match(runs.stdout, new RegExp(`${run}\\s+waiting`));

    // A person confirms what happened; the run goes on with that outcome.
    const step = /step (\d+)\s+unknown/.exec(inspected.stdout + inspected.stderr)![1];
    const settled = await turnAsync(['resolve', run, step, '--ok', '{"status": 201, "headers": {}, "body": "confirmed by hand"}', '--store', 'store'], cwd);
    assert.equal(settled.code, 0, settled.stderr);
    const done = await turnAsync(['resume', run, '--store', 'store'], cwd);
    assert.equal(done.code, 0, done.stderr);
    assert.match(done.stdout, /refund answered 201/);
    assert.deepEqual(payments.requests, ['POST /refunds'], 'still sent once');
  } finally {
    payments.close();
  }
});
