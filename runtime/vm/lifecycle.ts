// Process lifecycle: the table of processes (creation, lookup, the detached ones the run waits
// for) and what happens when a process ends (its scopes' tasks cancelled, scope owners, monitors,
// waiters and gatherers told, linked children taken down, its linked parent sent an ExitSignal).
// Scope policies, monitors and cancellation themselves are in actors.ts.
import type { ContextLimits } from '../context/index.js';
import type { EventLog } from '../events/index.js';
import { PidVal, type Value } from '../values/index.js';
import { cancelScopeTasks, processEnded, requestCancel, taskFinished, type ActorRuntime } from './actors.js';
import { DONE, FAILED, Process, type Frame } from './process.js';

const NO_PIDS: readonly number[] = Object.freeze([]);

export class ProcessTable {
  /** processes by pid (pids are handed out in order, so this is also creation order); holes are pids never used here */
  private readonly byPid: (Process | undefined)[] = [undefined];
  /** detached processes found so far, and how far `byPid` has been searched for them */
  private readonly detachedOnes: Process[] = [];
  private searchedTo = 1;
  /** pids of each parent's linked children, in spawn order: a failing parent takes them down without a search */
  private readonly linkedTo = new Map<number, number[]>();
  nextPid = 1;
  /**
   * The next scope's number. Per table, so per run: a run in a warm process (`turn test`, watch
   * mode, `turn mcp`, the editor's server) numbers its scopes as a run in a fresh process would,
   * and nothing in it (a durable snapshot's scope ids) depends on the runs before it.
   */
  private nextScopeId = 1;

  newScopeId(): number {
    return this.nextScopeId++;
  }

  /** A VM restored from a snapshot (issue 17) holds scopes numbered up to `id`: new ones number above them. */
  reserveScopeIds(id: number): void {
    if (this.nextScopeId <= id) this.nextScopeId = id + 1;
  }

  get(id: number): Process | undefined {
    return this.byPid[id];
  }

  /** How many processes the table holds (live, and finished ones not yet let go): tests count it. */
  get size(): number {
    let n = 0;
    for (const p of this.byPid) if (p !== undefined) n++;
    return n;
  }

  /**
   * Lets go of every finished process not in `held` (sweep.ts says what holds one); returns how
   * many finished ones were kept and how many let go. Each parent's list of linked children keeps only the children still running,
   * the only ones a failing parent takes down.
   */
  sweep(held: ReadonlySet<number>): { kept: number; freed: number } {
    const all = this.byPid;
    let kept = 0;
    let freed = 0;
    for (let i = 1; i < all.length; i++) {
      const p = all[i];
      if (p === undefined) continue;
      if (!p.finished) continue;
      if (held.has(i)) kept++;
      else {
        all[i] = undefined;
        freed++;
      }
    }
    for (const [parent, children] of this.linkedTo) {
      const running = children.filter((id) => all[id] !== undefined && !all[id].finished);
      if (running.length === 0) this.linkedTo.delete(parent);
      else if (running.length < children.length) this.linkedTo.set(parent, running);
    }
    return { kept, freed };
  }

  /** every process, in creation order */
  *values(): IterableIterator<Process> {
    const all = this.byPid;
    for (let i = 1; i < all.length; i++) {
      const p = all[i];
      if (p !== undefined) yield p;
    }
  }

  /** A new process (READY, no frames yet). */
  create(parent: number, linked: boolean, contextLimits: ContextLimits | undefined, events: EventLog): Process {
    const p = new Process(this.nextPid++, parent, linked);
    this.put(p);
    if (contextLimits) p.context.limits = contextLimits;
    if (events.active) events.emit({ kind: 'process.spawn', pid: p.id, parent });
    return p;
  }

  /** A restored run's process (issue 17). */
  restore(p: Process): void {
    this.put(p);
  }

  private put(p: Process): void {
    const all = this.byPid;
    while (all.length < p.id) all.push(undefined);
    all[p.id] = p;
    if (p.linked) {
      const siblings = this.linkedTo.get(p.parent);
      if (siblings === undefined) this.linkedTo.set(p.parent, [p.id]);
      else siblings.push(p.id);
    }
  }

  /** pids of the processes `pid` spawned linked, in spawn order */
  linkedChildren(pid: number): readonly number[] {
    return this.linkedTo.get(pid) ?? NO_PIDS;
  }

  /**
   * Whether a detached process is still running. A process is detached as it starts (before the
   * scheduler next looks), so each process is searched once, not at every call.
   */
  hasLiveDetached(): boolean {
    const all = this.byPid;
    for (; this.searchedTo < all.length; this.searchedTo++) {
      const p = all[this.searchedTo];
      if (p !== undefined && p.hasRare() && p.detached) this.detachedOnes.push(p);
    }
    const ones = this.detachedOnes;
    while (ones.length > 0 && ones[ones.length - 1].finished) ones.pop();
    for (const p of ones) if (!p.finished) return true;
    return false;
  }
}

export interface LifecycleRuntime extends ActorRuntime {
  readonly events: EventLog;
  /** pids of the processes `pid` spawned linked, in spawn order */
  linkedChildren(pid: number): readonly number[];
}

// What a finished process no longer needs is let go (its record stays: its pid can still be asked
// about), so the ten thousand records of a spawning loop are smaller for the collector to move.
/** A finished process's stack: it runs no more, so it holds nothing (frozen: nothing may write it). */
const NO_STACK = Object.freeze([]) as unknown as Value[];
/** A returned process's frames (all popped by its return; a failed one keeps its own, for its stack trace and name). */
const NO_FRAMES = Object.freeze([]) as unknown as Frame[];

/** `p` ended with `st` (DONE or FAILED): everyone who depends on it is told. */
export function finishProcess(rt: LifecycleRuntime, p: Process, st: number): void {
  p.status = st;
  if (rt.events.active) rt.events.emit({ kind: 'process.exit', pid: p.id, status: st === DONE ? 'done' : 'failed' });
  p.stack = NO_STACK;
  p.sp = 0;
  if (st === DONE && p.frames.length === 0) p.frames = NO_FRAMES;
  // scopes, owners, monitors, waiters and gatherers are rare fields: a process that never had one
  // (most workers) has nobody of theirs to tell
  if (p.hasRare()) endRareTies(rt, p);
  // a link binds both ways: a parent that fails (or is cancelled) takes its linked children down
  if (st === FAILED) {
    for (const id of rt.linkedChildren(p.id)) {
      const q = rt.process(id);
      if (q !== undefined && !q.finished) requestCancel(rt, q, `cancelled: its linked parent #${p.id} failed`);
    }
  }
  if (p.linked) {
    const parent = rt.process(p.parent);
    if (parent && !parent.finished) {
      const signal = new Map<string, Value>();
      signal.set('type', 'ExitSignal');
      signal.set('pid', new PidVal(p.id));
      if (st === DONE) signal.set('result', rt.copy(p.result));
      else signal.set('reason', rt.copy(p.failure!.value));
      rt.deliver(parent, signal);
    }
  }
}

/** The ties kept in a process's rare fields, undone as it ends. */
function endRareTies(rt: LifecycleRuntime, p: Process): void {
  p.loading = [];
  // No orphans: a process that ends with scopes still open cancels their tasks.
  while (p.peek('scopes').length > 0) cancelScopeTasks(rt, p.scopes.pop()!, 'cancelled: the process that owns its scope ended');
  taskFinished(rt, p);
  processEnded(rt, p);
  for (const id of p.peek('watchers')) {
    const w = rt.process(id);
    if (w && w.waiting === 'gather') rt.wake(w);
  }
  p.watchers = [];
}
