// The monotone map a calibration fits (docs/inference.md, *Calibration*): isotonic regression by
// pool-adjacent-violators (PAV). Why isotonic and not Platt scaling: Turn's confidences take few
// distinct values (a self-report in steps of 0.05 under a grammar, k + 1 levels of agreement among k
// samples, 0 and 1 very often), and their relation to accuracy has no reason to be the sigmoid Platt
// assumes; PAV assumes only that more confidence never means less accuracy, and maps each level to
// the accuracy seen there. Its weakness, overfitting a small set, is answered by a minimum number of
// cases per source (MIN_CASES) and by shrinking each block's accuracy toward 1/2 by one half-case
// on each side, so a block of 3 right cases maps to 0.875, not to a certainty of 1.
import type { Scored } from './metrics.js';

/** Below this many labeled cases a source gets no map: its raw confidence is kept. */
export const MIN_CASES = 30;

/** A fitted map: breakpoints (raw → calibrated), raw ascending, calibrated non-decreasing; linear between them, flat outside. */
export interface IsotonicMap {
  method: 'isotonic';
  points: [number, number][];
}

interface Block {
  /** sum of the labels (right = 1) and of the weights */
  sum: number;
  weight: number;
  lo: number;
  hi: number;
}

/** PAV over blocks sorted by raw value: merges neighbours until their means never decrease. */
function pool(blocks: Block[]): Block[] {
  const out: Block[] = [];
  for (const b of blocks) {
    out.push({ ...b });
    while (out.length > 1 && mean(out[out.length - 2]) > mean(out[out.length - 1])) {
      const top = out.pop()!;
      const under = out[out.length - 1];
      under.sum += top.sum;
      under.weight += top.weight;
      under.hi = top.hi;
    }
  }
  return out;
}

function mean(b: Block): number {
  return b.sum / b.weight;
}

/** Isotonic regression of right (1/0) on confidence. Throws for no cases. */
export function fitIsotonic(cases: readonly Scored[]): IsotonicMap {
  if (cases.length === 0) throw new Error('no cases to fit a map on');
  // one block per distinct raw value
  const byValue = new Map<number, Block>();
  for (const c of cases) {
    const b = byValue.get(c.confidence) ?? { sum: 0, weight: 0, lo: c.confidence, hi: c.confidence };
    b.sum += c.right ? 1 : 0;
    b.weight += 1;
    byValue.set(c.confidence, b);
  }
  const pooled = pool([...byValue.values()].sort((a, b) => a.lo - b.lo));
  // shrink each pooled block toward 1/2 (half a right and half a wrong case), then pool again:
  // shrinking a small block more than a large one can undo the order PAV made
  const shrunk = pool(pooled.map((b) => ({ ...b, sum: b.sum + 0.5, weight: b.weight + 1 })));
  const points: [number, number][] = [];
  for (const b of shrunk) {
    const y = mean(b);
    points.push([b.lo, y]);
    if (b.hi !== b.lo) points.push([b.hi, y]);
  }
  return { method: 'isotonic', points };
}

/** The calibrated value of `raw`: linear between the two breakpoints around it, the end value outside them. */
export function applyMap(map: IsotonicMap, raw: number): number {
  const p = map.points;
  if (raw <= p[0][0]) return p[0][1];
  if (raw >= p[p.length - 1][0]) return p[p.length - 1][1];
  // binary search for the last breakpoint at or below raw
  let lo = 0;
  let hi = p.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (p[mid][0] <= raw) lo = mid;
    else hi = mid;
  }
  const [x0, y0] = p[lo];
  const [x1, y1] = p[hi];
  return x1 === x0 ? y1 : y0 + ((raw - x0) / (x1 - x0)) * (y1 - y0);
}
