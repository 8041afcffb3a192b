// Lifecycles on top of the scheduler: scoped tasks and their failure policies, cancellation,
// monitors, detached processes, process inspection, and the process-aware tools
// (`call("self")`, `call("monitor", pid)`, ...). The VM calls in here; nothing here runs bytecode.
//
// Results come back in spawn order, never completion order. The two policies that stop early are
// decided by the first task to settle the question — fail_fast by the first failure, first_success
// by the first success — and cancel every other task at once; that is their purpose (stop paying
// for work whose outcome no longer matters), so when several tasks could decide, which one does
// depends on timing.
import { DONE, FAILED, type Process, type ScopePolicy, type ScopeRecord, type Waiting } from './process.js';
import { PidVal, StructVal, VMError, containsIdentity, render, typeName, unwrap, type Value } from '../values/index.js';
import { Context } from '../context/index.js';
import { leftOf, limitsArg, limitsValue, lowered } from './budgets.js';

export { SCOPE_POLICIES } from '../syntax/ast.js';

/** What actors.ts needs from the VM. */
export interface ActorRuntime {
  process(pid: number): Process | undefined;
  processes(): Iterable<Process>;
  deliver(to: Process, message: Value): void;
  wake(p: Process): void;
  /** the scheduler's clock, in milliseconds since the run started */
  now(): number;
  /** a deep copy of `v` for another process, charged to the run's allocation budget */
  copy(v: Value): Value;
  /** whether the run's model offers a capability (`tools`: native tool calls; Host.modelSupports) */
  modelSupports(feature: string): boolean;
  /** process `p` named itself (`process_name`): a durable run journals it */
  processNamed(p: Process, name: string): void;
}

const msg = (entries: [string, Value][]): Map<string, Value> => new Map(entries);

export function cancelledValue(reason: string): Map<string, Value> {
  return msg([
    ['type', 'Cancelled'],
    ['message', reason],
  ]);
}

/** The value a finished process contributes: its result, or its error value. */
export function outcomeValue(rt: ActorRuntime, p: Process): Value {
  return rt.copy(p.status === DONE ? p.result : p.failure!.value);
}

/** The struct a failed child's slot of `gather` holds (the checker knows it: runtime/check/analyze.ts). */
export const CHILD_ERROR = 'ChildError';
export const CHILD_ERROR_FIELDS = ['pid', 'type', 'message', 'error'] as const;

/**
 * What `gather` gives for `p`: its result, or — when it failed — a `ChildError { pid, type,
 * message, error }` a program can tell from any result (`call("type_of", r) == "ChildError"`):
 * `error` is the value the child threw as it is; `type` and `message` are that error's own when it
 * is a runtime error map, else "Thrown" and the value as text.
 */
export function gatheredValue(rt: ActorRuntime, p: Process): Value {
  if (p.status === DONE) return rt.copy(p.result);
  const error = outcomeValue(rt, p);
  const e = unwrap(error);
  const type = e instanceof Map && typeof unwrap(e.get('type') ?? null) === 'string' ? (unwrap(e.get('type')!) as string) : 'Thrown';
  const message = e instanceof Map && typeof unwrap(e.get('message') ?? null) === 'string' ? (unwrap(e.get('message')!) as string) : render(error);
  return new StructVal(CHILD_ERROR, new Map<string, Value>([
    ['pid', new PidVal(p.id)],
    ['type', type],
    ['message', message],
    ['error', error],
  ]));
}

// ---------------------------------------------------------------------------------------------
// Cancellation

/**
 * Asks `p` to stop. It is told at its next safe point — the scheduler raises a catchable
 * `{"type": "Cancelled"}` in it before it runs again — so it can clean up in a `catch`.
 */
export function requestCancel(rt: ActorRuntime, p: Process, reason: string): void {
  if (p.finished || p.cancel !== 'none') return;
  p.cancel = 'requested';
  p.cancelReason = reason;
  rt.wake(p);
}

// ---------------------------------------------------------------------------------------------
// Scopes

/** Opens a scope numbered `id` (from the VM's process table, ProcessTable.newScopeId: each run numbers its own from 1). */
export function openScope(p: Process, policy: ScopePolicy, id: number): void {
  p.scopes.push({ id, policy, tasks: [], handlers: p.handlers.length, decidedBy: null });
}

export function innermostScope(p: Process): ScopeRecord {
  const rec = p.scopes[p.scopes.length - 1];
  if (!rec) throw new VMError('`task` runs only inside a `scope` block');
  return rec;
}

export type ScopeResult = { done: false } | { done: true; value: Value } | { done: true; error: Value };

/** Whether the scope's policy is settled, and with what (called at the end of the scope's block). */
export function scopeResult(rt: ActorRuntime, rec: ScopeRecord): ScopeResult {
  const tasks = rec.tasks.map((id) => rt.process(id)!);
  if (!tasks.every((t) => t.finished)) return { done: false };
  switch (rec.policy) {
    case 'wait_all':
      // like `gather`: a failed task's slot is a ChildError, never mistaken for a result
      return { done: true, value: tasks.map((t) => gatheredValue(rt, t)) };
    case 'fail_fast':
      if (rec.decidedBy !== null) return { done: true, error: outcomeValue(rt, rt.process(rec.decidedBy)!) };
      return { done: true, value: tasks.map((t) => outcomeValue(rt, t)) };
    case 'best_effort': {
      // every task ran to its end: the successes and the failures, each in spawn order; never an error
      const results: Value[] = [];
      const failures: Value[] = [];
      for (const t of tasks) (t.status === DONE ? results : failures).push(gatheredValue(rt, t));
      return { done: true, value: msg([['results', results], ['failures', failures]]) };
    }
    case 'first_success': {
      if (rec.decidedBy !== null) return { done: true, value: outcomeValue(rt, rt.process(rec.decidedBy)!) };
      const errors = tasks.map((t) => outcomeValue(rt, t));
      return {
        done: true,
        error: msg([
          ['type', 'AllTasksFailed'],
          ['message', `all ${tasks.length} task${tasks.length === 1 ? '' : 's'} of the first_success scope failed`],
          ['errors', errors],
        ]),
      };
    }
  }
}

/** A task ended: apply its scope's policy to its siblings and wake the owner if it waits. */
export function taskFinished(rt: ActorRuntime, task: Process): void {
  if (!task.ownerScope) return;
  const owner = rt.process(task.ownerScope.pid);
  if (owner?.waiting === 'join') rt.wake(owner);
  const rec = owner?.scopes.find((s) => s.id === task.ownerScope!.scope);
  if (!owner || !rec) return;
  const decisive =
    rec.decidedBy === null &&
    task.cancel === 'none' &&
    ((rec.policy === 'fail_fast' && task.status === FAILED) || (rec.policy === 'first_success' && task.status === DONE));
  if (decisive) {
    rec.decidedBy = task.id;
    cancelScopeTasks(rt, rec, rec.policy === 'fail_fast' ? 'cancelled: a sibling task failed' : 'cancelled: a sibling task succeeded');
  }
  if (owner.waiting === 'scope') rt.wake(owner);
}

/** Leaving scopes without finishing them (an error unwound past them): cancel their tasks. */
export function abandonScopes(rt: ActorRuntime, p: Process, handlersLeft: number): void {
  while (p.scopes.length > 0 && p.scopes[p.scopes.length - 1].handlers > handlersLeft) {
    const rec = p.scopes.pop()!;
    cancelScopeTasks(rt, rec, 'cancelled: its scope was left by an error');
    p.joining.push(...rec.tasks);
  }
}

export function cancelScopeTasks(rt: ActorRuntime, rec: ScopeRecord, reason: string): void {
  for (const id of rec.tasks) {
    const t = rt.process(id);
    if (t) requestCancel(rt, t, reason);
  }
}

// ---------------------------------------------------------------------------------------------
// Endings: monitors, waiters and events

export function spawnedEvent(p: Process): Map<string, Value> {
  return msg([
    ['type', 'Spawned'],
    ['pid', new PidVal(p.id)],
    ['parent', p.parent === 0 ? null : new PidVal(p.parent)],
  ]);
}

export function exitEvent(rt: ActorRuntime, p: Process): Map<string, Value> {
  const e = msg([
    ['type', 'Exit'],
    ['pid', new PidVal(p.id)],
  ]);
  if (p.status === DONE) e.set('result', outcomeValue(rt, p));
  else e.set('reason', outcomeValue(rt, p));
  return e;
}

/** Notifies monitors and `wait`ers that `p` ended. */
export function processEnded(rt: ActorRuntime, p: Process): void {
  // Event streams are kept for detached processes (reached through their handle) and for any
  // process that emitted progress; other processes would pay memory for events nobody reads.
  if (p.detached || p.peek('events').length > 0) p.events.push(exitEvent(rt, p));
  for (const id of p.peek('monitors')) {
    const m = rt.process(id);
    if (m && !m.finished) rt.deliver(m, downMessage(rt, p));
  }
  p.monitors = [];
  for (const id of p.peek('waiters')) {
    const w = rt.process(id);
    if (w && (w.waiting === 'wait' || w.waiting === 'select')) rt.wake(w);
  }
  p.waiters = [];
}

function downMessage(rt: ActorRuntime, p: Process): Map<string, Value> {
  const d = msg([
    ['type', 'Down'],
    ['pid', new PidVal(p.id)],
  ]);
  if (p.status === DONE) d.set('result', outcomeValue(rt, p));
  else d.set('reason', outcomeValue(rt, p));
  return d;
}

// ---------------------------------------------------------------------------------------------
// Inspection: what the editor's actor tree shows

export interface ProcessInfo {
  pid: number;
  parent: number;
  status: 'ready' | 'waiting' | 'done' | 'failed';
  waitingOn: Waiting | 'effect' | null;
  linked: boolean;
  detached: boolean;
  monitors: number[];
  mailbox: number;
  scopes: number;
  cancel: Process['cancel'];
}

export function inspect(p: Process): ProcessInfo {
  const status = p.status === DONE ? 'done' : p.status === FAILED ? 'failed' : p.waiting || p.effect ? 'waiting' : 'ready';
  return {
    pid: p.id,
    parent: p.parent,
    status,
    waitingOn: p.effect ? 'effect' : p.waiting,
    linked: p.linked,
    detached: p.detached,
    monitors: [...p.monitors],
    mailbox: p.messageCount,
    scopes: p.scopes.length,
    cancel: p.cancel,
  };
}

function infoValue(i: ProcessInfo): Map<string, Value> {
  return msg([
    ['pid', new PidVal(i.pid)],
    ['parent', i.parent === 0 ? null : new PidVal(i.parent)],
    ['status', i.status],
    ['waiting_on', i.waitingOn],
    ['linked', i.linked],
    ['detached', i.detached],
    ['mailbox', i.mailbox],
  ]);
}

// ---------------------------------------------------------------------------------------------
// Process-aware tools: `call("self")`, `call("monitor", pid)`, ...

/** A tool's answer: a value, or "block and run this tool again when woken". */
export const BLOCK = Symbol('block');

export type ProcessTool = (rt: ActorRuntime, p: Process, args: Value[]) => Value | typeof BLOCK;

function pidArg(name: string, rt: ActorRuntime, args: Value[], i = 0): Process {
  const v = unwrap(args[i]);
  if (!(v instanceof PidVal)) throw new VMError(`tool ${name} expects a pid, got ${typeName(v)}`);
  const q = rt.process(v.id);
  if (!q) throw new VMError(`tool ${name}: no process ${v.id}`);
  return q;
}

function arity(name: string, args: Value[], n: number): void {
  if (args.length !== n) throw new VMError(`tool ${name} expects ${n} argument${n === 1 ? '' : 's'}, got ${args.length}`);
}

function millis(name: string, v: Value): number {
  const n = unwrap(v);
  if (typeof n !== 'number' || !(n >= 0)) throw new VMError(`tool ${name} expects milliseconds (a Num >= 0), got ${typeName(n)}`);
  return n;
}

/** Starts or finishes a timed wait; returns true once the time has passed. */
export function timedWait(rt: ActorRuntime, p: Process, ms: number): boolean {
  if (p.timedOut) {
    p.timedOut = false;
    p.deadline = null;
    return true;
  }
  if (p.deadline === null) p.deadline = rt.now() + ms;
  return false;
}

/** the longest name a process may give itself (`process_name`) */
const MAX_PROCESS_NAME = 80;
/** the most dependencies a process may declare (`process_after`) */
const MAX_AFTER = 256;

export const PROCESS_TOOLS: Record<string, ProcessTool> = {
  /**
   * `context_clear()`: empties the caller's context tiers (P0, P1, P2), keeping its budgets. A child
   * starts from a copy of its parent's context; one that wants isolation calls this first.
   */
  context_clear(_rt, p, args) {
    arity('context_clear', args, 0);
    if (p.hasContext()) p.context = new Context(p.context.limits);
    return null;
  },
  /**
   * `context_budget({"working": N, "episodic": M})`: the caller's P1 and P2 token budgets from now on
   * (either may be left out; each at most what it is now: a budget is only lowered); its children
   * inherit them. Returns the budgets in force.
   */
  context_budget(_rt, p, args) {
    arity('context_budget', args, 1);
    const m = unwrap(args[0]);
    if (!(m instanceof Map)) throw new VMError(`context_budget expects a map like {"working": 8000, "episodic": 32000}, got ${typeName(m)}`);
    const limits = { ...p.context.limits };
    for (const [k, v] of m) {
      const n = unwrap(v);
      if (k !== 'working' && k !== 'episodic') throw new VMError(`context_budget: unknown tier budget "${k}" (working, episodic)`);
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) throw new VMError(`context_budget: ${k} must be a whole number of tokens >= 1`);
      // a budget of the run (--context-working, --context-episodic) or one the process set: it can only be lowered
      if (n > limits[k]) throw new VMError(`context_budget: cannot raise ${k} to ${n}: this process's ${k} budget is ${limits[k]} tokens, and a process can only lower its limits`);
      limits[k] = n;
    }
    p.context.limits = limits;
    return new Map<string, Value>([['working', limits.working], ['episodic', limits.episodic]]);
  },
  /**
   * `process_name(name)`: the name the editor and traces show for the caller (in place of its
   * function's), e.g. std/graph's node processes by their node. A short single line: control
   * characters and anything past 80 characters are refused.
   */
  process_name(rt, p, args) {
    arity('process_name', args, 1);
    const name = unwrap(args[0]);
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_PROCESS_NAME || /[\u0000-\u001f\u007f]/.test(name)) {
      throw new VMError(`process_name expects a name of 1 to ${MAX_PROCESS_NAME} characters on one line, got ${typeof name === 'string' ? `${name.length} characters` : typeName(name)}`);
    }
    p.label = name;
    rt.processNamed(p, name);
    return null;
  },
  /**
   * `process_after([pid, ...])`: the processes the caller depends on (their results are its input),
   * which the editor's graph view draws as edges; std/graph's coordinator gives each node's process
   * its dependencies' pids. Only a description: it changes no scheduling. At most MAX_AFTER pids.
   */
  process_after(_rt, p, args) {
    arity('process_after', args, 1);
    const list = unwrap(args[0]);
    if (!Array.isArray(list) || list.length > MAX_AFTER) throw new VMError(`process_after expects a list of at most ${MAX_AFTER} pids, got ${Array.isArray(list) ? `${list.length} items` : typeName(list)}`);
    const pids: number[] = [];
    for (const x of list) {
      const v = unwrap(x);
      if (!(v instanceof PidVal)) throw new VMError(`process_after expects pids, got ${typeName(v)}`);
      if (!pids.includes(v.id)) pids.push(v.id);
    }
    p.after = pids;
    return null;
  },
  /**
   * `model_supports("tools")`: whether the run's model takes an infer's tools through its API's own
   * tool calls (its provider's `nativeTools`), so std/react can offer its tools natively. Any other
   * feature name is an error, so a misspelling never reads as "not supported".
   */
  model_supports(rt, _p, args) {
    arity('model_supports', args, 1);
    const feature = unwrap(args[0]);
    if (feature !== 'tools') throw new VMError(`model_supports knows the feature "tools", got ${typeof feature === 'string' ? JSON.stringify(feature.slice(0, 40)) : typeName(feature)}`);
    return rt.modelSupports(feature);
  },
  /** the caller's own pid */
  self(_rt, p, args) {
    arity('self', args, 0);
    return new PidVal(p.id);
  },
  /** `monitor(pid)`: a `{"type": "Down", "pid", "result" | "reason"}` message arrives when pid ends */
  monitor(rt, p, args) {
    arity('monitor', args, 1);
    const q = pidArg('monitor', rt, args);
    if (q.finished) rt.deliver(p, downMessage(rt, q));
    else if (!q.monitors.includes(p.id)) q.monitors.push(p.id);
    return null;
  },
  demonitor(rt, p, args) {
    arity('demonitor', args, 1);
    const q = pidArg('demonitor', rt, args);
    q.monitors = q.monitors.filter((id) => id !== p.id);
    return null;
  },
  /**
   * `cancel(pid)` or `cancel(pid, reason)`: asks a process to stop at its next safe point; the reason
   * (a Str) is the `message` of the `Cancelled` error it sees, and so of its monitors' Down and its
   * parent's ExitSignal
   */
  cancel(rt, p, args) {
    if (args.length !== 1 && args.length !== 2) throw new VMError(`cancel expects a pid and an optional reason, got ${args.length} arguments`);
    const reason = args.length === 2 ? unwrap(args[1]) : 'cancelled';
    if (typeof reason !== 'string') throw new VMError(`cancel: the reason must be a Str, got ${typeName(reason)}`);
    requestCancel(rt, pidArg('cancel', rt, args.slice(0, 1)), args.length === 2 ? reason : `cancelled by #${p.id}`);
    return null;
  },
  /** waits for a process to end: its result, or its error raised in the caller */
  wait(rt, p, args) {
    arity('wait', args, 1);
    const q = pidArg('wait', rt, args);
    if (q === p) throw new VMError('a process cannot wait for itself');
    if (!q.finished) {
      if (!q.waiters.includes(p.id)) q.waiters.push(p.id);
      p.waiting = 'wait';
      return BLOCK;
    }
    if (q.status === FAILED) throw new ProcessFailed(outcomeValue(rt, q));
    return outcomeValue(rt, q);
  },
  /** the runtime events of a process so far (spawned, progress, exit) */
  events(rt, _p, args) {
    arity('events', args, 1);
    return pidArg('events', rt, args).events.map((e) => rt.copy(e));
  },
  /** records a progress event on the caller's event stream (never in a model context) */
  emit(rt, p, args) {
    arity('emit', args, 1);
    // events are shown (the trace, the panel, `turn inspect`): a handle is not data (docs/authority.md)
    if (containsIdentity(args[0])) throw new VMError('an identity handle cannot be emitted as an event: it is the authority to use a secret, not a value');
    p.events.push(msg([
      ['type', 'Progress'],
      ['value', rt.copy(args[0])],
    ]));
    // a `select` waiting on this process's events (runtime/vm/select.ts)
    for (const id of p.peek('waiters')) {
      const w = rt.process(id);
      if (w && w.waiting === 'select') rt.wake(w);
    }
    return null;
  },
  /** every process in the table (live, and finished ones not yet let go: sweep.ts), with its state */
  processes(rt, _p, args) {
    arity('processes', args, 0);
    return [...rt.processes()].map((q) => infoValue(inspect(q)));
  },
  sleep(rt, p, args) {
    arity('sleep', args, 1);
    if (timedWait(rt, p, millis('sleep', args[0]))) return null;
    p.waiting = 'sleep';
    return BLOCK;
  },
  /**
   * `budget({"alloc": N, "steps": M, "time_ms": T})`: limits of the caller's own from now on (any
   * subset: one not named keeps what is left of it; 0 = none); past one, it fails with a
   * BudgetExhausted error (budgets.ts). A limit can only be lowered: asking for more than is left is
   * a Turn error at the call.
   */
  budget(_rt, p, args) {
    arity('budget', args, 1);
    const limits = lowered('budget', leftOf(p.limits, p), limitsArg('budget', args[0]));
    limits.allocFrom = p.spent;
    p.steps = 0;
    p.timeMs = 0;
    p.limits = limits;
    return limitsValue(limits);
  },
  /**
   * `task_budget({...})` inside a scope block: the limits each task of the innermost scope started
   * from now on gets, within what the caller has left (each task also gets no more than the caller
   * has left when it starts: VM.spawn)
   */
  task_budget(_rt, p, args) {
    arity('task_budget', args, 1);
    const rec = p.scopes[p.scopes.length - 1];
    if (!rec) throw new VMError('task_budget runs only inside a `scope` block');
    rec.taskLimits = lowered('task_budget', leftOf(p.limits, p), limitsArg('task_budget', args[0]));
    return limitsValue(rec.taskLimits);
  },
  /** milliseconds since the run started, on the scheduler's clock */
  now(rt, _p, args) {
    arity('now', args, 0);
    return Math.round(rt.now());
  },
};

/** Raised by `wait` when the awaited process failed: its error value, thrown in the waiter. */
export class ProcessFailed {
  constructor(readonly value: Value) {}
}

export function millisArg(v: Value): number {
  return millis('receive', v);
}
