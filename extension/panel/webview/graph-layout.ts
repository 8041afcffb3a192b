// The graph view's layout (issue 44), plain data with no DOM (tested in test/extension/graph-layout.test.ts):
// a run's processes, agents and std/graph node processes as nodes, who spawned whom as edges (solid
// when linked), laid out in layers by spawn depth, each layer ordered under its parents. Two more
// kinds of edge, which do not move a box: who sent messages to whom (one per pair of boxes, with the
// count), and a std/graph node's dependencies (`process_after`: from each dependency to its dependent).
//
// Bounded: past MAX_NODES actors, the children of one parent that run the same function are drawn
// as one node with a count (`worker ×998`, its state the most telling of theirs: failed, then
// waiting, then running, then done), so a 1,000-worker run draws a handful of boxes.
import type { ActorStatus, ActorView, MessageEdgeView } from '../../protocol/panel.js';
import { actorLabel } from './lanes.js';

export interface GraphNode {
  /** a stable key: `p<pid>` for one process, `g<parent key>:<name>` for a group */
  key: string;
  /** the process a click opens (a group's first) */
  pid: number;
  label: string;
  status: ActorStatus;
  /** processes it stands for (1 unless grouped) */
  count: number;
  /** how many of them are in each state (a group's tooltip) */
  states: Partial<Record<ActorStatus, number>>;
  layer: number;
  x: number;
  y: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** spawn_link (the parent hears of the child's end) */
  linked: boolean;
}

/** Messages between two boxes (a group's summed), never one edge per message. */
export interface MessageEdge {
  from: string;
  to: string;
  count: number;
}

/** `to` depends on `from` (a std/graph node on the node whose result it takes). */
export interface DependencyEdge {
  from: string;
  to: string;
}

export interface GraphLayout {
  nodes: GraphNode[];
  edges: GraphEdge[];
  messages: MessageEdge[];
  dependencies: DependencyEdge[];
  width: number;
  height: number;
  /** processes drawn inside groups (0: every process is its own node) */
  grouped: number;
  /** processes not drawn at all (a spawn chain deeper than MAX_DRAWN): the actor list has them */
  hidden: number;
}

/** How far grouping goes: none, siblings running the same function, every sibling of a parent. */
type Grouping = 'none' | 'function' | 'parent';

/** past this many actors, same-function siblings are grouped (and past it again, all siblings) */
export const MAX_NODES = 60;
/** the most boxes ever drawn, whatever the run (a chain of 1,000 single children cannot be grouped) */
export const MAX_DRAWN = 300;
export const NODE_W = 150;
export const NODE_H = 30;
const GAP_X = 16;
const GAP_Y = 44;
const PAD = 8;

/** Which state a group shows: the one that most needs a look. */
const RANK: Record<ActorStatus, number> = { failed: 0, waiting: 1, ready: 2, done: 3 };

const nameOf = (a: ActorView): string => (a.name ? a.name.replace(/^<(.*)>$/, '$1') : a.pid === 1 ? 'main' : `#${a.pid}`);

/** The graph of `actors`: nodes (grouped past MAX_NODES), spawn edges, and positions in layers. */
export function layoutGraph(actors: readonly ActorView[], maxNodes = MAX_NODES, messages: readonly MessageEdgeView[] = []): GraphLayout {
  if (actors.length <= maxNodes) return build(actors, 'none', messages);
  const byFunction = build(actors, 'function', messages);
  return byFunction.nodes.length <= maxNodes ? byFunction : build(actors, 'parent', messages);
}

function build(actors: readonly ActorView[], grouping: Grouping, messages: readonly MessageEdgeView[]): GraphLayout {
  const byPid = new Map(actors.map((a) => [a.pid, a]));
  const keyOf = new Map<number, string>();
  const nodes = new Map<string, GraphNode>();
  const children = new Map<string, string[]>();
  const edges: GraphEdge[] = [];
  let grouped = 0;
  // parents before children: pids grow in spawn order, and a parent is spawned before its child
  const ordered = [...actors].sort((a, b) => a.pid - b.pid);
  for (const a of ordered) {
    // a parent not listed (or a loop in damaged data) makes a root
    const parentKey = a.parent !== a.pid && byPid.has(a.parent) ? keyOf.get(a.parent) : undefined;
    const key = grouping !== 'none' && parentKey !== undefined ? `g${parentKey}:${grouping === 'function' ? nameOf(a) : '*'}` : `p${a.pid}`;
    keyOf.set(a.pid, key);
    const had = nodes.get(key);
    if (had) {
      had.count++;
      grouped += had.count === 2 ? 2 : 1;
      had.states[a.status] = (had.states[a.status] ?? 0) + 1;
      if (RANK[a.status] < RANK[had.status]) had.status = a.status;
      had.label = grouping === 'function' ? `${nameOf(a)} ×${had.count}` : `${had.count} processes`;
      continue;
    }
    const parent = parentKey !== undefined ? nodes.get(parentKey) : undefined;
    nodes.set(key, { key, pid: a.pid, label: actorLabel(a.pid, a.name), status: a.status, count: 1, states: { [a.status]: 1 }, layer: parent ? parent.layer + 1 : 0, x: 0, y: 0 });
    if (parentKey !== undefined) {
      edges.push({ from: parentKey, to: key, linked: a.linked });
      children.set(parentKey, [...(children.get(parentKey) ?? []), key]);
    }
  }
  // layers: roots in pid order, then each layer in the order of its parents (a tree has no crossings)
  // (depth first with a stack of its own: a spawn chain may be 1,000 deep); past MAX_DRAWN boxes, no more
  const layers: GraphNode[][] = [];
  const drawn = new Set<string>();
  const roots = [...nodes.values()].filter((n) => n.layer === 0).map((n) => n.key);
  const todo = roots.reverse();
  while (todo.length > 0 && drawn.size < MAX_DRAWN) {
    const n = nodes.get(todo.pop()!)!;
    drawn.add(n.key);
    (layers[n.layer] ??= []).push(n);
    todo.push(...[...(children.get(n.key) ?? [])].reverse());
  }
  let hidden = 0;
  for (const n of nodes.values()) if (!drawn.has(n.key)) hidden += n.count;
  let widest = 0;
  layers.forEach((layer, depth) => {
    layer.forEach((n, i) => {
      n.x = PAD + i * (NODE_W + GAP_X);
      n.y = PAD + depth * (NODE_H + GAP_Y);
    });
    widest = Math.max(widest, layer.length);
  });
  // the boxes a message or a dependency joins: between two drawn boxes, one edge per pair, none to itself
  const pair = (from: number, to: number): [string, string] | null => {
    const a = keyOf.get(from);
    const b = keyOf.get(to);
    return a !== undefined && b !== undefined && a !== b && drawn.has(a) && drawn.has(b) ? [a, b] : null;
  };
  const sent = new Map<string, MessageEdge>();
  for (const m of messages) {
    const ends = pair(m.from, m.to);
    if (!ends) continue;
    const k = `${ends[0]}>${ends[1]}`;
    const had = sent.get(k);
    if (had) had.count += m.count;
    else sent.set(k, { from: ends[0], to: ends[1], count: m.count });
  }
  const dependencies = new Map<string, DependencyEdge>();
  for (const a of ordered) {
    for (const dep of a.after ?? []) {
      const ends = pair(dep, a.pid);
      if (ends) dependencies.set(`${ends[0]}>${ends[1]}`, { from: ends[0], to: ends[1] });
    }
  }
  return {
    nodes: [...nodes.values()].filter((n) => drawn.has(n.key)),
    edges: edges.filter((e) => drawn.has(e.from) && drawn.has(e.to)),
    messages: [...sent.values()],
    dependencies: [...dependencies.values()],
    hidden,
    width: PAD * 2 + Math.max(1, widest) * (NODE_W + GAP_X) - GAP_X,
    height: PAD * 2 + Math.max(1, layers.length) * (NODE_H + GAP_Y) - GAP_Y,
    grouped,
  };
}
