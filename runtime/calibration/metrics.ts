// How well a confidence source predicts being right, over labeled cases (docs/inference.md,
// *Calibration*): expected calibration error (ECE), the Brier score and the area under the ROC
// curve (AUROC), and the reliability table a reliability diagram is drawn from. Pure functions of
// (confidence, right) pairs.

/** One labeled case as a source saw it: the confidence it gave, and whether the value was right. */
export interface Scored {
  confidence: number;
  right: boolean;
}

/** The number of equal-width bins over [0, 1] the ECE and the reliability table use. */
export const BINS = 10;

/** A bin of the reliability table: its bounds, its cases, their mean confidence and their accuracy (null when empty). */
export interface ReliabilityBin {
  from: number;
  to: number;
  cases: number;
  confidence: number | null;
  accuracy: number | null;
}

/** The bin of a confidence: [0, 0.1), [0.1, 0.2), ..., [0.9, 1]. */
function binOf(c: number, bins: number): number {
  return Math.min(bins - 1, Math.max(0, Math.floor(c * bins)));
}

export function reliability(cases: readonly Scored[], bins = BINS): ReliabilityBin[] {
  const sums = Array.from({ length: bins }, () => ({ n: 0, conf: 0, right: 0 }));
  for (const c of cases) {
    const b = sums[binOf(c.confidence, bins)];
    b.n++;
    b.conf += c.confidence;
    if (c.right) b.right++;
  }
  return sums.map((s, i) => ({
    from: round(i / bins),
    to: round((i + 1) / bins),
    cases: s.n,
    confidence: s.n > 0 ? s.conf / s.n : null,
    accuracy: s.n > 0 ? s.right / s.n : null,
  }));
}

/** Expected calibration error: the case-weighted mean, over the bins, of |accuracy - mean confidence|. 0 for no cases. */
export function ece(cases: readonly Scored[], bins = BINS): number {
  if (cases.length === 0) return 0;
  let sum = 0;
  for (const b of reliability(cases, bins)) if (b.cases > 0) sum += b.cases * Math.abs(b.accuracy! - b.confidence!);
  return sum / cases.length;
}

/** The Brier score: the mean of (confidence - right)², right being 1 or 0. 0 for no cases. */
export function brier(cases: readonly Scored[]): number {
  if (cases.length === 0) return 0;
  let sum = 0;
  for (const c of cases) sum += (c.confidence - (c.right ? 1 : 0)) ** 2;
  return sum / cases.length;
}

/**
 * AUROC: the chance that a right case has a higher confidence than a wrong one (a tie counts half),
 * by ranks (Mann-Whitney U). Null when every case is right or every case is wrong: there is nothing
 * to rank then.
 */
export function auroc(cases: readonly Scored[]): number | null {
  const right = cases.filter((c) => c.right).length;
  const wrong = cases.length - right;
  if (right === 0 || wrong === 0) return null;
  const sorted = [...cases].sort((a, b) => a.confidence - b.confidence);
  // midranks: tied confidences share the mean of their ranks
  let rankSumRight = 0;
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j < sorted.length && sorted[j].confidence === sorted[i].confidence) j++;
    const midrank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (sorted[k].right) rankSumRight += midrank;
    i = j;
  }
  return (rankSumRight - (right * (right + 1)) / 2) / (right * wrong);
}

export interface Metrics {
  cases: number;
  accuracy: number;
  ece: number;
  brier: number;
  auroc: number | null;
}

export function metrics(cases: readonly Scored[]): Metrics {
  return {
    cases: cases.length,
    accuracy: cases.length > 0 ? cases.filter((c) => c.right).length / cases.length : 0,
    ece: ece(cases),
    brier: brier(cases),
    auroc: auroc(cases),
  };
}

function round(x: number): number {
  return Math.round(x * 1e9) / 1e9;
}
