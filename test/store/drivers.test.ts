// The three SQLite drivers together (docs/durability.md, "Drivers"): a store written by one opens
// with every other; a writer holding a store with one driver refuses a second writer with any
// driver, in this process and in another; a writer that was killed does not lock its store forever.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DRIVER_NAMES, openStoreFile, pickDriver, type DriverName } from '../../runtime/store/open.js';
import { StoreError } from '../../runtime/store/types.js';

const ROOT = path.join(__dirname, '..', '..');
const RUN = { entry: 'main.tn', bytecodeHash: 'sha256:abc', semanticsVersion: 'turn-vm/1' };

function available(name: DriverName): boolean {
  try {
    pickDriver(name);
    return true;
  } catch {
    return false;
  }
}
const drivers = DRIVER_NAMES.filter(available);

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'turn-drivers-'));
}

function expectInUse(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof StoreError, String(e));
    assert.equal(e.code, 'in_use', e.message);
    return e;
  }
  assert.fail('the second writer was not refused');
}

test('node-sqlite3-wasm loads everywhere; better-sqlite3 wherever node:sqlite is missing (Node 20)', () => {
  assert.ok(drivers.includes('node-sqlite3-wasm'), 'node-sqlite3-wasm loads');
  if (!drivers.includes('node:sqlite')) assert.ok(drivers.includes('better-sqlite3'), 'better-sqlite3 loads');
  assert.ok(drivers.length >= 2, `two drivers to compare: ${drivers.join(', ')}`);
});

test('a store written by one driver opens with every other, with everything in it', () => {
  for (const a of drivers) {
    for (const b of drivers) {
      if (a === b) continue;
      const dir = tmp();
      try {
        const file = path.join(dir, 'store.db');
        const first = openStoreFile(file, { driver: a });
        assert.equal(first.info().driver, a);
        const run = first.createRun({ ...RUN, meta: { by: a } });
        first.appendJournal(run.id, { kind: 'tool', name: 'pay', status: 'intent', payload: new Uint8Array([1, 2]) });
        first.putSnapshot(run.id, 1, new Uint8Array(20_000).fill(7));
        first.putBundle('h', new Uint8Array([9]));
        first.close();

        const second = openStoreFile(file, { driver: b });
        assert.equal(second.info().driver, b);
        assert.equal(second.info().journalMode, 'wal');
        assert.deepEqual(second.getRun(run.id)!.meta, { by: a });
        const [e] = second.readJournal(run.id);
        assert.equal(e.status, 'intent');
        assert.deepEqual(e.request, new Uint8Array([1, 2]));
        assert.equal(second.latestSnapshot(run.id)!.bytes.length, 20_000);
        assert.deepEqual(second.getBundle('h'), new Uint8Array([9]));
        second.completeJournal(run.id, 1, 'ok', new Uint8Array([3]));
        second.close();

        const again = openStoreFile(file, { driver: a });
        assert.equal(again.readJournal(run.id)[0].status, 'ok', `${a} reads what ${b} wrote`);
        again.close();
        assert.ok(!fs.existsSync(file + '.lock'), 'the writer lock is gone after close');
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  }
});

test('a writer with one driver refuses a second writer with any driver, in this process', () => {
  for (const a of drivers) {
    for (const b of drivers) {
      const dir = tmp();
      try {
        const file = path.join(dir, 'store.db');
        const holder = openStoreFile(file, { driver: a, busyTimeoutMs: 50 });
        const err = expectInUse(() => openStoreFile(file, { driver: b, busyTimeoutMs: 50 }));
        assert.match(err.message, new RegExp(`in use by another writer \\(pid ${process.pid}`), `${a} holds, ${b} asks: ${err.message}`);
        holder.createRun(RUN); // the holder is unharmed
        holder.close();
        const next = openStoreFile(file, { driver: b });
        assert.equal(next.listRuns().length, 1);
        next.close();
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  }
});

/** A child process that opens the store with `driver` and prints the outcome. */
function childOpen(file: string, driver: DriverName): string {
  const script = `
    const { openStoreFile } = require(${JSON.stringify(path.join(ROOT, 'runtime/store/open.ts'))});
    try { openStoreFile(${JSON.stringify(file)}, { driver: ${JSON.stringify(driver)}, busyTimeoutMs: 50 }).close(); console.log('OPENED'); }
    catch (e) { console.log(e.code, e.message); }`;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, encoding: 'utf8' });
  return r.stdout + r.stderr;
}

test('a writer with one driver refuses a writer with another driver in another OS process', () => {
  const pairs: [DriverName, DriverName][] = [['node-sqlite3-wasm', 'better-sqlite3'], ['better-sqlite3', 'node-sqlite3-wasm'], ['node-sqlite3-wasm', 'node-sqlite3-wasm']];
  for (const [a, b] of pairs.filter(([x, y]) => drivers.includes(x) && drivers.includes(y))) {
    const dir = tmp();
    try {
      const file = path.join(dir, 'store.db');
      const holder = openStoreFile(file, { driver: a });
      try {
        assert.match(childOpen(file, b), /^in_use .*in use by another writer/m, `${a} holds, ${b} in another process`);
      } finally {
        holder.close();
      }
      assert.match(childOpen(file, b), /^OPENED$/m, 'and opens once the holder closed');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('a writer killed while holding the store (any driver) leaves no lock that outlives it', async () => {
  for (const driver of drivers) {
    const dir = tmp();
    try {
      const file = path.join(dir, 'store.db');
      // The child opens the store, says so, and is killed (SIGKILL) while holding it.
      const script = `
        const { openStoreFile } = require(${JSON.stringify(path.join(ROOT, 'runtime/store/open.ts'))});
        const s = openStoreFile(${JSON.stringify(file)}, { driver: ${JSON.stringify(driver)} });
        s.createRun({ entry: 'x.tn', bytecodeHash: 'h', semanticsVersion: 'v', id: 'kept' });
        console.log('HELD'); setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => (d.toString().includes('HELD') ? resolve() : undefined));
        child.on('exit', (code) => reject(new Error(`the child exited (${code}) before holding the store`)));
      });
      assert.ok(fs.existsSync(file + '.lock'), 'the holder has the lock folder');
      expectInUse(() => openStoreFile(file, { driver, busyTimeoutMs: 50 }));
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
      // The lock folder is still there, but its owner is gone: the next writer takes it over.
      assert.ok(fs.existsSync(file + '.lock'));
      const next = openStoreFile(file, { driver });
      assert.equal(next.getRun('kept')!.id, 'kept', 'what the killed writer committed is there');
      next.close();
      assert.ok(!fs.existsSync(file + '.lock'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('TURN_STORE_DRIVER picks the driver; a name it does not know is a clear error', () => {
  assert.equal(pickDriver('auto', { TURN_STORE_DRIVER: 'node-sqlite3-wasm' }), 'node-sqlite3-wasm');
  assert.throws(
    () => pickDriver('auto', { TURN_STORE_DRIVER: 'sqlite9' }),
    (e: unknown) => e instanceof StoreError && e.code === 'invalid' && /TURN_STORE_DRIVER is 'sqlite9'; it names one of node:sqlite, better-sqlite3, node-sqlite3-wasm/.test(e.message),
  );
});

test('a lock folder without a note is left alone for a minute, then taken over; a note of another host is never judged', () => {
  const dir = tmp();
  try {
    const file = path.join(dir, 'store.db');
    fs.mkdirSync(file + '.lock'); // a writer killed between creating the folder and writing its note, just now
    for (const driver of drivers) expectInUse(() => openStoreFile(file, { driver, busyTimeoutMs: 50 }));
    const old = (Date.now() - 120_000) / 1000;
    fs.utimesSync(file + '.lock', old, old);
    const s = openStoreFile(file, { driver: 'node-sqlite3-wasm' });
    s.close();
    fs.mkdirSync(file + '.lock');
    fs.writeFileSync(path.join(file + '.lock', 'owner'), JSON.stringify({ pid: 999_999_999, host: 'elsewhere', since: 'then' }));
    for (const driver of drivers) {
      const err = expectInUse(() => openStoreFile(file, { driver, busyTimeoutMs: 50 }));
      assert.match(err.message, /pid 999999999 on elsewhere.*remove the folder .*store\.db\.lock/, driver);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
