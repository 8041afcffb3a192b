// Issue 26, point 1 (seed 003): agents. Scenario 3 — the agent starts an investigation, waits for
// an external result, answers new messages meanwhile, and produces a progress report — plus the
// shared memory a child's `remember` was invisible in, and policy versions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { runProgram } from '../actors/run-program.js';

const SCENARIO = fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'agent_investigation.tn'), 'utf8');

test('seed 003 scenario 3: the agent answers messages while its investigation waits, then reports', async () => {
  const r = await runProgram(SCENARIO);
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  assert.deepEqual(r.lines, [
    'asked while waiting: waiting for the lab',
    'asked again: waiting for the lab',
    'report: lab result 42 (policy v1)',
  ]);
});

test("a computation's remember is the agent's: the agent and its other computations read it", async () => {
  const r = await runProgram(`
    let a = call("agent", {"name": "mem", "policy": null, "capabilities": []}, turn() {
        let writer = call("agent_spawn", turn(policy: Any) { remember("lab_status", "seen by all"); return 1; });
        call("wait", writer);
        let reader = call("agent_spawn", turn(policy: Any) { return recall("lab_status"); });
        return [recall("lab_status"), call("wait", reader)];
    });
    return call("wait", a);`);
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  assert.deepEqual(r.outcome.json, ['seen by all', 'seen by all']);
});

test('a policy update reaches new computations; a running one keeps the version it started with', async () => {
  const r = await runProgram(`
    let a = call("agent", {"name": "pol", "policy": "v1", "capabilities": ["network"]}, turn() {
        let old = call("agent_spawn", turn(policy: Any) { let go = receive; return policy; });
        let version = call("agent_policy", "v2");
        let fresh = call("agent_spawn", turn(policy: Any) { return policy; });
        send old, "go";
        let info = call("agent_info");
        return [call("wait", old), call("wait", fresh), version, info["name"], info["capabilities"]];
    });
    return call("wait", a);`);
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  assert.deepEqual(r.outcome.json, ['v1', 'v2', 2, 'pol', ['network']]);
});

test('agent tools outside an agent are located Turn errors', async () => {
  const r = await runProgram('return call("agent_spawn", turn(p: Any) { return 1; });');
  assert.equal(r.outcome.ok, false);
  assert.match(!r.outcome.ok ? r.outcome.error.message : '', /agent_spawn runs only in an agent/);
});

test('an agent keeps its identity and shared memory across a suspend and a resume from the snapshot', { timeout: 120_000 }, async () => {
  const { openStore, resumeRun, startRun } = await import('../../runtime/index.js');
  const os = await import('node:os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-agent-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), `
let me = call("self");
let a = call("agent", {"name": "keeper", "policy": "v1", "capabilities": []}, turn() {
    let w = call("agent_spawn", turn(policy: Any) { remember("fact", "kept"); return 1; });
    call("wait", w);
    let go = receive;
    let r = call("agent_spawn", turn(policy: Any) { return recall("fact") + " by " + call("agent_info")["name"]; });
    send go["from"], call("wait", r);
});
call("sleep", 5);
suspend;
send a, {"from": me};
return [receive, a];
`);
  const store = openStore(path.join(dir, 'st'));
  try {
    const first = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model: 'mock', store, onOutput: () => {} });
    assert.equal((await first.start()).kind, 'suspended');
    const run = await resumeRun({ runId: first.id!, cwd: dir, store, onOutput: () => {} });
    const result = await run.start();
    assert.equal(result.kind, 'done', JSON.stringify(result));
    assert.notEqual(run.resumedFromSnapshot, undefined, 'resumed from the snapshot, not by replay');
    const [answer] = (result.kind === 'done' ? result.json : []) as [string, unknown];
    assert.equal(answer, 'kept by keeper');
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
