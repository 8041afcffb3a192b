// Processes are named by what they do (issue 44): a closure a factory returns by the factory, a
// spawned closure that only calls a function by that function, std/graph's node processes by
// their node id (`call("process_name", ...)`), in a live run and in the same run read back from
// the store. Before, they were all `spawned` or `anonymous`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryVault } from '../../runtime/index.js';
import { Runner } from '../../extension/panel/runner.js';
import { readRunSettings, runOptionsFromSettings } from '../../extension/settings.js';
import { actorLabel } from '../../extension/panel/webview/lanes.js';
import type { RunView } from '../../extension/protocol/panel.js';
import { fails } from '../vm/harness.js';

const PROGRAM = `
let graph = use "std/graph";
let analyst = turn(role: Str) -> Any { return turn() { let m = receive; return role; }; };
let review = turn(doc: Str) -> Str { let m = receive; return doc; };
let a = spawn call(analyst, "risk");
let b = spawn turn() { return review("memo"); };
let c = spawn turn() { let m = receive; return 1; };
let g = graph.define({"name": "g", "version": "1", "nodes": {
  "gather": {"after": [], "run": turn(ctx: Map) -> Any { return 1; }},
  "check": {"after": ["gather"], "run": turn(ctx: Map) -> Any { send ctx["input"], "started"; let m = receive; return 2; }}
}});
let r = graph.start(g, call("self"));
let started = receive;
suspend;
return started;
`;

const labels = (view: RunView): string[] => view.actors.map((a) => actorLabel(a.pid, a.name)).sort();

test('processes are named by their factory, the function they only call, or their std/graph node — live and stored', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-names-'));
  try {
    const file = path.join(dir, 'p.tn');
    fs.writeFileSync(file, PROGRAM);
    const options = runOptionsFromSettings(readRunSettings(<T>(_k: string, d: T) => d), dir, { vault: new MemoryVault({}) });
    const live = await new Runner({ file, options, publish: () => {} }).start();
    assert.equal(live.status, 'suspended', live.error?.message);
    const names = labels(live);
    for (const want of ['analyst #2', 'review #3', 'spawned #4', 'graph g #5', 'gather #6', 'check #7']) assert.ok(names.includes(want), `${want} in ${names.join(', ')}`);
    assert.ok(!names.some((n) => n.startsWith('anonymous')), names.join(', '));
    assert.ok(live.stored);
    const stored = await new Runner({ file, options, publish: () => {}, request: { kind: 'show', runId: live.stored.runId, storeDir: live.stored.storeDir } }).start();
    const again = labels(stored);
    for (const want of ['analyst #2', 'review #3', 'check #7']) assert.ok(again.includes(want), `stored: ${want} in ${again.join(', ')}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("process_name refuses what is not a short one-line name, at the program's line", async () => {
  for (const [arg, why] of [['""', /1 to 80 characters/], ['"a\\nb"', /on one line/], [`"${'x'.repeat(81)}"`, /81 characters/], ['7', /Num/]] as const) {
    const { error } = await fails(`call("process_name", ${arg});\nreturn 1;\n`);
    assert.match(error.message, why, arg);
    assert.equal(error.line, 1);
  }
});
