// Issue 26, point 7: `scope best_effort` — every task runs to its end, failures are collected, and
// the scope never fails because of a child (seed 001 names four policies; Turn had three).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSource } from '../../runtime/check/index.js';
import { runProgram } from '../actors/run-program.js';

const TASKS = `
let job = turn(n: Num, fail: Bool) -> Any {
    return turn() {
        let i = 0;
        while i < n * 100 { let i = i + 1; }
        if fail { throw "job " + n + " failed"; }
        call("echo", "job " + n + " finished");
        return n * 10;
    };
};
`;

test('best_effort: a failure cancels nothing; successes and failures come back, each in spawn order', async () => {
  const r = await runProgram(TASKS + `
    let report = scope best_effort {
        task call(job, 1, true);
        task call(job, 50, false);
        task call(job, 2, true);
        task call(job, 3, false);
    };
    call("echo", call("len", report["results"]) + " ok, " + call("len", report["failures"]) + " failed");
    return report;`);
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  const report = r.outcome.json as { results: number[]; failures: { type: string; message: string }[] };
  assert.deepEqual(report.results, [500, 30]);
  assert.deepEqual(report.failures.map((f) => f.message), ['job 1 failed', 'job 2 failed']);
  // the slow task ran to its end although a sibling had failed long before
  assert.ok(r.lines.includes('job 50 finished'));
  assert.equal(r.lines.at(-1), '2 ok, 2 failed');
});

test('best_effort: a scope whose every task fails still has a value', async () => {
  const r = await runProgram(TASKS + `
    let report = scope best_effort { task call(job, 1, true); task call(job, 2, true); };
    return call("len", report["failures"]);`);
  assert.ok(r.outcome.ok);
  assert.equal(r.outcome.json, 2);
});

test('best_effort: a cancelled task is collected as a failure, not raised', async () => {
  const r = await runProgram(`
    let report = scope best_effort {
        task turn() { call("cancel", call("self"), "not needed"); call("sleep", 1); return "never"; };
        task turn() { return "done"; };
    };
    return [report["results"], report["failures"][0]["type"], report["failures"][0]["message"]];`);
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  assert.deepEqual(r.outcome.json, [['done'], 'Cancelled', 'not needed']);
});

test('the checker knows best_effort (and still names the policies for a typo)', async () => {
  const ok = await checkSource('a.tn', 'let r = scope best_effort { task turn() { return 1; }; };\ncall("echo", r["results"]);\n');
  assert.deepEqual(ok.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message), []);
  const bad = await checkSource('a.tn', 'let r = scope best_efort { task turn() { return 1; }; };\n');
  assert.match(bad.diagnostics.map((d) => d.message).join('\n'), /unknown scope policy `best_efort`: use fail_fast, wait_all, first_success or best_effort/);
});
