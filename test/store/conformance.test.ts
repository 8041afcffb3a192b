// One conformance suite for every RunStore driver (docs/durability.md). `conformance(driver)`
// runs it against a driver; below it runs against better-sqlite3 (always, on Node 20),
// node-sqlite3-wasm (always: it needs no native module) and node:sqlite (where this Node has it;
// skipped with the reason where it does not).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { betterSqlite3Connection, betterSqlite3Available, openBetterSqlite3Store } from '../../runtime/store/better-sqlite3.js';
import { nodeSqliteAvailable, nodeSqliteConnection, openNodeSqliteStore } from '../../runtime/store/node-sqlite.js';
import { nodeSqlite3WasmConnection, openNodeSqlite3WasmStore } from '../../runtime/store/node-sqlite3-wasm.js';
import { SCHEMA_VERSION, SqliteRunStore, type SqlConnection, type SqliteOptions } from '../../runtime/store/sqlite-schema.js';
import { StoreError, type RunStore } from '../../runtime/store/types.js';

export interface Driver {
  name: string;
  /** why the suite cannot run here, or undefined */
  skip?: string;
  open(file: string, options?: SqliteOptions): RunStore;
  /** a raw connection to the same kind of file (to tamper with it, or to wrap it) */
  connect(file: string): SqlConnection;
}

const RUN = { entry: 'main.tn', bytecodeHash: 'sha256:abc', semanticsVersion: 'turn-vm/1', policies: { unknown: 'ask/1' } };
const bytes = (...b: number[]) => new Uint8Array(b);

function expectStoreError(fn: () => unknown, code: string, pattern?: RegExp): StoreError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof StoreError, `expected a StoreError '${code}', got ${caught instanceof Error ? caught.stack : String(caught)}`);
  assert.equal(caught.code, code, caught.message);
  if (pattern) assert.match(caught.message, pattern);
  return caught;
}

/** Copies a store's files as they are on disk now: what a crash at this instant would leave. */
function crashImage(file: string, to: string): string {
  fs.mkdirSync(to, { recursive: true });
  const dest = path.join(to, 'store.db');
  fs.copyFileSync(file, dest);
  if (fs.existsSync(file + '-wal')) fs.copyFileSync(file + '-wal', dest + '-wal');
  return dest;
}

/** Whether a tiny tmpfs can be mounted here (root on Linux), to fill a real disk. */
function canMount(dir: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  fs.mkdirSync(dir, { recursive: true });
  const r = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', dir]);
  if (r.status !== 0) return false;
  spawnSync('umount', [dir]);
  return true;
}

export function conformance(driver: Driver): void {
  describe(`RunStore conformance: ${driver.name}`, { skip: driver.skip }, () => {
    let root: string;
    let n = 0;
    const fresh = () => path.join(root, `s${++n}`, 'store.db');
    const open = (file = fresh(), options: SqliteOptions = { busyTimeoutMs: 50 }) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      return driver.open(file, options);
    };

    before(() => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), `turn-store-${driver.name.replace(/\W/g, '')}-`));
    });
    after(() => fs.rmSync(root, { recursive: true, force: true }));

    test('opens in WAL mode with synchronous=FULL and the current schema', () => {
      const s = open();
      try {
        const info = s.info();
        assert.equal(info.driver, driver.name);
        assert.equal(info.journalMode, 'wal');
        assert.equal(info.synchronous, 'full');
        assert.equal(info.schemaVersion, SCHEMA_VERSION);
        const run = s.createRun(RUN);
        s.appendJournal(run.id, { kind: 'clock', name: 'now', status: 'ok', payload: bytes(1) });
        assert.ok(fs.existsSync(info.file + '-wal'), 'a commit goes to the write-ahead log');
        assert.ok(fs.statSync(info.file + '-wal').size > 0);
      } finally {
        s.close();
      }
    });

    test('runs: created with their versions, read back, listed newest first, filtered by status', () => {
      const s = open();
      try {
        const a = s.createRun({ ...RUN, id: 'run-a', meta: { args: [1, 2] } });
        assert.equal(a.status, 'running');
        assert.deepEqual(a.policies, { unknown: 'ask/1' });
        const b = s.createRun({ ...RUN, entry: 'other.tn' });
        assert.match(b.id, /^[0-9a-z]{9}-[0-9a-f]{10}$/);
        assert.deepEqual(s.getRun('run-a'), a);
        assert.equal(s.getRun('nope'), null);
        assert.deepEqual(s.getRun('run-a')!.meta, { args: [1, 2] });
        assert.equal(s.getRun('run-a')!.bytecodeHash, 'sha256:abc');
        assert.equal(s.getRun('run-a')!.semanticsVersion, 'turn-vm/1');
        const ids = s.listRuns().map((r) => r.id);
        assert.deepEqual(new Set(ids), new Set(['run-a', b.id]));
        s.setRunStatus('run-a', 'failed', bytes(9, 9));
        assert.deepEqual(s.listRuns({ status: 'failed' }).map((r) => r.id), ['run-a']);
        assert.deepEqual(s.getRun('run-a')!.result, bytes(9, 9));
        assert.deepEqual(s.listRuns({ status: 'running' }).map((r) => r.id), [b.id]);
        expectStoreError(() => s.createRun({ ...RUN, id: 'run-a' }), 'conflict', /already exists/);
        expectStoreError(() => s.setRunStatus('nope', 'done'), 'not_found', /nope/);
        expectStoreError(() => s.setRunStatus('run-a', 'bogus' as 'done'), 'invalid');
      } finally {
        s.close();
      }
    });

    test('journal: intent is durable before the effect runs, its result before the VM sees it', () => {
      const s = open();
      try {
        const file = s.info().file;
        const run = s.createRun(RUN);
        const seq = s.appendJournal(run.id, { kind: 'infer', name: 'gpt', pid: 1, inputHash: 'h1', status: 'intent', payload: bytes(1, 2) });
        assert.equal(seq, 1);
        // A crash now (the effect running) leaves the intent on disk.
        const crashed = driver.open(crashImage(file, path.join(root, `crash${++n}`)), { busyTimeoutMs: 50 });
        try {
          const [e] = crashed.readJournal(run.id);
          assert.equal(e.status, 'intent');
          assert.deepEqual(e.request, bytes(1, 2));
          assert.equal(e.payload, null);
          assert.equal(e.completedAt, null);
        } finally {
          crashed.close();
        }
        s.completeJournal(run.id, seq, 'ok', bytes(7));
        // A crash now (before the VM resumes) leaves the result on disk.
        const after = driver.open(crashImage(file, path.join(root, `crash${++n}`)), { busyTimeoutMs: 50 });
        try {
          const [e] = after.readJournal(run.id);
          assert.equal(e.status, 'ok');
          assert.deepEqual(e.payload, bytes(7));
          assert.deepEqual(e.request, bytes(1, 2), 'the request is kept');
          assert.equal(e.inputHash, 'h1');
          assert.equal(e.pid, 1);
          assert.ok(e.completedAt !== null && e.completedAt >= e.createdAt);
        } finally {
          after.close();
        }
        // A result is recorded once.
        expectStoreError(() => s.completeJournal(run.id, seq, 'error', null), 'conflict', /already has its outcome/);
        expectStoreError(() => s.completeJournal(run.id, 99, 'ok', null), 'not_found');
        expectStoreError(() => s.appendJournal('nope', { kind: 'x', name: 'y', status: 'ok' }), 'not_found');
        expectStoreError(() => s.appendJournal(run.id, { kind: 'x', name: 'y', status: 'unknown' as 'ok' }), 'invalid');
      } finally {
        s.close();
      }
    });

    test('journal: seqs are 1..n in observation order, per run, and read from any point', () => {
      const s = open();
      try {
        const a = s.createRun(RUN);
        const b = s.createRun(RUN);
        const kinds = ['clock', 'random', 'receive', 'infer', 'tool', 'http'];
        kinds.forEach((k, i) => {
          assert.equal(s.appendJournal(a.id, { kind: k, name: `n${i}`, status: k === 'infer' || k === 'tool' || k === 'http' ? 'intent' : 'ok', payload: bytes(i) }), i + 1);
        });
        assert.equal(s.appendJournal(b.id, { kind: 'clock', name: 'now', status: 'ok' }), 1);
        assert.deepEqual(s.readJournal(a.id).map((e) => e.kind), kinds);
        assert.deepEqual(s.readJournal(a.id, 4).map((e) => e.seq), [4, 5, 6]);
        assert.deepEqual(s.readJournal(a.id).map((e) => e.status), ['ok', 'ok', 'ok', 'intent', 'intent', 'intent']);
        assert.deepEqual(s.readJournal(a.id)[1].payload, bytes(1));
        assert.equal(s.readJournal(b.id).length, 1);
        assert.deepEqual(s.readJournal('nope'), []);
      } finally {
        s.close();
      }
    });

    test('unknown outcomes: recovery marks every intent without a result, the run waits, never reports done', () => {
      const file = fresh();
      let s = open(file);
      const run = s.createRun(RUN);
      const done = s.appendJournal(run.id, { kind: 'tool', name: 'pay', status: 'intent' });
      s.completeJournal(run.id, done, 'ok', bytes(1));
      const pay = s.appendJournal(run.id, { kind: 'http', name: 'POST /pay', status: 'intent', idempotent: false });
      const get = s.appendJournal(run.id, { kind: 'http', name: 'GET /x', status: 'intent', idempotent: true });
      s.appendJournal(run.id, { kind: 'clock', name: 'now', status: 'ok', payload: bytes(5) });
      s.close(); // the process dies with two effects in flight

      s = open(file);
      try {
        assert.equal(s.getRun(run.id)!.status, 'running');
        const unknown = s.markUnknownOnRecovery(run.id);
        assert.deepEqual(unknown.map((e) => [e.seq, e.status, e.idempotent]), [[pay, 'unknown', false], [get, 'unknown', true]]);
        assert.equal(s.getRun(run.id)!.status, 'waiting', 'a non-idempotent unknown waits for a decision');
        assert.deepEqual(s.readJournal(run.id).map((e) => e.status), ['ok', 'unknown', 'unknown', 'ok']);
        // Marking again is stable and still returns the undecided ones.
        assert.deepEqual(s.markUnknownOnRecovery(run.id).map((e) => e.seq), [pay, get]);
        // Never reported as success while an outcome is unknown.
        expectStoreError(() => s.setRunStatus(run.id, 'done'), 'conflict', /unknown/);
        // The idempotent one is re-run with the same key; the other is settled by a decision.
        const key = s.readJournal(run.id, get)[0].idempotencyKey!;
        assert.equal(s.findByIdempotencyKey(run.id, key)!.seq, get);
        s.completeJournal(run.id, get, 'ok', bytes(2));
        s.completeJournal(run.id, pay, 'error', bytes(3));
        assert.deepEqual(s.markUnknownOnRecovery(run.id), []);
        s.setRunStatus(run.id, 'done', bytes(0));
        assert.equal(s.getRun(run.id)!.status, 'done');
      } finally {
        s.close();
      }
    });

    test('unknown outcomes: only idempotent ones leave the run status alone; intents also block done', () => {
      const s = open();
      try {
        const run = s.createRun(RUN);
        const seq = s.appendJournal(run.id, { kind: 'http', name: 'GET', status: 'intent', idempotent: true });
        expectStoreError(() => s.setRunStatus(run.id, 'done'), 'conflict', /intent/);
        assert.equal(s.markUnknownOnRecovery(run.id)[0].seq, seq);
        assert.equal(s.getRun(run.id)!.status, 'running');
        expectStoreError(() => s.markUnknownOnRecovery('nope'), 'not_found');
      } finally {
        s.close();
      }
    });

    test('idempotency keys: assigned to intents by default, unique per run, found by key', () => {
      const s = open();
      try {
        const a = s.createRun({ ...RUN, id: 'A' });
        const b = s.createRun({ ...RUN, id: 'B' });
        const s1 = s.appendJournal('A', { kind: 'tool', name: 't', status: 'intent' });
        assert.equal(s.readJournal('A')[0].idempotencyKey, 'turn:A:1');
        const s2 = s.appendJournal('A', { kind: 'tool', name: 't', status: 'intent', idempotencyKey: 'order-42' });
        assert.equal(s.findByIdempotencyKey('A', 'order-42')!.seq, s2);
        assert.equal(s.findByIdempotencyKey('A', 'turn:A:1')!.seq, s1);
        assert.equal(s.findByIdempotencyKey('A', 'missing'), null);
        expectStoreError(
          () => s.appendJournal('A', { kind: 'tool', name: 't', status: 'intent', idempotencyKey: 'order-42' }),
          'conflict',
          /order-42/,
        );
        assert.equal(s.readJournal('A').length, 2, 'the refused append left nothing behind');
        // Another run may use the same key; entries without keys are fine in any number.
        s.appendJournal(b.id, { kind: 'tool', name: 't', status: 'intent', idempotencyKey: 'order-42' });
        s.appendJournal('A', { kind: 'clock', name: 'now', status: 'ok' });
        s.appendJournal('A', { kind: 'tool', name: 't', status: 'intent', idempotencyKey: null });
        s.appendJournal('A', { kind: 'tool', name: 't', status: 'intent', idempotencyKey: null });
        assert.deepEqual(s.readJournal('A').map((e) => e.idempotencyKey), ['turn:A:1', 'order-42', null, null, null]);
        assert.equal(a.id, 'A');
      } finally {
        s.close();
      }
    });

    test('snapshots: latest wins, same seq replaces, pruning keeps the newest, state + intent commit together', () => {
      const s = open();
      try {
        const run = s.createRun(RUN);
        assert.equal(s.latestSnapshot(run.id), null);
        s.putSnapshot(run.id, 0, bytes(0));
        s.putSnapshot(run.id, 5, bytes(5));
        s.putSnapshot(run.id, 3, bytes(3));
        assert.deepEqual(s.latestSnapshot(run.id)!.bytes, bytes(5));
        assert.equal(s.latestSnapshot(run.id)!.seq, 5);
        s.putSnapshot(run.id, 5, bytes(5, 5));
        assert.deepEqual(s.latestSnapshot(run.id)!.bytes, bytes(5, 5));
        s.pruneSnapshots(run.id, 1);
        s.putSnapshot(run.id, 1, bytes(1)); // older than the latest: kept but not latest
        assert.equal(s.latestSnapshot(run.id)!.seq, 5);
        for (let i = 0; i < 5; i++) s.appendJournal(run.id, { kind: 'clock', name: 'now', status: 'ok' });
        const seq = s.appendJournal(run.id, { kind: 'infer', name: 'm', status: 'intent', snapshot: bytes(42) });
        assert.equal(seq, 6);
        const snap = s.latestSnapshot(run.id)!;
        assert.equal(snap.seq, 5, 'the snapshot reflects the entries before the intent');
        assert.deepEqual(snap.bytes, bytes(42));
        const big = new Uint8Array(300_000).map((_, i) => i % 251);
        s.putSnapshot(run.id, 6, big);
        assert.deepEqual(s.latestSnapshot(run.id)!.bytes, big);
        expectStoreError(() => s.putSnapshot('nope', 1, bytes(1)), 'not_found');
        expectStoreError(() => s.putSnapshot(run.id, -1, bytes(1)), 'invalid');
      } finally {
        s.close();
      }
    });

    test('delete: a run goes with its journal and snapshots, the other runs and the bundles stay', () => {
      const s = open();
      try {
        const a = s.createRun(RUN);
        const b = s.createRun(RUN);
        s.putBundle('h1', bytes(1));
        for (const id of [a.id, b.id]) {
          s.appendJournal(id, { kind: 'tool', name: 't', status: 'intent', idempotencyKey: 'k' });
          s.putSnapshot(id, 1, bytes(2));
        }
        s.deleteRun!(a.id);
        assert.equal(s.getRun(a.id), null);
        assert.deepEqual(s.readJournal(a.id), []);
        assert.equal(s.latestSnapshot(a.id), null);
        assert.deepEqual(s.listRuns().map((r) => r.id), [b.id]);
        assert.equal(s.readJournal(b.id).length, 1);
        assert.deepEqual(s.getBundle('h1'), bytes(1));
        expectStoreError(() => s.deleteRun!(a.id), 'not_found', new RegExp(a.id));
        // its id and idempotency keys are free again
        s.createRun({ ...RUN, id: a.id });
        s.appendJournal(a.id, { kind: 'tool', name: 't', status: 'intent', idempotencyKey: 'k' });
      } finally {
        s.close();
      }
    });

    test('bundles: content-addressed, stored once', () => {
      const s = open();
      try {
        s.putBundle('h1', bytes(1, 2, 3));
        s.putBundle('h1', bytes(1, 2, 3));
        assert.deepEqual(s.getBundle('h1'), bytes(1, 2, 3));
        assert.equal(s.getBundle('h2'), null);
      } finally {
        s.close();
      }
    });

    test('a reopened store has everything committed; a closed store refuses calls', () => {
      const file = fresh();
      const s = open(file);
      const run = s.createRun(RUN);
      s.appendJournal(run.id, { kind: 'random', name: 'rand', status: 'ok', payload: bytes(4) });
      s.putSnapshot(run.id, 1, bytes(8));
      s.close();
      s.close(); // twice is fine
      expectStoreError(() => s.getRun(run.id), 'closed');
      expectStoreError(() => s.appendJournal(run.id, { kind: 'x', name: 'y', status: 'ok' }), 'closed');
      const again = open(file);
      try {
        assert.equal(again.readJournal(run.id).length, 1);
        assert.deepEqual(again.latestSnapshot(run.id)!.bytes, bytes(8));
      } finally {
        again.close();
      }
    });

    test('one writer: a second open gets a clear "in use" error, and opens once the first closed', () => {
      const file = fresh();
      const first = open(file);
      const err = expectStoreError(() => open(file), 'in_use', /in use by another writer/);
      assert.match(err.message, new RegExp(`pid ${process.pid}`));
      assert.equal(err.file, path.resolve(file));
      first.createRun(RUN); // the first is unharmed
      first.close();
      const second = open(file);
      assert.equal(second.listRuns().length, 1);
      second.close();
    });

    test('one writer: another OS process is refused while the store is held', () => {
      const file = fresh();
      const s = open(file);
      try {
        // A bare connection in another process cannot even read: the writer holds the lock.
        const scripts: Record<string, string> = {
          'node:sqlite': `const {DatabaseSync}=require('node:sqlite');const d=new DatabaseSync(${JSON.stringify(file)});d.exec('PRAGMA busy_timeout=50');try{d.prepare('SELECT COUNT(*) FROM runs').get();console.log('READ')}catch(e){console.log('BUSY',e.message)}`,
          'better-sqlite3': `const D=require('better-sqlite3');const d=new D(${JSON.stringify(file)},{timeout:50});try{d.prepare('SELECT COUNT(*) FROM runs').get();console.log('READ')}catch(e){console.log('BUSY',e.message)}`,
          'node-sqlite3-wasm': `const {Database}=require('node-sqlite3-wasm');const d=new Database(${JSON.stringify(file)});try{d.exec('PRAGMA busy_timeout=50');d.get('SELECT COUNT(*) FROM runs');console.log('READ')}catch(e){console.log('BUSY',e.message)}`,
        };
        const script = scripts[driver.name];
        const r = spawnSync(process.execPath, ['-e', script], { cwd: process.cwd(), encoding: 'utf8' });
        assert.match(r.stdout, /^BUSY .*locked/m, r.stdout + r.stderr);
      } finally {
        s.close();
      }
    });

    test('schema: a newer schema version is refused with a clear message, the file untouched', () => {
      const file = fresh();
      open(file).close();
      const raw = driver.connect(file);
      raw.exec('PRAGMA user_version = 7');
      raw.close();
      const before = fs.readFileSync(file);
      const err = expectStoreError(() => open(file), 'schema', new RegExp(`schema version 7, newer than this Turn understands \\(${SCHEMA_VERSION}\\)`));
      assert.match(err.message, new RegExp(file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
      assert.deepEqual(fs.readFileSync(file), before);
    });

    test('schema: an SQLite database that is not a Turn store is refused', () => {
      const file = fresh();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const raw = driver.connect(file);
      raw.exec('CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES (1)');
      raw.close();
      const before = fs.readFileSync(file);
      expectStoreError(() => open(file), 'schema', /not a Turn store/);
      assert.deepEqual(fs.readFileSync(file), before);
    });

    test('corrupt file: garbage is a clear StoreError naming the file, and its bytes are left untouched', () => {
      const file = fresh();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const garbage = Buffer.alloc(8192);
      for (let i = 0; i < garbage.length; i++) garbage[i] = (i * 7919) % 256;
      fs.writeFileSync(file, garbage);
      const err = expectStoreError(() => open(file), 'corrupt', /corrupt or not a Turn store/);
      assert.ok(err.message.includes(path.resolve(file)));
      assert.deepEqual(fs.readFileSync(file), garbage);
      assert.ok(!fs.existsSync(file + '-wal'));
    });

    test('corrupt file: damaged pages inside a valid header surface as a corrupt StoreError', () => {
      const file = fresh();
      const s = open(file);
      const run = s.createRun(RUN);
      for (let i = 0; i < 24; i++) s.appendJournal(run.id, { kind: 'tool', name: 'x'.repeat(50), status: 'ok', payload: new Uint8Array(2000).fill(i) });
      s.close(); // checkpointed into the main file
      const size = fs.statSync(file).size;
      assert.ok(size > 4096 * 4, `store has several pages (${size})`);
      const fd = fs.openSync(file, 'r+');
      const junk = Buffer.alloc(size - 4096 * 2, 0xa5);
      fs.writeSync(fd, junk, 0, junk.length, 4096 * 2); // every page after the second
      fs.closeSync(fd);
      const damaged = fs.readFileSync(file);
      let caught: unknown;
      try {
        const t = open(file);
        try {
          try {
            t.readJournal(run.id);
            t.listRuns();
          } catch (e) {
            // once damage is seen, the session refuses every further call, writes included
            expectStoreError(() => t.appendJournal(run.id, { kind: 'x', name: 'y', status: 'ok' }), 'corrupt');
            throw e;
          }
        } finally {
          t.close();
        }
      } catch (e) {
        caught = e;
      }
      assert.ok(caught instanceof StoreError, `expected a StoreError, got ${String(caught)}`);
      assert.equal(caught.code, 'corrupt', caught.message);
      assert.ok(caught.message.includes(path.resolve(file)));
      assert.deepEqual(fs.readFileSync(file), damaged, 'a damaged store is not written to');
    });

    test('torn last write: a WAL cut mid-frame opens at the last committed state', () => {
      const file = fresh();
      const s = open(file);
      let image: string;
      try {
        const run = s.createRun({ ...RUN, id: 'torn' });
        for (let i = 0; i < 5; i++) s.appendJournal('torn', { kind: 'clock', name: 'now', status: 'ok', payload: bytes(i) });
        const walBefore = fs.statSync(file + '-wal').size;
        s.appendJournal(run.id, { kind: 'tool', name: 'last', status: 'intent', payload: new Uint8Array(1000).fill(1) });
        const walAfter = fs.statSync(file + '-wal').size;
        assert.ok(walAfter > walBefore);
        image = crashImage(file, path.join(root, `torn${++n}`));
        // The last transaction's frames were being written when the power went: cut its first frame
        // in half. (Not its last frame: a VFS without powersafe overwrite, node-sqlite3-wasm's, pads
        // a commit with copies of its commit frame up to a sector, and cutting a copy tears nothing.)
        const pageFrame = 24 + 4096;
        fs.truncateSync(image + '-wal', walBefore + Math.floor(pageFrame / 2));
      } finally {
        s.close();
      }
      const t = driver.open(image, { busyTimeoutMs: 50 });
      try {
        const entries = t.readJournal('torn');
        assert.deepEqual(entries.map((e) => e.kind), ['clock', 'clock', 'clock', 'clock', 'clock'], 'the torn transaction is gone, the committed ones stay');
        assert.deepEqual(entries[4].payload, bytes(4));
        // And the store goes on from there.
        assert.equal(t.appendJournal('torn', { kind: 'tool', name: 'again', status: 'intent' }), 6);
      } finally {
        t.close();
      }
    });

    test('torn last write: a main file cut mid-page is a clear error or the last committed state', () => {
      const file = fresh();
      const s = open(file);
      const run = s.createRun(RUN);
      for (let i = 0; i < 20; i++) s.appendJournal(run.id, { kind: 'tool', name: 'n', status: 'ok', payload: new Uint8Array(600).fill(i) });
      s.close();
      const size = fs.statSync(file).size;
      fs.truncateSync(file, size - 2048);
      try {
        const t = open(file);
        try {
          assert.equal(t.readJournal(run.id).length, 20);
        } finally {
          t.close();
        }
      } catch (e) {
        assert.ok(e instanceof StoreError, String(e));
        assert.match(e.code, /^(corrupt|io)$/);
        assert.ok(e.message.includes(path.resolve(file)), e.message);
      }
    });

    test('full disk (injected): SQLITE_FULL from the driver is a disk_full StoreError, nothing half-written', () => {
      // The driver's own connection, wrapped so that writing a journal row fails as a full disk does.
      const file = fresh();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      let failWrites = false;
      const conn = driver.connect(file);
      const wrapped: SqlConnection = {
        exec: (sql) => conn.exec(sql),
        close: () => conn.close(),
        prepare(sql) {
          const st = conn.prepare(sql);
          return {
            run: (...p) => {
              if (failWrites && /^INSERT INTO journal/.test(sql)) {
                throw Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL', errcode: 13 });
              }
              return st.run(...p);
            },
            get: (...p) => st.get(...p),
            all: (...p) => st.all(...p),
          };
        },
      };
      const s = SqliteRunStore.open(wrapped, file, driver.name, { busyTimeoutMs: 50 });
      try {
        const run = s.createRun(RUN);
        s.appendJournal(run.id, { kind: 'clock', name: 'now', status: 'ok' });
        failWrites = true;
        const err = expectStoreError(
          () => s.appendJournal(run.id, { kind: 'tool', name: 't', status: 'intent', snapshot: bytes(1) }),
          'disk_full',
          /disk is full.*last committed state is intact/,
        );
        assert.ok(err.message.includes(file));
        failWrites = false;
        assert.equal(s.readJournal(run.id).length, 1);
        assert.equal(s.latestSnapshot(run.id), null, 'the snapshot of the failed transaction was rolled back');
        assert.equal(s.appendJournal(run.id, { kind: 'tool', name: 't', status: 'intent' }), 2, 'the store goes on once there is room');
      } finally {
        s.close();
      }
    });

    const tmpfsDir = path.join(os.tmpdir(), `turn-store-tmpfs-${process.pid}-${driver.name.replace(/\W/g, '')}`);
    const mountable = !driver.skip && canMount(tmpfsDir);
    test(
      'full disk (real, a 256 KiB tmpfs): a clear disk_full error, every committed entry intact',
      { skip: mountable ? undefined : 'cannot mount a tmpfs here (needs root on Linux); the injected test above covers the mapping' },
      () => {
        spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', tmpfsDir]);
        try {
          const file = path.join(tmpfsDir, 'store.db');
          const s = driver.open(file, { busyTimeoutMs: 50 });
          let committed = 0;
          let err: unknown;
          try {
            const run = s.createRun({ ...RUN, id: 'full' });
            const payload = new Uint8Array(16 * 1024).fill(7);
            for (let i = 0; i < 100; i++) {
              try {
                s.appendJournal(run.id, { kind: 'tool', name: 'fill', status: 'ok', payload });
                committed++;
              } catch (e) {
                err = e;
                break;
              }
            }
            assert.ok(err instanceof StoreError, `expected a StoreError, got ${String(err)}`);
            assert.equal(err.code, 'disk_full', err.message);
            assert.ok(err.message.includes(file));
            assert.ok(committed > 0);
            assert.equal(s.readJournal(run.id).length, committed, 'the session still reads every committed entry');
          } finally {
            try {
              s.close();
            } catch {
              // closing may itself need room to checkpoint: the WAL keeps the commits
            }
          }
          // Make room and reopen: exactly the committed entries are there.
          spawnSync('mount', ['-o', 'remount,size=4m', tmpfsDir]);
          const t = driver.open(file, { busyTimeoutMs: 50 });
          try {
            assert.equal(t.readJournal('full').length, committed);
          } finally {
            t.close();
          }
        } finally {
          spawnSync('umount', [tmpfsDir]);
          fs.rmSync(tmpfsDir, { recursive: true, force: true });
        }
      },
    );
  });
}

const better = betterSqlite3Available();
const nodeSqlite = nodeSqliteAvailable();
conformance({
  name: 'better-sqlite3',
  // Required where node:sqlite is missing (Node 20: the CLI and CI): a load failure fails there.
  skip: better.ok || !nodeSqlite.ok ? undefined : better.reason,
  open: openBetterSqlite3Store,
  connect: betterSqlite3Connection,
});

conformance({
  name: 'node-sqlite3-wasm',
  // a package without a native part: it loads on every Node this project supports
  skip: undefined,
  open: openNodeSqlite3WasmStore,
  connect: nodeSqlite3WasmConnection,
});

conformance({
  name: 'node:sqlite',
  skip: nodeSqlite.ok ? undefined : nodeSqlite.reason,
  open: openNodeSqliteStore,
  connect: nodeSqliteConnection,
});
