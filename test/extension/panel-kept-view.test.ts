// The run panel's kept view (extension/panel/kept-view.ts): what a window reload brings back when the
// webview's own saved state is older.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { KeptView } from '../../extension/panel/kept-view.js';
import { emptyRun, type RunView } from '../../extension/protocol/panel.js';

function folder(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'turn-kept-view-'));
}

function view(runId: number, status: RunView['status'], output: string[]): RunView {
  return { ...emptyRun(runId, '/w/vault_agent.tn', 'mock'), status, output };
}

test('an ended run is on disk when keep returns, and a new keeper (after a reload) reads it back', () => {
  const dir = path.join(folder(), 'not-yet-made');
  new KeptView(dir).keep(view(3, 'done', ['server says: hello']));
  assert.deepEqual(new KeptView(dir).load(), view(3, 'done', ['server says: hello']));
});

test('a running run is written at most once a second, its latest view; flush writes it now', () => {
  const dir = folder();
  const kept = new KeptView(dir);
  kept.keep(view(1, 'running', ['a']));
  kept.keep(view(1, 'running', ['a', 'b']));
  assert.equal(new KeptView(dir).load(), undefined, 'nothing written on every event');
  kept.flush();
  assert.deepEqual(new KeptView(dir).load()?.output, ['a', 'b']);
  kept.keep(view(1, 'done', ['a', 'b', 'c']));
  assert.deepEqual(new KeptView(dir).load()?.status, 'done', 'the end is written at once, the pending running view with it replaced');
  kept.flush(); // nothing pending: the ended view stays
  assert.deepEqual(new KeptView(dir).load()?.output, ['a', 'b', 'c']);
});

test('a damaged or foreign file is no view (the webview state is shown instead), and is replaced by the next run', () => {
  const dir = folder();
  const file = path.join(dir, 'run-panel-view.json');
  fs.writeFileSync(file, '{"runId": 1, "status": "do');
  assert.equal(new KeptView(dir).load(), undefined);
  fs.writeFileSync(file, JSON.stringify({ runId: 'x', output: 'not a list' }));
  assert.equal(new KeptView(dir).load(), undefined);
  new KeptView(dir).keep(view(2, 'failed', []));
  assert.equal(new KeptView(dir).load()?.status, 'failed');
  assert.deepEqual(fs.readdirSync(dir), ['run-panel-view.json'], 'no temporary file left');
});

test('a running run is written as its head only (no actors, model calls or timeline: they grow with the run); its end writes them all', () => {
  const dir = folder();
  const kept = new KeptView(dir);
  const actor: RunView['actors'][number] = {
    pid: 2, parent: 1, name: 'worker', status: 'waiting', waitingOn: 'effect', linked: false, detached: false, restarts: 0, site: null,
    context: { P0: [], P1: [{ text: 'item 2', tokens: 2 }], P2: [], tokens: { P0: 0, P1: 2, P2: 0 }, limits: { working: 4096, episodic: 8192 }, demoted: { entries: 0, tokens: 0 }, dropped: { entries: 0, tokens: 0 } },
    memory: [], mailbox: [], result: null, error: null,
  };
  const item: RunView['timeline'][number] = { seq: 1, ms: 0, kind: 'infer.request', pid: 2, summary: 'infer Verdict', state: 'pending', site: null };
  const lines = Array.from({ length: 1000 }, (_, i) => `line ${i}`);
  kept.keep({ ...view(4, 'running', lines), actors: Array.from({ length: 1000 }, () => actor), timeline: Array.from({ length: 5000 }, () => item) });
  kept.flush();
  const head = new KeptView(dir).load();
  assert.equal(head?.status, 'running');
  assert.deepEqual([head?.actors.length, head?.infers.length, head?.timeline.length], [0, 0, 0]);
  assert.deepEqual(head?.output, lines.slice(-200), 'the last printed lines');
  assert.ok(fs.statSync(path.join(dir, 'run-panel-view.json')).size < 10_000, 'small whatever the run\'s size');
  kept.keep({ ...view(4, 'done', lines), actors: [actor], timeline: [item] });
  const end = new KeptView(dir).load();
  assert.deepEqual([end?.actors.length, end?.timeline.length, end?.output.length], [1, 1, 1000], 'the end, whole');
});
