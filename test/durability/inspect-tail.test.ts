// `turn inspect --tail N` reads the journal's tail, its open steps and the latest snapshot, not the
// whole journal (issue 45: a 100,000-entry run took 1.3–1.5 s and 300 MB to print 20 entries). A
// store wrapper counts the journal entries each call hands back; the view must equal the one made
// from the whole journal (a store without the tail methods), decisions, migrations, open steps and
// model requests' blocks included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { inspectRun, openStore, type JournalEntry, type RunStore } from '../../runtime/index.js';
import { decisionKey, journalKey, migrationKey } from '../../runtime/durable/keys.js';
import { jsonBytes } from '../../runtime/durable/index.js';

const ENTRIES = 20_000;

/** `store` with every journal entry it returns counted; `whole: true` hides the tail methods (the fallback). */
function counting(store: RunStore, whole = false): { store: RunStore; rows: () => number } {
  let rows = 0;
  const count = (v: unknown): unknown => {
    if (Array.isArray(v)) rows += v.length;
    else if (v !== null && typeof v === 'object' && 'seq' in v) rows++;
    return v;
  };
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      if (whole && (prop === 'readJournalTail' || prop === 'openJournal' || prop === 'journalLength')) return undefined;
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => count((v as (...a: unknown[]) => unknown).apply(target, args));
    },
  });
  return { store: wrapped, rows: () => rows };
}

function bigRun(): { dir: string; id: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-inspect-tail-'));
  const store = openStore(path.join(dir, 'st'));
  const group = store as unknown as { beginGroup(): void; commitGroup(): void };
  try {
    const run = store.createRun({ entry: 'big.tn', bytecodeHash: 'h0', semanticsVersion: 'turn-vm/1' });
    const id = run.id;
    const key = (k: string) => journalKey(id, k);
    group.beginGroup();
    // an unknown effect early on, decided; a migration; then many clock readings; a model call with its block near the end; an open intent last
    const early = store.appendJournal(id, { kind: 'tool', name: 'fs_write', pid: 0, status: 'intent', idempotencyKey: key('e1'), payload: jsonBytes({ name: 'fs_write', args: ['a', 'b'] }) });
    store.appendJournal(id, { kind: 'decision', name: 'retry', pid: -1, status: 'ok', idempotencyKey: decisionKey(id, early), payload: jsonBytes({ seq: early, decision: 'retry' }) });
    store.appendJournal(id, { kind: 'migrate', name: 'migrate', pid: -1, status: 'ok', idempotencyKey: migrationKey(id, 1), payload: jsonBytes({ from: 'h0', to: 'h1' }) });
    for (let i = 1; i <= ENTRIES - 6; i++) {
      store.appendJournal(id, { kind: 'clock', name: 'now', pid: 0, status: 'ok', idempotencyKey: key(`c${i}`), payload: jsonBytes(i) });
    }
    store.appendJournal(id, { kind: 'block', name: 'text', pid: -1, status: 'ok', inputHash: 'f'.repeat(64), idempotencyKey: key('b1'), payload: new TextEncoder().encode('an entry') });
    store.appendJournal(id, { kind: 'infer', name: 'Str', pid: 0, status: 'ok', idempotencyKey: key('e2.1'), payload: jsonBytes({ typeName: 'Str', attempt: 1, blocks: { prompt: [], rest: 'hi', P0: [], P2: [], P1: [1] } }) });
    store.appendJournal(id, { kind: 'tool', name: 'http_request', pid: 0, status: 'intent', idempotencyKey: key('e3'), payload: jsonBytes({ name: 'http_request', args: [] }) });
    group.commitGroup();
    assert.equal(store.readJournal(id).length, ENTRIES);
    return { dir, id };
  } finally {
    store.close();
  }
}

test(`inspect --tail 20 of a ${ENTRIES.toLocaleString('en')}-entry journal reads about 20 entries, and shows what a whole read shows`, () => {
  const { dir, id } = bigRun();
  const store = openStore(path.join(dir, 'st'));
  try {
    const tail = counting(store);
    const view = inspectRun(tail.store, id, 20);
    // the 20 shown, the 2 open ones, the decision and the migration looked up by key, the block of the shown request
    assert.ok(tail.rows() <= 40, `inspect read ${tail.rows()} journal entries to show 20`);
    assert.equal(view.journal.length, 20);
    assert.equal(view.journalLength, ENTRIES);
    assert.deepEqual(view.open.map((e) => [e.name, e.status]), [['fs_write', 'decided'], ['http_request', 'intent']]);
    assert.equal(view.run.currentBytecode, 'h1');
    assert.ok(view.journal.every((e) => e.kind !== 'block'));

    const whole = counting(store, true);
    const reference = inspectRun(whole.store, id, 20);
    assert.ok(whole.rows() >= ENTRIES, 'the fallback reads the whole journal');
    assert.deepEqual(view, reference);
  } finally {
    store.close();
  }
});

test('a journal tail is read newest first and handed back in seq order, skipping the kind asked', () => {
  const { dir, id } = bigRun();
  const store = openStore(path.join(dir, 'st'));
  try {
    const last = store.readJournalTail!(id, 3, 'block');
    assert.deepEqual(last.map((e: JournalEntry) => [e.seq, e.kind]), [[ENTRIES - 3, 'clock'], [ENTRIES - 1, 'infer'], [ENTRIES, 'tool']]);
    assert.equal(store.readJournalTail!(id, 0).length, 0);
    assert.throws(() => store.readJournalTail!(id, -1), /a journal tail of -1 entries/);
    assert.deepEqual(store.openJournal!(id).map((e) => e.seq), [1, ENTRIES]);
  } finally {
    store.close();
  }
});
