// Process lifecycle: the table of processes (creation, lookup, the detached ones the run waits
// for) and what happens when a process ends (its scopes' tasks cancelled, scope owners, monitors,
// waiters and gatherers told, linked children taken down, its linked parent sent an ExitSignal).
// Scope policies, monitors and cancellation themselves are in actors.ts.
import type { ContextLimits } from '../context/index.js';
import type { EventLog } from '../events/index.js';
import { PidVal, type Value } from '../values/index.js';
import { cancelScopeTasks, processEnded, requestCancel, taskFinished, type ActorRuntime } from './actors.js';
import { DONE, FAILED, Process } from './process.js';

export class ProcessTable {
  private readonly procs = new Map<number, Process>();
  nextPid = 1;

  get(id: number): Process | undefined {
    return this.procs.get(id);
  }

  /** every process, in creation order */
  values(): IterableIterator<Process> {
    return this.procs.values();
  }

  /** A new process (READY, no frames yet). */
  create(parent: number, linked: boolean, contextLimits: ContextLimits | undefined, events: EventLog): Process {
    const p = new Process(this.nextPid++, parent, linked);
    this.procs.set(p.id, p);
    if (contextLimits) p.context.limits = contextLimits;
    if (events.active) events.emit({ kind: 'process.spawn', pid: p.id, parent });
    return p;
  }

  /** A restored run's process (issue 17). */
  restore(p: Process): void {
    this.procs.set(p.id, p);
  }

  hasLiveDetached(): boolean {
    for (const p of this.procs.values()) if (p.detached && !p.finished) return true;
    return false;
  }
}

export interface LifecycleRuntime extends ActorRuntime {
  readonly events: EventLog;
}

/** `p` ended with `st` (DONE or FAILED): everyone who depends on it is told. */
export function finishProcess(rt: LifecycleRuntime, p: Process, st: number): void {
  p.status = st;
  if (rt.events.active) rt.events.emit({ kind: 'process.exit', pid: p.id, status: st === DONE ? 'done' : 'failed' });
  p.stack = [];
  p.sp = 0;
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
  // a link binds both ways: a parent that fails (or is cancelled) takes its linked children down
  if (st === FAILED) {
    for (const q of rt.processes()) {
      if (q.parent === p.id && q.linked && !q.finished) requestCancel(rt, q, `cancelled: its linked parent #${p.id} failed`);
    }
  }
  if (p.linked) {
    const parent = rt.process(p.parent);
    if (parent && !parent.finished) {
      const signal = new Map<string, Value>([
        ['type', 'ExitSignal'],
        ['pid', new PidVal(p.id)],
      ]);
      if (st === DONE) signal.set('result', rt.copy(p.result));
      else signal.set('reason', rt.copy(p.failure!.value));
      rt.deliver(parent, signal);
    }
  }
}
