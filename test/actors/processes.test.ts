import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorMessage, runProgram } from './run-program.js';

test('a process knows its own pid, so a child can reply to its parent', async () => {
  const r = await runProgram(`
    let me = call("self");
    let child = spawn turn() { let from = receive; send from, "pong"; return null; };
    send child, me;
    call("echo", receive);
    return call("self") == me;`);
  assert.ok(r.outcome.ok);
  assert.deepEqual(r.lines, ['pong']);
  assert.equal(r.outcome.json, true);
});

test('receive(ms) yields null when nothing arrives in time, and the message when one does', async () => {
  const r = await runProgram(`
    let started = call("now");
    call("echo", receive(30));
    call("echo", call("now") - started >= 30);
    let child = spawn turn() { call("sleep", 10); send call("self"), "ignored"; return null; };
    let me = call("self");
    let sender = spawn turn() { send me, "hello"; return null; };
    call("echo", receive(5000));`);
  assert.ok(r.outcome.ok, JSON.stringify(r.outcome));
  assert.deepEqual(r.lines, ['null', 'true', 'hello']);
});

test('a waiting process is not starved by a busy one: timers fire while others run', async () => {
  const r = await runProgram(`
    let busy = spawn turn() { let i = 0; while i < 3000000 { let i = i + 1; } return i; };
    call("sleep", 5);
    call("echo", "woke while busy is " + call("processes")[1]["status"]);`);
  assert.deepEqual(r.lines, ['woke while busy is ready']);
});

test('monitors deliver Down with the result or the reason; a crash never harms the monitor', async () => {
  const r = await runProgram(`
    let ok = spawn turn() { return 42; };
    let bad = spawn turn() { let xs = []; return xs[3]; };
    call("monitor", ok);
    call("monitor", bad);
    let first = receive;
    let second = receive;
    call("echo", first["type"] + " " + first["result"]);
    call("echo", second["type"] + " " + second["reason"]["type"]);
    let done = spawn turn() { return 1; };
    gather done;
    call("monitor", done);
    call("echo", receive["result"]);`);
  assert.ok(r.outcome.ok, JSON.stringify(r.outcome));
  assert.deepEqual(r.lines, ['Down 42', 'Down RuntimeError', '1']);
});

test('a detached process outlives its creator and the run waits for it', async () => {
  const r = await runProgram(`
    let h = detach turn() { call("sleep", 20); call("echo", "detached finished"); return "kept"; };
    call("echo", "main done");
    return h;`);
  assert.ok(r.outcome.ok);
  assert.deepEqual(r.lines, ['main done', 'detached finished']);
});

test('a detached handle gives wait, cancel and an event stream', async () => {
  const r = await runProgram(`
    let h = detach turn() { call("emit", "step 1"); call("emit", "step 2"); return 7; };
    call("echo", call("wait", h));
    let kinds = map(call("events", h), turn(e: Map) -> Str { return e["type"]; });
    call("echo", kinds);
    let stuck = detach turn() { receive; return null; };
    call("cancel", stuck);
    try { call("wait", stuck); } catch (e) { call("echo", "waited: " + e["type"]); }
    let failing = detach turn() { throw "no luck"; };
    try { call("wait", failing); } catch (e) { call("echo", "waited: " + e); }`);
  assert.ok(r.outcome.ok, JSON.stringify(r.outcome));
  assert.deepEqual(r.lines, ['7', '["Spawned", "Progress", "Progress", "Exit"]', 'waited: Cancelled', 'waited: no luck']);
});

test('the VM lists processes with state, parent, links and mailbox size', async () => {
  const r = await runProgram(`
    let a = spawn_link turn() { receive; return 1; };
    send a, "x";
    send a, "y";
    let b = spawn turn() { return receive; };
    send b, "only";
    return null;`);
  const procs = r.vm.inspectProcesses();
  assert.deepEqual(
    procs.map((p) => ({ pid: p.pid, parent: p.parent, status: p.status, linked: p.linked })),
    [
      { pid: 1, parent: 0, status: 'done', linked: false },
      { pid: 2, parent: 1, status: 'ready', linked: true },
      { pid: 3, parent: 1, status: 'ready', linked: false },
    ],
  );
  assert.equal(procs[1].mailbox, 2);
});

test('deadlock is reported at the waiting line, not hung', async () => {
  const r = await runProgram('call("echo", "start");\nlet never = receive;');
  assert.match(errorMessage(r.outcome), /deadlock: every process is waiting/);
  assert.equal(!r.outcome.ok && r.outcome.error.line, 2);
});

const SUPERVISED = (spec: string) => `
  let supervisor = use "std/supervisor";
  let flaky = turn() { call("echo", "start"); throw "crash"; };
  try {
      call("echo", supervisor.run(${spec}));
  } catch (e) {
      call("echo", e["type"] + ": " + e["message"] + "; restarts " + e["restarts"] + "; last " + e["reason"]);
  }`;

test('a supervised child that crashes three times is restarted; a fourth crash within the period stops the supervisor', async () => {
  const r = await runProgram(SUPERVISED('{"children": [flaky], "intensity": 3, "period": 60000}'));
  assert.ok(r.outcome.ok, JSON.stringify(r.outcome));
  assert.deepEqual(r.lines, ['start', 'start', 'start', 'start', 'SupervisorStopped: more than 3 restarts within 60000 ms; restarts 3; last crash']);
});

test('one_for_all restarts every child when one crashes', async () => {
  const r = await runProgram(`
    let supervisor = use "std/supervisor";
    let crasher = turn() { call("echo", "crasher up"); throw "crash"; };
    let sibling = turn() { call("echo", "sibling up"); receive; return null; };
    try { supervisor.run({"children": [sibling, crasher], "strategy": "one_for_all", "intensity": 1, "period": 60000}); }
    catch (e) { call("echo", e["type"]); }`);
  assert.deepEqual(r.lines, ['sibling up', 'crasher up', 'sibling up', 'crasher up', 'SupervisorStopped']);
});

test('a supervisor whose children all end normally ends with "finished"; started as a process it is reached by pid', async () => {
  const r = await runProgram(`
    let supervisor = use "std/supervisor";
    let sup = supervisor.start({"children": [turn() { return 1; }, turn() { return 2; }]});
    call("echo", call("wait", sup));`);
  assert.deepEqual(r.lines, ['finished']);
});
