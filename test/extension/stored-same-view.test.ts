// A stored run, a resumed run and the live run of the same program show the same thing (issue 44):
// the same actors (pid, parent, name, status), the same model calls, the same lanes with the same
// names. A run that ran to its end has no snapshot: its processes and their names come from the
// journal's `spawn` and `name` entries (runtime/durable/process-names.ts), so before them its
// workers were lanes named `#2`, and those that took no step were missing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryVault, type JournalEntry, type RunOptions, type RunStore } from '../../runtime/index.js';
import { Runner } from '../../extension/panel/runner.js';
import { readRunSettings, runOptionsFromSettings } from '../../extension/settings.js';
import { sharedStores } from '../../extension/runs/shared-store.js';
import { lanesFromEvents } from '../../extension/panel/webview/lanes.js';
import type { RunView } from '../../extension/protocol/panel.js';

const settingsGet = <T>(_key: string, dflt: T): T => dflt;
const options = (dir: string): RunOptions => ({ ...runOptionsFromSettings(readRunSettings(settingsGet), dir, { vault: new MemoryVault({}) }), model: 'mock' });

// judges ask the model; the tally names itself (as std/graph's nodes do); the anonymous one (named
// `spawned` by the compiler) takes no step
const PROGRAM = `struct Verdict { ok: Bool, note: Str };
let judge = turn(n: Num) -> Verdict {
    return infer Verdict { "Judge item " + n + "."; };
};
let tally = turn(n: Num) -> Num {
    call("process_name", "tally " + n);
    return n;
};
turn {
    let verdicts = gather spawn_each([1, 2], judge);
    let counted = gather spawn_each([7], tally);
    let quiet = gather spawn_each([5], turn(x: Num) -> Num { return x; });
    return call("len", verdicts) + counted[0] + quiet[0];
}
`;

/**
 * What the panel shows of a run, field for field, without what the journal does not hold: a live
 * process's context and memory, the waits the live panel watched (a gather's wait bars), and the
 * reply instructions the model adapter added to a prompt (the journal keeps the program's prompt).
 */
function shown(v: RunView) {
  return {
    actors: v.actors.map((a) => ({ pid: a.pid, parent: a.parent, name: a.name ?? null, status: a.status })),
    infers: v.infers.map((i) => ({ pid: i.pid, type: i.type, state: i.state, task: i.attempts[0]?.prompt.task.split('\n\n')[0], raw: i.attempts[0]?.raw })).sort((a, b) => a.pid - b.pid),
    lanes: lanesFromEvents(v).lanes.map((l) => ({ pid: l.pid, label: l.label, bars: l.bars.filter((b) => b.kind !== 'wait').map((b) => b.kind) })),
  };
}

/**
 * A copy of stored run `runId` as it stood once the first entry `upTo` picks was journaled (as if
 * the editor had stopped there), with the journal's keys renamed for the copy: a run to resume.
 */
function interruptedCopy(store: RunStore, runId: string, upTo: (e: JournalEntry) => boolean): string {
  const source = store.getRun(runId)!;
  const copy = store.createRun({ entry: source.entry, bytecodeHash: source.bytecodeHash, semanticsVersion: source.semanticsVersion, policies: source.policies, meta: source.meta });
  const rename = (key: string | null) => (key === null ? null : key.replace(`turn:${runId}:`, `turn:${copy.id}:`));
  for (const e of store.readJournal(runId)) {
    const base = { kind: e.kind, name: e.name, pid: e.pid, inputHash: e.inputHash, idempotencyKey: rename(e.idempotencyKey), idempotent: e.idempotent };
    if (e.request !== null) {
      const seq = store.appendJournal(copy.id, { ...base, status: 'intent', payload: e.request });
      if (e.status === 'ok' || e.status === 'error') store.completeJournal(copy.id, seq, e.status, e.payload);
    } else store.appendJournal(copy.id, { ...base, status: e.status === 'error' ? 'error' : 'ok', payload: e.payload });
    if (upTo(e)) break;
  }
  store.setRunStatus(copy.id, 'suspended');
  return copy.id;
}

test('a stored run, a resumed run and the live run of one program show the same actors, names, model calls and lanes', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-same-view-'));
  try {
    const file = path.join(dir, 'p.tn');
    fs.writeFileSync(file, PROGRAM);
    const live = await new Runner({ file, options: options(dir), publish: () => {} }).start();
    assert.equal(live.status, 'done', live.error?.message);
    const want = shown(live);
    assert.deepEqual(want.actors.map((a) => a.name), ['main', 'judge', 'judge', 'tally 7', 'spawned'], 'the live run names its workers');
    assert.equal(want.infers.length, 2);

    const at = { runId: live.stored!.runId, storeDir: live.stored!.storeDir };
    const stored = await new Runner({ file, options: options(dir), publish: () => {}, request: { kind: 'show', ...at } }).start();
    assert.deepEqual(shown(stored), want, 'the stored run (no snapshot: from its journal)');

    // a resumed run of the same program: the run as it was stored when its first model reply came, resumed
    const held = sharedStores.acquire(at.storeDir);
    let resumedId: string;
    try {
      resumedId = interruptedCopy(held.store, at.runId, (e) => e.kind === 'infer');
    } finally {
      held.release();
    }
    const resumed = await new Runner({ file, options: options(dir), publish: () => {}, request: { kind: 'resume', runId: resumedId, storeDir: at.storeDir } }).start();
    assert.equal(resumed.status, 'done', resumed.error?.message);
    assert.deepEqual(shown(resumed), want, 'the resumed run');

    // and the resumed run, stored: its journal names each process once (the replay wrote no spawn again)
    const again = await new Runner({ file, options: options(dir), publish: () => {}, request: { kind: 'show', runId: resumedId, storeDir: at.storeDir } }).start();
    assert.deepEqual(shown(again), want, 'the resumed run, opened from the Runs view');
    const store = sharedStores.acquire(at.storeDir);
    try {
      const spawns = store.store.readJournal(resumedId).filter((e) => e.kind === 'spawn').map((e) => e.pid);
      assert.deepEqual(spawns, [2, 3, 4, 5]);
    } finally {
      store.release();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a stored run's processes read from its journal have no recorded budgets: their token rows say so, not NaN%", async () => {
  const { countText } = await import('../../extension/panel/webview/token-bars.js');
  assert.equal(countText(0, 0), '0 (budget unknown)');
  assert.equal(countText(120, 8000), '120 / 8000 (2%)');
  assert.equal(countText(5, null), '5 (no budget)');
});
