// Issue 29, spawn + exit at a lower cost: the process table is an array by pid, a process's mailbox
// is made on first use, a finished process lets go of its stack (and, once returned, its frames),
// a failing parent finds its linked children in an index instead of searching every process, and
// the run's search for live detached processes reads each process once. What these must keep:
// lookups, creation order, results of finished processes, and no state shared between records.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventLog } from '../../runtime/events/index.js';
import { ProcessTable } from '../../runtime/vm/lifecycle.js';
import { DONE, FAILED, Process } from '../../runtime/vm/process.js';
import { VM } from '../../runtime/vm/index.js';
import { mockReply } from '../../runtime/infer/mock.js';
import { compileFiles } from './harness.js';

async function runVM(source: string): Promise<VM> {
  const vm = new VM(await compileFiles({ 'main.tn': source }), { output: () => {}, infer: async (r) => mockReply(r.schema) }, {});
  const outcome = await vm.run();
  assert.ok(outcome.ok, JSON.stringify(!outcome.ok && outcome.error.message));
  return vm;
}

test('the process table finds processes by pid and lists them in creation order, restored ones with gaps too', () => {
  const events = new EventLog();
  const t = new ProcessTable();
  const a = t.create(0, false, undefined, events);
  const b = t.create(a.id, true, undefined, events);
  const c = t.create(a.id, false, undefined, events);
  const d = t.create(a.id, true, undefined, events);
  assert.deepEqual([a.id, b.id, c.id, d.id], [1, 2, 3, 4]);
  assert.equal(t.get(3), c);
  assert.equal(t.get(0), undefined);
  assert.equal(t.get(99), undefined);
  assert.deepEqual([...t.values()].map((p) => p.id), [1, 2, 3, 4]);
  // only the linked ones, in spawn order
  assert.deepEqual(t.linkedChildren(a.id), [2, 4]);
  assert.deepEqual(t.linkedChildren(b.id), []);

  // a restored run (issue 17) brings its processes with their own pids, some of them gone
  const r = new ProcessTable();
  r.restore(new Process(1, 0, false));
  r.restore(new Process(3, 1, true));
  r.restore(new Process(6, 3, true));
  r.nextPid = 7;
  assert.deepEqual([...r.values()].map((p) => p.id), [1, 3, 6]);
  assert.equal(r.get(2), undefined);
  assert.equal(r.get(6)?.parent, 3);
  assert.deepEqual(r.linkedChildren(1), [3], 'the linked index is rebuilt from restored processes');
  assert.deepEqual(r.linkedChildren(3), [6]);
  assert.equal(r.create(1, false, undefined, events).id, 7);
});

test('a detached process started after the last search is still waited for; a finished one is not', () => {
  const events = new EventLog();
  const t = new ProcessTable();
  const main = t.create(0, false, undefined, events);
  t.create(main.id, false, undefined, events);
  assert.equal(t.hasLiveDetached(), false);
  const late = t.create(main.id, false, undefined, events);
  late.detached = true;
  assert.equal(t.hasLiveDetached(), true, 'a detached process made after a search is found');
  late.status = DONE;
  assert.equal(t.hasLiveDetached(), false);
  const again = t.create(main.id, false, undefined, events);
  again.detached = true;
  assert.equal(t.hasLiveDetached(), true);
  again.status = FAILED;
  assert.equal(t.hasLiveDetached(), false);
});

test('a mailbox is made on first use, and a process without one reports no messages', () => {
  const p = new Process(1, 0, false);
  assert.equal(p.messageCount, 0);
  assert.deepEqual(p.mailbox, []);
  p.inbox.push('hello');
  p.inbox.push(2);
  assert.equal(p.messageCount, 2);
  assert.deepEqual(p.mailbox, ['hello', 2]);
  const q = new Process(2, 0, false);
  q.mailbox = ['x'];
  assert.equal(q.messageCount, 1);
  assert.equal(q.inbox.shift(), 'x');
  // two processes never share a mailbox
  assert.equal(new Process(3, 0, false).messageCount, 0);
  assert.notEqual(new Process(4, 0, false).inbox, new Process(5, 0, false).inbox);
});

test('finished workers keep their results, their pids and their links, and hold no stack; what they share cannot be written', async () => {
  const n = 200;
  const vm = await runVM(`
    let pids = [];
    let i = 0;
    while i < ${n} { let pids = pids + [spawn_link turn() { return 7; }]; let i = i + 1; }
    let got = 0;
    while got < ${n} { let m = receive; let got = got + 1; }
    let results = gather pids;
    return results[0] + results[${n - 1}];
  `);
  const children = [...vm.processes()].filter((p) => p !== vm.main);
  assert.equal(children.length, n);
  for (const [k, p] of children.entries()) {
    assert.equal(p.id, k + 2);
    assert.equal(p.status, DONE);
    assert.equal(p.result, 7);
    assert.equal(p.parent, vm.main.id);
    assert.equal(p.linked, true);
    assert.equal(p.stack.length, 0);
    assert.equal(p.frames.length, 0);
    assert.equal(p.messageCount, 0);
  }
  assert.equal(vm.process(2)!.stack, vm.process(3)!.stack, 'one empty stack for every finished process');
  assert.throws(() => vm.process(2)!.stack.push(1), TypeError, 'the shared empty stack is frozen');
  assert.throws(() => vm.process(2)!.frames.push(vm.main.frames[0]), TypeError, 'the shared empty frame list is frozen');
  assert.equal(vm.process(3)!.stack.length, 0, 'nothing written through one record shows in another');
});

test('a worker that ends with messages unread keeps them for inspection; a failed one keeps its frames', async () => {
  const vm = await runVM(`
    let a = spawn turn() { let first = receive; return first; };
    let b = spawn turn() { let x = receive; throw "no"; };
    send a, 1; send a, 2; send a, 3;
    send b, 0;
    let r = gather a;
    let s = receive(200);
    return r;
  `);
  const a = vm.process(2)!;
  assert.equal(a.status, DONE);
  assert.equal(a.result, 1);
  assert.deepEqual(a.mailbox, [2, 3]);
  const b = vm.process(3)!;
  assert.equal(b.status, FAILED);
  assert.ok(b.frames.length > 0, 'a failed process keeps the frames its name and stack trace come from');
  assert.ok(vm.inspectProcesses().some((i) => i.pid === 2 && i.mailbox === 2));
});

test('a failing parent takes down its linked children only, in spawn order, whether they run or wait', async () => {
  const vm = await runVM(`
    let main = call("self");
    let parent = spawn turn() {
      spawn_link turn() { return receive; };
      spawn turn() { return receive; };
      spawn_link turn() { return receive; };
      send main, "ready";
      throw "the parent fails";
    };
    let ready = receive;
    call("sleep", 20);
    return 0;
  `);
  const [parent, linked1, free, linked2] = [2, 3, 4, 5].map((id) => vm.process(id)!);
  assert.equal(parent.status, FAILED);
  for (const p of [linked1, linked2]) {
    assert.equal(p.status, FAILED);
    assert.match(String((p.failure!.value as Map<string, unknown>).get('message')), /linked parent #2 failed/);
  }
  assert.equal(free.finished, false, 'an unlinked child outlives its parent');
  assert.deepEqual(vm.linkedChildren(parent.id), [3, 5]);
});
