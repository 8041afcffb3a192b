// `turn eval FILE --samples N --model M` (docs/testing.md): runs a program, or a test file's tests,
// N times against a model and measures each sample — passed or not, the confidence of each reply,
// tokens and latency — then sums them up: pass rate, confidence distribution, token and latency
// figures. A program's sample passes when it ends without an error; a test file's when every
// selected test passes (tests run live: recordings are for `turn test`).
import { RunSetupError } from '../run/errors.js';
import { startRun } from '../run/run.js';
import { discoverTests } from './discover.js';
import { countInference, emptyStats, passedOn, runTest, type InferenceStats, type TestRunOptions } from './run-test.js';
import { selectTests } from './runner.js';
import { TEST_FILE_SUFFIX } from './discover.js';

export interface EvalSample {
  sample: number;
  passed: boolean;
  /** why it did not pass (the first failure) */
  error?: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  latencyMs: number;
  /** the confidence of each valid model reply */
  confidences: number[];
  durationMs: number;
}

export interface Distribution {
  count: number;
  min: number | null;
  p10: number | null;
  median: number | null;
  mean: number | null;
  max: number | null;
}

export interface EvalReport {
  file: string;
  model: string;
  samples: EvalSample[];
  passRate: number;
  confidence: Distribution & { histogram: { from: number; to: number; count: number }[] };
  tokens: { input: number; output: number; meanPerSample: number };
  latencyMs: Distribution;
}

export interface EvalOptions extends TestRunOptions {
  samples: number;
  /** samples run at once (default 1) */
  jobs?: number;
  /** a test file: only the tests whose name contains this */
  filter?: string;
}

export class EvalError extends Error {}

function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.round(q * (sorted.length - 1))));
  return sorted[i];
}

export function distribution(values: number[]): Distribution {
  const s = values.slice().sort((a, b) => a - b);
  const round = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);
  return {
    count: s.length,
    min: round(s[0] ?? null),
    p10: round(quantile(s, 0.1)),
    median: round(quantile(s, 0.5)),
    mean: round(s.length ? s.reduce((a, b) => a + b, 0) / s.length : null),
    max: round(s[s.length - 1] ?? null),
  };
}

const addStats = (a: InferenceStats, b: InferenceStats): void => {
  a.calls += b.calls;
  a.inputTokens += b.inputTokens;
  a.outputTokens += b.outputTokens;
  a.latencyMs += b.latencyMs;
  a.confidences.push(...b.confidences);
};

async function programSample(file: string, options: EvalOptions): Promise<{ passed: boolean; error?: string; stats: InferenceStats }> {
  const stats = emptyStats();
  let run;
  try {
    run = await startRun({
      file,
      ...(options.model !== undefined ? { model: options.model } : {}),
      ...(options.env ? { env: options.env } : {}),
      authority: { ...options.authority, approve: 'none' },
      ...(options.maxSteps !== undefined ? { maxSteps: options.maxSteps } : {}),
      ...(options.maxTimeMs !== undefined ? { maxTimeMs: options.maxTimeMs } : {}),
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...passedOn(options),
      onEvent: (e) => countInference(stats, e),
    });
  } catch (e) {
    if (e instanceof RunSetupError) throw new EvalError(e.diagnostics.length > 0 ? `${file} does not compile` : e.message);
    throw e;
  }
  const result = await run.start();
  if (result.kind === 'done') return { passed: true, stats };
  const error =
    result.kind === 'failed'
      ? `${result.error.path}:${result.error.line}:${result.error.column}: ${result.error.message}`
      : result.kind === 'stopped'
        ? result.reason
        : result.kind === 'aborted'
          ? result.message
          : `the run is ${result.kind}`;
  return { passed: false, error, stats };
}

export async function evaluate(file: string, options: EvalOptions): Promise<EvalReport> {
  const model = options.model ?? options.env?.TURN_MODEL ?? process.env.TURN_MODEL ?? 'mock';
  const isTests = file.endsWith(TEST_FILE_SUFFIX);
  let tests: Awaited<ReturnType<typeof discoverTests>>['tests'] = [];
  if (isTests) {
    const found = await discoverTests(file);
    if (found.error) throw new EvalError(found.error);
    tests = selectTests(found.tests, options.filter);
    if (tests.length === 0) throw new EvalError(`${file}: no test matches${options.filter !== undefined ? ` --filter ${options.filter}` : ''}`);
  }
  const one = async (sample: number): Promise<EvalSample> => {
    const started = performance.now();
    const stats = emptyStats();
    let passed = true;
    let error: string | undefined;
    if (isTests) {
      for (const t of tests) {
        const { result } = await runTest(file, t, { kind: 'live' }, { ...options, model });
        addStats(stats, result.inference);
        if (result.status !== 'passed' && passed) {
          passed = false;
          error = `${t.name}: ${result.message ?? 'failed'}`;
        }
      }
    } else {
      const r = await programSample(file, { ...options, model });
      addStats(stats, r.stats);
      passed = r.passed;
      error = r.error;
    }
    return {
      sample,
      passed,
      ...(error !== undefined ? { error } : {}),
      calls: stats.calls,
      inputTokens: stats.inputTokens,
      outputTokens: stats.outputTokens,
      latencyMs: Math.round(stats.latencyMs * 10) / 10,
      confidences: stats.confidences.map((c) => Math.round(c * 1000) / 1000),
      durationMs: Math.round(performance.now() - started),
    };
  };
  const samples: EvalSample[] = new Array<EvalSample>(options.samples);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < options.samples) {
      const k = next++;
      samples[k] = await one(k + 1);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.jobs ?? 1, options.samples)) }, worker));
  const confidences = samples.flatMap((s) => s.confidences);
  const histogram = Array.from({ length: 5 }, (_, k) => ({ from: k / 5, to: (k + 1) / 5, count: 0 }));
  for (const c of confidences) histogram[Math.min(4, Math.floor(c * 5))].count++;
  const input = samples.reduce((a, s) => a + s.inputTokens, 0);
  const output = samples.reduce((a, s) => a + s.outputTokens, 0);
  return {
    file,
    model,
    samples,
    passRate: samples.filter((s) => s.passed).length / samples.length,
    confidence: { ...distribution(confidences), histogram },
    tokens: { input, output, meanPerSample: Math.round(((input + output) / samples.length) * 10) / 10 },
    latencyMs: distribution(samples.map((s) => s.latencyMs)),
  };
}

/** The report as a table for a terminal. */
export function evalTable(r: EvalReport): string {
  const rows = [['sample', 'result', 'calls', 'tokens in', 'tokens out', 'latency ms', 'confidence']];
  for (const s of r.samples) {
    rows.push([
      String(s.sample),
      s.passed ? 'pass' : 'FAIL',
      String(s.calls),
      String(s.inputTokens),
      String(s.outputTokens),
      String(s.latencyMs),
      s.confidences.length ? s.confidences.join(' ') : '-',
    ]);
  }
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  const line = (row: string[]): string => row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]))).join('  ');
  const out = [line(rows[0]), ...rows.slice(1).map(line)];
  const fmt = (x: number | null): string => (x === null ? '-' : String(x));
  const c = r.confidence;
  out.push('');
  out.push(`pass rate: ${Math.round(r.passRate * 1000) / 10}% (${r.samples.filter((s) => s.passed).length} of ${r.samples.length}) with ${r.model}`);
  out.push(`confidence: ${c.count} replies; min ${fmt(c.min)}, p10 ${fmt(c.p10)}, median ${fmt(c.median)}, mean ${fmt(c.mean)}, max ${fmt(c.max)}`);
  out.push(`  ${c.histogram.map((h) => `[${h.from.toFixed(1)}, ${h.to.toFixed(1)}${h.to === 1 ? ']' : ')'}: ${h.count}`).join('  ')}`);
  out.push(`tokens: ${r.tokens.input} in, ${r.tokens.output} out (${r.tokens.meanPerSample} per sample)`);
  out.push(`model latency per sample (ms): median ${fmt(r.latencyMs.median)}, mean ${fmt(r.latencyMs.mean)}, max ${fmt(r.latencyMs.max)}`);
  for (const s of r.samples) if (!s.passed && s.error) out.push(`sample ${s.sample}: ${s.error}`);
  return out.join('\n') + '\n';
}
