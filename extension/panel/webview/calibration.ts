/// <reference lib="dom" />
// The reliability diagram of the map that calibrated an attempt's confidence (docs/editor.md,
// *Calibration in the panel*): a folded section under the attempt; opened, it asks the host for the
// map by its id (protocol/calibration.ts) once, keeps the answer for every later showing, and draws
// the diagram as SVG — before the map and after it, against the diagonal — with its figures.
import { PROTOCOL_VERSION } from '../../protocol/panel.js';
import type { CalibrationMapReply, CalibrationMapView } from '../../protocol/calibration.js';
import { post } from './api.js';
import { h, svg } from './dom.js';
import { diagramPoints, figuresLine, plotAt, PLOT, pointTitle, polyline } from './reliability.js';

const answers = new Map<string, CalibrationMapReply>();
const waiting = new Map<string, Set<HTMLElement>>();

/** A folded "reliability diagram" section for map `id`; its body is filled when opened. */
export function calibrationDetails(id: string): HTMLElement {
  const body = h('div', { class: 'reliability' }, h('p', { class: 'muted' }, 'loading the map…'));
  const details = h('details', { class: 'calibration-map' }, h('summary', {}, `reliability diagram of map ${id}`), body);
  details.addEventListener('toggle', () => {
    if (!details.open) return;
    const known = answers.get(id);
    if (known) return show(body, known);
    let set = waiting.get(id);
    if (!set) {
      set = new Set();
      waiting.set(id, set);
      post({ type: 'calibrationMap', v: PROTOCOL_VERSION, map: id });
    }
    set.add(body);
  });
  return details;
}

/** The host's answer: kept, and drawn wherever it was waited for. */
export function receiveCalibrationMap(m: CalibrationMapReply): void {
  answers.set(m.map, m);
  for (const body of waiting.get(m.map) ?? []) show(body, m);
  waiting.delete(m.map);
}

function show(body: HTMLElement, m: CalibrationMapReply): void {
  body.replaceChildren(...(m.view ? [diagram(m.view)] : [h('p', { class: 'error' }, m.message ?? 'the map cannot be shown')]));
}

function diagram(v: CalibrationMapView): HTMLElement {
  const { size, pad } = PLOT;
  const corner = (c: number, a: number) => plotAt(c, a);
  const o = corner(0, 0);
  const top = corner(1, 1);
  const plot = svg('svg', { class: 'reliability-diagram', viewBox: `0 0 ${size} ${size}`, width: size, height: size, role: 'img', 'aria-label': `reliability diagram of map ${v.id}` },
    svg('rect', { class: 'frame', x: o.x, y: top.y, width: top.x - o.x, height: o.y - top.y }),
    svg('line', { class: 'diagonal', x1: o.x, y1: o.y, x2: top.x, y2: top.y }),
    svg('text', { class: 'axis', x: size / 2, y: size - 6, 'text-anchor': 'middle' }, 'confidence'),
    svg('text', { class: 'axis', x: 10, y: size / 2, 'text-anchor': 'middle', transform: `rotate(-90 10 ${size / 2})` }, 'accuracy'),
    svg('text', { class: 'tick', x: o.x, y: o.y + 12, 'text-anchor': 'middle' }, '0'),
    svg('text', { class: 'tick', x: top.x, y: o.y + 12, 'text-anchor': 'middle' }, '1'),
    svg('text', { class: 'tick', x: o.x - 4, y: top.y + 4, 'text-anchor': 'end' }, '1'),
  );
  for (const which of ['before', 'after'] as const) {
    const points = diagramPoints(v.reliability?.[which] ?? [], size, pad);
    const g = svg('g', { class: `series ${which}` });
    if (points.length > 1) g.append(svg('polyline', { points: polyline(points) }));
    for (const p of points) g.append(svg('circle', { cx: p.x, cy: p.y, r: p.r }, svg('title', {}, pointTitle(p, which))));
    plot.append(g);
  }
  return h('figure', { class: 'reliability-figure' },
    plot,
    h('figcaption', {},
      h('div', {}, h('span', { class: 'legend before' }, '● raw'), ' ', h('span', { class: 'legend after' }, '● calibrated'), ' — the diagonal is a perfectly calibrated source'),
      h('div', {}, figuresLine(v)),
      h('div', { class: 'muted' }, `${v.source} of ${v.model}, fitted on ${v.fitted.cases} cases${v.fitted.dataset ? ` of ${v.fitted.dataset}` : ''}; ${v.points.length} breakpoint${v.points.length === 1 ? '' : 's'}; ${v.file}`),
      v.reliability ? null : h('div', { class: 'muted' }, 'the file holds no reliability table for this map'),
    ));
}
