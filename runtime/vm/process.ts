// A Turn process: plain data (frames, stack, handlers, memory, context, mailbox) so that a later
// issue can serialize it. Closures and prototypes are referenced by id.
import { Context } from '../context/index.js';
import type { PendingEffect } from '../ports/effect.js';
import type { ClosureVal, Value } from '../values/index.js';
import { Mailbox } from './mailbox.js';
import type { BudgetKind, Limits } from './budgets.js';

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

export type Waiting = 'receive' | 'gather' | 'scope' | 'join' | 'wait' | 'sleep' | 'select';

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
  /** `call("task_budget", ...)`: the limits each task started from then on gets (budgets.ts) */
  taskLimits?: Limits;
}

/** What an agent allows its computations (and every process they start): effect categories by name. */
export interface AgentGrants {
  agent: string;
  categories: readonly string[];
}

/** The rarely used lists of a process, read without making them through `Process.peek`. */
export type RareList = 'invokes' | 'watchers' | 'loading' | 'monitors' | 'waiters' | 'scopes' | 'joining' | 'events';

const NONE: readonly never[] = Object.freeze([]);

/** A process's rarely used fields (see `Process.rare`). */
const NO_PIDS: readonly number[] = Object.freeze([]);

class ProcessRare {
  invokes: InvokeRecord[] | undefined = undefined;
  watchers: number[] | undefined = undefined;
  loading: number[] | undefined = undefined;
  monitors: number[] | undefined = undefined;
  waiters: number[] | undefined = undefined;
  scopes: ScopeRecord[] | undefined = undefined;
  joining: number[] | undefined = undefined;
  events: Value[] | undefined = undefined;
  gatherCursor = 0;
  ownerScope: { pid: number; scope: number } | null = null;
  detached = false;
  /** the name the process gave itself (`call("process_name", ...)`), shown in place of its function's */
  label: string | null = null;
  /** the processes whose results it waits on (`call("process_after", pids)`: std/graph's dependencies) */
  after: number[] | null = null;
  cancelReason = '';
  deadline: number | null = null;
  timedOut = false;
  limits: Limits | null = null;
  grants: AgentGrants | null = null;
  steps = 0;
  timeMs = 0;
  over: BudgetKind | null = null;
}

export class Process {
  status = READY;
  /**
   * the name of the function it was spawned to run (its closure's, runtime/compile/closure-names.ts),
   * kept when its frames are gone: a finished worker is still `worker` in the editor and in a stored
   * run's snapshot. One slot (the name is the bundle's string, shared).
   */
  fn: string | null = null;
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
  /** whether the process has a memory yet (without making one) */
  hasMemory(): boolean {
    return this.memoryMap !== undefined;
  }
  /** whether the process has a context yet (without making one) */
  hasContext(): boolean {
    return this.contextTiers !== undefined;
  }
  // The mailbox is made when first used (a message, a receive): a worker that only returns never has one.
  private box: Mailbox | undefined = undefined;
  /** the messages waiting, oldest first (mailbox.ts: O(1) enqueue and dequeue) */
  get inbox(): Mailbox {
    return (this.box ??= new Mailbox());
  }
  set inbox(m: Mailbox) {
    this.box = m;
  }
  /** how many messages wait (without making a mailbox) */
  get messageCount(): number {
    return this.box === undefined ? 0 : this.box.size;
  }
  /** allocation cells charged to this process: what it made, and the messages it was sent (budgets.ts) */
  spent = 0;
  /** the waiting messages as a new list (a copy: for snapshots and inspection; pushing to it sends nothing) */
  get mailbox(): Value[] {
    return this.box === undefined ? [] : this.box.toArray();
  }
  set mailbox(messages: readonly Value[]) {
    this.inbox = Mailbox.from(messages);
  }
  /** what a BLOCKED process waits for */
  waiting: Waiting | null = null;
  effect: PendingEffect | null = null;
  result: Value = null;
  failure: Failure | null = null;
  /** cancellation: requested by a scope, a supervisor or `call("cancel", pid)`; delivered once at a safe point */
  cancel: 'none' | 'requested' | 'delivered' = 'none';

  // The fields below are rarely used: they live in a side record made on first write, and each list
  // on its first use, so a process that never touches them (most workers) carries one empty slot
  // instead of eight arrays (docs/performance.md, memory per live process). Reading a list makes it;
  // `peek` reads one without making it.
  private rare: ProcessRare | undefined;
  private get more(): ProcessRare {
    return (this.rare ??= new ProcessRare());
  }
  /** whether any rare field was ever written (false for most workers: lifecycle.ts then skips them all) */
  hasRare(): boolean {
    return this.rare !== undefined;
  }
  /** a rare list as it is, or an empty frozen one when the process never used it (nothing is made) */
  peek<K extends RareList>(list: K): Readonly<NonNullable<ProcessRare[K]>> {
    return (this.rare?.[list] ?? NONE) as Readonly<NonNullable<ProcessRare[K]>>;
  }

  /** open `invoke`s, innermost last (issue 3) */
  get invokes(): InvokeRecord[] {
    return (this.more.invokes ??= []);
  }
  set invokes(v: InvokeRecord[]) {
    if (v.length > 0 || this.rare) this.more.invokes = v;
  }
  /** how far a blocked `gather` has found its pids finished (reset when the gather completes) */
  get gatherCursor(): number {
    return this.rare?.gatherCursor ?? 0;
  }
  set gatherCursor(v: number) {
    if (v !== 0 || this.rare) this.more.gatherCursor = v;
  }
  /** pids of processes blocked in `gather` on this one */
  get watchers(): number[] {
    return (this.more.watchers ??= []);
  }
  set watchers(v: number[]) {
    if (v.length > 0 || this.rare) this.more.watchers = v;
  }
  /** module units whose top level is running in this process (cycle detection) */
  get loading(): number[] {
    return (this.more.loading ??= []);
  }
  set loading(v: number[]) {
    if (v.length > 0 || this.rare) this.more.loading = v;
  }

  // ---- lifecycles (runtime/vm/actors.ts)
  /** pids monitoring this process: each gets a `Down` message when it ends */
  get monitors(): number[] {
    return (this.more.monitors ??= []);
  }
  set monitors(v: number[]) {
    if (v.length > 0 || this.rare) this.more.monitors = v;
  }
  /** pids blocked in `call("wait", pid)` on this process */
  get waiters(): number[] {
    return (this.more.waiters ??= []);
  }
  set waiters(v: number[]) {
    if (v.length > 0 || this.rare) this.more.waiters = v;
  }
  /** open `scope` blocks, innermost last */
  get scopes(): ScopeRecord[] {
    return (this.more.scopes ??= []);
  }
  set scopes(v: ScopeRecord[]) {
    if (v.length > 0 || this.rare) this.more.scopes = v;
  }
  /** tasks of scopes an error left, still stopping: the handler runs once they have ended */
  get joining(): number[] {
    return (this.more.joining ??= []);
  }
  set joining(v: number[]) {
    if (v.length > 0 || this.rare) this.more.joining = v;
  }
  /** the scope this process is a task of: its owner's pid and the scope's id */
  get ownerScope(): { pid: number; scope: number } | null {
    return this.rare?.ownerScope ?? null;
  }
  set ownerScope(v: { pid: number; scope: number } | null) {
    if (v !== null || this.rare) this.more.ownerScope = v;
  }
  /** owned by the runtime (`detach`): outlives its creator; the run waits for it */
  get detached(): boolean {
    return this.rare?.detached ?? false;
  }
  set detached(v: boolean) {
    if (v || this.rare) this.more.detached = v;
  }
  /** the name the process gave itself (`call("process_name", "gather")`: std/graph names a node's process by its node) */
  get label(): string | null {
    return this.rare?.label ?? null;
  }
  set label(v: string | null) {
    if (v !== null || this.rare) this.more.label = v;
  }
  /** the pids it said it depends on (`call("process_after", [...])`), shown as edges in the editor's graph */
  get after(): readonly number[] {
    return this.rare?.after ?? NO_PIDS;
  }
  set after(v: readonly number[]) {
    if (v.length > 0 || this.rare) this.more.after = v.slice();
  }
  get cancelReason(): string {
    return this.rare?.cancelReason ?? '';
  }
  set cancelReason(v: string) {
    if (v !== '' || this.rare) this.more.cancelReason = v;
  }
  /** `receive(ms)` / `call("sleep", ms)`: when the wait ends on its own (scheduler clock, ms) */
  get deadline(): number | null {
    return this.rare?.deadline ?? null;
  }
  set deadline(v: number | null) {
    if (v !== null || this.rare) this.more.deadline = v;
  }
  get timedOut(): boolean {
    return this.rare?.timedOut ?? false;
  }
  set timedOut(v: boolean) {
    if (v || this.rare) this.more.timedOut = v;
  }
  // ---- capabilities (runtime/vm/agents.ts)
  /** the effect categories an agent granted this process and its descendants (null: the run's, unnarrowed) */
  get grants(): AgentGrants | null {
    return this.rare?.grants ?? null;
  }
  set grants(v: AgentGrants | null) {
    if (v !== null || this.rare) this.more.grants = v;
  }
  // ---- budgets (runtime/vm/budgets.ts)
  /** its own limits, if any */
  get limits(): Limits | null {
    return this.rare?.limits ?? null;
  }
  set limits(v: Limits | null) {
    if (v !== null || this.rare) this.more.limits = v;
  }
  /** steps and milliseconds of slices spent (counted only while it has limits) */
  get steps(): number {
    return this.rare?.steps ?? 0;
  }
  set steps(v: number) {
    if (v !== 0 || this.rare) this.more.steps = v;
  }
  get timeMs(): number {
    return this.rare?.timeMs ?? 0;
  }
  set timeMs(v: number) {
    if (v !== 0 || this.rare) this.more.timeMs = v;
  }
  /** the budget it has exhausted: it fails at the scheduler's next safe point */
  get over(): BudgetKind | null {
    return this.rare?.over ?? null;
  }
  set over(v: BudgetKind | null) {
    if (v !== null || this.rare) this.more.over = v;
  }
  /** runtime events of this process (spawned, progress, exit) — never part of a model context */
  get events(): Value[] {
    return (this.more.events ??= []);
  }
  set events(v: Value[]) {
    if (v.length > 0 || this.rare) this.more.events = v;
  }
  constructor(
    readonly id: number,
    readonly parent: number,
    readonly linked: boolean,
  ) {}

  get finished(): boolean {
    return this.status === DONE || this.status === FAILED;
  }
}

/**
 * The scheduler's own state at a durable safe point (issue 17): what `VM.durableState` reports and
 * `VM.restoreState` takes back, so a resume restores a snapshot instead of re-executing from the
 * start (runtime/durable/snapshot.ts maps it to and from the stored snapshot).
 */
export interface SchedulerState {
  /** every process, in creation order (the VM's iteration order) */
  processes: Process[];
  main: number;
  nextPid: number;
  /** steps and allocation spent so far: a restored run spends its budgets as a replayed one does */
  used: number;
  allocLeft: number;
  inferSeq: number;
  /** the VM clock at the safe point (ms): deadlines stay where they were */
  now: number;
  /** blocked processes with a deadline, in the order the scheduler holds them */
  sleeping: number[];
  methods: Map<string, Map<string, ClosureVal>>;
  moduleCache: Map<number, Value>;
  resultSite: Site | undefined;
  /**
   * ready processes, in the order they run next: set by a snapshot taken between slices (an
   * automatic one, runtime/durable), absent in one taken at `suspend;` (none is ready there)
   */
  ready?: number[];
  /** the steps left of the front ready process's slice, cut at the safe point (0: none) */
  carried?: number;
}

/** What the scheduler holds besides its processes, to tell whether a safe point can be restored. */
export interface SchedulerWaits {
  /** ready processes not yet run */
  ready: number[];
  /** processes whose effects are in flight, in start order */
  pending: number[];
  /** the run draws its order from a seeded generator (whose state is not exported) */
  seeded: boolean;
}
