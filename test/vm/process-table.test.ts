// Finished processes leave the process table once nothing can ask for them (issue 45,
// runtime/vm/sweep.ts). Each test runs enough processes to trigger sweeps (one is due after
// `sweepMin` processes have ended: lowered here from its default so the programs stay small; one
// test runs past the default), counts the table at the end, and asks about the processes whose
// pids were still held in each place a pid can be: their answers must be what they always were.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VM, type RunOptions } from '../../runtime/vm/index.js';
import { SWEEP_MIN } from '../../runtime/vm/sweep.js';

/** finished processes between sweeps in these tests */
const SWEEP_EVERY = 512;
import { mockReply } from '../../runtime/infer/mock.js';
import type { Value } from '../../runtime/values/index.js';
import { compileFiles } from './harness.js';

/** Runs `source`; its value, printed lines and the table's size once the run is over. */
async function runCounting(source: string, options: RunOptions = {}, withEvents = false): Promise<{ value: Value; lines: string[]; count: number }> {
  const bundle = await compileFiles({ 'main.tn': source });
  const lines: string[] = [];
  const vm = new VM(
    bundle,
    { output: (line) => lines.push(line), infer: async (r) => mockReply(r.schema), ...(withEvents ? { event: () => {} } : {}) },
    { maxSteps: 0, sweepMin: SWEEP_EVERY, ...options },
  );
  const outcome = await vm.run();
  assert.ok(outcome.ok, outcome.ok ? '' : `${outcome.error.message} (line ${outcome.error.line})`);
  return { value: outcome.value, lines, count: vm.processCount };
}

// N workers whose pids nobody keeps, started 100 at a time (each tells main it ran, with a number:
// no pid in the message). In batches, few processes are alive at a sweep, so sweeps are cheap and
// frequent (a sweep's interval grows with what it visits, live processes included).
const N = 3000;
function unheld(n: number): string {
  return `let me = call("self");
let batch = 0;
while batch < ${n / 100} {
  let k = 0;
  while k < 100 { spawn turn() { send me, 1; return 1; }; let k = k + 1; }
  let k = 0;
  while k < 100 { let m = receive; let k = k + 1; }
  let batch = batch + 1;
}
let j = batch * 100;
`;
}
const UNHELD = unheld(N);

/**
 * What the table may still hold of N unheld workers: those ended since the last sweep, fewer than
 * the next sweep's interval (at least SWEEP_EVERY, more when the last sweep visited more). The code
 * before sweeps held all N.
 */
const AT_MOST_UNSWEPT = N / 2;

test('finished processes nobody can ask about leave the table', async () => {
  const r = await runCounting(UNHELD + 'return j;');
  assert.equal(r.value, N);
  assert.ok(r.count < AT_MOST_UNSWEPT, `the table holds ${r.count} processes after ${N} unheld workers ended`);
});

test('with the default sweep interval, a long run of unheld workers holds at most that many records', async () => {
  const n = 34_000; // past two default intervals (SWEEP_MIN is 16,384), in whole batches
  const r = await runCounting(unheld(n) + 'return j;', { sweepMin: undefined });
  assert.equal(r.value, n);
  assert.ok(r.count <= SWEEP_MIN + 1, `the table holds ${r.count} processes after ${n} unheld workers ended`);
});

test('a pid held in a list, a closure and memory is answered after its process ended and the sweeps ran', async () => {
  const r = await runCounting(`let me = call("self");
let listed = [];
let i = 0;
while i < 300 {
  let c = spawn turn() { send me, 0; return i * 2; };
  let listed = call("list_push", listed, c);
  let i = i + 1;
}
let d = spawn turn() { send me, 0; return 7; };
let captured = turn() { return d; };
let e = spawn turn() { send me, 0; return 11; };
remember("e", e);
let e = null;
let j = 0;
while j < 302 { let m = receive; let j = j + 1; }
${UNHELD}
let total = 0;
let k = 0;
while k < 300 { let total = total + call("wait", listed[k]); let k = k + 1; }
call("echo", total);
call("echo", call("wait", captured()));
call("echo", call("wait", recall("e")));
return 0;`);
  // 0 + 2 + ... + 598
  assert.deepEqual(r.lines, [String(299 * 300), '7', '11']);
  assert.ok(r.count < 303 + AT_MOST_UNSWEPT, `the table holds ${r.count}`);
  assert.ok(r.count >= 303, 'the held processes are still in the table');
});

test('a pid held only in an unread message, or in a finished process\'s result, is answered', async () => {
  const r = await runCounting(`let noise = spawn turn() {
${UNHELD}
  return 0;
};
let holder = spawn turn() {
  call("wait", noise);
  let held = receive;
  return call("wait", held);
};
let c = spawn turn() { return "from the message"; };
send holder, c;
let c = null;
let parent = spawn turn() {
  let grandchild = spawn turn() { return "from a result"; };
  return grandchild;
};
call("wait", noise);
call("echo", call("wait", holder));
call("echo", call("wait", call("wait", parent)));
return 0;`);
  assert.deepEqual(r.lines, ['from the message', 'from a result']);
  assert.ok(r.count < AT_MOST_UNSWEPT + 6, `the table holds ${r.count}`);
});

test('a pid nested deep in data (maps, lists, a closure over a map) keeps its process; a copy sent away does too', async () => {
  const r = await runCounting(`let me = call("self");
let a = spawn turn() { send me, 0; return "deep"; };
let b = spawn turn() { send me, 0; return "captured"; };
let c = spawn turn() { send me, 0; return "sent"; };
let nested = {"x": [1, [{"y": [a]}]]};
let make = turn(p: Any) -> Any { let box = {"pid": p}; return turn() -> Any { return box["pid"]; }; };
let get = make(b);
let keeper = spawn turn() {
  let got = receive;
  let wait_for_go = receive;
  return call("wait", got["z"][0]);
};
send keeper, {"z": [c]};
let a = null;
let b = null;
let c = null;
let j = 0;
while j < 3 { let m = receive; let j = j + 1; }
${UNHELD}
send keeper, "go";
call("echo", call("wait", nested["x"][1][0]["y"][0]));
call("echo", call("wait", get()));
call("echo", call("wait", keeper));
return 0;`);
  assert.deepEqual(r.lines, ['deep', 'captured', 'sent']);
  assert.ok(r.count < AT_MOST_UNSWEPT + 5, `the table holds ${r.count}`);
});

test('a monitor of a finished process still gets its Down, with the result of a held pid', async () => {
  const r = await runCounting(`let me = call("self");
let c = spawn turn() { send me, 0; return 5; };
let m = receive;
${UNHELD}
call("monitor", c);
let down = receive;
call("echo", down["type"]);
call("echo", down["pid"] == c);
return 0;`);
  assert.deepEqual(r.lines, ['Down', 'true']);
  assert.ok(r.count < AT_MOST_UNSWEPT + 2, `the table holds ${r.count}`);
});

test('a scope\'s tasks stay in the table while the scope is open, whatever ends around them', async () => {
  const r = await runCounting(`let results = scope wait_all {
  let i = 0;
  while i < 50 { task turn() { return i; }; let i = i + 1; }
${UNHELD}
};
let s = 0;
let k = 0;
while k < 50 { let s = s + results[k]; let k = k + 1; }
call("echo", s);
return 0;`);
  assert.deepEqual(r.lines, [String((49 * 50) / 2)]);
  assert.ok(r.count < AT_MOST_UNSWEPT + 51, `the table holds ${r.count}`);
});

test('a view of the run (an event sink, keepFinished) keeps every finished process', async () => {
  const program = UNHELD + 'return j;';
  assert.ok((await runCounting(program)).count < AT_MOST_UNSWEPT, 'without a view, the unheld workers leave');
  assert.equal((await runCounting(program, {}, true)).count, N + 1, 'with an event sink attached');
  assert.equal((await runCounting(program, { keepFinished: true })).count, N + 1, 'with keepFinished');
});

test('a linked parent that fails after its children were swept still takes its running children down', async () => {
  const r = await runCounting(`let me = call("self");
let boss = spawn turn() {
  let batch = 0;
  while batch < ${N / 100} {
    let k = 0;
    while k < 100 { spawn_link turn() { return 1; }; let k = k + 1; }
    let k = 0;
    while k < 100 { let m = receive; let k = k + 1; }
    let batch = batch + 1;
  }
  let sleeper = spawn_link turn() { let never = receive; return 0; };
  send me, sleeper;
  let go = receive;
  throw "boss failed";
};
call("monitor", boss);
let sleeper = receive;
call("monitor", sleeper);
${UNHELD}
send boss, 0;
let a = receive;
let b = receive;
let downs = [a, b];
let i = 0;
while i < 2 {
  if downs[i]["pid"] == sleeper { call("echo", "sleeper: " + downs[i]["reason"]["message"]); }
  if downs[i]["pid"] == boss { call("echo", "boss: " + downs[i]["reason"]); }
  let i = i + 1;
}
return 0;`);
  assert.equal(r.lines.length, 2, r.lines.join('\n'));
  assert.ok(r.lines.some((l) => /^sleeper: cancelled: its linked parent #\d+ failed/.test(l)), r.lines.join('\n'));
  // 2N workers ended (the boss's linked children, then main's); the code before sweeps held them all
  assert.ok(r.count < N, `the table holds ${r.count}`);
});

test('a sweep follows a held finished process\'s result, counts every value it visits, and waits in proportion', async () => {
  const { heldPids, nextSweepAfter } = await import('../../runtime/vm/sweep.js');
  const { Process, DONE } = await import('../../runtime/vm/process.js');
  const { PidVal } = await import('../../runtime/values/index.js');
  const main = new Process(1, 0, false);
  const numbers = Array.from({ length: 100_000 }, (_, i) => i);
  main.stack = [numbers, new PidVal(3), new PidVal(5)];
  main.sp = 2; // the pid of #5 lies above the stack pointer: a dead slot, not held
  const ended = (id: number, result: Value): InstanceType<typeof Process> => {
    const p = new Process(id, 1, false);
    p.status = DONE;
    p.result = result;
    return p;
  };
  const table = [main, ended(3, [new PidVal(4)]), ended(4, 'grandchild'), ended(5, null)];
  const held = heldPids({ processes: table, get: (pid) => table.find((p) => p.id === pid), vmValues: [], main: 1 });
  assert.deepEqual([...held.pids].sort(), [1, 3, 4]);
  assert.ok(held.walked >= numbers.length, `walked ${held.walked}`);
  assert.ok(nextSweepAfter(512, 2, held.walked) >= numbers.length / 4, 'the next sweep waits in proportion to what this one visited');
});
