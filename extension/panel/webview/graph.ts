/// <reference lib="dom" />
// The run panel's graph view (issue 44): the run's processes — agents, workers, std/graph node
// processes — as boxes coloured by state, with an arrow from each to the processes it spawned
// (solid when linked), laid out by graph-layout.ts; dashed blue arrows for who sent messages to whom
// (the count in its tooltip), dotted orange ones from a std/graph node's dependencies to it. A click (or Enter) on a box selects that
// actor, which opens its detail below. Rebuilt only when the actors change; collapsed by default
// behind a <details> so a run that does not need it pays nothing.
import type { ActorView, MessageEdgeView } from '../../protocol/panel.js';
import type { ActorUi } from './actors.js';
import { h, svg } from './dom.js';
import { MAX_NODES, NODE_H, NODE_W, layoutGraph, type GraphLayout, type GraphNode } from './graph-layout.js';

/** the longest label drawn in a box (its tooltip has all of it) */
const LABEL_CHARS = 20;

export class GraphView {
  readonly el: HTMLDetailsElement;
  private readonly body: HTMLElement;
  private readonly note: HTMLElement;
  private shown: { actors: readonly ActorView[]; messages: readonly MessageEdgeView[]; selected: number | null } | null = null;

  constructor(private readonly ui: ActorUi) {
    this.body = h('div', { class: 'graph-scroll' });
    this.note = h('p', { class: 'muted graph-note' });
    this.el = h('details', { id: 'graph', class: 'graph' }, h('summary', {}, h('h2', {}, 'Graph')), this.note, this.body);
    this.el.addEventListener('toggle', () => this.update(this.shown?.actors ?? [], this.shown?.messages ?? [], true));
  }

  update(actors: readonly ActorView[], messages: readonly MessageEdgeView[] = [], force = false): void {
    const selected = this.ui.selected;
    if (!force && this.shown && this.shown.actors === actors && this.shown.messages === messages && this.shown.selected === selected) return;
    this.shown = { actors, messages, selected };
    if (!this.el.open) return;
    const g = layoutGraph(actors, MAX_NODES, messages);
    this.note.textContent = notes(g, actors.length);
    this.body.replaceChildren(this.draw(g, selected));
  }

  private draw(g: GraphLayout, selected: number | null): SVGSVGElement {
    const root = svg('svg', { class: 'graph-chart', width: g.width, height: g.height, viewBox: `0 0 ${g.width} ${g.height}`, role: 'group', 'aria-label': 'Processes, who spawned whom, who sent messages to whom, and what depends on what' });
    const marker = (id: string, cls: string) => svg('marker', { id, viewBox: '0 0 8 8', refX: 8, refY: 4, markerWidth: 6, markerHeight: 6, orient: 'auto' }, svg('path', { d: 'M0,0 L8,4 L0,8 z', class: cls }));
    root.append(svg('defs', {}, marker('graph-arrow', 'graph-arrow'), marker('graph-arrow-message', 'graph-arrow message'), marker('graph-arrow-dep', 'graph-arrow dep')));
    const at = new Map(g.nodes.map((n) => [n.key, n]));
    for (const e of g.edges) {
      const a = at.get(e.from)!;
      const b = at.get(e.to)!;
      const x1 = a.x + NODE_W / 2, y1 = a.y + NODE_H, x2 = b.x + NODE_W / 2, y2 = b.y;
      const mid = (y1 + y2) / 2;
      root.append(svg('path', { class: `graph-edge${e.linked ? ' linked' : ''}`, d: `M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2}`, 'marker-end': 'url(#graph-arrow)' },
        svg('title', {}, `${a.label} spawned ${b.label}${e.linked ? ' (linked)' : ''}`)));
    }
    for (const e of g.dependencies) {
      const a = at.get(e.from)!;
      const b = at.get(e.to)!;
      root.append(svg('path', { class: 'graph-dep', d: across(a, b, -12), 'marker-end': 'url(#graph-arrow-dep)' }, svg('title', {}, `${b.label} depends on ${a.label}`)));
    }
    for (const e of g.messages) {
      const a = at.get(e.from)!;
      const b = at.get(e.to)!;
      const title = `${a.label} sent ${b.label} ${e.count} message${e.count === 1 ? '' : 's'}`;
      root.append(svg('path', { class: 'graph-message', d: across(a, b, 12), 'marker-end': 'url(#graph-arrow-message)' }, svg('title', {}, title)));
    }
    for (const n of g.nodes) {
      const label = n.label.length > LABEL_CHARS ? `${n.label.slice(0, LABEL_CHARS - 1)}…` : n.label;
      const states = Object.entries(n.states).map(([s, k]) => `${k} ${s}`).join(', ');
      const box = svg('g', { class: `graph-node status-${n.status}${n.pid === selected ? ' selected' : ''}`, tabindex: 0, role: 'button', 'data-pid': n.pid, 'aria-label': `${n.label}, ${n.count > 1 ? states : n.status}` },
        svg('title', {}, `${n.label} — ${n.count > 1 ? `${states}; click for the first` : n.status}`),
        svg('rect', { x: n.x, y: n.y, width: NODE_W, height: NODE_H, rx: 4 }),
        svg('text', { x: n.x + 8, y: n.y + NODE_H / 2 + 4 }, label));
      const open = () => this.ui.select(n.pid);
      box.addEventListener('click', open);
      box.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          open();
        }
      });
      root.append(box);
    }
    return root;
  }
}

/**
 * A message's or a dependency's path from box a to box b, apart from the spawn arrows (which join a
 * box's bottom middle to a child's top middle): shifted sideways by `shift`, and between boxes of one
 * layer an arc above them.
 */
function across(a: GraphNode, b: GraphNode, shift: number): string {
  const x1 = a.x + NODE_W / 2 + shift, x2 = b.x + NODE_W / 2 + shift;
  if (a.y === b.y) {
    const top = a.y - (shift > 0 ? 14 : 8);
    return `M${x1},${a.y} C${x1},${top} ${x2},${top} ${x2},${b.y}`;
  }
  const down = b.y > a.y;
  const y1 = down ? a.y + NODE_H : a.y, y2 = down ? b.y : b.y + NODE_H;
  const mid = (y1 + y2) / 2;
  return `M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2}`;
}

function notes(g: GraphLayout, total: number): string {
  const parts = [`${total} process${total === 1 ? '' : 'es'}`];
  if (g.grouped > 0) parts.push(`${g.grouped} drawn in groups by function (×N)`);
  if (g.hidden > 0) parts.push(`${g.hidden} beyond the drawing's bound: see the actor list`);
  const more = [g.messages.length > 0 ? 'dashed blue: messages sent' : '', g.dependencies.length > 0 ? 'dotted orange: depends on' : ''].filter(Boolean).join('; ');
  return `${parts.join('; ')}. Arrows: who spawned whom (solid: linked)${more ? `; ${more}` : ''}. Click a box for its detail.`;
}
