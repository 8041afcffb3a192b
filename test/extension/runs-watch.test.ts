// The Runs view refreshes when the `turn` CLI changes a workspace store (extension/runs/store-watch.ts),
// without VS Code: a burst of file events is one refresh; the view's own reads of the store (which
// take the lock and make a WAL too) refresh nothing; a run the real CLI writes does. Uses the built
// CLI: run `npm run build` first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isStoreDataFile, StoreWatch, storeSignature, type Timers } from '../../extension/runs/store-watch.js';
import { SharedStores } from '../../extension/runs/shared-store.js';
import { listRunItems } from '../../extension/runs/model.js';
import { workspaceStoreDir } from '../../extension/settings.js';

const BIN = path.join(__dirname, '..', '..', 'bin', 'turn.js');

/** Timers the test runs by hand: the debounce without waiting on the clock. */
class HandTimers implements Timers {
  private next = 0;
  readonly queue = new Map<number, () => void>();
  set(fn: () => void): number {
    this.queue.set(++this.next, fn);
    return this.next;
  }
  clear(h: unknown): void {
    this.queue.delete(h as number);
  }
  runAll(): void {
    const fns = [...this.queue.values()];
    this.queue.clear();
    for (const f of fns) f();
  }
}

function workspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-runs-watch-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), 'call("echo", "hi");\nreturn 1;\n');
  return dir;
}

function cli(args: string[], cwd: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: 'ignore' });
    child.on('error', reject);
    child.on('close', resolve);
  });
}

test('only the database and its WAL or journal count; the lock, owner and shared-memory files do not', () => {
  for (const f of ['/w/.turn/store.db', '/w/.turn/store.db-wal', '/w/.turn/store.db-journal']) assert.ok(isStoreDataFile(f), f);
  for (const f of ['/w/.turn/store.db.lock', '/w/.turn/store.db.owner', '/w/.turn/store.db-shm', '/w/.turn/.gitignore']) assert.ok(!isStoreDataFile(f), f);
});

test('a burst of events is one refresh, after the delay; the view\'s own read of the store refreshes nothing', () => {
  const dir = workspace();
  try {
    const storeDir = workspaceStoreDir(dir);
    const stores = new SharedStores();
    stores.use(storeDir, (s) => s.createRun({ entry: 'p.tn', bytecodeHash: 'h', semanticsVersion: 'turn-vm/1', meta: { cwd: dir } }));
    const timers = new HandTimers();
    const refreshed: string[] = [];
    const watch = new StoreWatch((d) => refreshed.push(d), 250, timers);

    // the view reads the store (as its getChildren does) and notes what it read
    stores.use(storeDir, (s) => listRunItems(s));
    watch.sawStore(storeDir);
    // ... and hears of the files that read touched: opening made a WAL, closing removed it
    for (const f of ['store.db.lock', 'store.db-wal', 'store.db.owner', 'store.db-wal', 'store.db.lock']) watch.touched(path.join(storeDir, f));
    assert.equal(timers.queue.size, 1, 'one pending refresh for the burst');
    timers.runAll();
    assert.deepEqual(refreshed, [], 'a read changes nothing the view shows');

    // another process writes a run: several events, one refresh
    stores.use(storeDir, (s) => s.createRun({ entry: 'q.tn', bytecodeHash: 'h', semanticsVersion: 'turn-vm/1', meta: { cwd: dir } }));
    for (const f of ['store.db-wal', 'store.db-wal', 'store.db']) watch.touched(path.join(storeDir, f));
    assert.equal(timers.queue.size, 1);
    timers.runAll();
    assert.deepEqual(refreshed, [path.resolve(storeDir)]);
    // the same change heard again later (a late event) does not refresh twice
    watch.touched(path.join(storeDir, 'store.db'));
    timers.runAll();
    assert.equal(refreshed.length, 1);

    watch.touched(path.join(storeDir, 'store.db'));
    watch.dispose();
    assert.equal(timers.queue.size, 0, 'dispose cancels a pending refresh');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a run the turn CLI writes in the workspace store refreshes the view (a real file watcher, real timers)', async () => {
  const dir = workspace();
  const storeDir = workspaceStoreDir(dir);
  const stores = new SharedStores();
  assert.deepEqual(stores.use(storeDir, (s) => listRunItems(s)), []);
  let refreshed!: (dir: string) => void;
  const heard = new Promise<string>((r) => (refreshed = r));
  const watch = new StoreWatch((d) => refreshed(d), 50);
  watch.sawStore(storeDir);
  const before = storeSignature(storeDir);
  const watcher = fs.watch(storeDir, (_event, name) => (name ? watch.touched(path.join(storeDir, name.toString())) : undefined));
  try {
    assert.equal(await cli(['run', 'p.tn', '--store', '.turn'], dir), 0);
    assert.equal(await heard, path.resolve(storeDir));
    assert.notEqual(storeSignature(storeDir), before);
    const items = stores.use(storeDir, (s) => listRunItems(s));
    assert.deepEqual(items.map((i) => [i.entry, i.state]), [['p.tn', 'done']], 'the refresh shows the CLI\'s run');
  } finally {
    watcher.close();
    watch.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
