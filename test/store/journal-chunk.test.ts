// The compact journal (issue 45, schema version 2): settled entries packed into chunks
// (runtime/store/journal-chunk.ts). The encoding round-trips every field; a truncated or damaged
// chunk, or one of a newer format, is a clear error and never a wrong entry; a store written with
// schema version 1 opens, migrates and reads back as it was; a group that reaches the store's size
// bound fails clearly and leaves every committed entry intact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { betterSqlite3Connection, openBetterSqlite3Store } from '../../runtime/store/better-sqlite3.js';
import { CHUNK_FORMAT, CHUNK_MAX_ENTRIES, ChunkBuilder, ChunkError, decodeChunk, type SettledEntry } from '../../runtime/store/journal-chunk.js';
import { SCHEMA_VERSION, SqliteRunStore } from '../../runtime/store/sqlite-schema.js';
import { StoreError, type JournalEntry } from '../../runtime/store/types.js';

const RUN_ID = '0mxdi38ba-04402a1310';
const RUN = { entry: 'main.tn', bytecodeHash: 'sha256:abc', semanticsVersion: 'turn-vm/1' };

function settled(seq: number, over: Partial<SettledEntry> = {}): SettledEntry {
  return {
    seq, kind: 'clock', name: 'now', pid: 3, inputHash: null, status: 'ok', idempotencyKey: `turn:${RUN_ID}:c${seq}`,
    idempotent: false, payload: new TextEncoder().encode(`{"t":${seq}}`), createdAt: 1_765_000_000_000 + seq, ...over,
  };
}

function chunkOf(entries: SettledEntry[]): Uint8Array {
  const b = new ChunkBuilder(entries[0].seq, `turn:${RUN_ID}:`);
  for (const e of entries) b.add(e);
  return b.finish();
}

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'turn-chunk-'));
}

test('a chunk round-trips every field of its entries, sharing repeated strings', () => {
  const entries = [
    settled(1),
    settled(2, { kind: 'timer', name: 'timers', pid: -1, status: 'error', idempotent: true, payload: null, createdAt: 1_765_000_000_000 - 5 }),
    settled(5, { idempotencyKey: 'their-own key ✓', inputHash: 'sha256:' + 'a'.repeat(64), name: 'naïve — ünïcode 🐢' }),
    settled(6, { idempotencyKey: null, payload: new Uint8Array(0) }),
    ...Array.from({ length: 50 }, (_, i) => settled(7 + i)),
  ];
  const bytes = chunkOf(entries);
  const back = decodeChunk(bytes, RUN_ID);
  assert.deepEqual(
    back,
    entries.map((e): JournalEntry => ({ runId: RUN_ID, ...e, payload: e.payload, request: null, completedAt: e.createdAt })),
  );
  // repeated kinds, names and the run's key prefix are stored once: well under the entries' own bytes
  const naive = entries.reduce((n, e) => n + e.kind.length + e.name.length + (e.idempotencyKey?.length ?? 0) + (e.payload?.length ?? 0) + 24, 0);
  assert.ok(bytes.length < naive / 2, `${bytes.length} bytes for entries of ${naive}`);
  assert.deepEqual(decodeChunk(bytes, RUN_ID, 6).map((e) => e.seq).slice(0, 3), [6, 7, 8], 'read from a seq');
});

test('a truncated chunk is a ChunkError at every length, never a wrong or partial list', () => {
  const bytes = chunkOf([settled(1), settled(2, { payload: new Uint8Array(300).fill(9) }), settled(3)]);
  for (let n = 0; n < bytes.length; n++) {
    assert.throws(() => decodeChunk(bytes.subarray(0, n), RUN_ID), (e: unknown) => e instanceof ChunkError && e.kind === 'corrupt', `cut at ${n}`);
  }
  const longer = new Uint8Array(bytes.length + 1);
  longer.set(bytes);
  assert.throws(() => decodeChunk(longer, RUN_ID), /1 bytes after its last entry/);
});

test('damaged chunks: bad magic, a huge count, a string reference beyond its table, unknown flags, bad UTF-8', () => {
  const good = chunkOf([settled(1), settled(2)]);
  const damaged = (edit: (b: Uint8Array) => void) => {
    const b = good.slice();
    edit(b);
    return b;
  };
  const corrupt = (b: Uint8Array, pattern: RegExp) =>
    assert.throws(() => decodeChunk(b, RUN_ID), (e: unknown) => e instanceof ChunkError && e.kind === 'corrupt' && pattern.test(e.message));
  corrupt(damaged((b) => (b[0] = 0x7b)), /does not start as a journal chunk/);
  corrupt(Uint8Array.of(0x4a, 1, 0xff, 0xff, 0xff, 0xff, 0x7f, 1), /holds \d+ entries/);
  corrupt(Uint8Array.of(0x4a, 1, 1, 1, 0, 0, 9), /string reference \(7\) beyond its table \(0\)/);
  corrupt(Uint8Array.of(0x4a, 1, 1, 1, 0, 0xf0), /unknown entry flags 240/);
  corrupt(Uint8Array.of(0x4a, 1, 1, 1, 0, 0, 1, 2, 0xc3, 0x28), /not UTF-8/);
  // a chunk from a newer Turn: its own error, not 'corrupt'
  assert.throws(
    () => decodeChunk(damaged((b) => (b[1] = CHUNK_FORMAT + 1)), RUN_ID),
    (e: unknown) => e instanceof ChunkError && e.kind === 'newer' && /format 2, newer than this Turn reads \(1\)/.test(e.message),
  );
});

test('the store packs settled entries in chunks, intents in rows; reads merge them in seq order', () => {
  const dir = tmp();
  const file = path.join(dir, 'store.db');
  const s = openBetterSqlite3Store(file);
  try {
    assert.equal(s.info().schemaVersion, SCHEMA_VERSION);
    const run = s.createRun(RUN);
    s.beginGroup();
    const n = CHUNK_MAX_ENTRIES + 40;
    for (let i = 1; i <= n; i++) {
      if (i % 100 === 0) s.appendJournal(run.id, { kind: 'tool', name: 't', status: 'intent', payload: Uint8Array.of(i % 256) });
      else s.appendJournal(run.id, { kind: i % 7 === 0 ? 'block' : 'clock', name: 'now', pid: 0, status: 'ok', idempotencyKey: `turn:${run.id}:c${i}`, payload: Uint8Array.of(i % 256) });
    }
    // inside the open group, what it holds is read too
    assert.equal(s.journalLength(run.id), n);
    assert.equal(s.findByIdempotencyKey(run.id, `turn:${run.id}:c${n}`)?.seq, n);
    s.commitGroup();
    const all = s.readJournal(run.id);
    assert.deepEqual(all.map((e) => e.seq), Array.from({ length: n }, (_, i) => i + 1));
    assert.deepEqual(all.filter((e) => e.status === 'intent').map((e) => e.seq), [100, 200, 300, 400, 500]);
    assert.deepEqual(s.readJournal(run.id, 498).map((e) => e.seq).slice(0, 4), [498, 499, 500, 501]);
    const tail = s.readJournalTail(run.id, 10, 'block');
    assert.equal(tail.length, 10);
    assert.ok(tail.every((e) => e.kind !== 'block'));
    assert.deepEqual(tail.map((e) => e.seq), all.filter((e) => e.kind !== 'block').slice(-10).map((e) => e.seq));
    expectStoreError(() => s.completeJournal(run.id, 3, 'ok', null), 'conflict', /already has its outcome \(ok\)/);
    expectStoreError(() => s.appendJournal(run.id, { kind: 'clock', name: 'now', status: 'ok', idempotencyKey: `turn:${run.id}:c3` }), 'conflict', /already used/);
    // a rolled-back group leaves nothing, and the next entry takes the next committed seq
    s.beginGroup();
    s.appendJournal(run.id, { kind: 'clock', name: 'now', status: 'ok', idempotencyKey: `turn:${run.id}:x1` });
    s.rollbackGroup();
    assert.equal(s.findByIdempotencyKey(run.id, `turn:${run.id}:x1`), null);
    assert.equal(s.appendJournal(run.id, { kind: 'clock', name: 'now', status: 'ok', idempotencyKey: `turn:${run.id}:x1` }), n + 1);
  } finally {
    s.close();
  }
  // one row per chunk, bounded in entries; the store's bytes per entry a fraction of a row's
  const raw = betterSqlite3Connection(file);
  try {
    const chunks = raw.prepare('SELECT COUNT(*) AS n FROM journal_chunks').get()!.n as number;
    assert.equal(chunks, 3, 'two chunks for the group (one full), one for the last append');
    assert.equal(raw.prepare('SELECT COUNT(*) AS n FROM journal').get()!.n, 5, 'only the intents are rows');
  } finally {
    raw.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

function expectStoreError(fn: () => unknown, code: string, pattern: RegExp): StoreError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof StoreError, `expected a StoreError '${code}', got ${String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  assert.match(caught.message, pattern);
  return caught;
}

test('a damaged or newer chunk in a store: a clear error naming the store, the run and the step; the rest reads back; nothing written', () => {
  const dir = tmp();
  const file = path.join(dir, 'store.db');
  let runId = '';
  const s = openBetterSqlite3Store(file);
  try {
    runId = s.createRun(RUN).id;
    s.appendJournal(runId, { kind: 'tool', name: 't', status: 'intent' });
    s.appendJournal(runId, { kind: 'clock', name: 'now', status: 'ok', payload: Uint8Array.of(1) });
  } finally {
    s.close();
  }
  for (const [edit, code, pattern] of [
    ["'some text'", 'corrupt', /from step 2 .* is damaged: it is not a BLOB/],
    ['substr(bytes, 1, length(bytes) - 1)', 'corrupt', /journal chunk of run .* from step 2 in the Turn store .* is damaged: it is truncated.*left untouched/],
    [`CAST(X'4A' || X'${(CHUNK_FORMAT + 1).toString(16).padStart(2, '0')}' || substr(bytes, 3) AS BLOB)`, 'schema', /from step 2 .* format 2, newer than this Turn reads \(1\).*upgrade Turn/],
  ] as const) {
    const raw = betterSqlite3Connection(file);
    raw.exec(`UPDATE journal_chunks SET bytes = ${edit}`);
    const damaged = Buffer.from(raw.prepare('SELECT bytes FROM journal_chunks').get()!.bytes as Uint8Array);
    raw.close();
    const t = openBetterSqlite3Store(file);
    try {
      const err = expectStoreError(() => t.readJournal(runId), code, pattern);
      assert.ok(err.message.includes(file), err.message);
    } finally {
      t.close();
    }
    // the store still opens and its rows read: the open intent is found, the run can be decided on
    const u = openBetterSqlite3Store(file);
    try {
      assert.deepEqual(u.openJournal(runId).map((e) => e.seq), [1]);
      assert.equal(u.journalLength(runId), 2);
    } finally {
      u.close();
    }
    const again = betterSqlite3Connection(file);
    assert.deepEqual(Buffer.from(again.prepare('SELECT bytes FROM journal_chunks').get()!.bytes as Uint8Array), damaged, 'the chunk was left as it was');
    again.exec(`UPDATE journal_chunks SET bytes = X'${Buffer.from(chunkOfStore(runId)).toString('hex')}'`);
    again.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A valid chunk of one entry at seq 2 (to repair the store between the cases above). */
function chunkOfStore(runId: string): Uint8Array {
  const b = new ChunkBuilder(2, `turn:${runId}:`);
  b.add({ seq: 2, kind: 'clock', name: 'now', pid: -1, inputHash: null, status: 'ok', idempotencyKey: null, idempotent: false, payload: Uint8Array.of(1), createdAt: 1 });
  return b.finish();
}

test('a store written with schema version 1 opens, is migrated in place, and reads back as it was', () => {
  const dir = tmp();
  const file = path.join(dir, 'store.db');
  fs.copyFileSync(path.join(__dirname, '..', 'durability', 'fixtures', 'pre-blocks', 'store.db'), file);
  const before = betterSqlite3Connection(file);
  const version = before.prepare('PRAGMA user_version').get()!.user_version;
  const rows = before.prepare('SELECT seq, kind, status, idempotency_key FROM journal WHERE run_id = ? ORDER BY seq').all(RUN_ID);
  before.close();
  assert.equal(version, 1, 'the fixture is a version 1 store');
  const s = openBetterSqlite3Store(file);
  try {
    assert.equal(s.info().schemaVersion, SCHEMA_VERSION);
    const read = s.readJournal(RUN_ID);
    assert.deepEqual(read.map((e) => ({ seq: e.seq, kind: e.kind, status: e.status, idempotency_key: e.idempotencyKey })), rows);
    // the old keys are found, and stay unique against new entries
    const key = rows.find((r) => r.idempotency_key !== null)!.idempotency_key as string;
    assert.equal(s.findByIdempotencyKey(RUN_ID, key)?.seq, rows.find((r) => r.idempotency_key === key)!.seq);
    expectStoreError(() => s.appendJournal(RUN_ID, { kind: 'clock', name: 'now', status: 'ok', idempotencyKey: key }), 'conflict', /already used/);
    const next = s.appendJournal(RUN_ID, { kind: 'clock', name: 'now', status: 'ok', idempotencyKey: `turn:${RUN_ID}:new` });
    assert.equal(next, rows.length + 1);
    assert.deepEqual(s.readJournal(RUN_ID).map((e) => e.seq), Array.from({ length: rows.length + 1 }, (_, i) => i + 1));
  } finally {
    s.close();
  }
  const after = betterSqlite3Connection(file);
  try {
    assert.equal(after.prepare('PRAGMA user_version').get()!.user_version, 2, 'migrated to version 2');
    assert.equal(after.prepare('SELECT COUNT(*) AS n FROM journal').get()!.n, rows.length, 'the old rows stay rows');
    assert.equal(after.prepare('SELECT COUNT(*) AS n FROM journal_chunks').get()!.n, 1, 'the new entry is packed');
  } finally {
    after.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a group that reaches the store size bound fails clearly; every committed entry is intact, none half-written', () => {
  const dir = tmp();
  const file = path.join(dir, 'store.db');
  const conn = betterSqlite3Connection(file);
  const s = SqliteRunStore.open(conn, file, 'better-sqlite3');
  let committed = 0;
  let runId = '';
  try {
    runId = s.createRun(RUN).id;
    conn.exec('PRAGMA max_page_count = 40'); // 160 KiB: the store's bound
    const payload = new Uint8Array(1000).fill(5);
    let err: unknown;
    for (let g = 0; g < 100 && err === undefined; g++) {
      s.beginGroup();
      try {
        for (let i = 0; i < 20; i++) s.appendJournal(runId, { kind: 'clock', name: 'now', status: 'ok', idempotencyKey: `turn:${runId}:c${g}.${i}`, payload });
        s.commitGroup();
        committed += 20;
      } catch (e) {
        err = e;
        s.rollbackGroup();
      }
    }
    assert.ok(err instanceof StoreError, `expected a StoreError, got ${String(err)}`);
    assert.equal(err.code, 'disk_full', err.message);
    assert.match(err.message, /last committed state is intact/);
    assert.ok(committed > 0);
    assert.equal(s.journalLength(runId), committed);
  } finally {
    s.close();
  }
  const t = openBetterSqlite3Store(file);
  try {
    const back = t.readJournal(runId);
    assert.equal(back.length, committed);
    assert.ok(back.every((e) => e.payload?.length === 1000 && e.payload.every((b) => b === 5)));
  } finally {
    t.close();
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
