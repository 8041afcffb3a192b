// The knowledge store on every SQLite driver the run store uses (issue 26, item 8): it needed
// node:sqlite or better-sqlite3, so on Node 20 without the native module (the editor's extension
// host, code-server) std/knowledge raised EffectError while the run store fell back to
// WebAssembly SQLite. Both now take the one driver choice (pickDriver, TURN_STORE_DRIVER).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KnowledgeStore } from '../../runtime/knowledge/store.js';
import { DRIVER_NAMES, pickDriver, type DriverName } from '../../runtime/store/open.js';
import { ROOT } from '../cli/run-cli.js';

const available = DRIVER_NAMES.filter((d) => {
  try {
    return pickDriver(d) === d;
  } catch {
    return false;
  }
});

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'turn-kb-drivers-'));

for (const driver of available) {
  test(`the knowledge store runs on ${driver}, and two runs share it`, () => {
    const dir = tmp();
    const env = { TURN_STORE_DRIVER: driver };
    const a = KnowledgeStore.open(dir, { env });
    const b = KnowledgeStore.open(dir, { env });
    try {
      assert.equal(a.driver, driver);
      const one = a.session('run-a');
      const two = b.session('run-b');
      const m = one.put({ kind: 'material', text: 'a source', fields: { source: 'https://example.org/a' } });
      const c = one.put({ kind: 'claim', text: 'it says so', cites: [m.id] });
      // run b sees committed objects only: nothing yet, then both after run a commits
      assert.equal(two.find({ kind: 'claim' }).length, 0);
      assert.deepEqual(one.commit().committed.sort(), [c.id, m.id].sort());
      assert.deepEqual(two.find({ kind: 'claim' }).map((o) => o.id), [c.id]);
      // interleaved writes from both (the WebAssembly driver takes the file per transaction)
      for (let i = 0; i < 5; i++) {
        one.put({ kind: 'material', text: `a${i}`, fields: { source: `a${i}` } });
        two.put({ kind: 'material', text: `b${i}`, fields: { source: `b${i}` } });
      }
      two.commit();
      assert.equal(one.find({ kind: 'material' }).length, 1 + 5 + 5);
    } finally {
      a.close();
      b.close();
    }
    // the file is a knowledge store any driver opens
    for (const other of available) {
      const again = KnowledgeStore.open(dir, { env: { TURN_STORE_DRIVER: other } });
      try {
        assert.equal(again.session('reader').find({ kind: 'claim' }).length, 1, other);
      } finally {
        again.close();
      }
    }
  });
}

test('examples/research_agent.tn and its tests run where only WebAssembly SQLite loads (the built CLI, no node_modules, this Node)', () => {
  // the bundle alone, as the packaged extension ships it: no better-sqlite3 is reachable from it, and
  // on Node 20 there is no node:sqlite; TURN_STORE_DRIVER makes the WebAssembly driver the one on any Node
  const iso = tmp();
  fs.cpSync(path.join(ROOT, 'dist'), path.join(iso, 'dist'), { recursive: true });
  const work = path.join(iso, 'work');
  fs.mkdirSync(work);
  for (const f of ['research_agent.tn', 'research_agent_test.tn', 'research_agent_test.cassette.json']) fs.copyFileSync(path.join(ROOT, 'examples', f), path.join(work, f));
  const cli = path.join(iso, 'dist', 'cli.js');
  for (const env of [{}, { TURN_STORE_DRIVER: 'node-sqlite3-wasm' as DriverName }]) {
    fs.rmSync(path.join(work, '.turn'), { recursive: true, force: true });
    const r = spawnSync(process.execPath, [cli, 'run', 'research_agent.tn', '--model', 'mock', '--allow-knowledge'], { cwd: work, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /EffectError|node:sqlite is not available/);
    assert.match(r.stdout, /committed \d+/);
    assert.ok(fs.existsSync(path.join(work, '.turn', 'knowledge.db')));
    const t = spawnSync(process.execPath, [cli, 'test', 'research_agent_test.tn'], { cwd: work, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 120_000 });
    assert.equal(t.status, 0, t.stdout + t.stderr);
  }
});
