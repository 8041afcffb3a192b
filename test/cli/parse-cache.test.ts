// `turn run` through the parse cache (cli/parse-cache.ts): only the built CLI turns it on, and a
// run of a changed file runs the change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { enableParseCache, userCacheBase } from '../../cli/parse-cache.js';
import { useParseCache } from '../../runtime/syntax/parse-cache.js';
import { ROOT } from './run-cli.js';

const BIN = path.join(ROOT, 'bin', 'turn.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-cli-parse-cache-'));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
test.afterEach(() => useParseCache(undefined));

test('the cache is on only for a bundle with a build id, and TURN_PARSE_CACHE=off turns it off', () => {
  const built = path.join(tmp, 'dist');
  fs.mkdirSync(built, { recursive: true });
  assert.equal(enableParseCache(built, { TURN_CACHE_DIR: tmp }), false, 'no build-id');
  fs.writeFileSync(path.join(built, 'build-id'), 'abc\n');
  assert.equal(enableParseCache(built, { TURN_CACHE_DIR: tmp }), true);
  assert.equal(enableParseCache(built, { TURN_CACHE_DIR: tmp, TURN_PARSE_CACHE: 'off' }), false);
});

test('the cache folder follows TURN_CACHE_DIR, then XDG_CACHE_HOME, then HOME', { skip: process.platform === 'win32' }, () => {
  assert.equal(userCacheBase({ TURN_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x', HOME: '/h' }), '/c');
  assert.equal(userCacheBase({ XDG_CACHE_HOME: '/x', HOME: '/h' }), path.join('/x', 'turn'));
  assert.equal(userCacheBase({ HOME: '/h' }), path.join('/h', '.cache', 'turn'));
});

function run(file: string, cacheDir: string): string {
  const r = spawnSync(process.execPath, [BIN, 'run', file], { cwd: tmp, encoding: 'utf8', env: { ...process.env, TURN_CACHE_DIR: cacheDir, TURN_PARSE_CACHE: '' }, timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
}

test('the built CLI writes an entry, and a changed or damaged one never runs stale code', () => {
  const cacheDir = path.join(tmp, 'cache');
  const file = path.join(tmp, 'p.tn');
  fs.writeFileSync(file, 'call("echo", "one");\n');
  assert.equal(run(file, cacheDir), 'one\n');
  const entries = fs.readdirSync(path.join(cacheDir, 'parse-cache'));
  assert.equal(entries.length, 1);
  assert.equal(run(file, cacheDir), 'one\n');
  fs.writeFileSync(file, 'call("echo", "two");\n');
  assert.equal(run(file, cacheDir), 'two\n');
  const entry = path.join(cacheDir, 'parse-cache', entries[0]);
  const bytes = fs.readFileSync(entry);
  fs.writeFileSync(entry, bytes.subarray(0, bytes.length >> 1));
  assert.equal(run(file, cacheDir), 'two\n');
  assert.ok(fs.statSync(entry).size > bytes.length >> 1, 'the damaged entry is replaced');
});
