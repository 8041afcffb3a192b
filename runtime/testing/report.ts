// How `turn test` reports: `spec` (a line per test, failures with their location, diff and output),
// `tap` (TAP version 13) and `junit` (JUnit XML for CI), each ending in the summary line
// `N passed, N failed` (a stale recording counts as a failure; a file that cannot run, as one).
import type { FileResult } from './runner.js';
import type { TestResult } from './run-test.js';

export type ReporterName = 'spec' | 'tap' | 'junit';
export const REPORTERS: readonly ReporterName[] = ['spec', 'tap', 'junit'];

export interface Summary {
  passed: number;
  failed: number;
  stale: number;
  /** files that could not be run */
  broken: number;
}

export function summarize(files: FileResult[]): Summary {
  const s: Summary = { passed: 0, failed: 0, stale: 0, broken: 0 };
  for (const f of files) {
    if (f.error) s.broken++;
    for (const t of f.tests) {
      if (t.status === 'passed') s.passed++;
      else s.failed++;
      if (t.status === 'stale') s.stale++;
    }
  }
  return s;
}

/** `N passed, N failed` (+ what else there is to know). */
export function summaryLine(s: Summary): string {
  const extra: string[] = [];
  if (s.stale > 0) extra.push(`${s.stale} stale recording${s.stale === 1 ? '' : 's'}`);
  if (s.broken > 0) extra.push(`${s.broken} file${s.broken === 1 ? '' : 's'} could not run`);
  return `${s.passed} passed, ${s.failed + s.broken} failed${extra.length ? ` (${extra.join(', ')})` : ''}`;
}

const indent = (text: string, by = '    '): string =>
  text
    .split('\n')
    .map((l) => by + l)
    .join('\n');

function failureText(t: TestResult): string {
  const parts = [t.message ?? 'failed'];
  if (t.details) parts.push(t.details);
  if (t.output.length > 0) parts.push('output:\n' + indent(t.output.join('\n'), '  '));
  return parts.join('\n');
}

export function specReport(files: FileResult[]): string {
  const out: string[] = [];
  for (const f of files) {
    out.push(f.file);
    if (f.error) out.push(`  ✗ ${f.error}`);
    for (const t of f.tests) {
      const mark = t.status === 'passed' ? '✓' : t.status === 'stale' ? '≠' : '✗';
      const note = t.status === 'stale' ? ' (stale recording)' : t.recorded ? ' (recorded)' : '';
      out.push(`  ${mark} ${t.name}${note} (${t.durationMs} ms)`);
      if (t.status !== 'passed') out.push(indent(failureText(t), '      '));
      else if (t.kept) out.push(`      ${t.kept}`);
    }
    if (f.wrote) out.push(`  wrote ${f.wrote}`);
  }
  out.push('', summaryLine(summarize(files)));
  return out.join('\n') + '\n';
}

export function tapReport(files: FileResult[]): string {
  const out: string[] = ['TAP version 13'];
  let n = 0;
  for (const f of files) {
    if (f.error) {
      out.push(`not ok ${++n} - ${f.file}`, '  ---', `  message: ${JSON.stringify(f.error)}`, '  ...');
    }
    for (const t of f.tests) {
      const name = `${f.file} > ${t.name}`;
      if (t.status === 'passed') {
        out.push(`ok ${++n} - ${name}`);
        continue;
      }
      out.push(`not ok ${++n} - ${name}`, '  ---', `  status: ${t.status}`, `  message: ${JSON.stringify(t.message ?? '')}`);
      if (t.location) out.push(`  at: ${JSON.stringify(`${t.location.path}:${t.location.line}:${t.location.column}`)}`);
      if (t.details) out.push('  details: |', indent(t.details, '    '));
      out.push('  ...');
    }
  }
  out.push(`1..${n}`, `# ${summaryLine(summarize(files))}`);
  return out.join('\n') + '\n';
}

const xml = (s: string): string =>
  s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

export function junitReport(files: FileResult[]): string {
  const s = summarize(files);
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="turn test" tests="${s.passed + s.failed + s.broken}" failures="${s.failed + s.broken}">`];
  for (const f of files) {
    const failures = f.tests.filter((t) => t.status !== 'passed').length + (f.error ? 1 : 0);
    const time = f.tests.reduce((a, t) => a + t.durationMs, 0) / 1000;
    out.push(`  <testsuite name="${xml(f.file)}" tests="${f.tests.length + (f.error ? 1 : 0)}" failures="${failures}" time="${time}">`);
    if (f.error) out.push(`    <testcase name="(file)" classname="${xml(f.file)}"><failure message="${xml(f.error)}"/></testcase>`);
    for (const t of f.tests) {
      const open = `    <testcase name="${xml(t.name)}" classname="${xml(f.file)}" time="${t.durationMs / 1000}"`;
      if (t.status === 'passed') out.push(`${open}/>`);
      else out.push(`${open}>`, `      <failure type="${t.status}" message="${xml(t.message ?? '')}">${xml(failureText(t))}</failure>`, '    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>', `<!-- ${summaryLine(s)} -->`);
  return out.join('\n') + '\n';
}

export function report(name: ReporterName, files: FileResult[]): string {
  return name === 'tap' ? tapReport(files) : name === 'junit' ? junitReport(files) : specReport(files);
}
