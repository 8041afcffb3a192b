import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DEFAULT_STORE_DIR, defaultStoreDir, openStore, pickDriver } from '../../runtime/store/open.js';
import { nodeSqliteAvailable } from '../../runtime/store/node-sqlite.js';
import { betterSqlite3Available } from '../../runtime/store/better-sqlite3.js';
import { StoreError } from '../../runtime/store/types.js';

test('the driver: node:sqlite where the host has it, else better-sqlite3', () => {
  const expected = nodeSqliteAvailable().ok ? 'node:sqlite' : 'better-sqlite3';
  assert.equal(pickDriver(), expected);
  if (betterSqlite3Available().ok) assert.equal(pickDriver('better-sqlite3'), 'better-sqlite3');
  else assert.ok(nodeSqliteAvailable().ok, 'on Node 20 better-sqlite3 must load');
  if (!nodeSqliteAvailable().ok) {
    assert.throws(() => pickDriver('node:sqlite'), (e: unknown) => e instanceof StoreError && e.code === 'unavailable' && /node:sqlite/.test(e.message));
  }
});

test('the default store folder is .turn in the working directory, TURN_STORE_DIR overrides it', () => {
  assert.equal(DEFAULT_STORE_DIR, '.turn');
  assert.equal(defaultStoreDir({}, '/work/project'), path.resolve('/work/project/.turn'));
  assert.equal(defaultStoreDir({ TURN_STORE_DIR: '/var/turn' }, '/work/project'), path.resolve('/var/turn'));
  assert.equal(defaultStoreDir({ TURN_STORE_DIR: 'rel' }, '/work/project'), path.resolve('/work/project/rel'));
});

test('openStore creates the folder, the database and a .gitignore, and reopens it', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-open-'));
  try {
    const dir = path.join(root, 'a', 'b', '.turn');
    const s = openStore(dir);
    const id = s.createRun({ entry: 'x.tn', bytecodeHash: 'h', semanticsVersion: 'v' }).id;
    assert.equal(s.info().file, path.join(dir, 'store.db'));
    assert.ok(fs.existsSync(path.join(dir, 'store.db.owner')), 'a writer leaves a note of who holds the store');
    s.close();
    assert.ok(!fs.existsSync(path.join(dir, 'store.db.owner')));
    assert.match(fs.readFileSync(path.join(dir, '.gitignore'), 'utf8'), /^\*$/m);
    const again = openStore(dir);
    assert.equal(again.getRun(id)!.entry, 'x.tn');
    again.close();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test('a folder that cannot be created is a StoreError naming it', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-open-'));
  try {
    const blocker = path.join(root, 'file');
    fs.writeFileSync(blocker, 'not a folder');
    const dir = path.join(blocker, '.turn');
    assert.throws(
      () => openStore(dir),
      (e: unknown) => e instanceof StoreError && e.code === 'io' && e.message.includes(dir),
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
