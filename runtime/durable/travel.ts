// Time travel over a stored run (issue 14), read-only: the state of every process at journal step
// N, for the run panel's journal scrubber. It is the one replay (the `Durable` of ./index.ts, fed by
// the journal from the run's start), run against a scratch copy of the run in memory: the stored
// run is only read, and nothing the replay does reaches the store, a model or the world.
//
// Also here: `MemoryRunStore`, a RunStore kept in memory. The scrubber's scratch copy lives in one,
// and so does the journal of a debug session that has no store (extension/debug: stepping back
// replays that journal).
import { StoreError, type JournalAppend, type JournalEntry, type NewRun, type RunRecord, type RunStatus, type RunStore, type Snapshot, type StoreInfo } from '../store/types.js';
import type { Host } from '../ports/host.js';
import { VM } from '../vm/index.js';
import { processViews, type ProcessView } from './views.js';
import { Durable, DivergenceError, JournalWriter, UnknownOutcomeError, bytesJson } from './index.js';
import { getRun, prepareResume } from './runs.js';

let memoryIds = 0;

/** A RunStore in memory: one OS process, gone with it. `freeze()` makes every later write fail. */
export class MemoryRunStore implements RunStore {
  private readonly runs = new Map<string, RunRecord>();
  private readonly journals = new Map<string, JournalEntry[]>();
  private readonly snapshots = new Map<string, Snapshot[]>();
  private readonly bundles = new Map<string, Uint8Array>();
  private frozen: string | null = null;
  private onRefused: (() => void) | undefined;
  private closed = false;

  constructor(readonly name = 'memory') {}

  /**
   * From now on every write throws StoreError('invalid', reason), after calling `onRefused`: a
   * replay that needs more than its journal ends there.
   */
  freeze(reason: string, onRefused?: () => void): void {
    this.frozen = reason;
    this.onRefused = onRefused;
  }

  private writable(): void {
    if (this.closed) throw new StoreError('closed', `the in-memory store ${this.name} is closed`);
    if (this.frozen !== null) {
      this.onRefused?.();
      throw new StoreError('invalid', this.frozen);
    }
  }

  private run(id: string): RunRecord {
    const r = this.runs.get(id);
    if (!r) throw new StoreError('not_found', `no run ${id} in the in-memory store ${this.name}`);
    return r;
  }

  /** Copies a run as it is (record, journal, bundles) into this store. */
  importRun(record: RunRecord, entries: JournalEntry[], bundles: Map<string, Uint8Array>): void {
    this.runs.set(record.id, { ...record });
    this.journals.set(record.id, entries.map((e) => ({ ...e })));
    for (const [h, b] of bundles) this.bundles.set(h, b);
  }

  createRun(run: NewRun): RunRecord {
    this.writable();
    const id = run.id ?? `mem-${Date.now().toString(36)}-${++memoryIds}`;
    if (this.runs.has(id)) throw new StoreError('conflict', `run ${id} already exists in the in-memory store ${this.name}`);
    const now = Date.now();
    const record: RunRecord = {
      id, entry: run.entry, bytecodeHash: run.bytecodeHash, semanticsVersion: run.semanticsVersion,
      policies: run.policies ?? {}, meta: run.meta ?? {}, status: 'running', createdAt: now, updatedAt: now, result: null,
    };
    this.runs.set(id, record);
    this.journals.set(id, []);
    return { ...record };
  }

  getRun(id: string): RunRecord | null {
    const r = this.runs.get(id);
    return r ? { ...r } : null;
  }

  listRuns(filter: { status?: RunStatus } = {}): RunRecord[] {
    return [...this.runs.values()].filter((r) => !filter.status || r.status === filter.status).reverse().map((r) => ({ ...r }));
  }

  setRunStatus(id: string, status: RunStatus, result: Uint8Array | null = null): void {
    this.writable();
    const r = this.run(id);
    if (status === 'done') {
      const open = this.journals.get(id)!.find((e) => e.status === 'intent' || e.status === 'unknown');
      if (open) throw new StoreError('conflict', `run ${id} cannot be reported done: journal entry ${open.seq} (${open.kind} ${open.name}) is ${open.status}`);
    }
    Object.assign(r, { status, result, updatedAt: Date.now() });
  }

  appendJournal(runId: string, e: JournalAppend): number {
    this.writable();
    this.run(runId);
    const journal = this.journals.get(runId)!;
    const seq = journal.length === 0 ? 1 : journal[journal.length - 1].seq + 1;
    const key = e.idempotencyKey ?? null;
    if (key !== null && journal.some((x) => x.idempotencyKey === key)) {
      throw new StoreError('conflict', `idempotency key '${key}' is already used in run ${runId}`);
    }
    const intent = e.status === 'intent';
    const now = Date.now();
    journal.push({
      runId, seq, kind: e.kind, name: e.name, pid: e.pid ?? -1, inputHash: e.inputHash ?? null, status: e.status, idempotencyKey: key,
      idempotent: Boolean(e.idempotent), request: intent ? (e.payload ?? null) : null, payload: intent ? null : (e.payload ?? null),
      createdAt: now, completedAt: intent ? null : now,
    });
    if (e.snapshot) this.putSnapshot(runId, seq - 1, e.snapshot);
    return seq;
  }

  completeJournal(runId: string, seq: number, status: 'ok' | 'error', payload: Uint8Array | null): void {
    this.writable();
    const e = this.journals.get(runId)?.find((x) => x.seq === seq);
    if (!e) throw new StoreError('not_found', `no journal entry ${seq} of run ${runId}`);
    if (e.status !== 'intent' && e.status !== 'unknown') throw new StoreError('conflict', `journal entry ${seq} of run ${runId} already has its outcome (${e.status})`);
    Object.assign(e, { status, payload, completedAt: Date.now() });
  }

  readJournal(runId: string, fromSeq = 1): JournalEntry[] {
    return (this.journals.get(runId) ?? []).filter((e) => e.seq >= fromSeq).map((e) => ({ ...e }));
  }

  findByIdempotencyKey(runId: string, key: string): JournalEntry | null {
    const e = this.journals.get(runId)?.find((x) => x.idempotencyKey === key);
    return e ? { ...e } : null;
  }

  markUnknownOnRecovery(runId: string): JournalEntry[] {
    this.run(runId);
    const open = this.journals.get(runId)!.filter((e) => e.status === 'intent' || e.status === 'unknown');
    if (open.some((e) => e.status === 'intent')) this.writable();
    for (const e of open) e.status = 'unknown';
    if (open.some((e) => !e.idempotent)) this.run(runId).status = 'waiting';
    return open.map((e) => ({ ...e }));
  }

  putSnapshot(runId: string, seq: number, bytes: Uint8Array): void {
    this.writable();
    const list = (this.snapshots.get(runId) ?? []).filter((s) => s.seq !== seq);
    list.push({ runId, seq, bytes, createdAt: Date.now() });
    list.sort((a, b) => a.seq - b.seq);
    this.snapshots.set(runId, list);
  }

  latestSnapshot(runId: string): Snapshot | null {
    const list = this.snapshots.get(runId);
    return list && list.length > 0 ? list[list.length - 1] : null;
  }

  pruneSnapshots(runId: string, keep = 1): void {
    const list = this.snapshots.get(runId);
    if (list) this.snapshots.set(runId, list.slice(Math.max(0, list.length - Math.max(0, Math.floor(keep)))));
  }

  putBundle(hash: string, bytes: Uint8Array): void {
    this.writable();
    this.bundles.set(hash, bytes);
  }

  getBundle(hash: string): Uint8Array | null {
    return this.bundles.get(hash) ?? null;
  }

  info(): StoreInfo {
    return { driver: 'memory', file: `(in memory: ${this.name})`, journalMode: 'memory', synchronous: 'none', schemaVersion: 0 };
  }

  close(): void {
    this.closed = true;
  }
}

/** A stored run's processes at one journal step. */
export interface StepState {
  /** the last journal step (seq) the replay consumed: `step`, or less when the journal ends sooner or an unknown outcome stops it */
  step: number;
  /** the run's last journal step */
  lastStep: number;
  /** every process: status, context tiers, memory, mailbox (as `Run.processes()` shows them) */
  processes: ProcessView[];
  /** what the program printed up to there */
  output: string[];
}

const END = 'the replay reached the end of the steps it was given';

/** The options a stored run recorded that shape its execution (runtime/run `recordable`). */
interface RecordedShape {
  seed?: number;
  maxSteps?: number;
  maxAlloc?: number;
  inferRetries?: number;
  context?: { working?: number; episodic?: number };
}

/**
 * The state of every process of stored run `runId` once the replay has consumed its journal up to
 * entry `step` (a seq) and run on until it needs a step after it (or the program ends). Nothing is
 * written to `store`; no model or effect is asked. Throws StoreError (no such run) or an Error
 * (the stored program no longer replays its journal).
 */
export async function stateAtStep(opts: { store: RunStore; runId: string; step: number }): Promise<StepState> {
  const { store, runId } = opts;
  const record = getRun(store, runId);
  const journal = store.readJournal(runId);
  const lastStep = journal.length > 0 ? journal[journal.length - 1].seq : 0;
  let upto = Math.max(0, Math.min(Math.floor(opts.step), lastStep));
  const bundles = new Map<string, Uint8Array>();
  for (const hash of [record.bytecodeHash, ...journal.filter((e) => e.kind === 'migrate').map((e) => (bytesJson(e.payload) as { to: string }).to)]) {
    const b = store.getBundle(hash);
    if (b) bundles.set(hash, b);
  }
  // The scratch copy: the run as a resume would see it (suspended), with its journal cut after `step`;
  // an effect whose outcome is not known ends the replay before it.
  for (;;) {
    const scratch = new MemoryRunStore(`replay of ${runId}`);
    scratch.importRun({ ...record, status: 'suspended' }, journal.filter((e) => e.seq <= upto), bundles);
    const prepared = await prepareResume(scratch, runId);
    if (prepared.kind === 'waiting') {
      upto = Math.min(...prepared.unknown.map((e) => e.seq)) - 1;
      continue;
    }
    const output: string[] = [];
    const refuse = (): Promise<never> => {
      vm.halt(END);
      return Promise.reject(new Error(END));
    };
    const recording: Host = { output: (line) => output.push(line), infer: refuse, tool: refuse };
    // output goes through the journal as in a resume (runtime/run/run.ts), so its entries count as replayed steps
    const host: Host = { ...recording, output: (line) => durable.output(recording, line) };
    const shape = (record.meta.options ?? {}) as RecordedShape;
    const vm: VM = new VM(prepared.bundle, host, {
      seed: shape.seed,
      maxSteps: shape.maxSteps,
      maxAlloc: shape.maxAlloc,
      inferRetries: shape.inferRetries,
      ...(shape.context ? { context: shape.context } : {}),
    });
    const durable: Durable = new Durable(vm, prepared.run, new JournalWriter(scratch, runId), prepared.entries);
    durable.printsShownOutput = true;
    vm.durable = durable;
    // the first step past the cut fails to write to the frozen copy: the replay stops at the next safe point
    scratch.freeze(END, () => vm.halt(END));
    // as in a resume (runtime/run), the journal's stop ends the wait even when the scheduler waits on an effect that now never comes
    await Promise.race([vm.run(), durable.stopped]);
    const stop = durable.stoppedNow ? await durable.stopped : null;
    // a cut journal makes the replay miss the step after the cut (a divergence there is its end); the whole journal must replay
    const cutShort = upto < lastStep && stop?.kind === 'fatal' && stop.error instanceof DivergenceError;
    if (stop?.kind === 'fatal' && !cutShort && (stop.error instanceof DivergenceError || stop.error instanceof UnknownOutcomeError)) {
      throw new Error(`run ${runId} does not replay to step ${upto}: ${stop.error.message}`);
    }
    const left = durable.leftover();
    const reached = left.length > 0 ? Math.min(...left.map((e) => e.seq)) - 1 : upto;
    return { step: reached, lastStep, processes: processViews(vm), output };
  }
}
