// Processes of one run spread over workers (issue 16): one restate-server, three `turn serve`
// workers behind a balancer, a run submitted with `spread` whose `spawn_each` fans out to 1,000
// children that each ask the model. Each worker has its own provider key, so the fake provider
// tells which worker asked. The run ends with the output and result it has locally (a failing
// child's slot is the same ChildError), the children ran on more than one worker, and every
// child's model call was made. A second run loses each of the three workers in turn (SIGKILL, so
// the parent's worker too) and still ends as it does locally; a child whose worker died is run
// again from its start elsewhere, so its model call may be asked twice: those repeats are counted
// and reported.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileProgram, newRestateRunId, sourcesOf, startRun, submitRun, waitForRun, SEMANTICS_VERSION } from '../../runtime/index.js';
import { CHILD_SERVICE } from '../../runtime/restate/placement.js';
import { countingModel } from '../durability/helpers.js';
import { Cluster, NO_SERVER, type RestateServer, type WorkerProcess } from './harness.js';

const CHILDREN = Number(process.env.TURN_FANOUT_CHILDREN ?? 1000);

let cluster: Cluster;
let server: RestateServer;
const live: WorkerProcess[] = [];
let workers = 0;

/** A worker with its own provider key (`workerN`), so the fake provider tells which worker asked. */
async function addWorker(): Promise<WorkerProcess> {
  const w = await cluster.addWorker({ TURN_TEST_KEY: `worker${++workers}`, TURN_RESTATE_INGRESS: server.ingress });
  live.push(w);
  return w;
}

before(async () => {
  if (NO_SERVER) return;
  // Restate's inactivity and abort timeouts keep their defaults (1 min + 10 min): a child's work is
  // one `ctx.run` step, which sends nothing until it ends, so a live child slower than the two
  // (easily, with 1,000 of them on a busy machine, if they were seconds) would be aborted and run
  // again. A killed worker's invocations do not wait for them: the balancer resets their streams
  // and Restate retries at once.
  cluster = await Cluster.start();
  server = cluster.server;
  for (let i = 0; i < 3; i++) await addWorker();
});

after(() => cluster?.close());

const program = (tag: string) => `let tag = "${tag}";
let ask = turn(k: Num) -> Str {
  if k == 7 { throw {"type": "Bad", "message": "child " + call("to_string", k) + " refuses"}; }
  let a = infer Str { "question " + tag + " " + call("to_string", k); };
  if k == 0 { call("echo", "child 0 says " + a); }
  return a;
};
let results = gather spawn_each(call("range", ${CHILDREN}), ask);
call("echo", "first: " + results[0] + ", last: " + results[${CHILDREN - 1}] + ", 7: " + call("type_of", results[7]) + " " + results[7].message);
return results;
`;

async function expected(file: string): Promise<{ output: string[]; json: unknown }> {
  const model = await countingModel();
  try {
    const output: string[] = [];
    const run = await startRun({ file, model: model.spec, env: { ...process.env, TURN_TEST_KEY: 'k' }, onOutput: (l) => output.push(l) });
    const r = await run.start();
    assert.equal(r.kind, 'done', JSON.stringify(r));
    return { output, json: r.kind === 'done' ? r.json : null };
  } finally {
    await model.server.close();
  }
}

async function submit(file: string, spec: string): Promise<string> {
  const code = await compileProgram(file);
  const id = newRestateRunId();
  await submitRun(server.ingress, id, {
    entry: path.basename(file), sources: Buffer.from(sourcesOf(code.units, code.entryPath)).toString('base64'), bytecodeHash: code.bundle.version,
    semanticsVersion: SEMANTICS_VERSION, turnVersion: 'test', options: { model: spec }, spread: true,
  });
  return id;
}

/** TurnChild invocations (of run `run` only; those Restate has not completed with `open`: a cancelled one completes). */
async function children(open = false, run?: string): Promise<number> {
  const where = `target_service_name = '${CHILD_SERVICE}'${open ? " AND status != 'completed'" : ''}${run ? ` AND idempotency_key LIKE 'turn:${run}:%'` : ''}`;
  const res = await fetch(`${server.admin}/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query: `SELECT count(*) AS n FROM sys_invocation WHERE ${where}` }),
  });
  const body = (await res.json()) as { rows: { n: number }[] };
  return Number(body.rows[0].n);
}

/** The result's JSON (a ChildError's pid included: a placed child keeps the pid it has locally). */
const json = (r: unknown): unknown => (r as { json: unknown }).json;

test(`a spawn_each of ${CHILDREN} children spreads over three workers and ends as it does locally`, { timeout: 600_000, skip: NO_SERVER }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-fanout-'));
  const model = await countingModel();
  try {
    const file = path.join(dir, 'fan.tn');
    fs.writeFileSync(file, program('a'));
    const want = await expected(file);
    const started = Date.now();
    const id = await submit(file, model.spec);
    const s = await waitForRun(server.ingress, id);
    const seconds = (Date.now() - started) / 1000;
    assert.equal(s.status, 'done', JSON.stringify(s.result));
    assert.deepEqual(s.output, want.output);
    assert.deepEqual(json(s.result), want.json);
    const asked = model.asked();
    assert.equal(new Set(asked).size, CHILDREN - 1, 'every child but the failing one asked the model');
    assert.equal(asked.length, CHILDREN - 1, 'each once (no worker died; a repeat is an attempt Restate aborted and retried: TURN_RESTATE_KEEP_LOG keeps its log)');
    assert.equal(await children(false, id), CHILDREN, 'one TurnChild invocation per child');
    const by = new Map<string, number>();
    for (const r of model.server.received) by.set(String(r.headers.authorization), (by.get(String(r.headers.authorization)) ?? 0) + 1);
    assert.ok(by.size > 1, `the children ran on more than one worker: ${JSON.stringify([...by])}`);
    t.diagnostic(`${CHILDREN} children in ${seconds.toFixed(1)} s; model calls per worker: ${[...by].map(([k, n]) => `${k.replace('Bearer ', '')} ${n}`).join(', ')}`);
  } finally {
    await model.server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test(`each of the three workers SIGKILLed in turn during a ${CHILDREN}-child fan-out: the run still ends as it does locally`, { timeout: 600_000, skip: NO_SERVER }, async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-fanout-'));
  const model = await countingModel();
  try {
    const file = path.join(dir, 'fan.tn');
    fs.writeFileSync(file, program('b'));
    const want = await expected(file);
    const id = await submit(file, model.spec);
    // Every worker that was there at the start is killed once (and replaced), so the one running
    // the parent's workflow is among them: the parent replays, its recorded children are not asked
    // again and the others are found again by their idempotency key. The real condition for each
    // kill: a share of the children have asked the model.
    const first = live.slice();
    let atLastKill = 0;
    for (let k = 0; k < first.length; k++) {
      while (model.server.received.length < Math.floor(((k + 1) * CHILDREN) / 6)) await new Promise((r) => setTimeout(r, 20));
      const victim = first[k];
      live.splice(live.indexOf(victim), 1);
      await cluster.kill(victim);
      atLastKill = model.server.received.length;
      await addWorker();
    }
    const s = await waitForRun(server.ingress, id);
    assert.equal(s.status, 'done', JSON.stringify(s.result));
    assert.deepEqual(s.output, want.output);
    assert.deepEqual(json(s.result), want.json);
    const asked = model.asked();
    const distinct = new Set(asked);
    assert.equal(distinct.size, CHILDREN - 1, "every child's model call was made");
    // the parent, replayed after its worker died, found its children again by their keys: one invocation each
    assert.equal(await children(false, id), CHILDREN, 'one TurnChild invocation per child');
    // a repeat is a child whose worker died before Restate recorded its outcome: it runs again from its start
    const repeats = asked.length - distinct.size;
    assert.ok(repeats <= atLastKill, `${repeats} repeated calls, at most the ${atLastKill} made before the last kill`);
    t.diagnostic(`3 kills (the last after ${atLastKill} model calls); ${repeats} child model call(s) asked again (their worker died before their outcome was recorded)`);
  } finally {
    await model.server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const semantics = `let slow = turn() { call("sleep", 600000); return "late"; };
let bad = turn() { throw {"type": "Bad", "message": "no"}; };
try {
  let r = scope fail_fast { task slow; task bad; };
  call("echo", "fail_fast gave a value");
} catch (e) { call("echo", "fail_fast raised " + e["type"] + ": " + e["message"]); }
let firsts = scope first_success { task turn() { call("sleep", 600000); return "slow"; }; task turn() { return "quick"; }; };
call("echo", "first_success: " + firsts);
let p = spawn turn() { return 41 + 1; };
call("monitor", p);
let down = receive;
call("echo", "down: " + down["type"] + " " + call("to_string", down["result"]));
call("echo", "wait: " + call("to_string", call("wait", p)));
let me = call("self");
let q = spawn turn() { send me, "from a child that captured a pid"; return 2; };
call("echo", "received: " + receive);
return gather [p, q];
`;


test('placed children keep scopes, cancellation, monitors and wait; a child capturing a pid stays with its parent', { timeout: 120_000, skip: NO_SERVER }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-fanout-'));
  const model = await countingModel();
  try {
    const file = path.join(dir, 'sem.tn');
    fs.writeFileSync(file, semantics);
    const want = await expected(file);
    const before = await children();
    const s = await waitForRun(server.ingress, await submit(file, model.spec));
    assert.equal(s.status, 'done', JSON.stringify(s.result));
    assert.deepEqual(s.output, want.output);
    assert.deepEqual(json(s.result), want.json);
    // five children were placed (the four tasks and p); q captured a pid, so it ran beside its parent
    assert.equal((await children()) - before, 5);
    // the two sleeping children were cancelled in Restate too, not left running on their workers
    while ((await children(true)) > 0) await new Promise((r) => setTimeout(r, 100));
  } finally {
    await model.server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('what a placed child cannot do is refused with a clear error: messages to it, effects that are not safe to repeat', { timeout: 120_000, skip: NO_SERVER }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-fanout-'));
  const model = await countingModel();
  try {
    const file = path.join(dir, 'refused.tn');
    fs.writeFileSync(
      file,
      `let p = spawn turn() { return 1; };
try { send p, "hi"; } catch (e) { call("echo", "send: " + e["message"]); }
let r = gather spawn_each(["http://127.0.0.1:9/x"], turn(u: Str) { return call("http_request", null, "POST", u, {}); });
call("echo", "post: " + call("type_of", r[0]) + " " + r[0].message);
return gather p;
`,
    );
    const s = await waitForRun(server.ingress, await submit(file, model.spec));
    assert.equal(s.status, 'done', JSON.stringify(s.result));
    assert.match(s.output[0], /^send: .*process #2 runs on another worker \(Restate placement\): it has no mailbox here/);
    assert.match(s.output[1], /^post: ChildError .*http_request is not safe to repeat, and a child placed on another worker is run again from its start/);
  } finally {
    await model.server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
