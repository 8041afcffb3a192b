// How full each context tier is and how long its bar is drawn, without the DOM (tested in Node).
import type { ActorView } from '../../protocol/panel.js';

export type Tier = 'P0' | 'P1' | 'P2';

export function budgetOf(a: ActorView, tier: Tier): number | null {
  return tier === 'P1' ? a.context.limits.working : tier === 'P2' ? a.context.limits.episodic : null;
}

/** How full a tier is, 0..1 (P0 against the largest budget, as it has none of its own). */
export function fill(a: ActorView, tier: Tier): number {
  const used = a.context.tokens[tier];
  const budget = budgetOf(a, tier) ?? Math.max(a.context.limits.working, a.context.limits.episodic, used, 1);
  return budget <= 0 ? 0 : Math.min(1, used / budget);
}

/**
 * The widths of a tier's track and of its used part, in pixels, for a chart whose widest track is
 * `full` pixels: a track is as long as its budget against the largest budget of the actor (P1's
 * 8,000 is a quarter of P2's 32,000), P0 (no budget) as long as what it uses; the used part is at
 * least 2 px when anything is used, so a small use is seen, not lost in a long empty track.
 */
export function trackWidths(a: ActorView, tier: Tier, full: number): { track: number; used: number } {
  const used = a.context.tokens[tier];
  const largest = Math.max(a.context.limits.working, a.context.limits.episodic, a.context.tokens.P0, 1);
  const budget = budgetOf(a, tier) ?? used;
  const track = Math.max(used > 0 || budget > 0 ? 8 : 0, Math.round((budget / largest) * full));
  const u = budget <= 0 ? 0 : Math.max(used > 0 ? 2 : 0, Math.round(Math.min(1, used / budget) * track));
  return { track, used: u };
}

const percent = (used: number, budget: number) => {
  const p = (used / budget) * 100;
  return p === 0 ? '0%' : p < 1 ? '<1%' : `${Math.round(p)}%`;
};

/** A tier's count: against its budget; a budget of 0 is one the view does not know (a stored run's processes read from its journal). */
export function countText(used: number, budget: number | null): string {
  if (budget === null) return `${used} (no budget)`;
  return budget > 0 ? `${used} / ${budget} (${percent(used, budget)})` : `${used} (budget unknown)`;
}
