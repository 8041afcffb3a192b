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

/** A move of the ratio beyond these counts as worse or better; within them, the load's noise. */
export const WORSE = 1.25;
export const BETTER = 0.8;

/**
 * Markdown: each row of this run beside the same row of the previous one (ours ÷ anchor, and its
 * change). A row is the same row when its benchmark and its anchor are: several rows share a
 * benchmark and differ by anchor, and a row whose anchor changed (the actor floor's O(1) mailbox,
 * issue 45) moved because of the anchor, which the comparison says rather than calling it a change
 * of ours. Each row gets a verdict (worse, better, same: beyond ×1.25 either way), and the report
 * opens with the count of rows worse than before.
 */
export function comparison(rows: Row[], prev: Recorded | undefined): string {
  if (!prev) return 'No previous run to compare with (bench/results/latest.json did not exist).';
  const key = (r: Row) => `${r.benchmark}\u0000${r.anchorName}`;
  const exact = new Map(prev.rows.map((r) => [key(r), r]));
  const byName = new Map<string, Row[]>();
  for (const r of prev.rows) byName.set(r.benchmark, [...(byName.get(r.benchmark) ?? []), r]);
  const fmt = (x: number) => (x >= 10 ? x.toFixed(0) : x >= 1 ? x.toFixed(2) : x.toFixed(3));
  const body: string[] = [];
  const worse: string[] = [];
  for (const r of rows) {
    let p = exact.get(key(r));
    let note = '';
    if (!p) {
      // the same benchmark under one other anchor: compared, saying the anchor changed
      const named = byName.get(r.benchmark) ?? [];
      if (named.length === 1) {
        p = named[0];
        note = ` (anchor was: ${p.anchorName})`;
      }
    }
    if (!p) {
      body.push(`| ${r.benchmark} | ${r.anchorName} | (new) | ${fmt(r.ratio)}× | | |`);
      continue;
    }
    const change = r.ratio / p.ratio;
    const verdict = note ? 'anchor changed' : change > WORSE ? 'worse' : change < BETTER ? 'better' : 'same';
    if (verdict === 'worse') worse.push(r.benchmark);
    body.push(`| ${r.benchmark} | ${r.anchorName}${note} | ${fmt(p.ratio)}× | ${fmt(r.ratio)}× | ${fmt(change)} | ${verdict} |`);
  }
  return [
    `Compared with the previous run (${prev.date}); the ratio is ours ÷ the anchor measured in the same run, so it moves less with the machine's load than the times do. New rows have no previous figure. ` +
      `${worse.length === 0 ? 'No row is worse' : `${worse.length} row${worse.length === 1 ? ' is' : 's are'} worse`} than before (a ratio up by more than ×${WORSE}).`,
    '',
    '| benchmark | anchor | ours ÷ anchor, previous | ours ÷ anchor, now | now ÷ previous | verdict |',
    '| --- | --- | --- | --- | --- | --- |',
    ...body,
  ].join('\n');
}
