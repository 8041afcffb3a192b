// Test files as a calibration dataset (docs/inference.md, *Calibration*): `turn calibrate` given a
// test file or a folder of them runs each test that states an expectation about an inferred value,
// live against the model, and makes it a labeled case — the confidence of the one `infer` the test
// made, and whether the test's expectations held.
//
// Which expectations qualify is decided from the syntax, before any model is asked: a test's
// closure must call `call("assert_eq", ACTUAL, LITERAL)` or `call("assert", ACTUAL == LITERAL)`,
// where LITERAL is a string, number or boolean literal and ACTUAL is not a literal (a comparison of
// two literals says nothing about a model). Whether ACTUAL came from the model is known only once
// the test runs, so the run decides the rest: a case needs exactly one `infer` with a valid reply
// in the test's run (its confidence is that value's; a test that asks twice, or whose `use`d
// program asks, cannot say which value its expectation was about, and is left out), and a test
// that ran to its end — it passed (right) or an assert failed (wrong). A run-time error, a limit,
// a failed model call leave the test out, said with its reason. The tests run as `turn test` runs
// them (runtime/testing/run-test.ts): a fresh VM each, the same limits, grants and scratch store,
// and never waiting on a person; recordings are not used (it is the model that is measured).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sha256Hex } from '../hash.js';
import { checkSource } from '../check/index.js';
import type { RunEvent } from '../events/index.js';
import type { ConfidenceInfo } from '../infer/confidence.js';
import { readSourceText, InputError } from '../load.js';
import type { Expr, Node } from '../syntax/ast.js';
import { walk } from '../syntax/walk.js';
import { findTestFiles, TEST_FILE_SUFFIX, type TestCase } from '../testing/discover.js';
import { runTest, type TestRunOptions } from '../testing/run-test.js';
import { DatasetError, MAX_CASES } from './dataset.js';

/** Whether `dataset` names tests rather than a JSONL dataset: a `*_test.tn` file or a folder. */
export function isTestsPath(dataset: string): boolean {
  if (dataset.endsWith(TEST_FILE_SUFFIX)) return true;
  try {
    return fs.statSync(dataset).isDirectory();
  } catch {
    return false;
  }
}

/** A test with at least one qualifying expectation, found from the syntax. */
export interface CalibrationTest {
  file: string;
  test: TestCase;
  /** how many qualifying expectations its closure states */
  expectations: number;
}

/** The tests of the files under `paths` that state a qualifying expectation, and the bytes of those files (the dataset's hash). */
export async function findCalibrationTests(paths: string[]): Promise<{ tests: CalibrationTest[]; sha256: string }> {
  let files: string[];
  try {
    files = findTestFiles(paths);
  } catch (e) {
    if (e instanceof InputError) throw new DatasetError(e.message);
    throw e;
  }
  if (files.length === 0) throw new DatasetError(`${paths.join(', ')}: no test file (*${TEST_FILE_SUFFIX})`);
  const tests: CalibrationTest[] = [];
  const hashed: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readSourceText(file);
    } catch (e) {
      if (e instanceof InputError) throw new DatasetError(e.message);
      throw e;
    }
    hashed.push(file, '\0', text, '\0');
    tests.push(...(await testsOfFile(file, text)));
    if (tests.length > MAX_CASES) throw new DatasetError(`${file}: more than ${MAX_CASES} tests to calibrate on`);
  }
  if (tests.length === 0) {
    throw new DatasetError(
      `${files.length === 1 ? files[0] : `${paths.join(', ')} (${files.length} test files)`}: no test states an expectation calibration can use: ` +
        'a test qualifies when it calls call("assert_eq", VALUE, LITERAL) or call("assert", VALUE == LITERAL) with a string, number or boolean literal, ' +
        'and makes exactly one infer (docs/inference.md, Calibration)',
    );
  }
  return { tests, sha256: sha256Hex(...hashed) };
}

/** The qualifying tests of one test file; a file whose tests cannot be listed is a located error. */
async function testsOfFile(file: string, text: string): Promise<CalibrationTest[]> {
  const checked = await checkSource(file, text, { fetch: false });
  const firstError = checked.diagnostics.find((d) => d.severity === 'error');
  if (firstError) {
    const p = checked.file.position(firstError.span.start);
    throw new DatasetError(`${file}:${p.line}:${p.column}: ${firstError.message}`);
  }
  const program = checked.program;
  const returns = program.body.filter((s) => s.kind === 'Return');
  const last = returns[returns.length - 1];
  if (!last || last.kind !== 'Return' || !last.value || last.value.kind !== 'Map') {
    throw new DatasetError(`${file}: not a test file: its top level must return a map of tests (docs/testing.md)`);
  }
  const lets = new Map<string, Expr>();
  for (const s of program.body) if (s.kind === 'Let') lets.set(s.name.name, s.value);
  const out: CalibrationTest[] = [];
  for (const entry of last.value.entries) {
    let value = entry.value;
    if (value.kind === 'Identifier') value = lets.get(value.name) ?? value;
    if (value.kind !== 'Closure' || value.params.length > 0) continue;
    const expectations = qualifyingExpectations(value);
    if (expectations === 0) continue;
    const p = checked.file.position(entry.span.start);
    out.push({ file, test: { name: entry.key, line: p.line, column: p.column, endLine: checked.file.position(value.span.end).line }, expectations });
  }
  return out;
}

const isLiteral = (e: Expr): boolean =>
  e.kind === 'String' || e.kind === 'Number' || e.kind === 'Bool' || (e.kind === 'Unary' && e.op === '-' && e.operand.kind === 'Number');

/** How many `assert_eq(VALUE, LITERAL)` / `assert(VALUE == LITERAL)` calls `node` holds. */
export function qualifyingExpectations(node: Node): number {
  let n = 0;
  walk(node, (x) => {
    if (x.kind !== 'CallBuiltin' || x.target.kind !== 'String') return;
    const [a, b] = x.args;
    if (x.target.value === 'assert_eq' && a && b && isLiteral(b) !== isLiteral(a)) n++;
    else if (x.target.value === 'assert' && a && a.kind === 'Binary' && a.op === '==' && isLiteral(a.left) !== isLiteral(a.right)) n++;
  });
  return n;
}

/** What one test gave as a labeled case. */
export interface TestCaseOutcome {
  /** false: left out (`error` says why) */
  ok: boolean;
  right?: boolean;
  /** the confidence of the test's one inferred value, as its reply gave it (never calibrated) */
  confidence?: ConfidenceInfo;
  error?: string;
}

/** Runs one qualifying test live, as `turn test` would, and reads its case from its events and result. */
export async function runCalibrationTest(t: CalibrationTest, options: TestRunOptions): Promise<TestCaseOutcome> {
  // the last valid reply of each infer (a re-asked infer has several replies, one value)
  const valid = new Map<string, ConfidenceInfo>();
  const observe = (e: RunEvent): void => {
    if (e.kind === 'infer.reply' && e.valid && e.confidence) valid.set(e.id, e.confidence);
  };
  const { result, incomplete } = await runTest(t.file, t.test, { kind: 'live' }, { ...options, calibration: false, observe });
  // a test that did not run to its end (a run-time error, a limit, a failed model call) says nothing about the value
  if (incomplete !== null) return { ok: false, error: result.message ?? incomplete };
  if (valid.size !== 1) {
    return { ok: false, error: `${path.basename(t.file)}: test "${t.test.name}" made ${valid.size === 0 ? 'no infer' : `${valid.size} infers`}: a case is the one inferred value its expectation is about` };
  }
  return { ok: true, right: result.status === 'passed', confidence: [...valid.values()][0] };
}
