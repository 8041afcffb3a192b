// The graph view's layout (extension/panel/webview/graph-layout.ts): processes as nodes in layers
// by spawn depth, spawn edges (linked or not), same-function siblings grouped with counts past
// MAX_NODES, and a bound on what is drawn whatever the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_DRAWN, MAX_NODES, NODE_H, NODE_W, layoutGraph } from '../../extension/panel/webview/graph-layout.js';
import type { ActorStatus, ActorView } from '../../extension/protocol/panel.js';

function actor(pid: number, parent: number, name: string | null, status: ActorStatus = 'done', linked = false): ActorView {
  return {
    pid, parent, name, status, linked, waitingOn: null, detached: false, restarts: 0, site: null, memory: [], mailbox: [], result: null, error: null,
    context: { P0: [], P1: [], P2: [], tokens: { P0: 0, P1: 0, P2: 0 }, limits: { working: 1, episodic: 1 }, demoted: { entries: 0, tokens: 0 }, dropped: { entries: 0, tokens: 0 } },
  };
}

test('a std/graph run: main, the coordinator and its node processes in layers by spawn depth, named, with linked edges', () => {
  const g = layoutGraph([
    actor(1, 0, 'main', 'waiting'),
    actor(2, 1, 'coordinate', 'waiting'),
    actor(3, 2, 'gather', 'done', true),
    actor(4, 2, 'check', 'waiting', true),
  ]);
  assert.deepEqual(g.nodes.map((n) => [n.label, n.layer, n.status]), [['main #1', 0, 'waiting'], ['coordinate #2', 1, 'waiting'], ['gather #3', 2, 'done'], ['check #4', 2, 'waiting']]);
  assert.deepEqual(g.edges, [{ from: 'p1', to: 'p2', linked: false }, { from: 'p2', to: 'p3', linked: true }, { from: 'p2', to: 'p4', linked: true }]);
  const [gather, check] = g.nodes.slice(2);
  assert.equal(gather.y, check.y, 'siblings share a layer');
  assert.ok(check.x >= gather.x + NODE_W, 'and do not overlap');
  assert.ok(g.nodes[1].y >= g.nodes[0].y + NODE_H);
  for (const n of g.nodes) assert.ok(n.x + NODE_W <= g.width && n.y + NODE_H <= g.height, 'inside the drawing');
  assert.equal(g.grouped, 0);
});

test('each layer follows its parents\' order, so a tree has no crossing edges', () => {
  const g = layoutGraph([actor(1, 0, 'main'), actor(2, 1, 'a'), actor(3, 1, 'b'), actor(4, 3, 'b1'), actor(5, 2, 'a1')]);
  const x = (label: string) => g.nodes.find((n) => n.label.startsWith(label))!.x;
  assert.ok(x('a1') < x('b1'), 'a\'s child is left of b\'s child, as a is left of b');
});

test('1,000 workers collapse by function with counts, their state the most telling; a click opens the first', () => {
  const actors = [actor(1, 0, 'main', 'waiting')];
  for (let i = 0; i < 1000; i++) actors.push(actor(2 + i, 1, 'triage', i === 500 ? 'failed' : i % 2 ? 'waiting' : 'done'));
  actors.push(actor(1002, 1, 'report', 'ready'));
  const g = layoutGraph(actors);
  assert.deepEqual(g.nodes.map((n) => n.label), ['main #1', 'triage ×1000', 'report #1002']);
  const triage = g.nodes[1];
  assert.equal(triage.status, 'failed');
  assert.deepEqual(triage.states, { done: 499, waiting: 500, failed: 1 });
  assert.equal(triage.pid, 2);
  assert.equal(g.grouped, 1000);
  assert.ok(layoutGraph(actors.slice(0, MAX_NODES)).nodes.length === MAX_NODES, 'up to MAX_NODES, every process is its own node');
});

test('siblings that all differ in name collapse by parent; a chain too deep to group is cut at MAX_DRAWN, the rest counted', () => {
  const named = [actor(1, 0, 'main')];
  for (let i = 0; i < 500; i++) named.push(actor(2 + i, 1, `node${i}`));
  const g = layoutGraph(named);
  assert.deepEqual(g.nodes.map((n) => n.label), ['main #1', '500 processes']);

  const chain = [actor(1, 0, 'main')];
  for (let i = 2; i <= 1000; i++) chain.push(actor(i, i - 1, 'step'));
  const c = layoutGraph(chain);
  assert.equal(c.nodes.length, MAX_DRAWN);
  assert.equal(c.hidden, 1000 - MAX_DRAWN);
  assert.ok(c.edges.every((e) => c.nodes.some((n) => n.key === e.to)), 'no edge to a box not drawn');
});

test('damaged data: a parent not listed or a process its own parent makes a root, not a loop', () => {
  const g = layoutGraph([actor(5, 9, 'orphan'), actor(6, 6, 'self')]);
  assert.deepEqual(g.nodes.map((n) => [n.label, n.layer]), [['orphan #5', 0], ['self #6', 0]]);
  assert.deepEqual(g.edges, []);
});
