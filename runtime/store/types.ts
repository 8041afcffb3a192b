// The durable store of Turn runs (issue 5): runs, their journal of nondeterministic steps, VM
// snapshots and the bytecode bundles runs started with. See docs/durability.md.
//
// The interface is SYNCHRONOUS on purpose:
// - both embedded drivers (better-sqlite3, node:sqlite) are synchronous, and a method that returns
//   has committed with full fsync: "returned" means "durable", with no promise in between whose
//   resolution order could differ from the commit order;
// - the VM's interpreter loop never awaits, yet it observes nondeterminism mid-instruction (clock,
//   random, the order a `receive` takes messages in); a synchronous append lets it journal such a
//   step exactly where it happens, before the value is pushed on the stack;
// - a backend over the network (Restate, docs/durability.md) can still sit behind it: either
//   through a synchronous facade (a worker thread + Atomics.wait), or by making the few call sites
//   that already await (effects) await it; nothing in the interface assumes a local file.
//
// The protocol, for every nondeterministic step the VM observes:
//   effects (infer, tools, HTTP, file writes, messages to other agents)
//     1. seq = appendJournal(run, { status: 'intent', idempotencyKey, ... })  — durable now
//     2. run the effect (with the idempotency key where the effect takes one)
//     3. completeJournal(run, seq, 'ok' | 'error', payload)                  — durable now
//     4. only then resume the process with the result
//   observations that need no effect run (clock, random, receive order)
//     seq = appendJournal(run, { status: 'ok', payload })  then hand the value to the process.
//   on recovery: markUnknownOnRecovery(run) turns each `intent` without a result into `unknown`.

/** How a journal entry stands. */
export type JournalStatus = 'intent' | 'ok' | 'error' | 'unknown';

/** How a run stands. `waiting`: an unknown outcome waits for a decision (a policy or a person). */
export type RunStatus = 'running' | 'suspended' | 'waiting' | 'done' | 'failed' | 'cancelled';

export const RUN_STATUSES: readonly RunStatus[] = ['running', 'suspended', 'waiting', 'done', 'failed', 'cancelled'];

/** What a run is created with. Versions are fixed for the run's life (spec §3 "Versions"). */
export interface NewRun {
  /** a unique id; generated (time-ordered, random suffix) when omitted */
  id?: string;
  /** the entry program, for people (a path or a name) */
  entry: string;
  /** hash of the bytecode bundle the run started with (see putBundle) */
  bytecodeHash: string;
  /** the VM's semantics version: a run is resumed only by a VM that speaks it */
  semanticsVersion: string;
  /** versions of the policies the run uses (retry, approval, unknown-outcome...), by name */
  policies?: Record<string, string>;
  /** free-form, JSON-serializable (arguments, model, host) */
  meta?: Record<string, unknown>;
}

export interface RunRecord {
  id: string;
  entry: string;
  bytecodeHash: string;
  semanticsVersion: string;
  policies: Record<string, string>;
  meta: Record<string, unknown>;
  status: RunStatus;
  /** milliseconds since the epoch */
  createdAt: number;
  updatedAt: number;
  /** the encoded result (done) or error (failed), as given to setRunStatus */
  result: Uint8Array | null;
}

/** One step to journal. */
export interface JournalAppend {
  /** what kind of step: 'infer', 'tool', 'http', 'clock', 'random', 'receive', 'spawn', ... */
  kind: string;
  /** which one: the tool or model name, the operation id ... */
  name: string;
  /** the process that observes the step (-1: the scheduler) */
  pid?: number;
  /** hash of the step's input (serialize.ts `valueHash`): replay checks the program asks the same */
  inputHash?: string | null;
  /**
   * 'intent' for an effect about to run (its result comes with completeJournal); 'ok' or 'error'
   * for a step recorded with its outcome at once (clock, random, receive order).
   */
  status: 'intent' | 'ok' | 'error';
  /** unique within the run; given to the effect so a retry can be recognised by the other side */
  idempotencyKey?: string | null;
  /** the effect may be re-run (with the same idempotency key) when its outcome is unknown */
  idempotent?: boolean;
  /** the request for an intent, the result for ok/error: encoded bytes (serialize.ts) */
  payload?: Uint8Array | null;
  /**
   * A snapshot committed in the same transaction, taken at this step (covering every entry
   * before it): "a computation's state and its pending effect are committed together".
   */
  snapshot?: Uint8Array;
}

export interface JournalEntry {
  runId: string;
  /** 1, 2, 3 ... within the run, in the order the VM observed the steps */
  seq: number;
  kind: string;
  name: string;
  pid: number;
  inputHash: string | null;
  status: JournalStatus;
  idempotencyKey: string | null;
  idempotent: boolean;
  /** what the intent asked (kept after completion) */
  request: Uint8Array | null;
  /** the result (ok) or error (error); null while intent or unknown */
  payload: Uint8Array | null;
  createdAt: number;
  /** when the outcome was recorded; null while intent or unknown */
  completedAt: number | null;
}

export interface Snapshot {
  runId: string;
  /** the snapshot reflects every journal entry with seq <= this (0: before any) */
  seq: number;
  bytes: Uint8Array;
  createdAt: number;
}

export interface StoreInfo {
  driver: 'better-sqlite3' | 'node:sqlite' | string;
  /** the database file */
  file: string;
  /** 'wal' for the SQLite drivers */
  journalMode: string;
  /** 'full' (2) for the SQLite drivers: fsync on every commit */
  synchronous: string;
  schemaVersion: number;
}

/**
 * The store. One writer: a store is opened by one OS process at a time (a second open fails
 * with StoreError code 'in_use'). Every mutating method has committed durably when it returns,
 * and throws StoreError (never a driver's own error) when it can't.
 */
export interface RunStore {
  createRun(run: NewRun): RunRecord;
  getRun(id: string): RunRecord | null;
  /** newest first */
  listRuns(filter?: { status?: RunStatus }): RunRecord[];
  /**
   * Refuses 'done' while the journal holds an `intent` or `unknown` entry: a run whose effect
   * outcome is not known is never reported as a success.
   */
  setRunStatus(id: string, status: RunStatus, result?: Uint8Array | null): void;

  /** Appends one entry and returns its seq, after the commit is durable. */
  appendJournal(runId: string, entry: JournalAppend): number;
  /**
   * Records the outcome of an `intent` (or settles an `unknown` one: a decision, or the re-run of
   * an idempotent effect). Anything else (an entry that already has its outcome) is refused.
   */
  completeJournal(runId: string, seq: number, status: 'ok' | 'error', payload: Uint8Array | null): void;
  /** Entries with seq >= fromSeq (default 1), in seq order. */
  readJournal(runId: string, fromSeq?: number): JournalEntry[];
  /** The entry holding this idempotency key, if any. */
  findByIdempotencyKey(runId: string, key: string): JournalEntry | null;
  /**
   * The last `limit` entries, in seq order, leaving out entries of kind `skipKind` (issue 45: `turn
   * inspect --tail N` reads these, not the whole journal). Optional, with `openJournal` and
   * `journalLength`: a store without them is read whole.
   */
  readJournalTail?(runId: string, limit: number, skipKind?: string): JournalEntry[];
  /** The entries whose outcome is not recorded (`intent` or `unknown`), in seq order. */
  openJournal?(runId: string): JournalEntry[];
  /** How many entries the run's journal holds. */
  journalLength?(runId: string): number;
  /**
   * Recovery: every `intent` of the run becomes `unknown`; returns them (also the ones that were
   * already unknown), in seq order. If any of them is not idempotent, the run becomes 'waiting'.
   */
  markUnknownOnRecovery(runId: string): JournalEntry[];

  /** Stores a snapshot reflecting journal entries <= seq (replacing one at the same seq); like a journal write, it joins an open group commit. */
  putSnapshot(runId: string, seq: number, bytes: Uint8Array): void;
  latestSnapshot(runId: string): Snapshot | null;
  /** The latest snapshot older than `seq` (issue 45: a resume whose latest snapshot cannot be used tries the one before). Optional: without it, such a resume re-executes. */
  snapshotBefore?(runId: string, seq: number): Snapshot | null;
  /** Drops snapshots older than the latest `keep` (default 1). */
  pruneSnapshots(runId: string, keep?: number): void;

  /** Content-addressed bytecode bundles: a run resumes with the code it started with. */
  putBundle(hash: string, bytes: Uint8Array): void;
  getBundle(hash: string): Uint8Array | null;

  /**
   * Deletes a run with its journal and snapshots (the Runs view's Delete); 'not_found' when there
   * is none. Optional: a store that keeps runs elsewhere may not offer it.
   */
  deleteRun?(id: string): void;

  info(): StoreInfo;
  /** Releases the writer lock. Further calls throw. */
  close(): void;
}

export type StoreErrorCode =
  | 'corrupt' // the file is not a Turn store, or SQLite found it damaged
  | 'in_use' // another writer holds the store
  | 'disk_full'
  | 'schema' // written by a newer or unknown schema
  | 'io' // cannot open, read or write the file (permissions, missing folder, I/O error)
  | 'not_found' // no such run or entry
  | 'conflict' // a duplicate idempotency key, a result recorded twice, 'done' with open effects
  | 'invalid' // a bad argument
  | 'closed'
  | 'unavailable'; // the driver cannot be loaded here

/** Every failure of a store, with a message that names the file. */
export class StoreError extends Error {
  override name = 'StoreError';
  constructor(
    readonly code: StoreErrorCode,
    message: string,
    readonly file?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The idempotency key the VM gives an effect by default: stable across replays of the run. */
export function defaultIdempotencyKey(runId: string, seq: number): string {
  return `turn:${runId}:${seq}`;
}
