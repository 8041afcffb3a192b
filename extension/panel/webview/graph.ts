/// <reference lib="dom" />
// The run panel's graph view (issue 44): the run's processes — agents, workers, std/graph node
// processes — as boxes coloured by state, with an arrow from each to the processes it spawned
// (solid when linked), laid out by graph-layout.ts. A click (or Enter) on a box selects that
// actor, which opens its detail below. Rebuilt only when the actors change; collapsed by default
// behind a <details> so a run that does not need it pays nothing.
import type { ActorView } from '../../protocol/panel.js';
import type { ActorUi } from './actors.js';
import { h, svg } from './dom.js';
import { NODE_H, NODE_W, layoutGraph, type GraphLayout } from './graph-layout.js';

/** the longest label drawn in a box (its tooltip has all of it) */
const LABEL_CHARS = 20;

export class GraphView {
  readonly el: HTMLDetailsElement;
  private readonly body: HTMLElement;
  private readonly note: HTMLElement;
  private shown: { actors: readonly ActorView[]; selected: number | null } | null = null;

  constructor(private readonly ui: ActorUi) {
    this.body = h('div', { class: 'graph-scroll' });
    this.note = h('p', { class: 'muted graph-note' });
    this.el = h('details', { id: 'graph', class: 'graph' }, h('summary', {}, h('h2', {}, 'Graph')), this.note, this.body);
    this.el.addEventListener('toggle', () => this.update(this.shown?.actors ?? [], true));
  }

  update(actors: readonly ActorView[], force = false): void {
    const selected = this.ui.selected;
    if (!force && this.shown && this.shown.actors === actors && this.shown.selected === selected) return;
    this.shown = { actors, selected };
    if (!this.el.open) return;
    const g = layoutGraph(actors);
    this.note.textContent = notes(g, actors.length);
    this.body.replaceChildren(this.draw(g, selected));
  }

  private draw(g: GraphLayout, selected: number | null): SVGSVGElement {
    const root = svg('svg', { class: 'graph-chart', width: g.width, height: g.height, viewBox: `0 0 ${g.width} ${g.height}`, role: 'group', 'aria-label': 'Processes and who spawned whom' });
    root.append(svg('defs', {}, svg('marker', { id: 'graph-arrow', viewBox: '0 0 8 8', refX: 8, refY: 4, markerWidth: 6, markerHeight: 6, orient: 'auto' }, svg('path', { d: 'M0,0 L8,4 L0,8 z', class: 'graph-arrow' }))));
    const at = new Map(g.nodes.map((n) => [n.key, n]));
    for (const e of g.edges) {
      const a = at.get(e.from)!;
      const b = at.get(e.to)!;
      const x1 = a.x + NODE_W / 2, y1 = a.y + NODE_H, x2 = b.x + NODE_W / 2, y2 = b.y;
      const mid = (y1 + y2) / 2;
      root.append(svg('path', { class: `graph-edge${e.linked ? ' linked' : ''}`, d: `M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2}`, 'marker-end': 'url(#graph-arrow)' },
        svg('title', {}, `${a.label} spawned ${b.label}${e.linked ? ' (linked)' : ''}`)));
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

function notes(g: GraphLayout, total: number): string {
  const parts = [`${total} process${total === 1 ? '' : 'es'}`];
  if (g.grouped > 0) parts.push(`${g.grouped} drawn in groups by function (×N)`);
  if (g.hidden > 0) parts.push(`${g.hidden} beyond the drawing's bound: see the actor list`);
  return `${parts.join('; ')}. Arrows: who spawned whom (solid: linked). Click a box for its detail.`;
}
