// The graph view's message and dependency edges (issue 44): the runtime emits who sent to whom
// (`process.send`, pids only), the Runner counts them per (from, to) pair within a bound, the delta
// protocol carries them, std/graph's node processes say which node processes they depend on
// (`process_after`), and the layout turns both into edges between boxes (grouped boxes summed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryVault, type RunEvent } from '../../runtime/index.js';
import { Runner } from '../../extension/panel/runner.js';
import { readRunSettings, runOptionsFromSettings } from '../../extension/settings.js';
import { layoutGraph, MAX_NODES } from '../../extension/panel/webview/graph-layout.js';
import { applyRunDelta, RunDeltaProducer } from '../../extension/protocol/run-delta.js';
import { emptyRun, isHostMessage, MAX_MESSAGE_PAIRS, type ActorStatus, type ActorView, type RunView } from '../../extension/protocol/panel.js';
import { fails } from '../vm/harness.js';

async function runProgram(source: string, tap?: (e: RunEvent) => void): Promise<RunView> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-edges-'));
  try {
    const file = path.join(dir, 'p.tn');
    fs.writeFileSync(file, source);
    const options = runOptionsFromSettings(readRunSettings(<T>(_k: string, d: T) => d), dir, { vault: new MemoryVault({}) });
    return await new Runner({ file, options, publish: () => {}, ...(tap ? { tap } : {}) }).start();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('sends are counted per (from, to) pair, with no payload and no timeline item per message', async () => {
  const sends: RunEvent[] = [];
  const view = await runProgram(`
let echo = turn(n: Num) -> Num {
  let i = 0;
  while i < n { let m = receive; send m["from"], "secret-payload"; let i = i + 1; }
  return n;
};
let w = spawn turn() { return echo(3); };
let i = 0;
while i < 3 { send w, {"from": call("self")}; let r = receive; let i = i + 1; }
return 1;
`, (e) => { if (e.kind === 'process.send') sends.push(e); });
  assert.equal(view.status, 'done', view.error?.message);
  assert.equal(sends.length, 6);
  for (const e of sends) assert.deepEqual(Object.keys(e).sort(), ['kind', 'ms', 'pid', 'seq', 'to'], 'pids only: never the message');
  assert.deepEqual(view.messages, [{ from: 1, to: 2, count: 3 }, { from: 2, to: 1, count: 3 }]);
  assert.ok(!view.timeline.some((t) => t.kind === 'process.send'), 'no timeline item per message');
});

test('a run that sends between more pairs than MAX_MESSAGE_PAIRS keeps the first ones only', async () => {
  const n = MAX_MESSAGE_PAIRS + 20;
  const view = await runProgram(`
let me = call("self");
let i = 0;
while i < ${n} { spawn turn() { send me, 1; return 0; }; let i = i + 1; }
let j = 0;
while j < ${n} { let m = receive; let j = j + 1; }
return 1;
`);
  assert.equal(view.status, 'done', view.error?.message);
  assert.equal(view.messages?.length, MAX_MESSAGE_PAIRS);
  assert.ok(view.messages.every((m) => m.to === 1 && m.count === 1));
});

test("std/graph's node processes name the processes of the nodes they depend on", async () => {
  const view = await runProgram(`
let graph = use "std/graph";
let g = graph.define({"name": "g", "version": "1", "nodes": {
  "gather": {"after": [], "run": turn(ctx: Map) -> Any { return 1; }},
  "fetch": {"after": [], "run": turn(ctx: Map) -> Any { return 2; }},
  "check": {"after": ["gather", "fetch"], "run": turn(ctx: Map) -> Any { return 3; }}
}});
return graph.run(g, 0);
`);
  assert.equal(view.status, 'done', view.error?.message);
  const pidOf = (name: string) => view.actors.find((a) => a.name === name)?.pid;
  const check = view.actors.find((a) => a.name === 'check');
  assert.ok(check, view.actors.map((a) => a.name).join(', '));
  assert.deepEqual([...check.after!].sort(), [pidOf('gather'), pidOf('fetch')].sort());
  assert.equal(view.actors.find((a) => a.name === 'gather')!.after, undefined, 'a node with no dependency says none');
  const g = layoutGraph(view.actors);
  const key = (pid: number | undefined) => `p${pid}`;
  assert.deepEqual(g.dependencies.map((d) => [d.from, d.to]).sort(), [[key(pidOf('fetch')), key(check.pid)], [key(pidOf('gather')), key(check.pid)]].sort());
});

test("process_after refuses what is not a short list of pids, at the program's line", async () => {
  for (const [arg, why] of [['7', /list of at most 256 pids, got Num/], ['[1]', /expects pids, got Num/], ['many', /257 items/]] as const) {
    const setup = 'let many = []; let i = 0; while i < 257 { let many = call("list_push", many, call("self")); let i = i + 1; }\n';
    const { error } = await fails(`${arg === 'many' ? setup : ''}call("process_after", ${arg});\nreturn 1;\n`);
    assert.match(error.message, why, arg);
    assert.equal(error.line, arg === 'many' ? 2 : 1);
  }
});

function actor(pid: number, parent: number, name: string | null, after?: number[], status: ActorStatus = 'done'): ActorView {
  return {
    pid, parent, name, status, linked: false, waitingOn: null, detached: false, restarts: 0, site: null, memory: [], mailbox: [], result: null, error: null,
    ...(after ? { after } : {}),
    context: { P0: [], P1: [], P2: [], tokens: { P0: 0, P1: 0, P2: 0 }, limits: { working: 1, episodic: 1 }, demoted: { entries: 0, tokens: 0 }, dropped: { entries: 0, tokens: 0 } },
  };
}

test('the layout: message edges between boxes, summed over a group, none to itself or to a box not drawn', () => {
  const actors = [actor(1, 0, 'main')];
  for (let i = 0; i < 100; i++) actors.push(actor(2 + i, 1, 'worker'));
  const messages = [
    ...actors.slice(1).map((a) => ({ from: 1, to: a.pid, count: 2 })),
    ...actors.slice(1).map((a) => ({ from: a.pid, to: 1, count: 1 })),
    { from: 2, to: 3, count: 5 }, // inside the group: no edge
    { from: 1, to: 999, count: 4 }, // a process not listed
  ];
  const g = layoutGraph(actors, MAX_NODES, messages);
  const worker = g.nodes.find((n) => n.label === 'worker ×100')!;
  assert.deepEqual(g.messages, [{ from: 'p1', to: worker.key, count: 200 }, { from: worker.key, to: 'p1', count: 100 }]);
  assert.deepEqual(layoutGraph(actors.slice(0, 3), MAX_NODES, [{ from: 2, to: 3, count: 5 }]).messages, [{ from: 'p2', to: 'p3', count: 5 }], 'ungrouped, siblings');
  assert.deepEqual(layoutGraph([actor(1, 0, 'main', [1, 7])]).dependencies, [], 'itself or an unknown pid: no edge');
});

test('the message edges go through the delta protocol, and a damaged one is refused', () => {
  const view: RunView = emptyRun(1, 'p.tn', 'mock');
  const producer = new RunDeltaProducer();
  let webview = view;
  const first = producer.full(view);
  assert.ok(isHostMessage(first));
  view.messages = [{ from: 1, to: 2, count: 1 }];
  const d = producer.next(view);
  assert.ok(d && d.type === 'runDelta' && isHostMessage(d));
  assert.deepEqual(d.delta.set, { messages: [{ from: 1, to: 2, count: 1 }] });
  webview = applyRunDelta(webview, d.delta, 0)!;
  view.messages = [{ from: 1, to: 2, count: 4 }];
  const d2 = producer.next(view);
  assert.ok(d2 && d2.type === 'runDelta');
  webview = applyRunDelta(webview, d2.delta, 1)!;
  assert.deepEqual(webview.messages, [{ from: 1, to: 2, count: 4 }]);
  assert.equal(producer.next(view), null, 'nothing new: nothing sent');
  assert.ok(!isHostMessage({ ...d2, delta: { ...d2.delta, set: { messages: [{ from: 1, to: '2', count: 4 }] } } }));
  assert.ok(!isHostMessage({ ...first, run: { ...view, actors: [{ ...actor(1, 0, 'main'), after: ['x'] }] } }));
});
