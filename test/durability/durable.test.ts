// Durable runs through the built CLI, across OS processes (issue 5, docs/durability.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { countingModel, runIdOf, turnAsync } from './helpers.js';

function workdir(program: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-durable-'));
  fs.mkdirSync(path.join(dir, 'out'));
  fs.writeFileSync(path.join(dir, 'p.tn'), program);
  return dir;
}

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

test('suspend, then resume in a new OS process: recorded replies are replayed, never re-asked; output is not repeated', async () => {
  const model = await countingModel();
  const dir = workdir(PROGRAM);
  try {
    const first = await turnAsync(['run', 'p.tn', '--store', 'st', '--model', model.spec], dir);
    assert.equal(first.code, 0, first.stderr);
    const id = runIdOf(first.stderr);
    assert.equal(first.stderr.trim().split('\n').pop(), `suspended: ${id}`);
    assert.match(first.stdout, /^before: R/);
    assert.equal(model.asked().length, 1);

    const list = await turnAsync(['runs', '--store', 'st'], dir);
    assert.match(list.stdout, new RegExp(`${id}\\s+suspended`));
    const shown = await turnAsync(['inspect', id, '--store', 'st'], dir);
    assert.match(shown.stdout, /pid 1 .*effect/);
    assert.match(shown.stdout, /mailbox 1 message\(s\)\n\s+pong/);
    assert.match(shown.stdout, /e1\.1\s+infer\s+Str\s+ok/);

    const second = await turnAsync(['resume', id, '--store', 'st', '--json'], dir);
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stdout, /before:/, 'lines printed before the suspend are not printed again');
    const lines = second.stdout.trim().split('\n');
    assert.match(lines[0], /^after: R/);
    const result = JSON.parse(lines[1]) as Record<string, string>;
    assert.equal(result.r, 'pong');
    assert.deepEqual(model.asked(), ['first question', `second question about ${result.a}`], 'each prompt asked exactly once over both processes');

    const again = await turnAsync(['resume', id, '--store', 'st', '--json'], dir);
    assert.equal(again.code, 0);
    assert.deepEqual(JSON.parse(again.stdout), result);
    assert.equal(model.asked().length, 2);
  } finally {
    await model.server.close();
  }
});

test('a run killed after its model reply was recorded resumes without asking again', async () => {
  const model = await countingModel();
  const dir = workdir('let a = infer Str { "only question"; };\nlet b = infer Str { "next " + a; };\nreturn [a, b];\n');
  try {
    // journal writes: 1 intent e1.1, 2 its reply, 3 intent e2.1 — killed just before 3
    const killed = await turnAsync(['run', 'p.tn', '--store', 'st', '--model', model.spec], dir, { TURN_CRASH_AT: '3:before' });
    assert.equal(killed.signal, 'SIGKILL');
    const id = runIdOf(killed.stderr);
    const resumed = await turnAsync(['resume', id, '--store', 'st', '--json'], dir);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(model.asked().filter((p) => p === 'only question').length, 1);
    assert.equal(model.asked().length, 2);
  } finally {
    await model.server.close();
  }
});

test('an unknown non-idempotent outcome makes the run wait for a decision; resolve settles it', async () => {
  const dir = workdir('let fs = use "std/fs";\nlet f = turn() {\n  try { fs.append(null, "out/log.txt", "A\\n"); return "appended"; } catch (e) { return "failed: " + e.message; }\n};\nreturn f();\n');
  // writes: 1 the intent of fs_append, 2 its outcome — killed before 2: it ran, its result was not recorded
  const killed = await turnAsync(['run', 'p.tn', '--store', 'st', '--allow-write', 'out'], dir, { TURN_CRASH_AT: '2:before' });
  assert.equal(killed.signal, 'SIGKILL');
  const id = runIdOf(killed.stderr);
  const waiting = await turnAsync(['resume', id, '--store', 'st'], dir);
  assert.equal(waiting.code, 3, waiting.stderr);
  assert.match(waiting.stderr, /unknown: step 1 \(tool `fs_append`/);
  assert.equal(waiting.stderr.trim().split('\n').pop(), `waiting: ${id}`);
  assert.equal(fs.readFileSync(path.join(dir, 'out', 'log.txt'), 'utf8'), 'A\n', 'it ran once and was not re-run');
  const runs = await turnAsync(['runs', '--store', 'st'], dir);
  assert.match(runs.stdout, /waiting .*\(1 open effect\)/);
  const shown = await turnAsync(['inspect', id, '--store', 'st'], dir);
  assert.match(shown.stdout, /step 1\s+unknown\s+tool fs_append\s+not idempotent/);
  const done = await turnAsync(['resume', id, '--store', 'st'], dir);
  assert.equal(done.code, 3, 'never reported as success while unknown');

  const resolved = await turnAsync(['resolve', id, '1', '--error', 'the operator says it failed', '--store', 'st'], dir);
  assert.equal(resolved.code, 0, resolved.stderr);
  const finished = await turnAsync(['resume', id, '--store', 'st', '--json'], dir);
  assert.equal(finished.code, 0, finished.stderr);
  assert.equal(JSON.parse(finished.stdout), 'failed: the operator says it failed');
  assert.equal(fs.readFileSync(path.join(dir, 'out', 'log.txt'), 'utf8'), 'A\n');
});

test('--retry re-runs an unknown effect once with its idempotency key; idempotent reads are re-run on their own', async () => {
  const dir = workdir('let fs = use "std/fs";\nlet t = fs.read(null, "out/in.txt");\nfs.append(null, "out/log.txt", t);\nreturn fs.read(null, "out/log.txt");\n');
  fs.writeFileSync(path.join(dir, 'out', 'in.txt'), 'X');
  // writes: 1 intent fs_read — killed after 1: an idempotent read with an unknown outcome
  const k1 = await turnAsync(['run', 'p.tn', '--store', 'st', '--allow-write', 'out', '--allow-read', 'out'], dir, { TURN_CRASH_AT: '1:after' });
  assert.equal(k1.signal, 'SIGKILL');
  const id = runIdOf(k1.stderr);
  // the resume re-runs the read, then is killed after the append's intent (write 3 of this process)
  const k2 = await turnAsync(['resume', id, '--store', 'st'], dir, { TURN_CRASH_AT: '2:after' });
  assert.equal(k2.signal, 'SIGKILL', k2.stderr);
  const w = await turnAsync(['resume', id, '--store', 'st'], dir);
  assert.equal(w.code, 3, w.stderr);
  const step = /unknown: step (\d+)/.exec(w.stderr)![1];
  assert.equal((await turnAsync(['resolve', id, step, '--retry', '--store', 'st'], dir)).code, 0);
  const done = await turnAsync(['resume', id, '--store', 'st', '--json'], dir);
  assert.equal(done.code, 0, done.stderr);
  assert.equal(JSON.parse(done.stdout), 'X');
});

test('versions: --migrate moves a suspended run to the changed file, journaled; a change before the wait point is a divergence naming the step', async () => {
  const model = await countingModel();
  const dir = workdir('let a = infer Str { "q1"; };\nsuspend;\nreturn "v1 " + a;\n');
  try {
    const first = await turnAsync(['run', 'p.tn', '--store', 'st', '--model', model.spec], dir);
    const id = runIdOf(first.stderr);
    fs.writeFileSync(path.join(dir, 'p.tn'), 'let a = infer Str { "q1"; };\nsuspend;\nreturn "v2 " + a;\n');
    const plain = await turnAsync(['resume', id, '--store', 'st', '--json'], dir);
    assert.match(JSON.parse(plain.stdout), /^v1 /, 'a resume runs the code the run started with');

    const dir2 = workdir('let a = infer Str { "q1"; };\nsuspend;\nreturn "v1 " + a;\n');
    const r2 = await turnAsync(['run', 'p.tn', '--store', 'st', '--model', model.spec], dir2);
    const id2 = runIdOf(r2.stderr);
    fs.writeFileSync(path.join(dir2, 'p.tn'), 'let a = infer Str { "q1"; };\nsuspend;\nreturn "v2 " + a;\n');
    const moved = await turnAsync(['resume', id2, '--store', 'st', '--migrate', '--json'], dir2);
    assert.equal(moved.code, 0, moved.stderr);
    assert.match(moved.stderr, /moves from bytecode \w+ to \w+ \(journaled\)/);
    assert.match(JSON.parse(moved.stdout), /^v2 /);
    const shown = await turnAsync(['inspect', id2, '--store', 'st'], dir2);
    assert.match(shown.stdout, /migrate\s+bytecode\s+ok/);

    const dir3 = workdir('let a = infer Str { "q1"; };\nsuspend;\nreturn a;\n');
    const r3 = await turnAsync(['run', 'p.tn', '--store', 'st', '--model', model.spec], dir3);
    const id3 = runIdOf(r3.stderr);
    fs.writeFileSync(path.join(dir3, 'p.tn'), 'let a = infer Str { "another question"; };\nsuspend;\nreturn a;\n');
    const diverged = await turnAsync(['resume', id3, '--store', 'st', '--migrate'], dir3);
    assert.equal(diverged.code, 1);
    assert.match(diverged.stderr, /replay diverged at step 1 \(e1\.1\): the journal recorded infer `Str` \(input \w+\), the program now asks infer `Str` \(input \w+\)/);
  } finally {
    await model.server.close();
  }
});

test('timers and the clock replay: receive with a timeout, sleep and now', async () => {
  const dir = workdir(`
let me = call("self");
let kid = spawn turn() { call("sleep", 30); send me, "late"; };
let first = receive(1);
let t = call("now");
suspend;
let second = receive;
return [first, second, t >= 0];
`);
  const r = await turnAsync(['run', 'p.tn', '--store', 'st'], dir);
  assert.equal(r.code, 0, r.stderr);
  const id = runIdOf(r.stderr);
  const done = await turnAsync(['resume', id, '--store', 'st', '--json'], dir);
  assert.equal(done.code, 0, done.stderr);
  assert.deepEqual(JSON.parse(done.stdout), [null, 'late', true]);
});

test('a run that suspends while another process sleeps exits at once instead of waiting on it', async () => {
  const dir = workdir(`
let kid = spawn turn() { call("sleep", 8000); return null; };
suspend;
return 1;
`);
  const started = Date.now();
  const r = await turnAsync(['run', 'p.tn', '--store', 'st'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /suspended: \S+\s*$/);
  assert.ok(Date.now() - started < 6000, 'the OS process ended without waiting for the sleeper (or spinning after the stop)');
});

test('without --store, a program that suspends runs durable in .turn/ (as in Turn v1); a store that is not a Turn store is refused', async () => {
  const dir = workdir('call("echo", "before");\nsuspend;\ncall("echo", "after");\n');
  const r = await turnAsync(['run', 'p.tn'], dir);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'before\n');
  assert.match(r.stderr, /the program can suspend, so this run is durable/);
  const id = /suspended: (\S+)\s*$/.exec(r.stderr)?.[1];
  assert.ok(id, r.stderr);
  assert.ok(fs.existsSync(path.join(dir, '.turn', 'store.db')));
  const resumed = await turnAsync(['resume', id], dir);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, 'after\n');
  const plain = workdir('call("echo", "no suspend here");\n');
  assert.equal((await turnAsync(['run', 'p.tn'], plain)).code, 0);
  assert.ok(!fs.existsSync(path.join(plain, '.turn')), 'a program without suspend is not journaled');
  fs.mkdirSync(path.join(dir, 'bad'));
  fs.writeFileSync(path.join(dir, 'bad', 'store.db'), 'not a database at all, just text'.repeat(10));
  const bad = await turnAsync(['run', 'p.tn', '--store', 'bad'], dir);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /store\.db/);
  assert.doesNotMatch(bad.stderr, /internal error/);
});

test('a resume started from another folder runs where the run started: relative grants and files resolve there', async () => {
  const dir = workdir('let fs = use "std/fs";\nsuspend;\nfs.write(null, "out/x.txt", "written after the resume");\nreturn "done";\n');
  const first = await turnAsync(['run', 'p.tn', '--store', 'st', '--allow-write', 'out'], dir);
  assert.equal(first.code, 0, first.stderr);
  const id = runIdOf(first.stderr);
  const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-elsewhere-'));
  const resumed = await turnAsync(['resume', id, '--store', path.join(dir, 'st'), '--json'], elsewhere);
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(JSON.parse(resumed.stdout), 'done');
  assert.equal(fs.readFileSync(path.join(dir, 'out', 'x.txt'), 'utf8'), 'written after the resume');
  assert.equal(fs.existsSync(path.join(elsewhere, 'out')), false);
});
