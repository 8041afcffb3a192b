// The journal records a run's processes (issue 44): a `spawn` entry per process started (its parent,
// the function it runs) and a `name` entry per `process_name`, so a stored run that ran to its end
// names its workers. The names come from the program: they are bounded in bytes when written and
// checked when read back; a journal from before these entries still loads (its workers unnamed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { journalProcesses, MemoryRunStore, openStore, resumeRun, startRun, type JournalEntry } from '../../runtime/index.js';
import { journalName, MAX_NAME_BYTES } from '../../runtime/durable/process-names.js';

async function durable(source: string, suspendAndResume = false): Promise<{ journal: JournalEntry[]; outcome: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-pnames-'));
  try {
    const file = path.join(dir, 'p.tn');
    fs.writeFileSync(file, source);
    const store = path.join(dir, '.turn');
    const run = await startRun({ file, cwd: dir, model: 'mock', fetchSchemas: false, store });
    let result = await run.start();
    if (suspendAndResume) {
      assert.equal(result.kind, 'suspended', JSON.stringify(result).slice(0, 300));
      result = await (await resumeRun({ cwd: dir, model: 'mock', fetchSchemas: false, store, runId: run.id! })).start();
    }
    const st = openStore(store);
    try {
      return { journal: st.readJournal(st.listRuns()[0].id), outcome: result.kind === 'failed' ? result.error.message : result.kind };
    } finally {
      st.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a durable run journals each spawn with its parent and function, and each process_name', async () => {
  const { journal, outcome } = await durable(`
let worker = turn(n: Num) -> Num { if n == 2 { call("process_name", "second"); } return n; };
let boss = turn() -> Num { return call("len", gather spawn_each([1, 2], worker)); };
let b = gather spawn_each([0], turn(x: Num) -> Num { return boss(); });
return b;
`);
  assert.equal(outcome, 'done');
  // spawned: #2 (the anonymous one, from main), which calls boss: #3 and #4 are its workers
  assert.deepEqual(journalProcesses(journal), [
    { pid: 1, parent: 0, name: 'main' },
    { pid: 2, parent: 1, name: 'spawned' },
    { pid: 3, parent: 2, name: 'worker' },
    { pid: 4, parent: 2, name: 'second' },
  ]);
});

test('a resume from a snapshot journals only the spawns and names after it (a replay from the start: test/extension/stored-same-view.test.ts)', async () => {
  const { journal, outcome } = await durable(`
let worker = turn(n: Num) -> Num { call("process_name", "w" + n); return n; };
let first = gather spawn_each([1, 2], worker);
suspend;
let second = gather spawn_each([3], worker);
return first[0] + second[0];
`, true);
  assert.equal(outcome, 'done');
  assert.deepEqual(journal.filter((e) => e.kind === 'spawn').map((e) => [e.pid, e.name]), [[2, 'worker'], [3, 'worker'], [4, 'worker']]);
  assert.deepEqual(journal.filter((e) => e.kind === 'name').map((e) => [e.pid, e.name]), [[2, 'w1'], [3, 'w2'], [4, 'w3']]);
});

test("a process's name is bounded in bytes when journaled, cut at a character, never inside one", () => {
  assert.equal(journalName('worker'), 'worker');
  assert.equal(journalName(null), '');
  assert.equal(journalName('a\u001b[31mred'), '', 'a control character makes it no name');
  const long = 'x'.repeat(5_000);
  assert.equal(journalName(long), 'x'.repeat(MAX_NAME_BYTES));
  const wide = '€'.repeat(100); // 3 bytes each
  const cut = journalName(wide);
  assert.equal(cut, '€'.repeat(Math.floor(MAX_NAME_BYTES / 3)));
  assert.ok(new TextEncoder().encode(cut).length <= MAX_NAME_BYTES);
  const astral = '😀'.repeat(60); // 4 bytes, two UTF-16 units each
  const cut2 = journalName(astral);
  assert.equal(cut2, '😀'.repeat(MAX_NAME_BYTES / 4));
  assert.ok(!/[\ud800-\udbff]$/.test(cut2), 'no lone surrogate at the end');
});

test('a long function name from the program is journaled cut to the bound', async () => {
  const fn = `w${'o'.repeat(400)}rker`;
  const { journal, outcome } = await durable(`let ${fn} = turn(n: Num) -> Num { return n; };\nreturn gather spawn_each([1], ${fn});\n`);
  assert.equal(outcome, 'done');
  const spawn = journal.find((e) => e.kind === 'spawn')!;
  assert.equal(spawn.name, fn.slice(0, MAX_NAME_BYTES));
});

test('names read back from a store are outside data: control characters, oversize names and bad parents are no name', () => {
  const store = new MemoryRunStore('hostile');
  const run = store.createRun({ entry: 'p.tn', bytecodeHash: 'h', semanticsVersion: 'v' });
  const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));
  store.appendJournal(run.id, { kind: 'spawn', name: 'ok', pid: 2, status: 'ok', idempotencyKey: null, payload: enc({ parent: 1 }) });
  store.appendJournal(run.id, { kind: 'spawn', name: 'evil\u001b[2J', pid: 3, status: 'ok', idempotencyKey: null, payload: enc({ parent: 'root' }) });
  store.appendJournal(run.id, { kind: 'spawn', name: 'y'.repeat(MAX_NAME_BYTES + 1), pid: 4, status: 'ok', idempotencyKey: null, payload: enc({ parent: -3 }) });
  store.appendJournal(run.id, { kind: 'spawn', name: 'z', pid: 5, status: 'ok', idempotencyKey: null, payload: new TextEncoder().encode('{not json') });
  store.appendJournal(run.id, { kind: 'name', name: '\u0007', pid: 2, status: 'ok', idempotencyKey: null, payload: null });
  // a step the program keyed as a spawn is not one (only unkeyed entries are)
  store.appendJournal(run.id, { kind: 'spawn', name: 'forged', pid: 6, status: 'ok', idempotencyKey: `turn:${run.id}:e9`, payload: enc({ parent: 1 }) });
  store.appendJournal(run.id, { kind: 'spawn', name: 'scheduler', pid: -1, status: 'ok', idempotencyKey: null, payload: enc({ parent: 1 }) });
  assert.deepEqual(journalProcesses(store.readJournal(run.id)), [
    { pid: 1, parent: 0, name: 'main' },
    { pid: 2, parent: 1, name: 'ok' },
    { pid: 3, parent: null, name: null },
    { pid: 4, parent: null, name: null },
    { pid: 5, parent: null, name: 'z' },
    { pid: 6, parent: null, name: null },
  ]);
});

test('a journal from before spawns were recorded still loads: the processes that took a step, unnamed', () => {
  const store = new MemoryRunStore('old');
  const run = store.createRun({ entry: 'p.tn', bytecodeHash: 'h', semanticsVersion: 'v' });
  store.appendJournal(run.id, { kind: 'infer', name: 'Verdict', pid: 3, status: 'ok', idempotencyKey: `turn:${run.id}:e1`, payload: null });
  store.appendJournal(run.id, { kind: 'clock', name: 'now', pid: 2, status: 'ok', idempotencyKey: `turn:${run.id}:c1`, payload: null });
  assert.deepEqual(journalProcesses(store.readJournal(run.id)), [
    { pid: 1, parent: 0, name: 'main' },
    { pid: 2, parent: null, name: null },
    { pid: 3, parent: null, name: null },
  ]);
});
