// What the reliability diagram draws (docs/editor.md, *Calibration in the panel*), without a DOM so
// it is tested in plain Node: each non-empty bin of a map's reliability table is a point at (mean
// confidence, accuracy) in a square plot — x from left to right, accuracy from bottom to top — with
// a radius that grows with its cases; a perfectly calibrated source lies on the diagonal. The
// figures line says how far from it the source was before the map and is after (ECE, Brier).
import type { CalibrationMapView, ReliabilityBinView } from '../../protocol/calibration.js';

/** The diagram's square, in SVG units, and the margin left for the axes' labels. */
export const PLOT = { size: 220, pad: 30 } as const;

export interface DiagramPoint {
  x: number;
  y: number;
  r: number;
  cases: number;
  confidence: number;
  accuracy: number;
  /** the bin's bounds, for its tooltip */
  from: number;
  to: number;
}

const round1 = (v: number): number => Math.round(v * 10) / 10;

/** The plot position of (confidence, accuracy), both in [0, 1] (clamped). */
export function plotAt(confidence: number, accuracy: number, size: number = PLOT.size, pad: number = PLOT.pad): { x: number; y: number } {
  const w = size - 2 * pad;
  const c = Math.min(1, Math.max(0, confidence));
  const a = Math.min(1, Math.max(0, accuracy));
  return { x: round1(pad + c * w), y: round1(pad + (1 - a) * w) };
}

/** The points of a reliability table: one per bin with cases, radius 2 to 6 by its share of the largest bin. */
export function diagramPoints(bins: readonly ReliabilityBinView[], size: number = PLOT.size, pad: number = PLOT.pad): DiagramPoint[] {
  const most = Math.max(1, ...bins.map((b) => b.cases));
  const out: DiagramPoint[] = [];
  for (const b of bins) {
    if (b.cases === 0 || b.confidence === null || b.accuracy === null) continue;
    out.push({ ...plotAt(b.confidence, b.accuracy, size, pad), r: round1(2 + 4 * Math.sqrt(b.cases / most)), cases: b.cases, confidence: b.confidence, accuracy: b.accuracy, from: b.from, to: b.to });
  }
  return out;
}

/** The `points` attribute of the line through a table's points, in order of confidence. */
export function polyline(points: readonly DiagramPoint[]): string {
  return [...points].sort((a, b) => a.x - b.x).map((p) => `${p.x},${p.y}`).join(' ');
}

const f3 = (v: number | null | undefined): string => (v === null || v === undefined ? '-' : v.toFixed(3));

/** One line of the figures: `ECE 0.562 → 0.060, Brier 0.496 → 0.165, AUROC 0.693 (on 54 held-out cases)`. */
export function figuresLine(v: CalibrationMapView): string {
  if (!v.before) return 'no figures in the calibration file';
  const on = v.on === 'held-out' ? `on ${v.before.cases} held-out cases` : `on the ${v.before.cases} cases it was fitted on`;
  return `ECE ${f3(v.before.ece)} → ${f3(v.after?.ece)}, Brier ${f3(v.before.brier)} → ${f3(v.after?.brier)}, AUROC ${f3(v.before.auroc)} (${on})`;
}

/** An attempt's calibrated confidence as the infer detail says it: `confidence 0.9 → 0.488 (calibrated by map … for reported)`. */
export function calibrationLine(confidence: number, calibration: { source: string; raw: number; map: string }): string {
  const r = (x: number): number => Math.round(x * 1000) / 1000;
  return `confidence ${r(calibration.raw)} → ${r(confidence)} (calibrated by map ${calibration.map} for ${calibration.source})`;
}

/** The tooltip of a point. */
export function pointTitle(p: DiagramPoint, which: 'before' | 'after'): string {
  return `${which} the map: bin [${p.from.toFixed(1)}, ${p.to.toFixed(1)}${p.to >= 1 ? ']' : ')'}, ${p.cases} case${p.cases === 1 ? '' : 's'}, mean confidence ${f3(p.confidence)}, accuracy ${f3(p.accuracy)}`;
}
