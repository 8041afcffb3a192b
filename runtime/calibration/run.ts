// `turn calibrate` (docs/inference.md, *Calibration*): asks a model each labeled case of a dataset as
// a typed `infer`, through the same host a run has (budgets, vault, redaction, --consistency,
// --seed), with no calibration applied, and records each case's confidence per source and whether
// the bound value was right; then, per source with enough cases, fits an isotonic map and measures
// ECE, Brier and AUROC before and after it — on held-out cases when `holdout` sets some apart, else
// on the cases it was fitted on (which flatters the map) — and writes the maps to the calibration
// file under the model's identity.
import * as path from 'node:path';
import { sha256Hex } from '../hash.js';
import type { ConfidenceInfo } from '../infer/confidence.js';
import { runInfer } from '../infer/driver.js';
import { buildHost } from '../run/host.js';
import type { RunOptions } from '../run/options.js';
import { resolveModelSpec } from '../run/model.js';
import { readDataset, isRight, type LabeledCase } from './dataset.js';
import { findCalibrationTests, isTestsPath, runCalibrationTest } from './from-tests.js';
import type { TestRunOptions } from '../testing/run-test.js';
import { DEFAULT_CALIBRATION_FILE, mapId, SOURCES, writeCalibration, type CalibratedSource, type CalibrationMap } from './file.js';
import { modelIdentity, type ModelIdentity } from './identity.js';
import { applyMap, fitIsotonic, MIN_CASES } from './isotonic.js';
import { metrics, reliability, type Metrics, type Scored } from './metrics.js';

export interface CalibrateOptions extends Omit<RunOptions, 'calibration'> {
  /** a JSONL dataset (dataset.ts), or a test file or folder of them (from-tests.ts) */
  dataset: string;
  /** the calibration file to write (default DEFAULT_CALIBRATION_FILE in cwd); false: write nothing */
  out?: string | false;
  /** the share of cases (0 to below 1) set apart to measure the maps on, chosen by a hash of each case's id */
  holdout?: number;
  /** called after each case */
  onCase?: (done: number, total: number, result: CaseResult) => void;
}

export interface CaseResult {
  id: string;
  line: number;
  /** false: the infer failed (no conforming reply, or the model call failed); the case is left out */
  ok: boolean;
  right?: boolean;
  value?: unknown;
  /** the raw confidence by source, as this case's reply gave them */
  confidence?: Partial<Record<CalibratedSource, number>>;
  /** held out of the fit, to measure it */
  heldOut: boolean;
  error?: string;
}

export interface SourceReport {
  source: CalibratedSource;
  fitted: number;
  heldOut: number;
  /** which cases `before` and `after` are measured on */
  on: 'held-out' | 'fitted';
  before: Metrics;
  after?: Metrics;
  /** the map's id, or why there is none */
  map?: string;
  skipped?: string;
}

export interface CalibrationReport {
  model: ModelIdentity;
  dataset: string;
  cases: number;
  failed: number;
  sources: SourceReport[];
  /** the file the maps were written to */
  file?: string;
  /** why the cases after some were not asked (a run-wide budget, --max-model-tokens, was spent) */
  stopped?: string;
  results: CaseResult[];
}

/** The raw confidence of each source a reply's confidence holds. */
export function bySource(info: ConfidenceInfo): Partial<Record<CalibratedSource, number>> {
  const out: Partial<Record<CalibratedSource, number>> = {};
  if (info.samples !== undefined && info.agreeing !== undefined && info.samples > 0) out.agreement = info.agreeing / info.samples;
  if (info.fromLogprobs !== undefined) out.logprobs = info.fromLogprobs;
  if (info.reported !== undefined) out.reported = info.reported;
  if (info.source === 'unreported') out.unreported = info.value;
  return out;
}

/** Whether a case is held out: a hash of its id below the share, so the split is the same on every run. */
export function heldOut(c: Pick<LabeledCase, 'id'>, share: number): boolean {
  if (share <= 0) return false;
  return parseInt(sha256Hex('turn-calibrate-split', c.id).slice(0, 8), 16) / 0x1_0000_0000 < share;
}

export async function calibrate(options: CalibrateOptions): Promise<CalibrationReport> {
  const cwd = options.cwd ?? process.cwd();
  const datasetFile = path.resolve(cwd, options.dataset);
  const holdout = options.holdout ?? 0;
  const spec = resolveModelSpec(options.model, options.env ?? process.env, cwd);
  if (isTestsPath(datasetFile)) return calibrateOnTests(options, datasetFile, spec);
  const { cases, bytes } = readDataset(datasetFile);
  const identity = await modelIdentity(spec, cwd);
  // the raw confidences are what is measured: no calibration file is read
  const setup = await buildHost({ ...options, calibration: false });
  const results: CaseResult[] = [];
  let stopped: string | undefined;
  try {
    for (const [i, c] of cases.entries()) {
      const outcome = await runInfer(
        { typeName: c.typeName, schema: c.schema, prompt: c.prompt, pid: 1, tiers: { system: c.system ? [c.system] : [], episodic: [], working: [] } },
        (request, io) => setup.host.infer(request, io),
        { id: `calibrate-${i + 1}`, ...(setup.inferRetries !== undefined ? { retries: setup.inferRetries } : {}) },
      );
      const held = heldOut(c, holdout);
      const result: CaseResult = outcome.ok
        ? { id: c.id, line: c.line, ok: true, right: isRight(c, outcome.value), value: outcome.value, confidence: bySource(outcome.confidence), heldOut: held }
        : { id: c.id, line: c.line, ok: false, heldOut: held, error: outcome.message };
      results.push(result);
      options.onCase?.(i + 1, cases.length, result);
      // a run-wide budget spent ends the calibration: the cases after it would all fail the same way
      if (!outcome.ok && outcome.details.reason === 'budget') {
        stopped = `stopped after case ${i + 1} of ${cases.length}: ${outcome.message}`;
        break;
      }
    }
  } finally {
    setup.close();
  }
  return finish(options, identity, datasetFile, sha256Hex(bytes), cases.length, results, stopped);
}

/** Fits and measures the maps of `results`, writes them, and makes the report. */
function finish(options: CalibrateOptions, identity: ModelIdentity, datasetFile: string, datasetSha256: string, cases: number, results: CaseResult[], stopped: string | undefined): CalibrationReport {
  const cwd = options.cwd ?? process.cwd();
  const { sources, maps } = fit(results, identity, (options.holdout ?? 0) > 0);
  const datasetName = path.basename(datasetFile);
  const at = new Date().toISOString();
  for (const m of maps) m.fitted = { ...m.fitted, dataset: datasetName, datasetSha256, at };
  let file: string | undefined;
  if (options.out !== false && maps.length > 0) {
    file = path.resolve(cwd, options.out ?? DEFAULT_CALIBRATION_FILE);
    writeCalibration(file, maps);
  }
  return { model: identity, dataset: datasetFile, cases, failed: results.filter((r) => !r.ok).length, sources, ...(file ? { file } : {}), ...(stopped ? { stopped } : {}), results };
}

/**
 * A test file or folder as the dataset (from-tests.ts): each test with a qualifying expectation is
 * run live as `turn test` runs it — the same limits, grants and scratch store — and its case is the
 * confidence of its one inferred value and whether its expectations held.
 */
async function calibrateOnTests(options: CalibrateOptions, datasetFile: string, spec: string): Promise<CalibrationReport> {
  const cwd = options.cwd ?? process.cwd();
  const { tests, sha256 } = await findCalibrationTests([datasetFile]);
  const identity = await modelIdentity(spec, cwd);
  const testOptions: TestRunOptions = { model: spec, cwd };
  for (const k of ['env', 'maxSteps', 'maxTimeMs', 'maxAlloc', 'toolTimeoutMs', 'seed', 'context', 'fetchSchemas', 'refreshSchemas', 'temperature', 'maxTokens', 'consistency', 'authority'] as const) {
    if (options[k] !== undefined) (testOptions as Record<string, unknown>)[k] = options[k];
  }
  const results: CaseResult[] = [];
  for (const [i, t] of tests.entries()) {
    const outcome = await runCalibrationTest(t, testOptions);
    const id = `${path.relative(cwd, t.file) || t.file}: ${t.test.name}`;
    const held = heldOut({ id }, options.holdout ?? 0);
    const result: CaseResult = outcome.ok
      ? { id, line: t.test.line, ok: true, right: outcome.right, confidence: bySource(outcome.confidence!), heldOut: held }
      : { id, line: t.test.line, ok: false, heldOut: held, error: outcome.error };
    results.push(result);
    options.onCase?.(i + 1, tests.length, result);
  }
  return finish(options, identity, datasetFile, sha256, tests.length, results, undefined);
}

/** Fits a map per source with at least MIN_CASES fitted cases, and measures each before and after. */
export function fit(results: readonly CaseResult[], model: ModelIdentity, evaluateHeldOut: boolean): { sources: SourceReport[]; maps: CalibrationMap[] } {
  const sources: SourceReport[] = [];
  const maps: CalibrationMap[] = [];
  for (const source of SOURCES) {
    const train: Scored[] = [];
    const test: Scored[] = [];
    for (const r of results) {
      const c = r.confidence?.[source];
      if (!r.ok || c === undefined) continue;
      (r.heldOut ? test : train).push({ confidence: c, right: r.right === true });
    }
    if (train.length + test.length === 0) continue;
    const on = evaluateHeldOut ? 'held-out' : 'fitted';
    const measured = evaluateHeldOut ? test : train;
    const report: SourceReport = { source, fitted: train.length, heldOut: test.length, on, before: metrics(measured) };
    if (train.length < MIN_CASES) {
      report.skipped = `${train.length} cases to fit on, fewer than ${MIN_CASES}`;
      sources.push(report);
      continue;
    }
    if (evaluateHeldOut && test.length === 0) {
      report.skipped = 'no held-out case to measure the map on';
      sources.push(report);
      continue;
    }
    const iso = fitIsotonic(train);
    const after = measured.map((s) => ({ confidence: applyMap(iso, s.confidence), right: s.right }));
    report.after = metrics(after);
    const body = { model, source, method: iso.method, points: iso.points };
    const id = mapId(body);
    report.map = id;
    maps.push({
      id,
      ...body,
      fitted: { cases: train.length },
      evaluation: { on, before: report.before, after: report.after, reliability: { before: reliability(measured), after: reliability(after) } },
    });
    sources.push(report);
  }
  return { sources, maps };
}
