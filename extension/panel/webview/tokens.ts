/// <reference lib="dom" />
// Token use per context tier (P0 system, P1 working, P2 episodic) as bars against each tier's
// budget, for every actor. P0 has no budget: its bar is drawn to the scale of the largest budget.
import type { ActorView } from '../../protocol/panel.js';
import { svg } from './dom.js';
import { actorLabel } from './lanes.js';

const LABEL_W = 150;
const TIER_W = 74;
const ROW_H = 15;
const GAP = 8;

type Tier = 'P0' | 'P1' | 'P2';
const TIERS: [Tier, string][] = [['P0', 'system'], ['P1', 'working'], ['P2', 'episodic']];

export function budgetOf(a: ActorView, tier: Tier): number | null {
  return tier === 'P1' ? a.context.limits.working : tier === 'P2' ? a.context.limits.episodic : null;
}

/** How full a tier is, 0..1 (P0 against the largest budget, as it has none of its own). */
export function fill(a: ActorView, tier: Tier): number {
  const used = a.context.tokens[tier];
  const budget = budgetOf(a, tier) ?? Math.max(a.context.limits.working, a.context.limits.episodic, used, 1);
  return budget <= 0 ? 0 : Math.min(1, used / budget);
}

export function tokensSvg(actors: ActorView[], width: number): SVGSVGElement {
  const W = Math.max(360, width);
  const track = W - LABEL_W - TIER_W - 150;
  const H = actors.length * (3 * ROW_H + GAP) + 4;
  const root = svg('svg', { class: 'tokens-chart', width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'Token use per tier' });
  actors.forEach((a, i) => {
    const y0 = i * (3 * ROW_H + GAP) + 2;
    root.append(svg('text', { class: 'lane-label', x: 8, y: y0 + ROW_H + 4 }, actorLabel(a.pid, a.name)));
    TIERS.forEach(([tier, name], k) => {
      const y = y0 + k * ROW_H;
      const used = a.context.tokens[tier];
      const budget = budgetOf(a, tier);
      const f = fill(a, tier);
      const level = budget !== null && f >= 0.9 ? ' full' : budget !== null && f >= 0.7 ? ' high' : '';
      root.append(svg('text', { class: 'tier-name', x: LABEL_W, y: y + ROW_H - 4 }, `${tier} ${name}`));
      root.append(svg('rect', { class: 'track', x: LABEL_W + TIER_W, y: y + 3, width: track, height: ROW_H - 6, rx: 2 }));
      root.append(svg('rect', { class: `used tier-${tier}${level}`, x: LABEL_W + TIER_W, y: y + 3, width: Math.max(used > 0 ? 2 : 0, f * track), height: ROW_H - 6, rx: 2 },
        svg('title', {}, `${tier} ${name}: ${used} tokens${budget !== null ? ` of ${budget}` : ' (no budget)'}`)));
      root.append(svg('text', { class: 'tier-count', x: LABEL_W + TIER_W + track + 8, y: y + ROW_H - 4 }, budget !== null ? `${used} / ${budget}` : `${used} (no budget)`));
    });
  });
  return root;
}
