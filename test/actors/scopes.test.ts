import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSource } from '../../runtime/check/index.js';
import { errorMessage, runProgram } from './run-program.js';

// A task that spins for n*100 steps, then fails or returns n * 10; and one that never ends.
const WORK = `
let work = turn(n: Num, fail: Bool) -> Any {
    return turn() {
        let i = 0;
        while i < n * 100 { let i = i + 1; }
        if fail { throw "task " + n + " failed"; }
        return n * 10;
    };
};
let forever = turn(label: Str) -> Any {
    return turn() {
        try { while true { let x = 1; } } catch (e) { call("echo", label + " saw " + e["type"]); throw e; }
    };
};
`;

test('wait_all returns every result in spawn order, never completion order; a failed task is a ChildError', async () => {
  const r = await runProgram(WORK + `
    let all = scope wait_all { task call(work, 30, false); task call(work, 1, true); task call(work, 2, false); };
    return all;`);
  assert.ok(r.outcome.ok);
  const [first, failed, third] = r.outcome.json as [number, Record<string, unknown>, number];
  assert.deepEqual([first, third], [300, 20]);
  assert.equal(failed.type, 'Thrown');
  assert.equal(failed.error, 'task 1 failed');
});

test('fail_fast: the first failure cancels the siblings (which can clean up) and is raised', async () => {
  const r = await runProgram(WORK + `
    try {
        let never = scope fail_fast { task call(forever, "a"); task call(forever, "b"); task call(work, 2, true); };
        call("echo", "not reached");
    } catch (e) {
        call("echo", "caught " + e);
    }`);
  assert.ok(r.outcome.ok, JSON.stringify(r.outcome));
  assert.deepEqual([...r.lines].sort(), ['a saw Cancelled', 'b saw Cancelled', 'caught task 2 failed']);
  assert.equal(r.lines[r.lines.length - 1], 'caught task 2 failed', 'the scope ends only after its tasks did');
});

test('fail_fast with no failure returns the results in spawn order', async () => {
  const r = await runProgram(WORK + `return scope fail_fast { task call(work, 5, false); task call(work, 1, false); };`);
  assert.deepEqual(r.outcome.ok && r.outcome.json, [50, 10]);
});

test('first_success: the first result wins and the rest are cancelled', async () => {
  const r = await runProgram(WORK + `
    let winner = scope first_success { task call(work, 1, true); task call(forever, "slow"); task call(work, 3, false); };
    call("echo", "winner " + winner);`);
  assert.ok(r.outcome.ok);
  assert.deepEqual(r.lines, ['slow saw Cancelled', 'winner 30']);
});

test('first_success: when every task fails, one error lists each failure', async () => {
  const r = await runProgram(WORK + `
    try { let x = scope first_success { task call(work, 1, true); task call(work, 2, true); }; }
    catch (e) { call("echo", e["type"]); call("echo", e["errors"]); call("echo", e["message"]); }`);
  assert.deepEqual(r.lines, ['AllTasksFailed', '["task 1 failed", "task 2 failed"]', 'all 2 tasks of the first_success scope failed']);
});

test('an error that leaves a scope cancels its tasks and waits for them: none is orphaned', async () => {
  const r = await runProgram(WORK + `
    try { let x = scope wait_all { task call(forever, "orphan?"); call("sleep", 5); throw "leaving"; }; } catch (e) { call("echo", "left by " + e); }
    let live = filter(call("processes"), turn(p: Map) -> Bool { return p["status"] != "done" and p["status"] != "failed" and p["pid"] != call("self"); });
    call("echo", "still running: " + call("len", live));`);
  assert.ok(r.outcome.ok, JSON.stringify(r.outcome));
  assert.deepEqual(r.lines, ['orphan? saw Cancelled', 'left by leaving', 'still running: 0']);
});

test('a task outside any scope is a run-time error; return inside a scope is a compile error', async () => {
  const r = await runProgram('let t = task turn() { return 1; };');
  assert.match(errorMessage(r.outcome), /`task` runs only inside a `scope` block/);
  const checked = await checkSource('s.tn', 'let f = turn() { let r = scope wait_all { return 1; }; };');
  assert.deepEqual(checked.diagnostics.map((d) => d.code), ['scope-return']);
  const policy = await checkSource('s.tn', 'let r = scope fastest { };');
  assert.match(policy.diagnostics[0].message, /unknown scope policy `fastest`/);
});

// Programs whose outcome must not depend on the interleaving the scheduler picks.
const DETERMINISTIC: Record<string, string> = {
  wait_all: WORK + `
    let r = scope wait_all { task call(work, 7, false); task call(work, 2, true); task call(work, 5, false); task call(work, 1, false); };
    call("echo", r); return r;`,
  fail_fast: WORK + `
    try { let r = scope fail_fast { task call(work, 9, false); task call(work, 3, true); task call(forever, "x"); task call(work, 1, false); }; }
    catch (e) { call("echo", "error: " + e); }
    let ok = scope fail_fast { task call(work, 4, false); task call(work, 2, false); };
    call("echo", ok); return ok;`,
  first_success: WORK + `
    let w = scope first_success { task call(work, 2, true); task call(forever, "y"); task call(work, 6, false); task call(work, 1, true); };
    call("echo", "winner " + w); return w;`,
};

for (const [policy, source] of Object.entries(DETERMINISTIC)) {
  test(`${policy}: the same results under 100 scheduler seeds`, async () => {
    const baseline = await runProgram(source);
    assert.ok(baseline.outcome.ok, JSON.stringify(baseline.outcome));
    const schedules = new Set<string>();
    for (let seed = 1; seed <= 100; seed++) {
      const r = await runProgram(source, { seed });
      assert.ok(r.outcome.ok, `seed ${seed}`);
      assert.deepEqual(r.outcome.json, baseline.outcome.json, `seed ${seed}`);
      assert.deepEqual(r.lines.filter((l) => !l.includes(' saw ')), baseline.lines.filter((l) => !l.includes(' saw ')), `seed ${seed}`);
      schedules.add(r.vm.inspectProcesses().map((p) => p.pid).join());
    }
  });
}

test('seeds really change the interleaving (so the test above is not vacuous)', async () => {
  const source = `
    let a = spawn turn() { let i = 0; while i < 300 { let i = i + 1; } call("echo", "a"); return 1; };
    let b = spawn turn() { let i = 0; while i < 300 { let i = i + 1; } call("echo", "b"); return 2; };
    gather [a, b];`;
  const orders = new Set<string>();
  for (let seed = 1; seed <= 30; seed++) orders.add((await runProgram(source, { seed })).lines.join());
  assert.deepEqual([...orders].sort(), ['a,b', 'b,a']);
  const again = await Promise.all([7, 7].map(async (seed) => (await runProgram(source, { seed })).lines.join()));
  assert.equal(again[0], again[1], 'one seed replays one schedule');
});
