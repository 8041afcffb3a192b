// SIGINT and SIGTERM during `turn run` / `turn resume`: the first one interrupts the run (its
// model calls are cancelled, an `interrupted` event is written to the trace, a durable run keeps
// what it committed and can be resumed); a second one exits at once. The exit code is 128 + the
// signal's number (130 for SIGINT, 143 for SIGTERM), and the message says what became of the run.
import { err } from './usage.js';

const CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

export interface Interruptible {
  interrupt(signal: string): void;
  readonly id?: string;
}

/** Runs `body` with the signal handlers in place; `signal()` tells which one came, if any. */
export async function withInterrupts<T>(run: Interruptible, body: () => Promise<T>): Promise<{ value: T; signal: string | undefined }> {
  let got: string | undefined;
  const handler = (signal: NodeJS.Signals) => {
    if (got !== undefined) {
      err(`turn: ${signal} again: exiting now`);
      process.exit(CODES[signal] ?? 1);
    }
    got = signal;
    run.interrupt(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  try {
    return { value: await body(), signal: got };
  } finally {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  }
}

/** The message and exit code of an interrupted run. */
export function reportInterrupted(signal: string, runId: string | undefined, store: string | undefined): number {
  if (runId) err(`turn: interrupted by ${signal}: run ${runId} is saved up to its last committed step; continue it with \`turn resume ${runId}${store ? ` --store ${store}` : ''}\``);
  else err(`turn: interrupted by ${signal}: the run was not durable, so it cannot be resumed (run it with --durable to make it resumable)`);
  return CODES[signal] ?? 1;
}
