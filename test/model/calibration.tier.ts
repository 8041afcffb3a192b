// Calibration measured on the real model (`npm run test:model`; docs/inference.md, *Calibration*):
// Gemma 3 270M in process answers the 210 labeled cases of examples/calibration/cases.jsonl (sums,
// products, comparisons, sentiment, kinds of things, capitals: a small model gets some right), each
// asked 3 times (`--consistency 3`, temperature 0.8), so every case gives two confidences — the
// agreement of the samples and the model's own report. 30% of the cases (by a hash of their id) are
// held out; an isotonic map is fitted per source on the rest. The claim: on the held-out cases the
// calibrated ECE is lower than the raw one, for every source with enough data. It prints the figures
// (kept in docs/inference.md), then checks that a run with the written file binds the calibrated
// confidence and journals the raw one.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { calibrate } from '../../runtime/calibration/run.js';
import { MIN_CASES } from '../../runtime/calibration/isotonic.js';
import { readCalibration } from '../../runtime/calibration/file.js';
import { applyMap } from '../../runtime/calibration/isotonic.js';
import { startRun } from '../../runtime/run/run.js';
import type { RunEvent } from '../../runtime/events/index.js';
import { ROOT } from '../cli/run-cli.js';

const THREADS = Number(process.env.TURN_MODEL_THREADS ?? 1);
/** A source needs this many held-out cases for its ECE to say something. */
const MIN_HELD_OUT = 20;

test('calibrated ECE is lower than raw ECE on held-out cases, for every source with enough data (Gemma 3 270M)', async () => {
  const { ensureModel } = await import('./install.mjs');
  const modelFile = ensureModel().file;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-model-calibration-'));
  const out = path.join(dir, 'calibration.json');
  const model = `llama:${modelFile}?threads=${THREADS}&context_size=2048`;
  const t0 = performance.now();
  const report = await calibrate({
    dataset: path.join(ROOT, 'examples', 'calibration', 'cases.jsonl'),
    cwd: dir,
    model,
    consistency: 3,
    temperature: 0.8,
    seed: 1,
    maxTokens: 40,
    holdout: 0.3,
    out,
  });
  const seconds = (performance.now() - t0) / 1000;
  const lines = [`\ncalibration on the real model: ${report.cases} cases, ${report.failed} failed, ${seconds.toFixed(0)} s`];
  for (const s of report.sources) {
    lines.push(
      `  ${s.source}: fitted on ${s.fitted}, measured on ${s.heldOut} held out; accuracy ${s.before.accuracy.toFixed(3)}; ` +
        `ECE ${s.before.ece.toFixed(3)} -> ${s.after ? s.after.ece.toFixed(3) : '-'}; Brier ${s.before.brier.toFixed(3)} -> ${s.after ? s.after.brier.toFixed(3) : '-'}; ` +
        `AUROC ${s.before.auroc === null ? '-' : s.before.auroc.toFixed(3)}${s.map ? `; map ${s.map}` : `; no map (${s.skipped})`}`,
    );
  }
  process.stdout.write(lines.join('\n') + '\n');
  assert.ok(report.cases >= 200, 'at least 200 labeled cases');
  const enough = report.sources.filter((s) => s.fitted >= MIN_CASES && s.heldOut >= MIN_HELD_OUT);
  assert.deepEqual(enough.map((s) => s.source).sort(), ['agreement', 'reported'], 'both sources the run gives have enough data');
  for (const s of enough) {
    assert.ok(s.map && s.after, `${s.source}: a map was fitted`);
    assert.ok(s.after.ece < s.before.ece, `${s.source}: calibrated ECE ${s.after.ece} < raw ECE ${s.before.ece} on held-out cases`);
  }

  // the file is the run's: the same model binds the calibrated confidence and journals the raw one
  const file = readCalibration(out)!;
  assert.equal(file.maps.length, enough.length);
  const program = path.join(dir, 'one.tn');
  fs.writeFileSync(program, 'let v = infer "positive" | "negative" { "What is the sentiment of this review? Review: \\"Great food.\\""; };\nreturn confidence v;\n');
  const events: RunEvent[] = [];
  const run = await startRun({ file: program, cwd: dir, model, calibration: out, maxTokens: 40, seed: 1, temperature: 0, onEvent: (e) => events.push(e) });
  const result = await run.start();
  assert.equal(result.kind, 'done', JSON.stringify(result));
  const reply = events.find((e): e is Extract<RunEvent, { kind: 'infer.reply' }> => e.kind === 'infer.reply' && e.valid)!;
  const c = reply.confidence!;
  const map = file.maps.find((m) => m.source === c.source);
  assert.ok(map, `a map for ${c.source}`);
  assert.equal(c.calibration, map.id);
  assert.equal(c.value, applyMap(map, c.raw!));
  assert.equal((result as { json: unknown }).json, c.value);
});
