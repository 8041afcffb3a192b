// How the command line tells a person what a run did: setup errors and diagnostics, a program's
// located run-time error, a suspended or waiting durable run; each with its exit code.
import { formatDiagnostic, RunSetupError, type FileDiagnostic, type JournalEntry, type Run, type RunResult } from '../runtime/index.js';
import type { StdoutLines } from './output.js';
import { EXIT, UsageError, err } from './usage.js';

/** Prints a setup error (and/or diagnostics) and returns its exit code; a usage error is thrown on. */
export function printSetupError(e: RunSetupError | undefined, diagnostics: FileDiagnostic[] = e?.diagnostics ?? []): number {
  for (const { file, diagnostic } of diagnostics) err(formatDiagnostic(file, diagnostic));
  if (!e) return EXIT.ok;
  switch (e.kind) {
    case 'usage':
      throw new UsageError(e.message);
    case 'compile':
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
      let text = `${e.path}:${e.line}:${e.column}: runtime error: ${e.message}\n`;
      for (const frame of e.stack.slice(1)) text += `    at ${frame.fn} (${frame.path}:${frame.line}:${frame.column})\n`;
      process.stderr.write(text);
      return EXIT.runtimeError;
    }
    case 'suspended':
      err(`suspended: ${result.runId}`);
      return EXIT.ok;
    case 'waiting':
      reportWaiting(result.runId, result.unknown);
      return EXIT.waiting;
    case 'aborted':
      err(`turn: ${result.message}`);
      return EXIT.runtimeError;
    case 'stopped':
      err(`turn: ${result.reason}`);
      return EXIT.runtimeError;
  }
}
