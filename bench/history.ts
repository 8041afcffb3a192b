// The history of `npm run bench` (issue 17): every run's JSON is kept under bench/results/history/
// (named by its date), and the new run is compared with the previous one, row by row, on the
// ratio to its same-run anchor — the figure that survives a different machine load, unlike the
// absolute times. The comparison is part of the report: nothing passes or fails.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Row } from './harness.js';

export interface Recorded {
  date: string;
  rows: Row[];
}

/** The previous run (bench/results/latest.json), if any, copied into the history folder. */
export function previousRun(dir: string): Recorded | undefined {
  const latest = path.join(dir, 'latest.json');
  if (!fs.existsSync(latest)) return undefined;
  let prev: Recorded;
  try {
    prev = JSON.parse(fs.readFileSync(latest, 'utf8')) as Recorded;
  } catch {
    return undefined;
  }
  const history = path.join(dir, 'history');
  fs.mkdirSync(history, { recursive: true });
  const name = `${String(prev.date).replace(/[:.]/g, '-')}.json`;
  if (!fs.existsSync(path.join(history, name))) fs.copyFileSync(latest, path.join(history, name));
  return prev;
}

/** Markdown: each row of this run beside the same row of the previous one (ours ÷ anchor, and its change). */
export function comparison(rows: Row[], prev: Recorded | undefined): string {
  if (!prev) return 'No previous run to compare with (bench/results/latest.json did not exist).';
  const before = new Map(prev.rows.map((r) => [r.benchmark, r]));
  const fmt = (x: number) => (x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
  const lines = [
    `Compared with the previous run (${prev.date}); the ratio is ours ÷ the anchor measured in the same run, so it moves less with the machine's load than the times do. New rows have no previous figure.`,
    '',
    '| benchmark | ours ÷ anchor, previous | ours ÷ anchor, now | now ÷ previous |',
    '| --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    const p = before.get(r.benchmark);
    lines.push(`| ${r.benchmark} | ${p ? `${fmt(p.ratio)}×` : '(new)'} | ${fmt(r.ratio)}× | ${p ? `${fmt(r.ratio / p.ratio)}` : ''} |`);
  }
  return lines.join('\n');
}
