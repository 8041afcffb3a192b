// ECE, Brier, AUROC and the isotonic map (runtime/calibration/metrics.ts, isotonic.ts), against
// values worked out by hand in the comments.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { auroc, brier, ece, reliability } from '../../runtime/calibration/metrics.js';
import { applyMap, fitIsotonic } from '../../runtime/calibration/isotonic.js';

const close = (a: number, b: number, msg?: string) => assert.ok(Math.abs(a - b) < 1e-12, `${msg ?? ''} ${a} != ${b}`);

// 0.9 right, 0.9 right, 0.9 wrong, 0.2 wrong
const cases = [
  { confidence: 0.9, right: true },
  { confidence: 0.9, right: true },
  { confidence: 0.9, right: false },
  { confidence: 0.2, right: false },
];

test('ECE: bins weighted by their cases', () => {
  // bin [0.9, 1]: 3 cases, accuracy 2/3, confidence 0.9 -> 3 * 0.2333.. = 0.7
  // bin [0.2, 0.3): 1 case, accuracy 0, confidence 0.2 -> 0.2;  (0.7 + 0.2) / 4 = 0.225
  close(ece(cases), 0.225);
  close(ece([{ confidence: 1, right: true }]), 0, 'a confidence of 1 falls in the last bin');
  close(ece([{ confidence: 0.75, right: true }, { confidence: 0.75, right: true }, { confidence: 0.75, right: false }, { confidence: 0.75, right: true }]), 0, '3 of 4 right at 0.75 is calibrated');
  assert.equal(ece([]), 0);
});

test('Brier: mean squared error of the confidence against 1 (right) / 0 (wrong)', () => {
  // (0.01 + 0.01 + 0.81 + 0.04) / 4
  close(brier(cases), 0.2175);
});

test('AUROC: a tie counts half; undefined when all are right or all wrong', () => {
  // right {0.9, 0.9} against wrong {0.9, 0.2}: each right case ties one (0.5) and beats one (1): 3 / 4
  close(auroc(cases)!, 0.75);
  close(auroc([{ confidence: 0.1, right: false }, { confidence: 0.8, right: true }])!, 1);
  close(auroc([{ confidence: 0.8, right: false }, { confidence: 0.1, right: true }])!, 0);
  assert.equal(auroc([{ confidence: 0.8, right: true }]), null);
  assert.equal(auroc([{ confidence: 0.8, right: false }, { confidence: 0.3, right: false }]), null);
});

test('the reliability table: bounds, counts, mean confidence and accuracy per bin', () => {
  const t = reliability(cases);
  assert.equal(t.length, 10);
  assert.deepEqual(t[9], { from: 0.9, to: 1, cases: 3, confidence: 0.9, accuracy: 2 / 3 });
  assert.deepEqual(t[2], { from: 0.2, to: 0.3, cases: 1, confidence: 0.2, accuracy: 0 });
  assert.deepEqual(t[0], { from: 0, to: 0.1, cases: 0, confidence: null, accuracy: null });
});

test('PAV pools the blocks that break the order, then shrinks each toward 1/2 by half a case a side', () => {
  // 0.1: [1], 0.2: [0] -> pooled {0.1..0.2: 1 of 2}; 0.3: [1, 1], 0.4: [0, 1] -> pooled {0.3..0.4: 3 of 4}
  // shrunk: (1 + 0.5) / (2 + 1) = 0.5 and (3 + 0.5) / (4 + 1) = 0.7
  const map = fitIsotonic([
    { confidence: 0.1, right: true },
    { confidence: 0.2, right: false },
    { confidence: 0.3, right: true },
    { confidence: 0.3, right: true },
    { confidence: 0.4, right: false },
    { confidence: 0.4, right: true },
  ]);
  assert.equal(map.points.length, 4);
  const want = [[0.1, 0.5], [0.2, 0.5], [0.3, 0.7], [0.4, 0.7]];
  map.points.forEach(([x, y], i) => {
    close(x, want[i][0]);
    close(y, want[i][1]);
  });
  close(applyMap(map, 0.25), 0.6, 'linear between breakpoints');
  close(applyMap(map, 0.05), 0.5, 'flat below');
  close(applyMap(map, 0.95), 0.7, 'flat above');
  close(applyMap(map, 0.35), 0.7, 'inside a block');
});

test('an overconfident source is pulled down to its accuracy, and the map never decreases', () => {
  // 40 cases at 0.9, 10 of them right; 40 at 0.6, 30 right: more confidence, less accuracy -> one pool
  const data = [
    ...Array.from({ length: 40 }, (_, i) => ({ confidence: 0.9, right: i < 10 })),
    ...Array.from({ length: 40 }, (_, i) => ({ confidence: 0.6, right: i < 30 })),
  ];
  const map = fitIsotonic(data);
  // pooled: 40 of 80, shrunk (40.5 / 81) = 0.5
  close(applyMap(map, 0.9), 0.5);
  close(applyMap(map, 0.6), 0.5);
  assert.ok(ece(data.map((d) => ({ ...d, confidence: applyMap(map, d.confidence) }))) < ece(data));
  for (let i = 1; i < map.points.length; i++) assert.ok(map.points[i][1] >= map.points[i - 1][1]);
  assert.throws(() => fitIsotonic([]), /no cases/);
});
