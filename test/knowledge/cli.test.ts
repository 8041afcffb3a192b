// The example agent through the built `turn` command, and the lazy opening of the knowledge store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { turn, ROOT } from '../cli/run-cli.js';
import { tempDir } from './harness.js';

test('examples/research_agent.tn runs with --model mock and keeps its objects in the store folder', () => {
  const dir = tempDir();
  const r = turn(['run', path.join(ROOT, 'examples', 'research_agent.tn'), '--model', 'mock'], { env: { TURN_STORE_DIR: dir } });
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
