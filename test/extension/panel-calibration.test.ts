// The run panel's calibration pieces (docs/editor.md, *Calibration in the panel*): where the
// reliability diagram puts each bin (webview/reliability.ts, plain data), the lines the infer detail
// and the diagram print, the request/answer messages for a map by id (protocol/calibration.ts) with
// hostile answers dropped, and the host's lookup of the map in the run's calibration file
// (panel/calibration.ts).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { calibrationLine, diagramPoints, figuresLine, plotAt, PLOT, polyline } from '../../extension/panel/webview/reliability.js';
import { isHostMessage, isWebviewMessage } from '../../extension/protocol/panel.js';
import type { CalibrationMapView, ReliabilityBinView } from '../../extension/protocol/calibration.js';
import { calibrationFileOf, calibrationMapView } from '../../extension/panel/calibration.js';
import { fit, type CaseResult } from '../../runtime/calibration/run.js';
import { writeCalibration } from '../../runtime/calibration/file.js';

const bin = (from: number, cases: number, confidence: number | null, accuracy: number | null): ReliabilityBinView => ({ from, to: Math.round((from + 0.1) * 10) / 10, cases, confidence, accuracy });

describe('the reliability diagram\'s points', () => {
  test('a bin sits at (mean confidence, accuracy): right for confidence, up for accuracy, inside the margins', () => {
    const { size, pad } = PLOT;
    const w = size - 2 * pad;
    assert.deepEqual(plotAt(0, 0), { x: pad, y: size - pad }, 'the origin is bottom left');
    assert.deepEqual(plotAt(1, 1), { x: size - pad, y: pad }, 'certainty and all right is top right');
    assert.deepEqual(plotAt(0.9, 0.5), { x: pad + 0.9 * w, y: pad + 0.5 * w });
    assert.deepEqual(plotAt(1.5, -1), { x: size - pad, y: size - pad }, 'clamped to the square');
  });

  test('only bins with cases are drawn; the largest bin has the largest dot; the line goes left to right', () => {
    const bins = [bin(0, 0, null, null), bin(0.3, 5, 0.33, 0.2), bin(0.6, 0, null, null), bin(0.9, 20, 0.9, 0.5)];
    const points = diagramPoints(bins);
    assert.equal(points.length, 2);
    const [low, high] = points;
    assert.deepEqual({ x: low.x, y: low.y, cases: low.cases }, { ...plotAt(0.33, 0.2), cases: 5 });
    assert.deepEqual({ x: high.x, y: high.y, cases: high.cases }, { ...plotAt(0.9, 0.5), cases: 20 });
    assert.equal(high.r, 6);
    assert.equal(low.r, 4, 'radius 2 + 4 * sqrt(5 / 20)');
    assert.ok(high.y < low.y, 'more accurate is higher');
    assert.equal(polyline([high, low]), `${low.x},${low.y} ${high.x},${high.y}`);
    assert.deepEqual(diagramPoints([]), []);
  });

  test('the lines the panel prints: raw → calibrated with the map, and the figures before and after', () => {
    assert.equal(calibrationLine(0.48780487, { source: 'reported', raw: 0.9, map: 'c7fa0cf1bee9e014' }), 'confidence 0.9 → 0.488 (calibrated by map c7fa0cf1bee9e014 for reported)');
    const view = mapView();
    assert.equal(figuresLine(view), 'ECE 0.400 → 0.012, Brier 0.410 → 0.250, AUROC 0.500 (on 54 held-out cases)');
    assert.equal(figuresLine({ ...view, on: 'fitted' }), 'ECE 0.400 → 0.012, Brier 0.410 → 0.250, AUROC 0.500 (on the 54 cases it was fitted on)');
    assert.equal(figuresLine({ ...view, before: null, after: null }), 'no figures in the calibration file');
  });
});

function mapView(): CalibrationMapView {
  return {
    id: '0123456789abcdef',
    source: 'reported',
    model: 'script:replies.json',
    file: '/w/.turn/calibration.json',
    fitted: { cases: 156, dataset: 'cases.jsonl' },
    on: 'held-out',
    before: { cases: 54, accuracy: 0.5, ece: 0.4, brier: 0.41, auroc: 0.5 },
    after: { cases: 54, accuracy: 0.5, ece: 0.012, brier: 0.25, auroc: 0.5 },
    reliability: { before: [bin(0.9, 54, 0.9, 0.5)], after: [bin(0.4, 54, 0.49, 0.5)] },
    points: [[0.9, 0.49]],
  };
}

describe('the messages for a map', () => {
  const id = '0123456789abcdef';
  test('the webview asks by a map id, and only by one', () => {
    assert.equal(isWebviewMessage({ type: 'calibrationMap', v: 1, map: id }), true);
    for (const map of ['', '../etc/passwd', id.toUpperCase(), id + '0', 42, null]) {
      assert.equal(isWebviewMessage({ type: 'calibrationMap', v: 1, map }), false, String(map));
    }
  });

  test('the host\'s answer is checked number by number; a malformed one is dropped', () => {
    const ok = { type: 'calibrationMap', v: 1, map: id, view: mapView(), message: null };
    assert.equal(isHostMessage(ok), true);
    assert.equal(isHostMessage({ type: 'calibrationMap', v: 1, map: id, view: null, message: 'map gone' }), true);
    const v = mapView();
    const bad: [string, unknown][] = [
      ['another map\'s view', { ...v, id: 'fedcba9876543210' }],
      ['an accuracy above 1', { ...v, reliability: { before: [bin(0.9, 3, 0.9, 1.5)], after: [] } }],
      ['a negative count', { ...v, reliability: { before: [bin(0.9, -3, 0.9, 0.5)], after: [] } }],
      ['NaN in a figure', { ...v, before: { ...v.before!, ece: Number.NaN } }],
      ['101 bins', { ...v, reliability: { before: Array.from({ length: 101 }, () => bin(0, 1, 0.05, 0.5)), after: [] } }],
      ['a breakpoint outside [0, 1]', { ...v, points: [[0.9, 2]] }],
      ['a model name of 5,000 characters', { ...v, model: 'x'.repeat(5000) }],
    ];
    for (const [what, view] of bad) assert.equal(isHostMessage({ ...ok, view }), false, what);
    assert.equal(isHostMessage({ ...ok, message: 'both' }), false, 'a view or a message, not both');
  });
});

describe('the host finds the map in the run\'s calibration file', () => {
  function fileWithMap(): { dir: string; id: string } {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-panel-calibration-'));
    // 40 cases at 0.9, right half the time: one reported map
    const results: CaseResult[] = Array.from({ length: 40 }, (_, i) => ({ id: `c${i}`, line: i + 1, ok: true, right: i % 2 === 0, confidence: { reported: 0.9 }, heldOut: false }));
    const { maps } = fit(results, { provider: 'script', model: 'replies.json' }, false);
    writeCalibration(path.join(dir, '.turn', 'calibration.json'), maps);
    return { dir, id: maps[0].id };
  }

  test('the default file of the run\'s folder, the map by its id, with its reliability tables', () => {
    const { dir, id } = fileWithMap();
    assert.equal(calibrationFileOf({ cwd: dir }), path.join(dir, '.turn', 'calibration.json'));
    const { view, message } = calibrationMapView({ cwd: dir }, id);
    assert.equal(message, null);
    assert.equal(view!.id, id);
    assert.equal(view!.source, 'reported');
    assert.equal(view!.model, 'script:replies.json');
    assert.equal(view!.reliability!.before.length, 10);
    const [point, ...more] = diagramPoints(view!.reliability!.before);
    assert.equal(more.length, 0, 'one bin with cases');
    assert.deepEqual({ x: point.x, y: point.y, cases: point.cases }, { ...plotAt(0.9, 0.5), cases: 40 });
    assert.ok(isHostMessage({ type: 'calibrationMap', v: 1, map: id, view, message }), 'what the host sends passes the webview\'s check');
  });

  test('a map no longer in the file, no file, a file edited by hand: a line saying so, never a view', () => {
    const { dir, id } = fileWithMap();
    assert.match(calibrationMapView({ cwd: dir }, 'fedcba9876543210').message!, /map fedcba9876543210 is no longer in .*calibration\.json/);
    assert.match(calibrationMapView({ cwd: dir, calibration: false }, id).message!, /use no calibration file/);
    const file = path.join(dir, '.turn', 'calibration.json');
    const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { maps: { points: number[][] }[] };
    data.maps[0].points[0][1] = 0.99;
    fs.writeFileSync(file, JSON.stringify(data));
    const edited = calibrationMapView({ cwd: dir }, id);
    assert.equal(edited.view, null);
    assert.match(edited.message!, /does not match the map's content/);
  });
});
