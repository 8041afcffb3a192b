// What goes into Restate's journal and state: JSON only, bytes as base64.
import type { JournalAppend, JournalEntry, RunRecord, RunStatus } from '../store/types.js';
import type { RunOptions } from '../run/options.js';

export const b64 = (b: Uint8Array | null | undefined): string | null => (b ? Buffer.from(b).toString('base64') : null);
export const unb64 = (s: string | null | undefined): Uint8Array | null => (s === null || s === undefined ? null : new Uint8Array(Buffer.from(s, 'base64')));

/** A journal append as JSON. */
export type AppendJson = Omit<JournalAppend, 'payload' | 'snapshot'> & { payload: string | null; snapshot?: string };

/**
 * One mutation of a run's store: the Restate journal of the run's workflow is this list, one
 * `ctx.run` entry each (`j1`, `j2`, ...), replayed into a fresh in-memory store by any worker.
 * `at` is the writer's clock, so what is mirrored into state is the same on every replay.
 */
export type Mutation =
  | { op: 'create'; at: number; id: string; entry: string; bytecodeHash: string; semanticsVersion: string; policies: Record<string, string>; meta: Record<string, unknown> }
  | { op: 'bundle'; at: number; hash: string; bytes: string }
  | { op: 'status'; at: number; status: RunStatus; result: string | null }
  | { op: 'append'; at: number; entry: AppendJson }
  | { op: 'complete'; at: number; seq: number; status: 'ok' | 'error'; payload: string | null }
  | { op: 'unknown'; at: number }
  | { op: 'snapshot'; at: number; seq: number; bytes: string }
  | { op: 'prune'; at: number; keep: number }
  | { op: 'output'; at: number; key: string; line: string }
  /** the workflow waits on durable promise `promise` (a resume, or a decision about unknown steps) */
  | { op: 'wait'; at: number; kind: 'resume' | 'decide'; promise: string; unknown: number[] }
  /** the value the promise of the last `wait` was completed with, applied */
  | { op: 'woken'; at: number; promise: string; value: Wake }
  /** a worker started (or restarted) the run here: what replay reads up to */
  | { op: 'mark'; at: number };

/** What completes a wait: a resume, or a decision about an unknown step (`turn resolve`). */
export type Wake = { resume: true } | { seq: number; ok: unknown } | { seq: number; error: string } | { seq: number; retry: true };

/** A run's record as state shows it (`turn runs`, `turn inspect`): the result as base64. */
export type RunJson = Omit<RunRecord, 'result'> & { result: string | null };

/** A journal entry as state shows it. */
export type EntryJson = Omit<JournalEntry, 'request' | 'payload'> & { request: string | null; payload: string | null };

export function entryJson(e: JournalEntry, at: number, completedAt: number | null): EntryJson {
  return { ...e, createdAt: at, completedAt, request: b64(e.request), payload: b64(e.payload) };
}

export function entryFrom(e: EntryJson): JournalEntry {
  return { ...e, request: unb64(e.request), payload: unb64(e.payload) };
}

export function recordFrom(r: RunJson): RunRecord {
  return { ...r, result: unb64(r.result) };
}

/** The Restate workflow every Turn run is an instance of (keyed by the run id). */
export const SERVICE = 'TurnRun';

/** What `turn submit` sends: the program's stored sources (as `putBundle` holds them) and options. */
export interface Submission {
  /** the entry file, for people */
  entry: string;
  /** `sourcesOf(units, entryPath)`, base64 */
  sources: string;
  /** the bytecode hash the submitter's Turn compiled them to */
  bytecodeHash: string;
  semanticsVersion: string;
  /** the submitter's Turn (for the messages) */
  turnVersion: string;
  /** the recordable run options (names and paths, never a secret) */
  options: RunOptions;
  /** place the run's children on other workers (runtime/restate/placement.ts; docs/scale-out.md) */
  spread?: boolean;
}

/** How a run stands when its workflow returns or waits. */
export interface RunSummary {
  id: string;
  status: RunStatus;
  entry: string;
  output: string[];
  /** done: the result (`rendered`, `json`); failed: `message` (+ `path`, `line`, `column`) */
  result: unknown;
  /** suspended or waiting: the promise the workflow waits on and the unknown steps */
  wait: { kind: 'resume' | 'decide'; promise: string; unknown: number[] } | null;
}

/** Everything `turn inspect` needs: the run, its journal and its latest snapshot. */
export interface RunDump {
  run: RunJson;
  entries: EntryJson[];
  snapshot: { seq: number; bytes: string } | null;
  wait: RunSummary['wait'];
  output: string[];
}

