// One test, in a fresh VM, through the run API (runtime/run): a two-line program in a temporary
// folder `use`s the test file and calls the one test; its model requests are answered live (a
// model spec) or from the recording, where each request is checked against the recorded ones by
// fingerprint before it is answered — a request the recording does not hold stops the test as a
// "stale recording", with the diff from the closest recorded request.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { RunSetupError } from '../run/errors.js';
import { resumeRun, startRun, type Run } from '../run/run.js';
import type { AuthorityOptions, RunOptions } from '../run/options.js';
import type { RunEvent } from '../events/index.js';
import { DEFAULT_MODEL } from '../run/model.js';
import { MAX_SAMPLES } from '../infer/consistency.js';
import { formatDiagnostic } from '../diagnostics.js';
import { closestExchange, type Exchange, type LoadedCassette } from './cassette.js';
import { ExchangeLog, type SeenRequest } from './exchanges.js';
import type { TestCase } from './discover.js';

/**
 * A test's limits unless told otherwise: generous for a test, small enough that a runaway one ends.
 * The wall-clock limit holds for a test answered offline (a recording, the mock, a script); a test
 * that asks a live model over the network or in process has none by default, because each of its
 * model calls is bounded by the model's own time limits (connect, first byte, silence between
 * chunks; docs/inference.md) and a slow local model may need minutes. `--max-time` sets one.
 */
export const DEFAULT_TEST_MAX_STEPS = 50_000_000;
/** A test that suspends is resumed at once, up to this many times (a program that suspends in a loop ends). */
export const MAX_TEST_RESUMES = 100;
/** How the VM's `assert` and `assert_eq` begin their message (runtime/vm/tools.ts): a test that failed one finished. */
const ASSERTION_FAILED = 'assertion failed';
export const DEFAULT_TEST_MAX_TIME_MS = 60_000;

/** The default wall-clock limit of a test answered by `model`: DEFAULT_TEST_MAX_TIME_MS offline, none (0) for a live model. */
export function defaultTestTime(model: string): number {
  return model === 'mock' || model.startsWith('script:') ? DEFAULT_TEST_MAX_TIME_MS : 0;
}

export type TestStatus = 'passed' | 'failed' | 'stale';

export interface Location {
  path: string;
  line: number;
  column: number;
}

/** Measurements of a test's model calls (what `turn eval` reports per sample). */
export interface InferenceStats {
  calls: number;
  inputTokens: number;
  outputTokens: number;
  /** summed over the calls */
  latencyMs: number;
  /** the confidence of each valid reply */
  confidences: number[];
}

export interface TestResult {
  file: string;
  name: string;
  line: number;
  column: number;
  status: TestStatus;
  durationMs: number;
  /** one line: where and why it failed (`FILE:LINE:COL: ...`) */
  message?: string;
  /** where it failed: the failing assert, the error, the stale request */
  location?: Location;
  /** more lines: the stale request's diff, the error's stack */
  details?: string;
  /** what the test printed */
  output: string[];
  /** a stale recording: the closest recorded request and the request now, in full (for a diff view) */
  requests?: { recorded: string; now: string };
  inference: InferenceStats;
  /** this run recorded its exchanges (record mode, or an update of a stale recording) */
  recorded?: boolean;
  /** record mode kept the earlier recording, and why (the run did not complete its exchanges) */
  kept?: string;
}

/**
 * The run options of a test (and of an eval sample): every option `turn run` takes that shapes a
 * run, with the same meaning (cli/run-options.ts) — the model and how it is asked (temperature,
 * max tokens, consistency), the limits, the seed, the context budgets, the authority. `model`
 * defaults to TURN_MODEL, else mock.
 */
export type TestRunOptions = Pick<
  RunOptions,
  'model' | 'hostModels' | 'env' | 'maxSteps' | 'maxTimeMs' | 'maxAlloc' | 'toolTimeoutMs' | 'seed' | 'context' | 'cwd' | 'fetchSchemas' | 'refreshSchemas' | 'temperature' | 'maxTokens' | 'consistency' | 'calibration'
> & {
  authority?: AuthorityOptions;
  /** sees every event of the test's run (`turn calibrate` reads the replies' confidences from them) */
  observe?: (e: RunEvent) => void;
};

/** The options of `options` a test's run passes on as they are (those it does not set itself). */
export function passedOn(options: TestRunOptions): Partial<RunOptions> {
  const out: Partial<RunOptions> = {};
  for (const k of ['hostModels', 'maxAlloc', 'toolTimeoutMs', 'seed', 'context', 'fetchSchemas', 'refreshSchemas', 'temperature', 'maxTokens', 'consistency', 'calibration'] as const) {
    if (options[k] !== undefined) (out as Record<string, unknown>)[k] = options[k];
  }
  return out;
}

/** How the test's model requests are answered. */
export type Answering =
  | { kind: 'live' }
  /** from the test's recorded exchanges (none when the cassette has no entry for it) */
  | { kind: 'replay'; cassette: LoadedCassette; exchanges: Exchange[] };

let scratch: string | undefined;
let counter = 0;

/** This process's scratch folder for wrappers and reply fixtures (removed at exit). */
function scratchDir(): string {
  if (scratch === undefined) {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-test-'));
    const dir = scratch;
    process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  }
  return scratch;
}

/** A Turn string literal of `s` (docs/language.md: \" \\ and \u{..} escapes). */
function turnString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += '\\' + ch;
    else if (c < 0x20 || c === 0x7f) out += `\\u{${c.toString(16)}}`;
    else out += ch;
  }
  return out + '"';
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** The script fixture (runtime/providers/script.ts) that gives the recorded replies, in recorded order. */
function replyFixture(exchanges: Exchange[]): string {
  return JSON.stringify({
    // a recording whose infers offered tools was made with a model that takes them natively: the
    // replay says so too, so a program that asks (std/react: model_supports) takes the recorded path
    native_tools: exchanges.some((e) => e.request.tools !== undefined),
    replies: exchanges.flatMap((e) => {
      const entry: Record<string, unknown> = { type: e.type, match: `^${escapeRegExp(e.request.prompt)}$` };
      // an infer that offers tools: each recorded ask answers only its own round
      if (e.request.tools) entry.round = e.request.tool_rounds?.length ?? 0;
      const r = e.reply;
      // a self-consistent call: each sample answered by its own recorded text, so the agreement replays
      if ('text' in r && r.samples) return r.samples.map((text, i) => ({ ...entry, sample: i + 1, text }));
      if ('error' in r) entry.error = r.error;
      else if (r.tool_calls) {
        // the model's calls replay; the tools (program code) run again and their results must match the recording's
        entry.tool_calls = r.tool_calls;
        if (r.text) entry.text = r.text;
      } else {
        entry.text = r.text;
        if (r.logprobs) entry.logprobs = r.logprobs;
        if (r.usage) entry.usage = r.usage;
        if (r.finish_reason) entry.finish_reason = r.finish_reason;
      }
      return entry;
    }),
  });
}

export const emptyStats = (): InferenceStats => ({ calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0, confidences: [] });

/** Adds a model call's reply or error (the run events `infer.reply`, `infer.error`) to `stats`; other events leave it as it is. */
export function countInference(stats: InferenceStats, e: RunEvent): void {
  if (e.kind === 'infer.reply') {
    stats.calls += requestsOf(e);
    stats.inputTokens += e.usage?.inputTokens ?? 0;
    stats.outputTokens += e.usage?.outputTokens ?? 0;
    stats.latencyMs += e.latencyMs;
    if (e.valid && e.confidence) stats.confidences.push(e.confidence.value);
  } else if (e.kind === 'infer.error') {
    stats.calls++;
    stats.latencyMs += e.latencyMs;
  } else if (e.kind === 'http.retry') {
    // the request that failed and is sent again was a request too
    stats.calls++;
  }
}

/**
 * The HTTP requests behind one reply: a self-consistent call of k samples sent k (its meta lists
 * the samples answered and counts the ones that failed, runtime/infer/consistency.ts), else one.
 */
function requestsOf(e: Extract<RunEvent, { kind: 'infer.reply' }>): number {
  const samples = e.meta?.samples;
  if (!Array.isArray(samples)) return 1;
  const failed = e.meta?.failedSamples;
  return Math.min(MAX_SAMPLES, samples.length + (typeof failed === 'number' && Number.isSafeInteger(failed) && failed > 0 ? failed : 0));
}

/**
 * The program that runs one test: a file in a scratch folder that `use`s the test file and calls
 * the test, and, given recorded exchanges, the script fixture (`script:FILE`) that answers with
 * them. The debugger runs a test through this (recorded replies, no stale check).
 */
export function testProgram(file: string, testName: string, exchanges?: Exchange[]): { program: string; model?: string; storeDir: string } {
  const dir = scratchDir();
  const n = ++counter;
  const program = path.join(dir, `test-${n}.tn`);
  fs.writeFileSync(program, `let tests = use ${turnString(path.resolve(file))};\nreturn tests[${turnString(testName)}]();\n`);
  let model: string | undefined;
  if (exchanges) {
    const fixture = path.join(dir, `replies-${n}.json`);
    fs.writeFileSync(fixture, replyFixture(exchanges));
    model = `script:${fixture}`;
  }
  return { program, ...(model !== undefined ? { model } : {}), storeDir: path.join(dir, `store-${n}`) };
}

/** What one test run gives: its result, the exchanges it made, and whether they make a whole recording. */
export interface TestRun {
  result: TestResult;
  exchanges: Exchange[];
  /** null when every model request was answered and the test ran to its end (passed, or failed an assertion); else why not */
  incomplete: string | null;
}

/** Runs one test. Returns its result and the exchanges it made (what a recording keeps). */
export async function runTest(file: string, test: TestCase, answering: Answering, options: TestRunOptions = {}): Promise<TestRun> {
  const started = performance.now();
  const shown = (p: string): string => (path.isAbsolute(p) ? path.relative(options.cwd ?? process.cwd(), p) || p : p);
  const shownFile = shown(file);
  const prepared = testProgram(file, test.name, answering.kind === 'replay' ? answering.exchanges : undefined);
  const wrapper = prepared.program;
  const storeDir = prepared.storeDir;
  const output: string[] = [];
  const log = new ExchangeLog();
  const stats = emptyStats();
  const base = { file, name: test.name, line: test.line, column: test.column, output, inference: stats };
  const at = (loc: Location | undefined): string => (loc ? `${loc.path}:${loc.line}:${loc.column}: ` : `${shownFile}:${test.line}:${test.column}: `);
  // the model calls in flight, for a test that ends while it waits on one
  const waiting = new Map<string, { type: string; pid: number; since: number; tokens: number; site: Location | null }>();
  let cut: string | null = null;
  /** the test ended in a run-time error, not a failed assert: it did not finish (said after a more precise reason) */
  let errored: string | null = null;
  const done = (r: Omit<TestResult, keyof typeof base | 'durationMs'>): TestRun => {
    const pending = log.pendingCount();
    const failedCall = log.exchanges.find((x) => 'error' in x.reply);
    const incomplete =
      cut ??
      (r.status === 'stale' ? 'its recording is stale'
        : pending > 0 ? `${pending} model request${pending === 1 ? '' : 's'} had no answer`
        : failedCall && 'error' in failedCall.reply ? `a model call failed (infer ${failedCall.type}: ${failedCall.reply.error})`
        : errored);
    return { result: { ...base, ...r, durationMs: Math.round(performance.now() - started) }, exchanges: log.recorded(), incomplete };
  };
  const waitedOn = (): string => {
    const w = [...waiting.values()];
    if (w.length === 0) return '';
    const one = (x: (typeof w)[number]) =>
      `infer ${x.type}${x.site ? ` at ${x.site.path}:${x.site.line}:${x.site.column}` : ''} (asked ${((performance.now() - x.since) / 1000).toFixed(1)} s before, ${x.tokens} token${x.tokens === 1 ? '' : 's'} streamed)`;
    return `; it was waiting on ${w.map(one).join(' and ')}`;
  };

  // paths as a person typed them: relative to the working directory
  const model = prepared.model ?? options.model ?? options.env?.TURN_MODEL ?? process.env.TURN_MODEL ?? DEFAULT_MODEL;
  // which recorded exchange each request matched, and the first request that matched none
  const unused = answering.kind === 'replay' ? answering.exchanges.slice() : [];
  const expected = new Map<string, Exchange>();
  let stale: { request: SeenRequest; site: Location | null } | undefined;
  let mismatch: string | undefined;
  let run: Run | undefined;

  // the same options for the test's run and for each resume after a `suspend;`
  const runOptions: RunOptions = {
    model,
    cwd: options.cwd,
    env: { ...(options.env ?? process.env), TURN_STORE_DIR: storeDir },
    // a test never waits on a person: effects that need approval are denied; its knowledge store is its own
    authority: { allowKnowledge: true, ...options.authority, approve: 'none' },
    maxSteps: options.maxSteps ?? DEFAULT_TEST_MAX_STEPS,
    maxTimeMs: options.maxTimeMs ?? defaultTestTime(model),
    ...passedOn(options),
    onOutput: (line) => output.push(line),
    onEvent: (e) => {
      options.observe?.(e);
      if (e.kind === 'infer.delta') {
        const w = waiting.get(e.id);
        if (w) w.tokens = e.tokens;
        return;
      }
      if (e.kind === 'infer.request') {
        const where = run?.site(e.pid) ?? null;
        waiting.set(e.id, { type: e.type, pid: e.pid, since: performance.now(), tokens: 0, site: where ? { ...where, path: shown(where.path) } : null });
      } else if (e.kind === 'infer.reply' || (e.kind === 'infer.error' && !/ was cancelled: /.test(e.error))) {
        // a call cancelled because the test ended (its time limit) is what the test was waiting on
        waiting.delete(e.id);
      }
      if (e.kind === 'infer.request') {
        const seen = log.request(e);
        if (answering.kind !== 'replay') return;
        const k = unused.findIndex((x) => x.fingerprint === seen.fingerprint);
        if (k >= 0) {
          expected.set(`${e.id}/${e.attempt}`, unused[k]);
          unused.splice(k, 1);
        } else if (!stale) {
          const site = run?.site(e.pid) ?? null;
          stale = { request: seen, site: site ? { ...site, path: shown(site.path) } : null };
          run?.stop('stale recording');
        }
      } else if (e.kind === 'infer.reply' || e.kind === 'infer.error') {
        const x = log.answer(e);
        countInference(stats, e);
        const want = expected.get(`${e.id}/${e.attempt}`);
        if (want && x && e.kind === 'infer.reply' && 'text' in want.reply && want.reply.text !== e.raw) {
          mismatch ??= `the recording answered infer ${x.type} with another recorded reply (two recorded requests share a prompt and were asked in another order); re-record with \`turn test --update\``;
        }
      }
    },
  };
  try {
    // a program that can suspend runs with the test's own store (resumed below)
    run = await startRun({ ...runOptions, file: wrapper, storeIfSuspends: storeDir });
  } catch (e) {
    if (e instanceof RunSetupError) {
      const d = e.diagnostics.find((x) => x.diagnostic.severity === 'error');
      const message = d ? formatDiagnostic(d.file, d.diagnostic) : `${shownFile}:${test.line}:${test.column}: ${e.message}`;
      return done({ status: 'failed', message });
    }
    throw e;
  }
  let outcome = await run.start();
  // `suspend;` in a test: the test resumes it at once from its store, as `turn resume` would, until
  // it ends (a recorded step is replayed from the journal, never asked again)
  for (let resumes = 0; outcome.kind === 'suspended' && !stale && resumes < MAX_TEST_RESUMES; resumes++) {
    try {
      run = await resumeRun({ ...runOptions, runId: outcome.runId, store: storeDir });
    } catch (e) {
      if (e instanceof RunSetupError) return done({ status: 'failed', message: `${at(undefined)}the test suspended and could not be resumed: ${e.message}` });
      throw e;
    }
    outcome = await run.start();
  }

  if (stale) {
    const s = stale.request;
    const rec = answering.kind === 'replay' ? answering : undefined;
    const closest = rec ? closestExchange(rec.exchanges, s) : undefined;
    const site = stale.site ? ` (infer ${s.type} at ${stale.site.path}:${stale.site.line}:${stale.site.column})` : ` (infer ${s.type})`;
    const cassetteLine = rec && closest ? rec.cassette.lineOf(test.name, closest.index) : undefined;
    const where = rec ? `${shown(rec.cassette.file)}${cassetteLine ? `:${cassetteLine}` : ''}` : '';
    let message: string;
    let details: string | undefined;
    if (!closest) {
      message = `${shownFile}:${test.line}:${test.column}: stale recording: test "${test.name}" has no recorded model replies, and it now asks the model${site}; record them with \`turn test --update\``;
    } else if (closest.schemaOnly) {
      message = `${shownFile}:${test.line}:${test.column}: stale recording: ${where} was recorded for another schema of ${closest.exchange.type}${site}; re-record with \`turn test --update\``;
      details = closest.diff;
    } else {
      message = `${shownFile}:${test.line}:${test.column}: stale recording: the program now sends a request the recording does not hold${site}; closest recorded request: ${where}; re-record with \`turn test --update\``;
      details = closest.diff;
    }
    return done({
      status: 'stale',
      message,
      location: { path: file, line: test.line, column: test.column },
      ...(details ? { details: `--- recorded\n+++ now\n${details}` } : {}),
      ...(closest ? { requests: { recorded: closest.recordedText, now: closest.nowText } } : {}),
    });
  }

  switch (outcome.kind) {
    case 'done':
      if (mismatch) return done({ status: 'stale', message: `${at(undefined)}${mismatch}` });
      if (unused.length > 0) {
        const e = unused[0];
        const line = answering.kind === 'replay' ? answering.cassette.lineOf(test.name, answering.exchanges.indexOf(e)) : undefined;
        const where = answering.kind === 'replay' ? ` (${shown(answering.cassette.file)}${line ? `:${line}` : ''})` : '';
        return done({
          status: 'stale',
          message: `${at(undefined)}stale recording: the test no longer asks ${unused.length} recorded request${unused.length === 1 ? '' : 's'}, the first being infer ${e.type} "${short(e.request.prompt)}"${where}; re-record with \`turn test --update\``,
        });
      }
      return done({ status: 'passed' });
    case 'failed': {
      const err = outcome.error;
      const loc = { path: shown(err.path), line: err.line, column: err.column };
      const limit = /^(step|time|allocation) budget/.test(err.message);
      if (limit) cut = `it did not finish within its limits (${err.message})`;
      // only a test that finished makes a recording: it passed, or an assert failed (the VM's
      // `assert`/`assert_eq` message); a run-time error means the program did not get there
      else if (!err.message.startsWith(ASSERTION_FAILED)) errored = `it ended in a run-time error (${err.message})`;
      const message = `${at(loc)}${limit ? `the test did not finish within its limits: ${err.message}${waitedOn()}` : err.message}`;
      const stack = err.stack
        .slice(1)
        .filter((f) => path.resolve(f.path) !== wrapper)
        .map((f) => `    at ${f.fn} (${shown(f.path)}:${f.line}:${f.column})`);
      return done({ status: 'failed', message, location: loc, ...(stack.length > 0 ? { details: stack.join('\n') } : {}) });
    }
    case 'stopped':
    case 'aborted':
      cut = `it was ${outcome.kind}`;
      return done({ status: 'failed', message: `${at(undefined)}${outcome.kind === 'stopped' ? outcome.reason : outcome.message}${waitedOn()}` });
    case 'suspended':
    case 'waiting':
      cut = `it ${outcome.kind === 'suspended' ? 'suspended' : 'waits on an unknown effect'}`;
      return done({
        status: 'failed',
        message: `${at(undefined)}the test ${outcome.kind === 'suspended' ? `suspended more than ${MAX_TEST_RESUMES} times (each \`suspend;\` is resumed at once in a test)` : outcome.refused !== undefined ? `had an effect refused: ${outcome.refused}` : 'waits on an unknown effect'}`,
      });
  }
}

function short(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 60 ? one.slice(0, 57) + '...' : one;
}
