// Turn runs on Restate (issue 16, docs/scale-out.md): a real restate-server on free loopback
// ports, `turn serve` workers as child processes behind a balancer, the built CLI.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import * as path from 'node:path';
import { installPromiseWithResolvers } from '../../runtime/restate/polyfill.js';
import type { Balancer } from '../../runtime/restate/balancer.js';
import { compileProgram, newRestateRunId, runStatus, sourcesOf, submitRun, waitForRun, SEMANTICS_VERSION } from '../../runtime/index.js';
import { countingModel } from '../durability/helpers.js';
import { Cluster, NO_SERVER, freePort, turn, type RestateServer, type WorkerProcess } from './harness.js';

let cluster: Cluster;
let server: RestateServer;
let balancer: Balancer;

/** A worker in the balancer's rotation only while it registers: each test routes to the workers it means. */
async function worker(env: NodeJS.ProcessEnv = {}): Promise<WorkerProcess> {
  const previous = balancer.workers;
  const w = await cluster.addWorker(env);
  balancer.workers = previous;
  return w;
}

const kill = (w: WorkerProcess): Promise<void> => cluster.kill(w);

/** A service that counts POSTs and deduplicates them by Idempotency-Key. */
async function countingService(hold?: () => Promise<void>): Promise<{ server: Server; url: string; received: string[]; seen: Promise<void> }> {
  const received: string[] = [];
  let first!: () => void;
  const seen = new Promise<void>((r) => (first = r));
  const srv = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['idempotency-key']));
      first();
      void (hold ? hold() : Promise.resolve()).then(() => res.end(JSON.stringify({ n: received.length })));
    });
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return { server: srv, url: `http://127.0.0.1:${(srv.address() as { port: number }).port}`, received, seen };
}

const workdir = (program: string): string => cluster.workdir(program);

before(async () => {
  if (NO_SERVER) return;
  cluster = await Cluster.start();
  ({ server, balancer } = cluster);
});

after(() => cluster?.close());

test('Promise.withResolvers is polyfilled for the SDK on Node 20 (and left alone where it exists)', () => {
  const P = Promise as unknown as { withResolvers?: () => { promise: Promise<number>; resolve: (v: number) => void } };
  const original = P.withResolvers;
  try {
    delete P.withResolvers;
    assert.equal(installPromiseWithResolvers(), true);
    const { promise, resolve } = P.withResolvers!();
    resolve(7);
    return promise.then((v) => {
      assert.equal(v, 7);
      assert.equal(installPromiseWithResolvers(), false);
    });
  } finally {
    if (original) P.withResolvers = original;
  }
});

const PROGRAM = `
let me = call("self");
let kid = spawn turn() { let m = receive; send m, "pong"; };
send kid, me;
let a = infer Str { "first question"; };
call("echo", "before: " + a);
suspend;
let r = receive;
let b = infer Str { "second question about " + a; };
call("echo", "after: " + b);
return {"a": a, "b": b, "r": r};
`;

test('suspend on one worker, resume from the CLI, finish on another; the output and result are those of a local run', { skip: NO_SERVER }, async () => {
  const model = await countingModel();
  const dir = workdir(PROGRAM);
  try {
    const local = await turn(['run', 'p.tn', '--store', 'st', '--model', model.spec, '--json'], dir);
    const localId = /turn: run (\S+)/.exec(local.stderr)![1];
    const localDone = await turn(['resume', localId, '--store', 'st', '--json'], dir);
    assert.equal(localDone.code, 0, localDone.stderr);
    const asked = model.asked().length;

    const a = await worker();
    balancer.workers = [a.url];
    const first = await turn(['submit', 'p.tn', '--restate', server.ingress, '--model', model.spec, '--wait'], dir);
    assert.equal(first.code, 0, first.stderr);
    const id = /turn: run (\S+)/.exec(first.stderr)![1];
    assert.equal(first.stderr.trim().split('\n').pop(), `suspended: ${id}`);
    assert.equal(first.stdout, local.stdout.split('\n')[0] + '\n');

    const runs = await turn(['runs', '--restate', server.ingress, '--restate-admin', server.admin], dir);
    assert.match(runs.stdout, new RegExp(`${id}  suspended`));

    // the worker that ran it goes away; another one finishes it
    const b = await worker();
    balancer.workers = [b.url];
    await kill(a);
    const resumed = await turn(['resume', id, '--restate', server.ingress, '--json'], dir);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(resumed.stdout, localDone.stdout);
    // the first reply was replayed from Restate's journal, not asked again
    assert.equal(model.asked().length - asked, asked);

    const inspect = await turn(['inspect', id, '--restate', server.ingress, '--restate-admin', server.admin, '--json'], dir);
    assert.equal(inspect.code, 0, inspect.stderr);
    const i = JSON.parse(inspect.stdout) as { run: { status: string }; journal: { step: string | null; kind: string; key: string }[] };
    assert.equal(i.run.status, 'done');
    // the model reply, the printed lines (o1, o2: journaled so a resume neither loses nor repeats one), the suspend
    const steps = ['e1.1', 'o1', 's1', 'e3.1', 'o2'];
    const keyed = i.journal.filter((e) => e.step !== null);
    assert.deepEqual(keyed.map((e) => e.step), steps);
    assert.deepEqual(keyed.map((e) => e.key), steps.map((k) => `turn:${id}:${k}`));
    // and main's spawn record, which names it in a stored run's view (no step: a replay skips it)
    assert.deepEqual(i.journal.filter((e) => e.step === null).map((e) => e.kind), ['spawn']);
  } finally {
    await model.server.close();
  }
});

test('an unknown outcome stays unknown: a POST in flight when its worker is killed is surfaced, settled with turn resolve, never sent again', { skip: NO_SERVER }, async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const svc = await countingService(() => held);
  const dir = workdir(`let net = use "std/net";\nlet r = net.post(null, "${svc.url}/charge", {"amount": 42});\ncall("echo", "charged");\nreturn r["status"];\n`);
  try {
    const a = await worker();
    balancer.workers = [a.url];
    const sub = await turn(['submit', 'p.tn', '--restate', server.ingress, '--allow-net', '127.0.0.1:*'], dir);
    assert.equal(sub.code, 0, sub.stderr);
    const id = sub.stdout.trim();
    await svc.seen; // the POST reached the service: its intent is in Restate's journal
    const b = await worker();
    balancer.workers = [b.url];
    await kill(a);
    release();
    const waiting = await waitForRun(server.ingress, id);
    assert.equal(waiting.status, 'waiting');
    assert.equal(waiting.wait?.unknown.length, 1);
    const step = waiting.wait.unknown[0];
    assert.equal(svc.received.length, 1);
    assert.equal(svc.received[0], `turn:${id}:e1`);

    const bad = await turn(['resolve', id, String(step), '--ok', '{nope', '--restate', server.ingress], dir);
    assert.equal(bad.code, 64);
    assert.match(bad.stderr, /--ok needs JSON/);
    const wrong = await turn(['resolve', id, '1000', '--ok', '1', '--restate', server.ingress], dir);
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /has no step 1000/);

    const ok = await turn(['resolve', id, String(step), '--ok', '{"status": 200, "body": "{}"}', '--restate', server.ingress], dir);
    assert.equal(ok.code, 0, ok.stderr);
    const done = await waitForRun(server.ingress, id, 100, waiting.wait.promise);
    assert.equal(done.status, 'done');
    assert.deepEqual(done.output, ['charged']);
    assert.equal((done.result as { json: unknown }).json, 200);
    assert.equal(svc.received.length, 1, 'the POST was not sent again');
  } finally {
    svc.server.close();
  }
});

test('bad input: an unreachable server, an unknown run, a worker whose Turn compiles the program differently, another VM semantics', { skip: NO_SERVER }, async () => {
  const dir = workdir('return 1;\n');
  const closed = `http://127.0.0.1:${await freePort()}`;
  const unreachable = await turn(['submit', 'p.tn', '--restate', closed], dir);
  assert.equal(unreachable.code, 1);
  assert.match(unreachable.stderr, /cannot reach the Restate ingress at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  assert.doesNotMatch(unreachable.stderr, /\n\s+at /);
  const serve = await turn(['serve', '--restate-admin', closed], dir);
  assert.equal(serve.code, 1);
  assert.match(serve.stderr, /cannot reach the Restate admin API/);

  if (balancer.workers.length === 0) balancer.workers = [(await worker()).url];
  for (const cmd of [['inspect', 'no-such-run'], ['resume', 'no-such-run'], ['resolve', 'no-such-run', '1', '--retry']]) {
    const r = await turn([...cmd, '--restate', server.ingress], dir);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /no run no-such-run on the Restate server/);
  }

  const code = await compileProgram(path.join(dir, 'p.tn'));
  const sources = Buffer.from(sourcesOf(code.units, code.entryPath)).toString('base64');
  const skewed = newRestateRunId();
  await submitRun(server.ingress, skewed, { entry: 'p.tn', sources, bytecodeHash: 'f'.repeat(64), semanticsVersion: SEMANTICS_VERSION, turnVersion: '9.9.9', options: {} });
  const s1 = await waitForRun(server.ingress, skewed);
  assert.equal(s1.status, 'failed');
  assert.match((s1.result as { message: string }).message, /started with bytecode ffffffffffff, but this Turn compiles its stored sources to [0-9a-f]{12}.*submitted by Turn 9\.9\.9/);
  const other = newRestateRunId();
  await submitRun(server.ingress, other, { entry: 'p.tn', sources, bytecodeHash: code.bundle.version, semanticsVersion: 'turn-vm/0', turnVersion: '0.0.1', options: {} });
  const s2 = await waitForRun(server.ingress, other);
  assert.equal(s2.status, 'failed');
  assert.match((s2.result as { message: string }).message, /semantics turn-vm\/0; this Turn speaks turn-vm\/1/);
  // nothing lost: the refused runs keep their record, and the server still runs programs
  assert.equal((await runStatus(server.ingress, skewed)).entry, 'p.tn');
  const fine = await turn(['submit', 'p.tn', '--restate', server.ingress, '--wait', '--json', '--id', 'fixed-id'], dir);
  assert.equal(fine.code, 0, fine.stderr);
  assert.equal(fine.stdout, '1\n');
  const again = await turn(['submit', 'p.tn', '--restate', server.ingress, '--id', 'fixed-id'], dir);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /run fixed-id exists already on the Restate server/);
  const compileError = await turn(['submit', 'bad.tn', '--restate', server.ingress], (fs.writeFileSync(path.join(dir, 'bad.tn'), 'let = ;\n'), dir));
  assert.equal(compileError.code, 2);
  assert.match(compileError.stderr, /bad\.tn:1:\d+: /);
});

test('turn serve stops cleanly on SIGTERM and on SIGINT (exit 0)', { skip: NO_SERVER }, async () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const w = await worker();
    const code = new Promise<number | null>((r) => w.child.once('exit', (c) => r(c)));
    w.child.kill(signal);
    assert.equal(await code, 0, w.stderr());
    assert.match(w.stderr(), new RegExp(`${signal}: stopping`));
  }
});
