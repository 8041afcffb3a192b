// The read-only travel API (runtime/durable/travel.ts): a stored run's processes at journal step N,
// by the one replay over a scratch copy; the store is never written.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { MemoryRunStore, openStore, renderValue, startRun, stateAtStep, StoreError, type ProcessView, type RunStore } from '../../runtime/index.js';

const TRAVEL = path.join(__dirname, 'fixtures', 'travel.tn');

/** A process as a person compares it: everything shown, values rendered. */
function shown(p: ProcessView): unknown {
  return {
    pid: p.pid, name: p.name, status: p.status, waitingOn: p.waitingOn ?? null,
    context: { P0: p.context.P0, P1: p.context.P1, P2: p.context.P2 },
    memory: p.memory.map(([k, v]) => [k, renderValue(v)]),
    messages: p.messages.map((m) => renderValue(m)),
    result: renderValue(p.result),
  };
}

function dump(store: RunStore, id: string): string {
  const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString('hex'));
  return JSON.stringify({ run: { ...store.getRun(id), result: hex(store.getRun(id)!.result) }, journal: store.readJournal(id).map((e) => ({ ...e, request: hex(e.request), payload: hex(e.payload) })) });
}

async function storedRun(store: RunStore): Promise<{ id: string; lines: string[]; final: unknown[] }> {
  const lines: string[] = [];
  const run = await startRun({ file: TRAVEL, model: 'mock', store, onOutput: (l) => lines.push(l) });
  const result = await run.start();
  assert.equal(result.kind, 'done', JSON.stringify(result));
  return { id: run.id!, lines, final: run.processes().map(shown) };
}

for (const [name, make] of [
  ['SQLite', () => openStore(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-travel-')))],
  ['memory', () => new MemoryRunStore()],
] as const) {
  test(`stateAtStep over a ${name} store: the last step is the run's final state; earlier steps show less; nothing is written`, async () => {
    const store = make();
    try {
      const { id, lines, final } = await storedRun(store);
      const before = dump(store, id);
      const journal = store.readJournal(id);
      const last = journal[journal.length - 1].seq;

      const end = await stateAtStep({ store, runId: id, step: last });
      assert.equal(end.step, last);
      assert.equal(end.lastStep, last);
      assert.deepEqual(end.output, lines, 'the replay printed what the run printed');
      assert.deepEqual(end.processes.map(shown), final, 'every process as the run left it');

      // before any step: main ran to the end of its first slice (past its clock reading, c1); no worker has run
      const start = await stateAtStep({ store, runId: id, step: 0 });
      assert.equal(start.step, 0);
      assert.deepEqual(start.output, []);
      assert.deepEqual(start.processes[0].context.P0, ['You coordinate.']);
      assert.ok(start.processes.slice(1).every((p) => p.status === 'ready' && p.context.P0.length === 1 && p.memory.length === 0), JSON.stringify(start.processes.map(shown)));

      // after the first worker's math_random result: that worker remembered its note and printed; main still gathers
      const random = journal.find((e) => e.kind === 'tool' && e.name === 'math_random')!;
      const mid = await stateAtStep({ store, runId: id, step: random.seq });
      assert.ok(mid.step >= random.seq - 1 && mid.step <= random.seq, `reached ${mid.step}`);
      const w = mid.processes.find((p) => p.pid === random.pid)!;
      assert.equal(w.name, 'worker');
      assert.deepEqual(w.context.P0, ['You coordinate.', `Worker ${random.pid - 1}`], 'a child starts from its parent\'s context');
      const main = mid.processes.find((p) => p.pid === 1)!;
      assert.equal(main.status, 'waiting');
      assert.deepEqual(main.memory, [], 'main has not remembered its results yet');
      assert.ok(mid.output.length < lines.length, JSON.stringify(mid.output));
      assert.deepEqual(mid.output, lines.slice(0, mid.output.length), 'a prefix of what the run printed');

      // each step's state is the same however often it is asked, and monotone in what was printed
      let printed = 0;
      for (let s = 0; s <= last; s++) {
        const a = await stateAtStep({ store, runId: id, step: s });
        const b = await stateAtStep({ store, runId: id, step: s });
        assert.deepEqual(a.processes.map(shown), b.processes.map(shown), `step ${s} replays the same`);
        assert.ok(a.output.length >= printed, `step ${s} printed no less than step ${s - 1}`);
        printed = a.output.length;
      }
      // past the end: the last step
      assert.equal((await stateAtStep({ store, runId: id, step: last + 50 })).step, last);

      assert.equal(dump(store, id), before, 'the store was only read');
    } finally {
      store.close();
    }
  });
}

test('stateAtStep: an unknown run is a StoreError naming it', async () => {
  const store = new MemoryRunStore();
  await assert.rejects(stateAtStep({ store, runId: 'nope', step: 1 }), (e: unknown) => e instanceof StoreError && /no run nope/.test(e.message));
});

test('MemoryRunStore: a frozen store refuses writes with the reason; completions and keys behave as in SQLite', () => {
  const store = new MemoryRunStore('t');
  const run = store.createRun({ entry: 'p.tn', bytecodeHash: 'h', semanticsVersion: 'v' });
  const seq = store.appendJournal(run.id, { kind: 'tool', name: 'x', status: 'intent', idempotencyKey: 'k1' });
  assert.throws(() => store.appendJournal(run.id, { kind: 'tool', name: 'y', status: 'intent', idempotencyKey: 'k1' }), /already used/);
  assert.throws(() => store.setRunStatus(run.id, 'done'), /cannot be reported done/);
  store.completeJournal(run.id, seq, 'ok', null);
  assert.throws(() => store.completeJournal(run.id, seq, 'ok', null), /already has its outcome/);
  store.setRunStatus(run.id, 'done');
  let refused = 0;
  store.freeze('read only here', () => refused++);
  assert.throws(() => store.appendJournal(run.id, { kind: 'clock', name: 'now', status: 'ok' }), /read only here/);
  assert.equal(refused, 1);
  assert.equal(store.readJournal(run.id).length, 1);
});
