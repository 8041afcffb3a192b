// The bench's comparison with the previous results file (bench/history.ts, issue 45): rows are
// matched by benchmark and anchor (several rows share a benchmark), a row whose anchor changed is
// said to be so rather than judged, and the report counts the rows worse than before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { comparison } from '../../bench/history.js';
import type { Row } from '../../bench/harness.js';

const sample = (ms: number) => ({ medianMs: ms, minMs: ms, maxMs: ms, samples: 1 });
const r = (benchmark: string, anchorName: string, ratio: number): Row => ({ benchmark, anchorName, ours: sample(ratio), anchor: sample(1), ratio });

test('rows are matched by benchmark and anchor, judged, and the worse ones counted', () => {
  const prev = { date: 'then', rows: [r('bytes per step', 'inline', 0.1), r('bytes per step', 'LangGraph', 0.5), r('spawn', 'JS floor, array mailbox', 0.04), r('loop', 'JS', 20)] };
  const now = [r('bytes per step', 'inline', 0.1), r('bytes per step', 'LangGraph', 0.9), r('spawn', 'JS floor, O(1) mailbox', 3), r('loop', 'JS', 15), r('infer', 'JSON mock', 1.5)];
  const text = comparison(now, prev);
  const line = (s: string) => text.split('\n').find((l) => l.startsWith(`| ${s}`))!;
  assert.match(text, /1 row is worse than before/);
  assert.match(line('bytes per step | inline'), /\| 0\.100× \| 0\.100× \| 1\.00 \| same \|$/);
  assert.match(line('bytes per step | LangGraph'), /\| 0\.500× \| 0\.900× \| 1\.80 \| worse \|$/);
  assert.match(line('spawn'), /\(anchor was: JS floor, array mailbox\) \| 0\.040× \| 3\.00× \| 75 \| anchor changed \|$/);
  assert.match(line('loop'), /\| better \|$/);
  assert.match(line('infer'), /\| \(new\) \| 1\.50× \|/);
});
