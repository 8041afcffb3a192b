// Finished processes leave the process table once nothing can ask for them (issue 45).
//
// A program asks about a process through a pid value (`wait`, `gather`, `monitor`, `status`, a
// scope's tasks...). A finished process whose pid no longer exists anywhere the program can reach
// can never be asked about again, so its record is dropped and the collector stops carrying it;
// a finished process whose pid is still held keeps its record — already compacted as it ended
// (lifecycle.ts: no stack, no frames after a return) — so every answer about it is as before.
//
// What keeps a finished process's record (the roots of `heldPids`):
// - a pid value reachable from a live process: its stack, its frames' closures (captured cells),
//   its mailbox, its memory, an effect it waits on;
// - a pid number the runtime keeps for a live process: scope tasks, tasks being joined, monitors,
//   waiters, gather watchers, the scope that owns it, `process_after` dependencies, its parent;
// - the VM's own values: the module cache and the methods table (closures that may capture pids);
// - a kept finished process's result or failure (a child may return a pid), its parent and its
//   `process_after` list — found transitively, until nothing new is reached;
// - the main process, always.
// The run's views (the editor's panel and trace, a durable run's journal and snapshots, the
// debugger, a placed child, telemetry) also ask, by pid, about every process: the VM does not
// sweep at all while any of them is attached (VM.sweepAllowed).
//
// A sweep walks every live process and what is reachable from them, so it runs only after enough
// processes have ended since the last one: at least SWEEP_MIN (RunOptions.sweepMin), half the
// table, as many finished ones as it kept, and a quarter of the processes and values it visited —
// which keeps its cost per finished process constant (amortized), whatever the heap — and four
// times that (up to 64) after each sweep that let little go (VM.sweepFinished). SWEEP_MIN is
// large on purpose: a sweep runs mostly in V8's unoptimized tiers (it is rare), where a visit
// costs microseconds, and a program of a few thousand processes is over before the records it
// could free (about 240 bytes each) are worth that.
import { Cell, ClosureVal, IdentityVal, MediaVal, PidVal, StructVal, Uncertain, VecVal, type Value } from '../values/index.js';
import { Process } from './process.js';

/** Finished processes between two sweeps, at least (about 4 MB of finished records). */
export const SWEEP_MIN = 16_384;

export interface SweepRoots {
  /** every process of the table, in creation order */
  processes: Iterable<Process>;
  /** the table's lookup, to follow a kept finished process's own references */
  get(pid: number): Process | undefined;
  /** values the VM holds outside any process (module cache, methods) */
  vmValues: Iterable<unknown>;
  main: number;
}

export interface Held {
  pids: Set<number>;
  /** processes and values visited: the sweep's cost, which sets how long until the next one */
  walked: number;
}

/** The pids something can still ask about (see the header for what counts). */
export function heldPids(roots: SweepRoots): Held {
  const pids = new Set<number>();
  const seen = new Set<object>();
  const pending: unknown[] = [];
  /** finished processes newly found held, whose own references are still to follow */
  const newlyHeld: number[] = [];
  const hold = (pid: number): void => {
    if (pid <= 0 || pids.has(pid)) return;
    pids.add(pid);
    newlyHeld.push(pid);
  };

  hold(roots.main);
  for (const v of roots.vmValues) pending.push(v);
  let processes = 0;
  for (const p of roots.processes) {
    processes++;
    if (p.finished) continue;
    hold(p.id);
    // the values the process can read: below its stack pointer (a slot above it is dead), its
    // frames' closures, its waiting messages, its memory and the effect it waits on
    const stack = p.stack;
    for (let i = 0; i < p.sp && i < stack.length; i++) pending.push(stack[i]);
    for (const f of p.frames) pending.push(f.closure);
    if (p.messageCount > 0) for (const m of p.mailbox) pending.push(m);
    if (p.hasMemory()) for (const v of p.memory.values()) pending.push(v);
    if (p.effect !== null) pending.push(p.effect);
    holdNumbers(p, hold);
  }

  // walk values, then the references of each finished process found held, until nothing is new
  // every item taken counts, a number in a long list too: the next sweep waits in proportion
  let visits = 0;
  while (pending.length > 0 || newlyHeld.length > 0) {
    while (pending.length > 0) {
      visits++;
      const x = pending.pop();
      if (x === null || typeof x !== 'object' || seen.has(x)) continue;
      seen.add(x);
      visit(x, pending, hold);
    }
    const pid = newlyHeld.pop();
    if (pid === undefined) continue;
    const q = roots.get(pid);
    if (q === undefined || !q.finished) continue;
    pending.push(q.result);
    if (q.failure !== null) pending.push(q.failure.value);
    hold(q.parent);
    for (const a of q.after) hold(a);
  }
  return { pids, walked: processes + visits };
}

/** The pid numbers the runtime keeps for a live process (its rare fields, its parent). */
function holdNumbers(p: Process, hold: (pid: number) => void): void {
  hold(p.parent);
  if (!p.hasRare()) return;
  for (const s of p.peek('scopes')) for (const t of s.tasks) hold(t);
  for (const list of ['joining', 'monitors', 'waiters', 'watchers'] as const) for (const id of p.peek(list)) hold(id);
  for (const id of p.after) hold(id);
  const owner = p.ownerScope;
  if (owner !== null) hold(owner.pid);
}

/** One object's references: Turn's values by their kind, anything else (an effect's request) by its own fields. */
function visit(x: object, pending: unknown[], hold: (pid: number) => void): void {
  if (x instanceof PidVal) hold(x.id);
  else if (Array.isArray(x)) for (const item of x) pending.push(item);
  else if (x instanceof Map) for (const item of x.values()) pending.push(item as Value);
  else if (x instanceof StructVal) for (const item of x.fields.values()) pending.push(item);
  else if (x instanceof ClosureVal) for (const cell of x.cells) pending.push(cell);
  else if (x instanceof Cell || x instanceof Uncertain) pending.push(x.v);
  else if (x instanceof Process) hold(x.id); // a record reached from an effect: conservatively, held
  else if (x instanceof VecVal || x instanceof IdentityVal || x instanceof MediaVal || ArrayBuffer.isView(x)) return;
  else if (x instanceof Set) for (const item of x) pending.push(item);
  else for (const item of Object.values(x)) pending.push(item);
}

/** When the next sweep is due: after this many more finished processes. */
export function nextSweepAfter(min: number, keptFinished: number, walked: number): number {
  return Math.max(min, keptFinished, Math.ceil(walked / 4));
}
