// A run's store inside a Restate workflow (docs/scale-out.md). The run API (runtime/run) drives a
// durable run against a RunStore; this one keeps the run in memory and makes every mutation one
// entry of the workflow's Restate journal (`ctx.run('j<n>', ...)`), so the journal keys, the
// idempotency keys and the replay rules are exactly those of the local SQLite journal
// (runtime/durable): Restate is where the steps are made durable, not a second journal format.
//
// Any worker rebuilds the store by replaying those entries (`replay()`), then the run API resumes
// the run from it as `turn resume` would from SQLite. An effect runs only once every entry before
// it is durable (`whenDurable`, the DeferredCommit port), so an intent is in Restate's log before
// its effect leaves the worker; an intent without its outcome becomes unknown on the next attempt,
// and a non-idempotent one waits for a person's decision, exactly as locally.
//
// The mutations are also mirrored into the workflow's state (`run`, `e:<seq>`, `o:<n>`,
// `snapshot`, `wait`), from which its shared handlers answer `turn runs`, `inspect`, `resume` and
// `resolve` while the run is alive. What is mirrored depends only on the mutations (their `at`
// times included), so a replay issues the very same state commands.
import type { WorkflowContext } from '@restatedev/restate-sdk';
import { MemoryRunStore } from '../durable/travel.js';
import { settleUnknown, type Settlement } from '../durable/runs.js';
import type { DeferredCommit } from '../ports/durable.js';
import type { JournalAppend, JournalEntry, NewRun, RunRecord, RunStatus, RunStore, Snapshot, StoreInfo } from '../store/types.js';
import { b64, entryJson, unb64, type Mutation, type RunJson, type Wake } from './codec.js';

/** A state command (`ctx.set`, or `ctx.clear` when `value` is undefined). */
interface StateCommand {
  key: string;
  value: unknown;
}

/** A wait whose promise was completed before the worker recorded what it did with it. */
export interface PendingWake {
  promise: string;
  value: Wake;
}

export class RestateRunStore implements RunStore, DeferredCommit {
  readonly mem: MemoryRunStore;
  private n = 0;
  private waits = 0;
  private outputs = 0;
  private outputKeys = new Set<string>();
  private linesSinceStep = 0;
  private stepsAtLastLine = -1;
  private readonly buffer: { m: Mutation; state: StateCommand[] }[] = [];
  private pump: Promise<void> | undefined;
  private created = 0;
  private updated = 0;
  private readonly entryTimes = new Map<number, [number, number | null]>();
  /** the output lines, exactly once across replays */
  readonly lines: string[] = [];

  constructor(
    private readonly ctx: WorkflowContext,
    readonly runId: string,
  ) {
    this.mem = new MemoryRunStore(`restate run ${runId}`);
  }

  // ---- replay: the Restate journal back into the memory store

  /**
   * Reads this workflow's recorded mutations in order into the memory store, re-issuing each wait
   * they record (a wait not completed yet keeps the workflow waiting here). Stops at the first
   * entry Restate has not recorded. Returns a completed wait not yet applied, if any.
   */
  async replay(): Promise<PendingWake | undefined> {
    let pending: PendingWake | undefined;
    for (;;) {
      let live = false;
      const batch = await this.ctx.run<Mutation[]>(`j${++this.n}`, () => {
        live = true;
        return [{ op: 'mark', at: Date.now() }];
      });
      if (live) return pending;
      for (const m of batch) {
        this.applyMem(m);
        this.issue(this.stateOf(m));
        if (m.op === 'wait') pending = { promise: m.promise, value: await this.ctx.promise<Wake>(m.promise).get() };
        else if (m.op === 'woken') pending = undefined;
      }
    }
  }

  /** Records a wait, then waits (durably) for its promise; the value is applied with `wake`. */
  async wait(kind: 'resume' | 'decide', unknown: number[]): Promise<PendingWake> {
    const promise = `${kind}-${this.waits + 1}`;
    this.commit({ op: 'wait', at: Date.now(), kind, promise, unknown });
    await this.whenDurable();
    return { promise, value: await this.ctx.promise<Wake>(promise).get() };
  }

  /** Applies a completed wait (a decision settles its step as `turn resolve` does locally). */
  wake(w: PendingWake): void {
    this.commit({ op: 'woken', at: Date.now(), promise: w.promise, value: w.value });
  }

  /** One line the program printed, recorded once (a replay prints a line at the same place again). */
  output(line: string): void {
    const steps = this.mem.readJournal(this.runId).length;
    if (steps !== this.stepsAtLastLine) {
      this.stepsAtLastLine = steps;
      this.linesSinceStep = 0;
    }
    const key = `${steps}:${this.linesSinceStep++}`;
    if (this.outputKeys.has(key)) return;
    this.commit({ op: 'output', at: Date.now(), key, line });
  }

  /**
   * Settles when every mutation so far is in Restate's journal (never rejects: a failed attempt
   * ends the invocation, and Restate retries it from the journal). One loop writes them: each turn
   * takes what is buffered as one entry and awaits it before the next, so the journal reads
   * command, completion, command... exactly as `replay` awaits it (the SDK checks that a replay
   * awaits what the first execution awaited), and the state commands follow their entry.
   */
  whenDurable(): Promise<void> {
    if (this.buffer.length === 0 && !this.pump) return Promise.resolve();
    this.pump ??= (async () => {
      while (this.buffer.length > 0) {
        // a wait ends its entry: the workflow awaits its promise right after it
        const cut = this.buffer.findIndex((b) => b.m.op === 'wait');
        const batch = this.buffer.splice(0, cut === -1 ? this.buffer.length : cut + 1);
        const ms = batch.map((b) => b.m);
        try {
          await this.ctx.run(`j${++this.n}`, () => ms);
        } catch {
          await new Promise<void>(() => {});
        }
        for (const b of batch) this.issue(b.state);
      }
      this.pump = undefined;
    })();
    return this.pump;
  }

  // ---- one mutation: applied to memory now, written to Restate's journal by the loop above

  private commit<T>(m: Mutation): T {
    const result = this.applyMem(m) as T;
    this.buffer.push({ m, state: this.stateOf(m) });
    return result;
  }

  private issue(state: StateCommand[]): void {
    for (const c of state) {
      if (c.value === undefined) this.ctx.clear(c.key);
      else this.ctx.set(c.key, c.value);
    }
  }

  private applyMem(m: Mutation): unknown {
    const id = this.runId;
    switch (m.op) {
      case 'create':
        this.created = m.at;
        return this.mem.createRun({ id, entry: m.entry, bytecodeHash: m.bytecodeHash, semanticsVersion: m.semanticsVersion, policies: m.policies, meta: m.meta });
      case 'bundle':
        return this.mem.putBundle(m.hash, unb64(m.bytes)!);
      case 'status':
        return this.mem.setRunStatus(id, m.status, unb64(m.result));
      case 'append': {
        const { payload, snapshot, ...rest } = m.entry;
        const seq = this.mem.appendJournal(id, { ...rest, payload: unb64(payload), ...(snapshot ? { snapshot: unb64(snapshot)! } : {}) });
        this.entryTimes.set(seq, [m.at, m.entry.status === 'intent' ? null : m.at]);
        return seq;
      }
      case 'complete':
        this.mem.completeJournal(id, m.seq, m.status, unb64(m.payload));
        this.entryTimes.set(m.seq, [this.entryTimes.get(m.seq)?.[0] ?? m.at, m.at]);
        return undefined;
      case 'unknown':
        return this.mem.markUnknownOnRecovery(id);
      case 'snapshot':
        return this.mem.putSnapshot(id, m.seq, unb64(m.bytes)!);
      case 'prune':
        return this.mem.pruneSnapshots(id, m.keep);
      case 'output':
        this.outputKeys.add(m.key);
        this.lines.push(m.line);
        return undefined;
      case 'wait':
        this.waits++;
        return undefined;
      case 'woken': {
        const v = m.value;
        if ('seq' in v) {
          const settlement: Settlement = 'retry' in v ? { retry: true } : 'error' in v ? { error: v.error } : { ok: v.ok };
          try {
            const before = this.mem.readJournal(id).length;
            settleUnknown(this.mem, id, v.seq, settlement);
            for (const e of this.mem.readJournal(id)) {
              if (e.seq > before) this.entryTimes.set(e.seq, [m.at, m.at]);
              else if (e.seq === v.seq) this.entryTimes.set(e.seq, [this.entryTimes.get(e.seq)?.[0] ?? m.at, m.at]);
            }
          } catch {
            // the step was settled already: the resume below finds the run as it is
          }
        }
        return undefined;
      }
      case 'mark':
        return undefined;
    }
  }

  /** The state commands a mutation implies, computed right after it is applied: the same on every replay. */
  private stateOf(m: Mutation): StateCommand[] {
    if (m.op === 'mark' || m.op === 'bundle' || m.op === 'prune') return [];
    if (m.op === 'output') return [{ key: `o:${this.outputs++}`, value: m.line }];
    if (m.op === 'wait') return [{ key: 'wait', value: { kind: m.kind, promise: m.promise, unknown: m.unknown } }];
    if (m.op === 'snapshot') return [{ key: 'snapshot', value: { seq: m.seq, bytes: m.bytes } }];
    const out: StateCommand[] = [];
    this.updated = m.at;
    const entries = this.mem.readJournal(this.runId);
    // an append or a completion touches one entry; recovery and a decision may touch several
    const touched: JournalEntry[] =
      m.op === 'append' ? entries.slice(-1) : m.op === 'complete' ? entries.filter((e) => e.seq === m.seq) : m.op === 'unknown' || m.op === 'woken' ? entries : [];
    for (const e of touched) {
      const [at, done] = this.entryTimes.get(e.seq) ?? [m.at, null];
      out.push({ key: `e:${e.seq}`, value: entryJson(e, at, done) });
    }
    if (m.op === 'append' && m.entry.snapshot) out.push({ key: 'snapshot', value: { seq: entries[entries.length - 1].seq - 1, bytes: m.entry.snapshot } });
    if (m.op === 'woken') out.push({ key: 'wait', value: undefined });
    const r = this.mem.getRun(this.runId);
    if (r && m.op !== 'append' && m.op !== 'complete') out.push({ key: 'run', value: this.runJson(r) });
    return out;
  }

  private runJson(r: RunRecord): RunJson {
    return { ...r, createdAt: this.created, updatedAt: this.updated, result: b64(r.result) };
  }

  // ---- RunStore

  createRun(run: NewRun): RunRecord {
    return this.commit<RunRecord>({
      op: 'create', at: Date.now(), id: this.runId, entry: run.entry, bytecodeHash: run.bytecodeHash, semanticsVersion: run.semanticsVersion, policies: run.policies ?? {}, meta: run.meta ?? {},
    });
  }

  getRun(id: string): RunRecord | null {
    return this.mem.getRun(id);
  }

  listRuns(filter?: { status?: RunStatus }): RunRecord[] {
    return this.mem.listRuns(filter);
  }

  setRunStatus(id: string, status: RunStatus, result: Uint8Array | null = null): void {
    this.check(id);
    this.commit({ op: 'status', at: Date.now(), status, result: b64(result) });
  }

  appendJournal(runId: string, entry: JournalAppend): number {
    this.check(runId);
    const { payload, snapshot, ...rest } = entry;
    return this.commit<number>({ op: 'append', at: Date.now(), entry: { ...rest, payload: b64(payload), ...(snapshot ? { snapshot: b64(snapshot)! } : {}) } });
  }

  completeJournal(runId: string, seq: number, status: 'ok' | 'error', payload: Uint8Array | null): void {
    this.check(runId);
    this.commit({ op: 'complete', at: Date.now(), seq, status, payload: b64(payload) });
  }

  readJournal(runId: string, fromSeq?: number): JournalEntry[] {
    return this.mem.readJournal(runId, fromSeq);
  }

  findByIdempotencyKey(runId: string, key: string): JournalEntry | null {
    return this.mem.findByIdempotencyKey(runId, key);
  }

  markUnknownOnRecovery(runId: string): JournalEntry[] {
    this.check(runId);
    // recorded only when it changes something: an intent becomes unknown
    if (!this.mem.readJournal(runId).some((e) => e.status === 'intent')) return this.mem.markUnknownOnRecovery(runId);
    return this.commit<JournalEntry[]>({ op: 'unknown', at: Date.now() });
  }

  putSnapshot(runId: string, seq: number, bytes: Uint8Array): void {
    this.check(runId);
    this.commit({ op: 'snapshot', at: Date.now(), seq, bytes: b64(bytes)! });
  }

  latestSnapshot(runId: string): Snapshot | null {
    return this.mem.latestSnapshot(runId);
  }

  pruneSnapshots(runId: string, keep?: number): void {
    this.commit({ op: 'prune', at: Date.now(), keep: keep ?? 1 });
    void runId;
  }

  putBundle(hash: string, bytes: Uint8Array): void {
    if (this.mem.getBundle(hash)) return;
    this.commit({ op: 'bundle', at: Date.now(), hash, bytes: b64(bytes)! });
  }

  getBundle(hash: string): Uint8Array | null {
    return this.mem.getBundle(hash);
  }

  info(): StoreInfo {
    return { driver: 'restate', file: `restate workflow TurnRun/${this.runId}`, journalMode: 'restate', synchronous: 'restate', schemaVersion: 1 };
  }

  close(): void {
    // the workflow's journal is Restate's: nothing to release
  }

  private check(id: string): void {
    if (id !== this.runId) throw new Error(`the Restate store of run ${this.runId} was asked about run ${id}`);
  }
}
