// Issue 26, point 6: an agent's capabilities are enforced. They name the effect categories its
// computations may use; an effect outside them is refused at its line in the computation, before
// the host is asked, and the computation fails with it (its waiter sees the failure, as for any
// crash). Every process a computation starts is bound too, and an agent cannot grant more than
// the agent that starts it has. Before, they were only recorded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runProgram, errorMessage } from '../actors/run-program.js';

const agentWith = (caps: string, body: string) => `
let a = call("agent", {"name": "lab", "policy": "v1", "capabilities": ${caps}}, turn() {
    let c = call("agent_spawn", turn(policy: Any) { ${body} });
    try { return {"ok": call("wait", c)}; } catch (e) { return {"failed": e["message"], "type": e["type"]}; }
});
return call("wait", a);`;

test('a computation may use what its agent was granted', async () => {
  const r = await runProgram(agentWith('["model"]', 'let s: Str = infer Str { "say hi"; }; return s;'));
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error));
  assert.equal(typeof (r.outcome.json as { ok?: unknown }).ok, 'string');
});

test('an effect outside the agent\'s capabilities fails the computation with an error at its line, before the host is asked', async () => {
  const r = await runProgram(agentWith('["network"]', 'let s: Str = infer Str { "say hi"; }; return s;'));
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error));
  const out = r.outcome.json as { failed?: string; type?: string };
  assert.match(out.failed ?? '', /infer Str needs the "model" capability, which agent "lab" was not granted \(its capabilities: network\)/);
  // the failure its waiter sees carries the computation's line; this host performs no effect tools,
  // so a refusal by the host would read "this host performs no effects"
  const located = await runProgram(`
let a = call("agent", {"name": "lab", "policy": null, "capabilities": []}, turn() {
    let c = call("agent_spawn", turn(policy: Any) {
        return call("time_now_ms");
    });
    try { return call("wait", c); } catch (e) { return e; }
});
return call("wait", a);`);
  assert.ok(located.outcome.ok, JSON.stringify(!located.outcome.ok && located.outcome.error));
  const e = located.outcome.json as { message: string; line: number };
  assert.match(e.message, /^time_now_ms needs the "clock" capability, which agent "lab" was not granted \(its capabilities: none\)$/);
  assert.equal(e.line, 4);
});

test('the std modules and the agent itself are bound too: a file read through std/fs in the agent', async () => {
  const r = await runProgram(`
let a = call("agent", {"name": "reader", "policy": null, "capabilities": ["model"]}, turn() {
    let fsm = use "std/fs";
    try { return fsm.read(null, "x.txt"); } catch (e) { return e["message"]; }
});
return call("wait", a);`);
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error));
  assert.match(String(r.outcome.json), /fs_read needs the "files" capability, which agent "reader" was not granted/);
});

test('a process a computation spawns is bound by the agent\'s capabilities', async () => {
  const r = await runProgram(agentWith('["clock"]', 'let k = spawn turn() { let s: Str = infer Str { "hi"; }; return s; }; return call("wait", k);'));
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error));
  assert.match((r.outcome.json as { failed?: string }).failed ?? '', /needs the "model" capability, which agent "lab" was not granted \(its capabilities: clock\)/);
});

test('an agent cannot grant more than the agent starting it, nor an unknown capability', async () => {
  const wider = await runProgram(`
let a = call("agent", {"name": "outer", "policy": null, "capabilities": ["clock"]}, turn() {
    let inner = call("agent", {"name": "inner", "policy": null, "capabilities": ["clock", "network"]}, turn() { return 1; });
    return call("wait", inner);
});
return call("wait", a);`);
  assert.match(errorMessage(wider.outcome), /agent: cannot grant "network", which agent "outer" starting it was not granted/);
  const unknown = await runProgram('let a = call("agent", {"name": "x", "policy": null, "capabilities": ["lab_api"]}, turn() { return 1; }); return 1;');
  assert.match(errorMessage(unknown.outcome), /agent: unknown capability "lab_api" \(known: network, files, env, clock, random, knowledge, mcp, caller, model\)/);
});

test('a process outside any agent keeps the run\'s grants: Turn v1 programs are not narrowed', async () => {
  const r = await runProgram('let s: Str = infer Str { "hi"; }; let k = spawn turn() { let t: Str = infer Str { "hi"; }; return t; }; return [s, call("wait", k)];');
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error));
});

test('an agent stays bound by its capabilities after a suspend and a resume from the snapshot', { timeout: 120_000 }, async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { openStore, resumeRun, startRun } = await import('../../runtime/index.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-agent-caps-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), `
let me = call("self");
let a = call("agent", {"name": "bound", "policy": null, "capabilities": ["model"]}, turn() {
    let go = receive;
    let c = call("agent_spawn", turn(policy: Any) { return call("time_now_ms"); });
    try { send go["from"], call("wait", c); } catch (e) { send go["from"], e["message"]; }
});
call("sleep", 5);
suspend;
send a, {"from": me};
return receive;
`);
  const store = openStore(path.join(dir, 'st'));
  try {
    const first = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model: 'mock', store, onOutput: () => {} });
    assert.equal((await first.start()).kind, 'suspended');
    const run = await resumeRun({ runId: first.id!, cwd: dir, store, onOutput: () => {} });
    const result = await run.start();
    assert.equal(result.kind, 'done', JSON.stringify(result));
    assert.notEqual(run.resumedFromSnapshot, undefined, 'resumed from the snapshot, not by replay');
    assert.match(String(result.kind === 'done' ? result.json : ''), /time_now_ms needs the "clock" capability, which agent "bound" was not granted \(its capabilities: model\)/);
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
