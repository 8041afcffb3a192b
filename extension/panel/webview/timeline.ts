/// <reference lib="dom" />
// The timeline as SVG: actors as lanes, model calls, effects and waits as bars with their
// durations, unknown outcomes marked with a dashed outline and a "?", points in time as marks.
// Clicking a bar opens its source line. Colours are theme variables set through classes (panel.css).
import { h, reveal, svg } from './dom.js';
import { duration, ticks, type Bar, type Lane, type Lanes, type Mark } from './lanes.js';
import { VirtualList } from './virtual.js';
import { drawWidth, fitLabel, labelWidth } from './narrow.js';

const LANE_H = 30;
const BAR_H = 18;
const AXIS_H = 24;
const PAD_R = 16;
const CHAR_W = 6.6;
const PHASE_NAMES = { queue: 'in the host\'s queue', network: 'sent, to the first byte', generation: 'first to last byte' } as const;

function barTitle(b: Bar): string {
  const d = b.end - b.start;
  const state = b.state === 'done' ? '' : b.state === 'unknown' ? ' — outcome unknown' : b.state === 'pending' ? ' — no reply yet' : ' — failed';
  const phases = (b.phases ?? []).map((p) => `${PHASE_NAMES[p.kind]} ${duration(p.end - p.start)}`).join(', ');
  return `${b.label}: ${duration(d)}${state}${phases ? ` (${phases})` : ''}${b.site ? `\n${b.site.path.split(/[\\/]/).pop()}:${b.site.line} (click to open)` : ''}`;
}

function bar(b: Bar, x: (ms: number) => number, y: number): SVGGElement {
  const x0 = x(b.start);
  const w = Math.max(3, x(b.end) - x0);
  const g = svg('g', { class: `bar kind-${b.kind} state-${b.state}${b.site ? ' linked' : ''}`, 'data-seq': b.seq, tabindex: b.site ? 0 : -1, role: b.site ? 'button' : 'img' },
    svg('title', {}, barTitle(b)),
    svg('rect', { x: x0, y: y + (LANE_H - BAR_H) / 2, width: w, height: BAR_H, rx: 3 }));
  // a model call's phases over its bar: queue, network, generation (a title each says how long)
  for (const p of b.phases ?? []) {
    g.append(svg('rect', { class: `phase phase-${p.kind}`, x: x(p.start), y: y + (LANE_H - BAR_H) / 2 + BAR_H - 5, width: Math.max(1, x(p.end) - x(p.start)), height: 5 },
      svg('title', {}, `${PHASE_NAMES[p.kind]}: ${duration(p.end - p.start)}`)));
  }
  const text = `${b.label} · ${duration(b.end - b.start)}`;
  const fits = text.length * CHAR_W + 8 <= w ? text : b.label.length * CHAR_W + 8 <= w ? b.label : null;
  if (fits) g.append(svg('text', { x: x0 + 4, y: y + LANE_H / 2 + 4, class: 'bar-text' }, fits));
  if (b.state === 'unknown') g.append(svg('text', { x: x0 + w + 3, y: y + LANE_H / 2 + 4, class: 'unknown-mark' }, '?'));
  const site = b.site;
  if (site) {
    g.addEventListener('click', () => reveal(site));
    g.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ') reveal(site);
    });
  }
  return g;
}

function mark(m: Mark, x: (ms: number) => number, y: number): SVGElement {
  const cx = x(m.at);
  const cy = y + LANE_H / 2;
  const shape = m.kind === 'exit' || m.kind === 'spawn'
    ? svg('circle', { cx, cy, r: 3 })
    : svg('path', { d: `M${cx} ${cy - 5} L${cx + 4} ${cy} L${cx} ${cy + 5} L${cx - 4} ${cy} Z` });
  return svg('g', { class: `mark mark-${m.kind}` }, svg('title', {}, m.label), shape);
}

function laneGroup(lane: Lane, i: number, y: number, W: number, x: (ms: number) => number): SVGGElement {
  const g = svg('g', { class: `lane${i % 2 ? ' odd' : ''}`, 'data-pid': lane.pid });
  g.append(svg('rect', { class: 'lane-bg', x: 0, y, width: W, height: LANE_H }));
  g.append(svg('text', { class: 'lane-label', x: 8, y: y + LANE_H / 2 + 4 }, fitLabel(lane.label, labelWidth(W))));
  g.append(svg('line', { class: 'lifeline', x1: x(lane.start), x2: x(lane.end), y1: y + LANE_H / 2, y2: y + LANE_H / 2 }));
  for (const b of lane.bars) g.append(bar(b, x, y));
  for (const m of lane.marks) g.append(mark(m, x, y));
  return g;
}

function scale(lanes: Lanes, W: number): (ms: number) => number {
  const label = labelWidth(W);
  const span = W - label - PAD_R;
  return (ms: number) => label + (Math.min(ms, lanes.end) / lanes.end) * span;
}

/** the least room a tick's label takes ("1.50 s", "500 ms"): in a narrow panel only every k-th tick is labelled */
const TICK_LABEL_W = 52;

function axis(root: SVGSVGElement, lanes: Lanes, x: (ms: number) => number, top: number, bottom: number, labels: boolean): void {
  const all = ticks(lanes.end);
  const apart = all.length > 1 ? x(all[1]) - x(all[0]) : TICK_LABEL_W;
  const every = Math.max(1, Math.ceil(TICK_LABEL_W / Math.max(1, apart)));
  all.forEach((t, i) => {
    root.append(svg('line', { class: 'grid', x1: x(t), x2: x(t), y1: top, y2: bottom }));
    if (labels && i % every === 0) root.append(svg('text', { class: 'tick', x: x(t), y: AXIS_H - 8, 'text-anchor': 'middle' }, duration(t)));
  });
}

/** The lanes as an SVG `width` pixels wide (all of them: for a few lanes, as in a what-if side). */
export function timelineSvg(lanes: Lanes, width: number, label = 'Timeline'): SVGSVGElement {
  const W = drawWidth(width);
  const H = AXIS_H + Math.max(1, lanes.lanes.length) * LANE_H + 6;
  const x = scale(lanes, W);
  const root = svg('svg', { class: 'timeline', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label });
  axis(root, lanes, x, AXIS_H - 4, H, true);
  lanes.lanes.forEach((lane, i) => root.append(laneGroup(lane, i, AXIS_H + i * LANE_H, W, x)));
  return root;
}

/**
 * The timeline of a run with any number of actors: the time axis, then the lanes as a windowed
 * list (only those in view are drawn); a lane is redrawn only when its bars or the scale change.
 */
export class LaneList {
  readonly el: HTMLElement;
  private readonly axisBox: HTMLElement;
  private readonly list: VirtualList<{ lane: Lane; i: number; sig: string }>;
  private width = 800;
  private lanes: Lanes = { lanes: [], end: 1 };

  constructor(label = 'Timeline') {
    this.axisBox = h('div', { class: 'timeline-axis' });
    this.list = new VirtualList({
      className: 'lane-list',
      rowHeight: LANE_H,
      maxRows: 14,
      label,
      key: (r) => String(r.lane.pid),
      signature: (r) => r.sig,
      render: (r) => {
        const W = drawWidth(this.width);
        const x = scale(this.lanes, W);
        const root = svg('svg', { class: 'timeline lane-row', width: W, height: LANE_H, viewBox: `0 ${r.i * LANE_H} ${W} ${LANE_H}`, role: 'img', 'aria-label': r.lane.label });
        axis(root, this.lanes, x, r.i * LANE_H, (r.i + 1) * LANE_H, false);
        root.append(laneGroup(r.lane, r.i, r.i * LANE_H, W, x));
        return root;
      },
    });
    this.el = h('div', { class: 'lanes' }, this.axisBox, this.list.el);
  }

  update(lanes: Lanes, width: number): void {
    this.width = width;
    this.lanes = lanes;
    const W = drawWidth(width);
    const head = svg('svg', { class: 'timeline-axis-svg', width: W, height: AXIS_H, viewBox: `0 0 ${W} ${AXIS_H}`, 'aria-hidden': 'true' });
    axis(head, lanes, scale(lanes, W), AXIS_H - 4, AXIS_H, true);
    this.axisBox.replaceChildren(head);
    const frame = `${W}|${lanes.end}`;
    this.list.setItems(lanes.lanes.map((lane, i) => ({ lane, i, sig: `${frame}|${i}|${lane.label}|${lane.start}|${lane.end}|${lane.bars.map((b) => `${b.kind}${b.state}${b.start}-${b.end}${b.label}${b.phases?.length ?? 0}`).join(',')}|${lane.marks.length}` })));
  }
}

/** The legend under a timeline. */
export function legend(): HTMLElement {
  const item = (cls: string, text: string) => h('span', { class: 'legend-item' }, h('span', { class: `swatch ${cls}` }), text);
  return h('div', { class: 'legend' },
    item('kind-model', 'model call'), item('phase-queue', 'queued'), item('phase-network', 'network'), item('phase-generation', 'generation'),
    item('kind-effect', 'effect'), item('kind-wait', 'wait'),
    item('state-failed', 'failed'), item('state-unknown', 'outcome unknown'),
    h('span', { class: 'muted' }, ' ◆ retry, context, timer · ● spawn/exit · click a bar to open its line'));
}
