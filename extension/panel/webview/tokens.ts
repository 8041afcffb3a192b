/// <reference lib="dom" />
// Token use per context tier (P0 system, P1 working, P2 episodic) as bars against each tier's
// budget, for every actor. P0 has no budget: its bar is drawn to the scale of the largest budget.
import type { ActorView } from '../../protocol/panel.js';
import { svg } from './dom.js';
import { budgetOf, countText, fill, trackWidths, type Tier } from './token-bars.js';
import { VirtualList } from './virtual.js';
import { actorLabel } from './lanes.js';
import { drawWidth, fitLabel, labelWidth } from './narrow.js';

const TIER_W = 74;
const ROW_H = 15;
const GAP = 8;

const TIERS: [Tier, string][] = [['P0', 'system'], ['P1', 'working'], ['P2', 'episodic']];


/** One actor's three tiers as a small SVG row. */
export function tokensRow(a: ActorView, width: number, i = 0): SVGSVGElement {
  const W = drawWidth(width);
  const LABEL_W = labelWidth(W);
  // the count after the bar ("1200 / 8000 (15%)") takes up to 170 px; narrow, the bar shrinks first, down to 24 px
  const full = Math.max(24, W - LABEL_W - TIER_W - Math.min(170, Math.max(110, W * 0.3)));
  const H = 3 * ROW_H + GAP;
  const root = svg('svg', { class: 'tokens-chart', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': `Token use of ${actorLabel(a.pid, a.name)}`, 'data-pid': a.pid, 'data-row': i });
  const y0 = 2;
  const label = actorLabel(a.pid, a.name);
  root.append(svg('text', { class: 'lane-label', x: 8, y: y0 + ROW_H + 4 }, fitLabel(label, LABEL_W)));
  TIERS.forEach(([tier, name], k) => {
    const y = y0 + k * ROW_H;
    const used = a.context.tokens[tier];
    const budget = budgetOf(a, tier);
    const f = fill(a, tier);
    const { track, used: u } = trackWidths(a, tier, full);
    const level = budget !== null && f >= 0.9 ? ' full' : budget !== null && f >= 0.7 ? ' high' : '';
    root.append(svg('text', { class: 'tier-name', x: LABEL_W, y: y + ROW_H - 4 }, `${tier} ${name}`));
    root.append(svg('rect', { class: 'track', x: LABEL_W + TIER_W, y: y + 3, width: track, height: ROW_H - 6, rx: 2 }));
    root.append(svg('rect', { class: `used tier-${tier}${level}`, x: LABEL_W + TIER_W, y: y + 3, width: u, height: ROW_H - 6, rx: 2 },
      svg('title', {}, `${tier} ${name}: ${used} tokens${budget !== null ? ` of ${budget}` : ' (no budget)'}`)));
    root.append(svg('text', { class: 'tier-count', x: LABEL_W + TIER_W + track + 8, y: y + ROW_H - 4 }, countText(used, budget)));
  });
  return root;
}

export const TOKENS_ROW_H = 3 * ROW_H + GAP;

/** Every actor's token use, windowed: only the actors in view are drawn. */
export class TokenList {
  private width = 800;
  readonly list = new VirtualList<{ a: ActorView; i: number }>({
    className: 'tokens-list',
    rowHeight: TOKENS_ROW_H,
    maxRows: 6,
    label: 'Token use per tier',
    key: (r) => String(r.a.pid),
    signature: (r) => `${this.width}|${r.a.name ?? ''}|${r.a.context.tokens.P0},${r.a.context.tokens.P1},${r.a.context.tokens.P2}|${r.a.context.limits.working},${r.a.context.limits.episodic}`,
    render: (r) => tokensRow(r.a, this.width, r.i),
  });

  update(actors: ActorView[], width: number): void {
    this.width = width;
    this.list.setItems(actors.map((a, i) => ({ a, i })));
  }
}
