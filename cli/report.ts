// How the command line tells a person what a run did: setup errors and diagnostics, a program's
// located run-time error, a suspended or waiting durable run; each with its exit code.
import { formatDiagnostic } from '../runtime/diagnostics.js';
import type { FileDiagnostic } from '../runtime/load.js';
import { RunSetupError, type Run, type RunResult } from '../runtime/run/index.js';
import type { JournalEntry } from '../runtime/store/types.js';
import { ASK_TOOL } from '../runtime/index.js';
import type { StdoutLines } from './output.js';
import * as path from 'node:path';
import { EXIT, UsageError, err } from './usage.js';

/**
 * How the command line shows a program's path, in compile and run-time errors alike: relative to
 * the working directory when the file is under it, else absolute.
 */
export function shownPath(p: string): string {
  if (p.startsWith('std:') || p.startsWith('<')) return p;
  const abs = path.resolve(p);
  const rel = path.relative(process.cwd(), abs);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : abs;
}

/** Prints a setup error (and/or diagnostics) and returns its exit code; a usage error is thrown on. */
export function printSetupError(e: RunSetupError | undefined, diagnostics: FileDiagnostic[] = e?.diagnostics ?? []): number {
  for (const { file, diagnostic } of diagnostics) {
    const line = formatDiagnostic(file, diagnostic);
    err(line.startsWith(file.path + ':') ? shownPath(file.path) + line.slice(file.path.length) : line);
  }
  if (!e) return EXIT.ok;
  switch (e.kind) {
    case 'usage':
      throw new UsageError(e.message);
    case 'compile':
      // diagnostics say it; a compile error without any (stored sources on resume) says it here
      if (diagnostics.length === 0) err(`turn: ${e.message}`);
      return EXIT.compileError;
    case 'input':
      err(`turn: ${e.message}`);
      return EXIT.compileError;
    default:
      err(`turn: ${e.message}`);
      return EXIT.runtimeError;
  }
}

export function reportWaiting(runId: string, entries: JournalEntry[]): void {
  for (const e of entries) {
    err(`unknown: step ${e.seq} (${e.kind} \`${e.name}\`, idempotency key ${e.idempotencyKey}) started but its outcome was not recorded; it is not idempotent, so it is not re-run`);
  }
  err(`settle it with: turn resolve ${runId} STEP --ok JSON | --error MESSAGE | --retry`);
  err(`waiting: ${runId}`);
}

/** A step the host refused before sending it: nothing was sent, and a resume with what was missing runs it. */
export function reportRefused(runId: string, entries: JournalEntry[], message: string): void {
  const step = entries[0] ? `step ${entries[0].seq} (${entries[0].kind} \`${entries[0].name}\`)` : 'a step';
  if (entries[0]?.kind === 'tool' && entries[0].name === ASK_TOOL) {
    // `ask T` with nobody to ask (runtime/ask/): the run waits for `turn answer`
    err(`question: step ${entries[0].seq}: ${message.replace(/ \(a durable run waits for `turn answer`\)$/, '')}`);
    err(`see it with: turn answer ${runId}; answer it with: turn answer ${runId} --value JSON, then continue with: turn resume ${runId}`);
    err(`waiting: ${runId}`);
    return;
  }
  if (message.startsWith('waiting for an answer: ')) {
    // an MCP server asked the operator (runtime/mcp/elicitation.ts): the step runs again with the answer
    err(`question: ${step}: ${message.slice('waiting for an answer: '.length).replaceAll('turn resume RUN ', `turn resume ${runId} `)}`);
    err(`the server was told the question was cancelled; nothing was recorded as the step's outcome, and the resume calls it again with the answer`);
    err(`waiting: ${runId}`);
    return;
  }
  err(`refused: ${step} was refused before anything was sent: ${message}`);
  err(`nothing was recorded as its outcome; once that is fixed (a secret set, a grant or an approval given), continue with: turn resume ${runId}`);
  err(`waiting: ${runId}`);
}

/** Prints how a run ended and returns the exit code. */
export async function reportResult(run: Run, result: RunResult, stdout: StdoutLines, json: boolean): Promise<number> {
  await stdout.flush();
  switch (result.kind) {
    case 'done':
      if (json) {
        stdout.write(run.redact(JSON.stringify(result.json ?? null)));
        await stdout.flush();
      }
      return EXIT.ok;
    case 'failed': {
      const e = result.error;
      let text = `${shownPath(e.path)}:${e.line}:${e.column}: runtime error: ${e.message}\n`;
      for (const line of stackTraceLines(e.stack.slice(1).map((f) => ({ ...f, path: shownPath(f.path) })))) text += line + '\n';
      process.stderr.write(text);
      return EXIT.runtimeError;
    }
    case 'suspended':
      err(`suspended: ${result.runId}`);
      return EXIT.ok;
    case 'waiting':
      if (result.refused !== undefined) reportRefused(result.runId, result.unknown, result.refused);
      else reportWaiting(result.runId, result.unknown);
      return EXIT.waiting;
    case 'aborted':
      err(`turn: ${result.message}`);
      return EXIT.runtimeError;
    case 'stopped':
      err(`turn: ${result.reason}`);
      return EXIT.runtimeError;
  }
}

export interface StackFrameView {
  fn: string;
  path: string;
  line: number;
  column: number;
}

/** The longest run of repeated frames folded into one line (`f` calling `g` calling `f`...: 2). */
const MAX_CYCLE = 8;
/** A run shows its frames once and folds the rest when they repeat at least this many times. */
const MIN_REPEATS = 3;

/**
 * The `at` lines of a stack trace, innermost first. Runaway recursion leaves thousands of identical
 * frames: a run of one frame (or a cycle of up to MAX_CYCLE frames) repeated MIN_REPEATS times or
 * more is shown once, then counted on one line (docs/reliability.md):
 *
 *     at f (p.tn:2:12)
 *     ... 9,997 more frames of f (p.tn:2:12)
 *     at main (p.tn:4:1)
 */
export function stackTraceLines(frames: readonly StackFrameView[]): string[] {
  const keys = frames.map((f) => `${f.fn} (${f.path}:${f.line}:${f.column})`);
  const lines: string[] = [];
  for (let i = 0; i < keys.length; ) {
    let period = 0;
    let repeats = 0;
    for (let p = 1; p <= MAX_CYCLE && i + p * MIN_REPEATS <= keys.length; p++) {
      let r = 1;
      while (i + (r + 1) * p <= keys.length && sameRun(keys, i, i + r * p, p)) r++;
      if (r >= MIN_REPEATS) {
        period = p;
        repeats = r;
        break;
      }
    }
    if (period === 0) {
      lines.push(`    at ${keys[i]}`);
      i++;
      continue;
    }
    for (let j = i; j < i + period; j++) lines.push(`    at ${keys[j]}`);
    const more = (repeats - 1) * period;
    lines.push(
      period === 1
        ? `    ... ${count(more)} more frames of ${keys[i]}`
        : `    ... ${count(more)} more frames: the ${period} above, repeated ${count(repeats - 1)} more times`,
    );
    i += repeats * period;
  }
  return lines;
}

/** Whether keys[a, a+length) equals keys[b, b+length). */
function sameRun(keys: readonly string[], a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (keys[a + k] !== keys[b + k]) return false;
  return true;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
