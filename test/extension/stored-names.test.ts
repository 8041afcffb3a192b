// A finished process keeps the name of the function it was spawned to run (issue 44): its frames
// are gone when it returns, so before, a finished worker was `#2` in the live panel (when it ended
// before a publish) and in a stored run's lanes and graph. The VM notes the name at spawn, and a
// snapshot keeps it, so the live view, the stored run and the resumed run all say `worker`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryVault, inspectRun } from '../../runtime/index.js';
import { spawnedAs } from '../../runtime/durable/snapshot.js';
import { Runner } from '../../extension/panel/runner.js';
import { readRunSettings, runOptionsFromSettings } from '../../extension/settings.js';
import { sharedStores } from '../../extension/runs/shared-store.js';
import type { RunView } from '../../extension/protocol/panel.js';

const PROGRAM = `
let me = call("self");
let worker = turn() -> Num { send me, 6; return 6; };
let waiter = turn() -> Num { let m = receive; return 1; };
let a = spawn worker;
let b = spawn waiter;
let r = receive;
suspend;
send b, 1;
return r;
`;

const names = (v: RunView) => v.actors.map((a) => [a.pid, a.name ?? null, a.status]);

test('a finished worker is named in the live view, the stored run and the resumed run', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-stored-names-'));
  try {
    const file = path.join(dir, 'p.tn');
    fs.writeFileSync(file, PROGRAM);
    const options = runOptionsFromSettings(readRunSettings(<T>(_k: string, d: T) => d), dir, { vault: new MemoryVault({}) });
    const live = await new Runner({ file, options, publish: () => {} }).start();
    assert.equal(live.status, 'suspended', live.error?.message);
    assert.deepEqual(names(live), [[1, 'main', 'waiting'], [2, 'worker', 'done'], [3, 'waiter', 'waiting']]);
    const at = { runId: live.stored!.runId, storeDir: live.stored!.storeDir };
    const stored = await new Runner({ file, options, publish: () => {}, request: { kind: 'show', ...at } }).start();
    assert.deepEqual(names(stored).slice(0, 2), [[1, 'main', 'waiting'], [2, 'worker', 'done']]);
    const held = sharedStores.acquire(at.storeDir);
    try {
      const snap = inspectRun(held.store, at.runId).snapshot;
      assert.ok(snap && 'processes' in snap, JSON.stringify(snap));
      assert.equal(snap.processes.find((p) => p.pid === 2)?.name, 'worker', 'the snapshot as `turn inspect` reads it');
    } finally {
      held.release();
    }
    const resumed = await new Runner({ file, options, publish: () => {}, request: { kind: 'resume', ...at } }).start();
    assert.equal(resumed.status, 'done', resumed.error?.message);
    assert.deepEqual(names(resumed).slice(0, 2), [[1, 'main', 'done'], [2, 'worker', 'done']]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a snapshot's function name is outside data: only a short one-line string is a name", () => {
  assert.equal(spawnedAs('worker'), 'worker');
  for (const bad of ['', 'a\nb', '\u001b[31mred', 'x'.repeat(201), 7, null, ['worker'], { name: 'worker' }]) assert.equal(spawnedAs(bad), null, JSON.stringify(bad));
});

test("a suspended std/graph run's stored view keeps which node depends on which", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-stored-after-'));
  try {
    const file = path.join(dir, 'p.tn');
    fs.writeFileSync(file, `
let graph = use "std/graph";
let g = graph.define({"name": "g", "version": "1", "nodes": {
  "gather": {"after": [], "run": turn(ctx: Map) -> Any { return 1; }},
  "check": {"after": ["gather"], "run": turn(ctx: Map) -> Any { send ctx["input"], "started"; let m = receive; return 2; }}
}});
let r = graph.start(g, call("self"));
let started = receive;
suspend;
return started;
`);
    const options = runOptionsFromSettings(readRunSettings(<T>(_k: string, d: T) => d), dir, { vault: new MemoryVault({}) });
    const live = await new Runner({ file, options, publish: () => {} }).start();
    assert.equal(live.status, 'suspended', live.error?.message);
    const stored = await new Runner({ file, options, publish: () => {}, request: { kind: 'show', runId: live.stored!.runId, storeDir: live.stored!.storeDir } }).start();
    const gather = stored.actors.find((a) => a.name === 'gather');
    const check = stored.actors.find((a) => a.name === 'check');
    assert.ok(gather && check, JSON.stringify(stored.actors.map((a) => a.name)));
    assert.deepEqual(check.after, [gather.pid]);
    assert.equal(gather.after, undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
