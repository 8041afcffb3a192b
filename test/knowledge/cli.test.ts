// The example agent through the built `turn` command, the lazy opening of the knowledge store, and
// the grant it needs (write access to its folder, docs/authority.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { turn, ROOT } from '../cli/run-cli.js';
import { tempDir } from './harness.js';

test('examples/research_agent.tn runs with --model mock and keeps its objects in the store folder it may write', () => {
  const dir = tempDir();
  const r = turn(['run', path.join(ROOT, 'examples', 'research_agent.tn'), '--model', 'mock', '--allow-write', dir], { env: { TURN_STORE_DIR: dir } });
  assert.equal(r.stderr, '');
  assert.equal(r.code, 0);
  assert.deepEqual(r.stdout.trim().split('\n'), [
    'claim/4: rejected by date_in_source@1 {"claim":"mock","sources":["2024-03-03"]}',
    'claim/5: rejected by date_in_source@1 {"claim":"mock","sources":["2024-03-09"]}',
    'committed 3, kept as drafts 2',
    'report: null',
  ]);
  assert.ok(fs.existsSync(path.join(dir, 'knowledge.db')));
});

test('a run that uses no kb tool never opens or creates the knowledge store', () => {
  const dir = tempDir();
  const r = turn(['run', path.join(ROOT, 'examples', 'hello.tn')], { env: { TURN_STORE_DIR: path.join(dir, 'store') } });
  assert.equal(r.code, 0);
  assert.equal(fs.existsSync(path.join(dir, 'store')), false);
});

test('without write access to the store folder, std/knowledge is refused and no store is created', () => {
  const dir = tempDir();
  const store = path.join(dir, 'store');
  const r = turn(['run', path.join(ROOT, 'examples', 'research_agent.tn'), '--model', 'mock', '--allow-read', dir], { env: { TURN_STORE_DIR: store } });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /the knowledge store in .*store needs write access to its folder \(--allow-write /);
  assert.equal(fs.existsSync(store), false);
});
