// Issue 26, point 2: `call("select", arms)` waits on any mix of a message (pattern, sender), a
// process's completion, a timer or deadline and a runtime event, and runs the first ready arm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runProgram } from '../actors/run-program.js';

test('select takes the first ready source: a message by pattern, leaving the others queued', async () => {
  const r = await runProgram(`
    let me = call("self");
    send me, {"type": "noise", "n": 1};
    send me, {"type": "result", "n": 2};
    let got = call("select", [
        {"message": {"type": "result"}, "then": turn(m: Map) -> Any { return "result " + m["n"]; }},
        {"after": 1000, "then": turn() -> Any { return "timeout"; }},
    ]);
    let left = receive;
    return [got, left["type"]];`);
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  assert.deepEqual(r.outcome.json, ['result 2', 'noise']);
});

test("select waits on a child's completion, a sender's message and a timer; the first to happen wins", async () => {
  const r = await runProgram(`
    let me = call("self");
    let slow = spawn turn() { call("sleep", 10000); return "slow"; };
    let quick = spawn turn() { call("sleep", 5); return "quick"; };
    let talker = spawn turn() { call("sleep", 20000); send me, {"from": call("self"), "text": "late"}; };
    let first = call("select", [
        {"done": slow, "name": "slow"},
        {"from": talker, "name": "talker"},
        {"done": quick, "name": "quick"},
        {"after": 30000, "name": "timer"},
    ]);
    let second = call("select", [
        {"message": null, "name": "any message"},
        {"after": 10, "name": "timer"},
    ]);
    call("cancel", slow);
    call("cancel", talker);
    return [first["branch"], first["value"], second["branch"]];`);
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  assert.deepEqual(r.outcome.json, ['quick', 'quick', 'timer']);
});

test("select on a process's events: a detached job's progress wakes it", async () => {
  const r = await runProgram(`
    let job = detach turn() { call("sleep", 5); call("emit", "half way"); call("sleep", 5); return "done"; };
    let seen = call("len", call("events", job));
    let e = call("select", [{"event": job, "since": seen}, {"after": 20000}]);
    return [e["branch"], e["value"]["type"], e["value"]["value"], call("wait", job)];`);
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  assert.deepEqual(r.outcome.json, [0, 'Progress', 'half way', 'done']);
});

test('a cancelled select consumes nothing: the message it was waiting for stays in the mailbox', async () => {
  const r = await runProgram(`
    let me = call("self");
    let w = spawn turn() {
        try {
            send me, "ready";
            call("select", [{"message": {"type": "go"}}]);
        } catch (e) {
            return e["type"] + " with " + call("len", call("processes")) + " processes; left: " + receive["type"];
        }
    };
    let ready = receive;
    send w, {"type": "wait"};
    call("cancel", w, "stop");
    send w, {"type": "other"};
    return gather [w];`);
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  assert.match(String((r.outcome.json as string[])[0]), /^Cancelled with \d+ processes; left: wait$/);
});

test('bad arms are located Turn errors', async () => {
  const r = await runProgram(`return call("select", [{"after": 1, "done": call("self")}]);`);
  assert.equal(r.outcome.ok, false);
  assert.match(!r.outcome.ok ? r.outcome.error.message : '', /select: arm 0 must wait on exactly one source/);
  assert.equal(!r.outcome.ok && r.outcome.error.line, 1);
});

test('a durable run replays the arms select chose: a full replay from the journal takes the same ones', { timeout: 120_000 }, async () => {
  const { openStore, resumeRun, startRun } = await import('../../runtime/index.js');
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-select-'));
  // a ping every 2 ms against a 2 ms timer: which arm wins each round is a race, decided live once
  fs.writeFileSync(path.join(dir, 'p.tn'), `
let me = call("self");
let pinger = spawn turn() { let k = 0; while k < 6 { call("sleep", 2); send me, {"type": "ping"}; let k = k + 1; } };
let picks = [];
let i = 0;
while i < 8 {
    let r = call("select", [{"message": {"type": "ping"}, "name": "ping"}, {"after": 2, "name": "timer"}]);
    let picks = call("list_push", picks, r["branch"]);
    let i = i + 1;
}
call("echo", call("json_stringify", picks));
suspend;
return picks;
`);
  const store = openStore(path.join(dir, 'st'));
  try {
    const live: string[] = [];
    const first = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model: 'mock', store, onOutput: (l) => live.push(l) });
    assert.equal((await first.start()).kind, 'suspended');
    const picks = JSON.parse(live[0]) as string[];
    assert.equal(picks.length, 8);
    // under the debugger a resume replays the whole journal from the start (no snapshot)
    const run = await resumeRun({ runId: first.id!, cwd: dir, store, onOutput: () => {} });
    run.attachDebugger(false);
    const result = await run.start();
    assert.equal(result.kind, 'done', JSON.stringify(result));
    assert.deepEqual(result.kind === 'done' && result.json, picks);
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
