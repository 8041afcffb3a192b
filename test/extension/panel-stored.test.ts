// A stored or resumed run shows in the panel what a live run shows (issue 44): its model calls
// (prompt and reply, from the journal and its blocks), what it printed, and its processes, also
// for a run stored without a snapshot (one that ran to its end).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryVault, type RunOptions } from '../../runtime/index.js';
import { Runner } from '../../extension/panel/runner.js';
import { readRunSettings, runOptionsFromSettings } from '../../extension/settings.js';
import { lanesFromEvents } from '../../extension/panel/webview/lanes.js';

const settingsGet = <T>(_key: string, dflt: T): T => dflt;
const options = (dir: string): RunOptions => runOptionsFromSettings(readRunSettings(settingsGet), dir, { vault: new MemoryVault({}) });

const program = (suspend: boolean) => `struct Verdict { ok: Bool, note: Str };
let worker = turn(n: Num) -> Verdict {
    context.append("item " + n);
    return infer Verdict { "Judge item " + n + "."; };
};
turn {
    call("echo", "judging");
    let results = gather spawn_each([1, 2, 3], worker);
    ${suspend ? 'suspend;' : ''}
    call("echo", "judged " + call("len", results));
    return call("len", results);
}
`;

async function stored(suspend: boolean): Promise<{ dir: string; file: string; runId: string; storeDir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-stored-'));
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(file, program(suspend));
  const first = await new Runner({ file, options: { ...options(dir), model: 'mock' }, publish: () => {} }).start();
  assert.equal(first.status, suspend ? 'suspended' : 'done', first.error?.message);
  assert.equal(first.infers.length, 3);
  return { dir, file, runId: first.stored!.runId, storeDir: first.stored!.storeDir };
}

test('a stored run opened in the panel lists its model calls with prompt and reply, what it printed, and its processes', async () => {
  const run = await stored(false);
  try {
    const shown = await new Runner({ file: run.file, options: options(run.dir), publish: () => {}, request: { kind: 'show', runId: run.runId, storeDir: run.storeDir } }).start();
    assert.equal(shown.status, 'done');
    assert.deepEqual(shown.output, ['judging', 'judged 3'], 'what it printed, from the journal');
    assert.equal(shown.infers.length, 3, 'every model call');
    const tasks = shown.infers.map((i) => i.attempts[0].prompt.task).sort();
    for (const n of [1, 2, 3]) assert.ok(tasks.some((t) => t.startsWith(`Judge item ${n}.`)), `the prompt of item ${n}: ${tasks.join(' | ')}`);
    for (const i of shown.infers) {
      assert.equal(i.type, 'Verdict');
      assert.equal(i.state, 'ok');
      assert.match(i.attempts[0].raw ?? '', /"ok"/);
      assert.ok(i.attempts[0].prompt.P1.some((t) => /^item \d$/.test(t)), 'the context tiers as asked');
    }
    assert.deepEqual(shown.actors.map((a) => a.pid), [1, ...new Set(shown.infers.map((i) => i.pid))].sort((a, b) => a - b), 'the processes, from the journal when there is no snapshot');
    assert.equal(shown.actors[0].name, 'main');
    assert.equal(lanesFromEvents(shown).lanes.filter((l) => l.bars.some((b) => b.kind === 'model')).length, 3);
  } finally {
    fs.rmSync(run.dir, { recursive: true, force: true });
  }
});

test('a resumed run lists the model calls made before the resume', async () => {
  const run = await stored(true);
  try {
    const resumed = await new Runner({ file: run.file, options: options(run.dir), publish: () => {}, request: { kind: 'resume', runId: run.runId, storeDir: run.storeDir } }).start();
    assert.equal(resumed.status, 'done', resumed.error?.message);
    assert.equal(resumed.infers.length, 3);
    assert.ok(resumed.infers.every((i) => i.state === 'ok' && i.attempts[0].prompt.task.startsWith('Judge item')));
  } finally {
    fs.rmSync(run.dir, { recursive: true, force: true });
  }
});
