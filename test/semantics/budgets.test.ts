// Issue 26, point 4: budgets are charged to the process that spends them. A runaway child no
// longer ends the whole run: it fails with a BudgetExhausted error its parent sees as a ChildError,
// and its siblings and parent go on. Messages are charged to their receiver, so a mailbox cannot
// grow past the run's allocation budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runProgram } from '../actors/run-program.js';

const HOG = `
let hog = turn() {
    let xs = [];
    while true { let xs = xs + ["a fairly long string that costs cells"]; }
};
`;

test("a child that exhausts the run's --max-alloc fails alone; its sibling and its parent still print", async () => {
  const r = await runProgram(HOG + `
    let a = spawn hog;
    let b = spawn turn() { call("echo", "sibling done"); return 7; };
    let results = gather [a, b];
    call("echo", "parent saw " + results[0].type + " then " + results[1]);
    return results[0].error["budget"];`, { maxAlloc: 200_000 });
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  assert.equal(r.outcome.json, 'alloc');
  assert.deepEqual(r.lines, ['sibling done', 'parent saw BudgetExhausted then 7']);
});

test('the main process exhausting --max-alloc still ends the run with the budget error', async () => {
  const r = await runProgram(HOG + 'call(hog);', { maxAlloc: 100_000 });
  assert.equal(r.outcome.ok, false);
  assert.match(!r.outcome.ok ? r.outcome.error.message : '', /allocation budget of 100000 exhausted/);
});

test('task_budget: a scope gives each task its own allocation, step and time limits; the policy handles the failure', async () => {
  const r = await runProgram(`
    let report = scope best_effort {
        call("task_budget", {"alloc": 5000});
        task turn() { let xs = []; while true { let xs = xs + [1, 2, 3]; } };
        call("task_budget", {"steps": 10000});
        task turn() { let i = 0; while true { let i = i + 1; } };
        call("task_budget", {"time_ms": 30});
        task turn() { let i = 0; while true { let i = i + 1; } };
        call("task_budget", {"steps": 10000});
        task turn() { return "small enough"; };
    };
    return [report["results"], map(report["failures"], turn(f: Any) -> Any { return f.error["budget"]; })];`);
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  assert.deepEqual(r.outcome.json, [['small enough'], ['alloc', 'steps', 'time']]);
});

test('a process cannot catch its own budget running out', async () => {
  const r = await runProgram(`
    let p = spawn turn() {
        call("budget", {"steps": 5000});
        try { while true { let x = 1; } } catch (e) { call("echo", "caught " + e["type"]); return "escaped"; }
    };
    return (gather [p])[0].type;`);
  assert.ok(r.outcome.ok);
  assert.equal(r.outcome.json, 'BudgetExhausted');
  assert.deepEqual(r.lines, []);
});

test('5,000,000 messages queued on a child do not pass --max-alloc 1000000: the receiver fails, the sender goes on', async () => {
  const r = await runProgram(`
    let sink = spawn turn() { call("sleep", 100000); };
    let i = 0;
    while i < 5000000 { send sink, i; let i = i + 1; }
    let out = gather [sink];
    return [out[0].type, out[0].error["budget"]];`, { maxAlloc: 1_000_000, maxSteps: 0 });
  assert.ok(r.outcome.ok, JSON.stringify(!r.outcome.ok && r.outcome.error.message));
  assert.deepEqual(r.outcome.json, ['BudgetExhausted', 'alloc']);
  const sink = r.vm.process(2)!;
  assert.equal(sink.inbox.size, 0, 'the failed receiver holds no messages');
});

test("messages a process sends itself are charged to it: main's mailbox cannot pass --max-alloc", async () => {
  const r = await runProgram(`
    let me = call("self");
    let i = 0;
    while i < 5000000 { send me, i; let i = i + 1; }
    return "never";`, { maxAlloc: 1_000_000, maxSteps: 0 });
  assert.equal(r.outcome.ok, false);
  assert.match(!r.outcome.ok ? r.outcome.error.message : '', /allocation budget of 1000000 exhausted/);
  assert.ok(r.vm.main.inbox.size <= 500_000, `main holds ${r.vm.main.inbox.size} messages`);
});
