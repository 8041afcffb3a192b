// A damaged stored bundle (issue 28, item 4): one byte of a run's stored sources changed, and
// `turn resume` exited 2 printing nothing. Stored sources carry a checksum per file and a digest;
// a resume checks them first and says what is damaged. Sources stored before the checksums get a
// located compile message instead of silence.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { runIdOf, turnAsync } from '../durability/helpers.js';

interface WasmDb {
  all(sql: string, values?: unknown[]): Record<string, unknown>[];
  run(sql: string, values?: unknown[]): unknown;
  exec(sql: string): void;
  close(): void;
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { Database } = require('node-sqlite3-wasm') as { Database: new (file: string) => WasmDb };

/** Rewrites the one stored bundle of the store in `dir` through `edit`. */
function editBundle(dir: string, edit: (text: string) => string): void {
  const db = new Database(path.join(dir, 'st', 'store.db'));
  try {
    // the store is in WAL mode; this VFS has no shared memory, so it reads it in exclusive mode
    db.run('PRAGMA locking_mode = EXCLUSIVE');
    const [row] = db.all('SELECT hash, bytes FROM bundles');
    const text = Buffer.from(row.bytes as Uint8Array).toString('utf8');
    const changed = edit(text);
    assert.notEqual(changed, text);
    db.run('UPDATE bundles SET bytes = ? WHERE hash = ?', [new Uint8Array(Buffer.from(changed, 'utf8')), row.hash]);
  } finally {
    db.close();
  }
}

async function suspendedRun(): Promise<{ dir: string; id: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-damaged-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), 'let a = 1;\nsuspend;\ncall("echo", "after " + a);\n');
  const r = await turnAsync(['run', 'p.tn', '--store', 'st'], dir);
  assert.equal(r.code, 0, r.stderr);
  return { dir, id: runIdOf(r.stderr) };
}

test('one byte of a stored source changed: turn resume says which file is damaged', async () => {
  for (const [what, edit] of [
    ['a changed letter', (t: string) => t.replace('after', 'After')],
    ['a syntax error', (t: string) => t.replace('let a', 'let {')],
  ] as const) {
    const { dir, id } = await suspendedRun();
    editBundle(dir, edit);
    const r = await turnAsync(['resume', id, '--store', 'st'], dir);
    assert.equal(r.code, 1, `${what}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(`the stored sources of run ${id} are damaged: the text of .*p\\.tn does not match its stored checksum`), what);
    assert.doesNotMatch(r.stdout, /after/);
  }
});

test('stored sources that are not JSON, or lost a file, are named as damaged', async () => {
  {
    const { dir, id } = await suspendedRun();
    editBundle(dir, (t) => t.replace('{"format"', '{"format":'));
    const r = await turnAsync(['resume', id, '--store', 'st'], dir);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /are damaged: they are not valid JSON/);
  }
  {
    const { dir, id } = await suspendedRun();
    editBundle(dir, (t) => t.replace(/"entryPath":"[^"]*"/, '"entryPath":"/elsewhere/p.tn"'));
    const r = await turnAsync(['resume', id, '--store', 'st'], dir);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /are damaged: their entry path or list of files does not match the stored digest/);
  }
});

test('sources stored without checksums (an older Turn) that no longer compile: a located message, not a silent exit 2', async () => {
  const { dir, id } = await suspendedRun();
  editBundle(dir, (t) => {
    const s = JSON.parse(t) as { units: { text: string; sha256?: string }[]; digest?: string };
    delete s.digest;
    for (const u of s.units) {
      delete u.sha256;
      u.text = u.text.replace('let a', 'let {');
    }
    return JSON.stringify(s);
  });
  const r = await turnAsync(['resume', id, '--store', 'st'], dir);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /turn: the stored source .*p\.tn of run \S+ does not compile \(it is damaged, or this Turn no longer accepts it\): .*p\.tn:1:\d+: /);
});
