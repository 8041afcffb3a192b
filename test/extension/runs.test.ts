// The editor's durable runs without VS Code: the run panel's Runner runs durable by default (the
// `turn.durableRuns` setting), `suspend;` shows as suspended, and the Runs view's model, actions and
// the panel's stored-run requests (resume, show; RunPanel.openStored), settle and delete work on the workspace store through the runtime.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryVault, openStore, type RunOptions } from '../../runtime/index.js';
import { Runner } from '../../extension/panel/runner.js';
import { readRunSettings, runOptionsFromSettings, workspaceStoreDir } from '../../extension/settings.js';
import { actionsOf, listRunItems } from '../../extension/runs/model.js';
import { deleteStoredRun, settle } from '../../extension/runs/actions.js';
import { SharedStores, sharedStores } from '../../extension/runs/shared-store.js';
import type { RunView } from '../../extension/protocol/panel.js';
import { lanesFromEvents } from '../../extension/panel/webview/lanes.js';

const settingsGet = (values: Record<string, unknown>) => <T>(key: string, dflt: T): T => (key in values ? (values[key] as T) : dflt);

function workspace(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-runs-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

function options(dir: string, values: Record<string, unknown> = {}): RunOptions {
  return runOptionsFromSettings(readRunSettings(settingsGet(values)), dir, { vault: new MemoryVault({}) });
}

const SUSPENDS = 'call("echo", "one");\nsuspend;\ncall("echo", "two");\nreturn 7;\n';

test('turn.durableRuns: on by default (the workspace store), off leaves no store', () => {
  assert.equal(readRunSettings(settingsGet({})).durableRuns, true);
  assert.equal(options('/w').store, workspaceStoreDir('/w'));
  assert.equal(workspaceStoreDir('/w'), path.join('/w', '.turn'));
  assert.equal(options('/w', { durableRuns: false }).store, undefined);
});

test('a panel run with suspend; is durable and shows as suspended; the Runs view resumes it in the panel', async () => {
  const dir = workspace({ 'p.tn': SUSPENDS });
  try {
    const changes: string[] = [];
    const sub = sharedStores.onChange((d) => changes.push(d));
    const file = path.join(dir, 'p.tn');
    const first = await new Runner({ file, options: options(dir), publish: () => {} }).start();
    assert.equal(first.status, 'suspended');
    assert.deepEqual(first.output, ['one']);
    assert.ok(first.stored, 'the view names the stored run');
    assert.equal(first.stored.storeDir, workspaceStoreDir(dir));
    assert.ok(changes.length >= 2, 'the Runs view hears when the run starts and ends');
    assert.ok(!sharedStores.holds(workspaceStoreDir(dir)), 'the store is let go when no run uses it');

    const items = sharedStores.use(workspaceStoreDir(dir), (s) => listRunItems(s));
    assert.equal(items.length, 1);
    assert.equal(items[0].state, 'suspended');
    assert.equal(items[0].entryPath, file);
    assert.deepEqual(actionsOf(items[0]), { resume: true, answer: false, settle: false, migrate: true, delete: true });

    // "Open in Panel": the stored run as the store has it
    const shown = await new Runner({ file, options: options(dir), publish: () => {}, request: { kind: 'show', runId: first.stored.runId, storeDir: first.stored.storeDir } }).start();
    assert.equal(shown.status, 'suspended');
    assert.ok(shown.timeline.some((t) => t.kind === 'tool.request' && t.summary === 'effect __suspend'), 'the journal is the timeline, as a live run\'s events');
    const shownLanes = lanesFromEvents(shown).lanes;
    assert.deepEqual(shownLanes.map((l) => `${l.pid}: ${l.bars.map((b) => `${b.kind} ${b.label}`).join(', ')}`), ['1: wait suspend'], 'a stored run draws its bars (a journaled output line draws none)');
    assert.ok(shown.actors.some((a) => a.pid === 1), 'the processes come from the snapshot');

    // "Resume": the panel resumes it instead of starting the file afresh
    const resumed = await new Runner({ file, options: options(dir), publish: () => {}, request: { kind: 'resume', runId: first.stored.runId, storeDir: first.stored.storeDir } }).start();
    assert.equal(resumed.status, 'done', resumed.error?.message);
    assert.deepEqual(resumed.output, ['two'], 'the replayed part does not print again');
    assert.equal(resumed.result, '7');
    // its timeline holds the part before the resume (from the journal) and the part after it
    const [main] = lanesFromEvents(resumed).lanes;
    assert.deepEqual(main.bars.map((b) => `${b.kind} ${b.label} ${b.state}`), ['wait suspend done'], 'the suspend, from the journal');
    const resumedAt = resumed.timeline.filter((t) => t.kind === 'tool.reply').at(-1)!.ms;
    // (the journal's clock starts at its first entry: the printed line before the suspend)
    assert.ok(resumedAt > 0 && main.bars[0].start >= 0 && main.bars[0].start < main.bars[0].end && main.bars[0].end === resumedAt, `the wait lasts from the suspend to the resume, on the journal's clock: ${JSON.stringify(main.bars)} ${resumedAt}`);
    assert.ok(main.end >= resumedAt, 'the part after the resume follows');
    assert.equal(sharedStores.use(workspaceStoreDir(dir), (s) => listRunItems(s))[0].state, 'done');
    sub.dispose();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a run with durableRuns off fails at suspend; with the reason', async () => {
  const dir = workspace({ 'p.tn': SUSPENDS });
  try {
    const view: RunView = await new Runner({ file: path.join(dir, 'p.tn'), options: options(dir, { durableRuns: false }), publish: () => {} }).start();
    assert.equal(view.status, 'failed');
    assert.match(view.error?.message ?? '', /suspend needs a store/);
    assert.ok(!fs.existsSync(path.join(dir, '.turn')));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('an interrupted effect shows as an unknown outcome with its request; settling it lets the run resume; delete removes a run', async () => {
  const dir = workspace({ 'p.tn': 'return 1;\n' });
  try {
    const storeDir = workspaceStoreDir(dir);
    // What a run killed while its non-idempotent effect ran leaves behind: an intent without outcome.
    const store = openStore(storeDir);
    const run = store.createRun({ entry: 'p.tn', bytecodeHash: 'h', semanticsVersion: 'turn-vm/1', meta: { cwd: dir } });
    store.appendJournal(run.id, { kind: 'tool', name: 'fs_append', status: 'intent', payload: new TextEncoder().encode(JSON.stringify({ name: 'fs_append', args: ['out/log.txt', 'A'] })) });
    store.close();

    const stores = new SharedStores();
    const [item] = stores.use(storeDir, (s) => listRunItems(s));
    assert.equal(item.state, 'waiting');
    assert.deepEqual(item.unknown.map((u) => [u.seq, u.kind, u.name]), [[1, 'tool', 'fs_append']]);
    assert.equal(item.unknown[0].request, '{"name":"fs_append","args":["out/log.txt","A"]}');
    assert.deepEqual(actionsOf(item), { resume: false, answer: false, settle: true, migrate: false, delete: true });

    let heard = 0;
    stores.onChange(() => heard++);
    const settled = settle(stores, storeDir, run.id, 1, { ok: null });
    assert.deepEqual(settled.stillUnknown, []);
    assert.ok(heard > 0);
    const after = stores.use(storeDir, (s) => listRunItems(s))[0];
    assert.equal(after.state, 'suspended');
    assert.throws(() => settle(stores, storeDir, run.id, 1, { retry: true }), /is already settled: with a result/);

    deleteStoredRun(stores, storeDir, run.id);
    assert.deepEqual(stores.use(storeDir, (s) => listRunItems(s)), []);
    assert.throws(() => deleteStoredRun(stores, storeDir, run.id), /not in the Turn store/);
    stores.live.add('x');
    assert.throws(() => deleteStoredRun(stores, storeDir, 'x'), /running in the editor/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the shared store: one open store per folder while anyone uses it, closed after the last', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-shared-'));
  try {
    const stores = new SharedStores();
    const a = stores.acquire(dir);
    const b = stores.acquire(path.join(dir, '.'));
    assert.equal(a.store, b.store, 'the same handle');
    a.release();
    a.release(); // twice is fine
    assert.ok(stores.holds(dir));
    b.release();
    assert.ok(!stores.holds(dir));
    assert.ok(!fs.existsSync(path.join(dir, 'store.db.lock')), 'the writer lock is released');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
