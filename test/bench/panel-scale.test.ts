// The bench records the code-server figures of test/e2e/panel-scale.e2e.ts (issue 44): it reads the
// `PANEL_SCALE {json}` line that e2e prints, from the file it leaves, and makes rows with anchors:
// bytes and webview time per event, hover during a run against idle, Stop against the 1 s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { codeServerBenchmarks, codeServerRows, panelScaleJson } from '../../bench/panel.js';

// the shape the e2e prints (P-LIVE's test/e2e/panel-scale.e2e.ts)
const FIGURES = {
  w10: { messages: 12, bytes: 30_000, eventBytes: 20_000, events: 100, bytesRatio: 1.5, stopShownMs: 80, bars: 10, calls: 10, webviewLongTaskMs: 50 },
  w1000: { messages: 400, bytes: 3_000_000, eventBytes: 2_000_000, events: 10_000, bytesRatio: 1.5, stopShownMs: 120, bars: 1000, calls: 1000, clickMs: 90, controlsKept: true, webviewLongTaskMs: 6_000, workbenchLongTaskMs: 900, extensionHost: null },
  hover: { idleMs: [100, 110, 120], duringMs: [200, 210, 220], idleMedian: 110, duringMedian: 210, ratio: 1.91 },
  stop: { stoppingMs: 20, stoppedMs: 400, status: 'stopped' },
};

test('the code-server figures become rows with their anchors', () => {
  const rows = codeServerRows(FIGURES);
  const by = (text: string) => rows.find((r) => r.benchmark.includes(text))!;
  const small = by('10 streamed workers: bytes');
  assert.equal(small.ours.medianMs, 300);
  assert.equal(small.anchor.medianMs, 200);
  assert.equal(small.ratio, 1.5);
  assert.equal(by('1000 streamed workers: bytes').ours.medianMs, 300);
  const time = by('long-task time per event');
  assert.equal(time.ours.medianMs, 600); // µs per event at 1,000 workers
  assert.equal(time.anchor.medianMs, 500); // at 10
  assert.equal(by('hover').ratio, 210 / 110);
  assert.equal(by('Run to Stop shown').ours.medianMs, 120);
  assert.equal(by('Stop clicked').ours.medianMs, 400);
  assert.equal(by('Stop clicked').anchor.medianMs, 1000);
  assert.equal(rows.length, 6);
});

test('the figures are read from the e2e\'s log line or its JSON file; none when it has not run', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-bench-scale-'));
  try {
    const log = path.join(dir, 'e2e.log');
    fs.writeFileSync(log, `panel live scale (issue 44):\n  figures\nPANEL_SCALE ${JSON.stringify(FIGURES)}\n# tests 2\n`);
    assert.equal(codeServerBenchmarks(log).length, 6);
    const json = path.join(dir, 'panel-scale.json');
    fs.writeFileSync(json, JSON.stringify(FIGURES));
    assert.equal(codeServerBenchmarks(json).length, 6);
    assert.deepEqual(codeServerBenchmarks(path.join(dir, 'absent.json')), []);
    // a file far larger than the figures: read up to the bound, not whole
    const big = path.join(dir, 'big.json');
    fs.writeFileSync(big, `PANEL_SCALE ${'x'.repeat(3_000_000)}`);
    assert.deepEqual(codeServerBenchmarks(big), []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('figures that are missing, not numbers or zero make no row (no NaN, no division by zero)', () => {
  assert.equal(panelScaleJson('PANEL_SCALE not json'), null);
  assert.equal(panelScaleJson('[1, 2]'), null);
  assert.deepEqual(codeServerRows({}), []);
  const bad = {
    w10: { ...FIGURES.w10, events: 0 },
    w1000: { ...FIGURES.w1000, bytes: '3000000' },
    hover: { idleMedian: 0, duringMedian: 210 },
    stop: { stoppedMs: -5 },
  };
  assert.deepEqual(codeServerRows(bad), []);
  for (const r of codeServerRows({ ...FIGURES, w10: null })) assert.ok(Number.isFinite(r.ratio), r.benchmark);
});
