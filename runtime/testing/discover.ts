// Finding tests (docs/testing.md). A test file is a Turn file named `*_test.tn` whose top level
// returns a map literal of tests: each key is a test's name, each value a closure of no parameters
// (written in place, or the name of a top-level `let` bound to one):
//
//   let verdicts = use "./triage_agent";
//   return {
//       "the billing ticket goes to billing": turn() { call("assert_eq", verdicts[0].category, "billing"); },
//   };
//
// Tests are found from the syntax alone (nothing runs), so the editor can list them as you type.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkSource } from '../check/index.js';
import { InputError, readSourceText } from '../load.js';
import type { Expr, Program } from '../syntax/ast.js';
import type { SourceFile } from '../syntax/source.js';

export const TEST_FILE_SUFFIX = '_test.tn';

export interface TestCase {
  name: string;
  /** where the test's key stands (1-based line and column) */
  line: number;
  column: number;
  /** the last line of its closure */
  endLine: number;
}

export interface TestFile {
  /** as given (relative to the working directory when found under one) */
  path: string;
  tests: TestCase[];
  /** why the file's tests cannot be listed: `FILE:LINE:COL: message` */
  error?: string;
}

/** The test files under `paths` (files are taken as they are; folders are searched for `*_test.tn`). */
export function findTestFiles(paths: string[]): string[] {
  const out: string[] = [];
  const visit = (p: string, explicit: boolean): void => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      if (explicit) throw new InputError(`${p}: no such file or folder`);
      return;
    }
    if (st.isDirectory()) {
      const base = path.basename(p);
      if (!explicit && (base === 'node_modules' || base.startsWith('.'))) return;
      for (const name of fs.readdirSync(p).sort()) visit(path.join(p, name), false);
    } else if (explicit || p.endsWith(TEST_FILE_SUFFIX)) out.push(p);
  };
  for (const p of paths) visit(p, true);
  return [...new Set(out)];
}

/** The tests of a test file's source text. */
export async function discoverSource(file: string, text: string): Promise<TestFile> {
  const checked = await checkSource(file, text, { fetch: false });
  const firstError = checked.diagnostics.find((d) => d.severity === 'error');
  if (firstError) {
    const p = checked.file.position(firstError.span.start);
    return { path: file, tests: [], error: `${file}:${p.line}:${p.column}: ${firstError.message}` };
  }
  return testsOf(file, checked.program, checked.file);
}

/** The tests of a test file on disk. */
export async function discoverTests(file: string): Promise<TestFile> {
  let text: string;
  try {
    text = readSourceText(file);
  } catch (e) {
    if (e instanceof InputError) return { path: file, tests: [], error: e.message };
    throw e;
  }
  return discoverSource(file, text);
}

function testsOf(file: string, program: Program, source: SourceFile): TestFile {
  const where = (offset: number): string => {
    const p = source.position(offset);
    return `${file}:${p.line}:${p.column}`;
  };
  const returns = program.body.filter((s) => s.kind === 'Return');
  const last = returns[returns.length - 1];
  const shape = 'a test file returns a map of tests at its top level: return {"name": turn() { ... }, ...};';
  if (!last || last.kind !== 'Return' || !last.value) return { path: file, tests: [], error: `${where(program.span.end)}: no tests: ${shape}` };
  if (last.value.kind !== 'Map') return { path: file, tests: [], error: `${where(last.value.span.start)}: ${shape}` };
  const lets = new Map<string, Expr>();
  for (const s of program.body) if (s.kind === 'Let') lets.set(s.name.name, s.value);
  const tests: TestCase[] = [];
  const seen = new Set<string>();
  for (const entry of last.value.entries) {
    let value = entry.value;
    if (value.kind === 'Identifier') value = lets.get(value.name) ?? value;
    if (value.kind !== 'Closure') return { path: file, tests: [], error: `${where(entry.value.span.start)}: test "${entry.key}" must be a closure: turn() { ... }` };
    if (value.params.length > 0) return { path: file, tests: [], error: `${where(value.span.start)}: test "${entry.key}" takes no parameters` };
    if (seen.has(entry.key)) return { path: file, tests: [], error: `${where(entry.span.start)}: two tests are named "${entry.key}"` };
    seen.add(entry.key);
    const p = source.position(entry.span.start);
    tests.push({ name: entry.key, line: p.line, column: p.column, endLine: source.position(value.span.end).line });
  }
  return { path: file, tests };
}
