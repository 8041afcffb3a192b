// A Turn process: plain data (frames, stack, handlers, memory, context, mailbox) so that a later
// issue can serialize it. Closures and prototypes are referenced by id.
import { Context } from '../context/index.js';
import type { PendingEffect } from '../ports/effect.js';
import type { ClosureVal, Value } from '../values/index.js';

export const READY = 0;
export const BLOCKED = 1;
export const EFFECT = 2;
export const DONE = 3;
export const FAILED = 4;

/** What `exec` reports back to the scheduler. */
export const YIELD = 5;

export interface Frame {
  closure: ClosureVal;
  /** prototype id (closure.proto) */
  proto: number;
  /** next instruction (saved when the frame is not running) */
  ip: number;
  /** stack index of local slot 0 */
  bp: number;
  /** stack height to restore when the frame returns (before pushing the result) */
  ret: number;
  /** unit index when this frame runs a module's top level (`use`), else -1 */
  module: number;
}

export interface Handler {
  /** index of the frame that owns the `try` */
  frame: number;
  /** handler code address */
  ip: number;
  /** stack height at `try` */
  sp: number;
}

export interface Site {
  path: string;
  line: number;
  column: number;
}

export interface StackEntry extends Site {
  fn: string;
}

export interface Failure {
  value: Value;
  site: Site;
  stack: StackEntry[];
}

export type { PendingEffect };

/** An open `invoke` (issue 3): the caller's context, restored when the invocation ends or unwinds. */
export interface InvokeRecord {
  saved: Context;
  /** `p.handlers.length` when it opened: a throw caught below it ends the invocation */
  handlers: number;
}

export type Waiting = 'receive' | 'gather' | 'scope' | 'join' | 'wait' | 'sleep';

import type { ScopePolicy } from '../syntax/ast.js';
export type { ScopePolicy };

/** An open `scope` block: the tasks it owns, in spawn order. */
export interface ScopeRecord {
  id: number;
  policy: ScopePolicy;
  tasks: number[];
  /** `p.handlers.length` when the scope opened: unwinding below it abandons the scope */
  handlers: number;
  /** the task that decided the scope: fail_fast's first failure, first_success's first success */
  decidedBy: number | null;
}

export class Process {
  status = READY;
  stack: Value[] = [];
  sp = 0;
  frames: Frame[] = [];
  handlers: Handler[] = [];
  // Memory and context are made on first use: most processes (workers, tasks) never touch one, and
  // spawning stays cheap (docs/performance.md).
  private memoryMap: Map<string, Value> | undefined;
  private contextTiers: Context | undefined;
  get memory(): Map<string, Value> {
    return (this.memoryMap ??= new Map());
  }
  set memory(m: Map<string, Value>) {
    this.memoryMap = m;
  }
  get context(): Context {
    return (this.contextTiers ??= new Context());
  }
  set context(c: Context) {
    this.contextTiers = c;
  }
  /** whether the process has a context yet (without making one) */
  hasContext(): boolean {
    return this.contextTiers !== undefined;
  }
  /** open `invoke`s, innermost last (issue 3) */
  invokes: InvokeRecord[] = [];
  mailbox: Value[] = [];
  /** what a BLOCKED process waits for */
  waiting: Waiting | null = null;
  effect: PendingEffect | null = null;
  result: Value = null;
  failure: Failure | null = null;
  /** how far a blocked `gather` has found its pids finished (reset when the gather completes) */
  gatherCursor = 0;
  /** pids of processes blocked in `gather` on this one */
  watchers: number[] = [];
  /** module units whose top level is running in this process (cycle detection) */
  loading: number[] = [];

  // ---- lifecycles (runtime/vm/actors.ts)
  /** pids monitoring this process: each gets a `Down` message when it ends */
  monitors: number[] = [];
  /** pids blocked in `call("wait", pid)` on this process */
  waiters: number[] = [];
  /** open `scope` blocks, innermost last */
  scopes: ScopeRecord[] = [];
  /** tasks of scopes an error left, still stopping: the handler runs once they have ended */
  joining: number[] = [];
  /** the scope this process is a task of: its owner's pid and the scope's id */
  ownerScope: { pid: number; scope: number } | null = null;
  /** owned by the runtime (`detach`): outlives its creator; the run waits for it */
  detached = false;
  /** cancellation: requested by a scope, a supervisor or `call("cancel", pid)`; delivered once at a safe point */
  cancel: 'none' | 'requested' | 'delivered' = 'none';
  cancelReason = '';
  /** `receive(ms)` / `call("sleep", ms)`: when the wait ends on its own (scheduler clock, ms) */
  deadline: number | null = null;
  timedOut = false;
  /** runtime events of this process (spawned, progress, exit) — never part of a model context */
  events: Value[] = [];
  constructor(
    readonly id: number,
    readonly parent: number,
    readonly linked: boolean,
  ) {}

  get finished(): boolean {
    return this.status === DONE || this.status === FAILED;
  }
}
