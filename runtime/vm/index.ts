// The Turn VM: a switch-dispatch interpreter over flat Int32Array code, many processes on one
// deterministic round-robin scheduler, effects (`infer`) as yield points the scheduler awaits.
// The interpreter loop never awaits: a process that needs an effect returns to the scheduler
// with its state saved in plain data, and is resumed with the effect's result.
import { nowMs } from '../monotonic.js';
import type { Bundle, FunctionProto, ImplDesc, InferDesc, StructDesc } from '../compile/bundle.js';
import { Op } from '../compile/opcodes.js';
import { mediaIn, promptText, withMedia, type ContextLimits } from '../context/index.js';
import { EventLog } from '../events/index.js';
import { inferErrorValue, inferredValue } from '../infer/effect.js';
import type { InferOutcome } from '../infer/driver.js';
import { InferOptionError, readInferOptions, TOOLS_OPTION, type InferOptions } from '../infer/options.js';
import { ToolOfferError } from '../infer/tools.js';
import { ToolLoops, toolSetOf, type ToolSet } from './tool-loop.js';
import type { DebugHook } from '../ports/debug.js'; // debugger hook
import type { Host, ToolRequest } from '../ports/host.js';
import type { PendingEffect } from '../ports/effect.js';
import { binarySlow, cmpOp, getField, indexSlow, keyString, makeStruct } from './ops.js';
import {
  BLOCKED, DONE, EFFECT, FAILED, READY, YIELD, Process,
  type Failure, type Frame, type Site, type StackEntry, type SchedulerState, type SchedulerWaits,
} from './process.js';
import { TOOLS, toolArgs, type ToolEnv } from './tools.js';
import { EFFECT_TOOL_NAMES, PURE_STD_TOOLS, effectCategory, refuseHandleData, toHostArg } from './host-tools.js';
import { DEFAULT_MAX_ALLOC, PROCESS_COST, closureCost, copiedCost, listCost, mapCost, plainCost, textCost } from './alloc.js';
import {
  BLOCK, PROCESS_TOOLS, ProcessFailed, requestCancel, SCOPE_POLICIES, abandonScopes, cancelledValue, gatheredValue, innermostScope,
  inspect, millisArg, openScope, scopeResult, spawnedEvent, timedWait, type ProcessInfo,
} from './actors.js';
import {
  Cell, ClosureVal, IdentityVal, PidVal, StructVal, Uncertain, VMError, VecVal,
  MAX_JSON_DEPTH, confidenceOf, containsIdentity, fromPlain, isolate, render, toJson, truthy, typeName, unwrap,
  withConfidence, type Value,
} from '../values/index.js';
import { SUSPEND_TOOL, type DurableHooks } from '../ports/durable.js';
import { ASK_TOOL, askArgs, type AskRequest } from '../ports/ask.js';
import { checkAnswer } from '../ask/answer.js';
import { fromReply } from '../infer/reply-value.js';
import { REMOTE_CHILD_TOOL, type ChildPlacement } from '../ports/placement.js';
import { checkParam, countArguments, describeMismatch, singleArgument } from './calling.js';
import { EffectWaits, type EffectResult, type EffectWait } from './effect-waits.js';
import { ProcessTable, finishProcess, type LifecycleRuntime } from './lifecycle.js';
import { SWEEP_MIN, heldPids, nextSweepAfter } from './sweep.js';
import { RunQueue, seededRandom } from './run-queue.js';
import { failureMessage, processSite, runtimeErrorValue, siteOf, stackTrace } from './sites.js';
import { Timers } from './timers.js';
import { MESSAGE_COST, budgetError, leftOf, tighter, type BudgetKind, type Limits } from './budgets.js';
import { Mailbox } from './mailbox.js';
import { select } from './select.js';
import { AGENT_TOOLS, EffectRefused, refuseUngranted, type AgentRuntime } from './agents.js';
import { CompiledLoops, compileLoopsByDefault } from './jit/compiled-loops.js';

export * from '../values/index.js';
export { render as renderValue } from '../values/index.js';
export { TOOLS } from './tools.js';
export { runtimeErrorValue } from './sites.js';
export type { EffectResult } from './effect-waits.js';

export type { Host, ToolRequest };

export interface RunOptions {
  /**
   * instruction budget, counted at backward jumps and calls, and once each time a process resumes
   * from a wait (a message, a timer, an effect's result); default 200_000_000; 0 = unlimited
   */
  maxSteps?: number;
  /**
   * allocation budget, in cells of about 8 bytes (runtime/vm/alloc.ts): the lists, maps, structs,
   * text, closures and processes the run makes, and the messages it queues, summed over the run;
   * default 50_000_000; 0 = unlimited. A process other than main that spends the last of it fails
   * alone (runtime/vm/budgets.ts)
   */
  maxAlloc?: number;
  /** wall-clock budget of the run in this OS process, in milliseconds; default none (0) */
  maxTimeMs?: number;
  seed?: number;
  /** re-asks after a reply that fails its schema (default 2) */
  inferRetries?: number;
  /** token budgets of every process's context tiers */
  context?: Partial<ContextLimits>;
  /**
   * compile hot effect-free loops to JavaScript (runtime/vm/jit/compiled-loops.ts); default on,
   * off with TURN_NO_JIT=1 in the environment
   */
  compileLoops?: boolean;
  /** times a loop head is reached by a back edge before its loop is compiled (default 50) */
  hotLoopAfter?: number;
  /**
   * keep every finished process in the table, as a view that lists them all needs; by default a
   * finished process nobody can ask about leaves it (sweep.ts), unless events, a durable store, a
   * debugger or placement are attached
   */
  keepFinished?: boolean;
  /** finished processes between two sweeps of the table, at least (default SWEEP_MIN; sweep.ts) */
  sweepMin?: number;
}

export type RunOutcome =
  | { ok: true; value: Value; rendered: string; json: unknown }
  | {
      ok: false;
      error: {
        message: string;
        path: string;
        line: number;
        column: number;
        value: Value;
        stack: { fn: string; path: string; line: number; column: number }[];
      };
    };

export const DEFAULT_MAX_STEPS = 200_000_000;
export { DEFAULT_MAX_ALLOC } from './alloc.js';
/** Frames per process; deeper recursion is a clean Turn runtime error. */
export const MAX_FRAMES = 10_000;
/** How long a computation runs before the scheduler lets the host's event loop in. */
const YIELD_EVERY_MS = 50;
/** Reductions a process runs before the scheduler moves on. */
const SLICE = 20_000;
/** With `--seed`, slices are drawn from 1..SEEDED_SLICE so interleavings vary from seed to seed. */
const SEEDED_SLICE = 64;

/** A Turn `throw` travelling through the JS stack of `exec` to its catch. */
class TurnThrow {
  constructor(readonly value: Value) {}
}

/** Thrown inside `exec` when the allocation budget runs out: ends the run (no `catch` sees it). */
const ALLOC_EXHAUSTED = Symbol('allocation budget exhausted');


export class VM implements LifecycleRuntime, AgentRuntime {
  readonly fns: FunctionProto[];
  private readonly procs = new ProcessTable();
  private readonly queue: RunQueue;
  private readonly timers = new Timers();
  private readonly effects: EffectWaits;
  /** the tool loops of infers that offer tools (native tool calls, tool-loop.ts) */
  private readonly toolLoops: ToolLoops;
  private readonly methods = new Map<string, Map<string, ClosureVal>>();
  private readonly moduleCache = new Map<number, Value>();
  private readonly maxSteps: number;
  private used = 0;
  /** never let finished processes go (RunOptions.keepFinished) */
  private readonly keepFinished: boolean;
  /** processes ended since the last sweep of the table, and how many make the next one due (sweep.ts) */
  private endedSinceSweep = 0;
  private sweepAfter: number;
  private readonly sweepMin: number;
  /** grows while sweeps find little to let go (sweepFinished) */
  private sweepBackoff = 1;
  private readonly maxAlloc: number;
  private readonly maxTimeMs: number;
  /** allocation budget left (cells); below 0, the run ends at the next safe point */
  private allocLeft: number;
  private readonly allocStart: number;
  /** true while `exec` runs: an exhausted allocation budget then throws at once */
  private inExec = false;
  /** the process that ran or resumed last: where an allocation made outside `exec` is blamed */
  private current: Process | undefined;
  /** processes past a limit of their own, to fail at the next safe point (budgets.ts) */
  private overBudget: Process[] = [];
  /** the process whose charge took the run's allocation budget below 0 */
  private blamed: Process | undefined;
  /** budget left when `exec` returned */
  private left = 0;
  /** hot effect-free loops run as JavaScript (null: interpreted only); entered at back edges */
  readonly compiledLoops: CompiledLoops | null;
  private readonly toolEnv: ToolEnv;
  private startedAt = nowMs(); // moved back by `restoreState` (issue 17)
  /** the run's event stream (requests, replies, retries, tier demotions, invokes, spawns, exits) */
  readonly events: EventLog;
  private readonly contextLimits: ContextLimits | undefined;
  main!: Process;
  // debugger hook (runtime/vm/debug.ts): set only while a debugger is attached
  debug: DebugHook | undefined = undefined;
  /** the budget left in the slice a debugger stop cut short, or a restored safe point inside a slice (issue 45): that process goes on with it next */
  private debugSlice = 0;
  /** set by `halt`: the run ends at the next safe point */
  private haltReason: string | null = null;
  /** a run-wide budget a host effect exhausted (`--max-model-tokens`): the run ends where `p` stands */
  private exhausted: { p: Process; message: string } | null = null;
  /** ends the scheduler's current wait (a halt) */
  private wakeScheduler: (() => void) | undefined;
  /** the durable run whose `stopped` already wakes the scheduler (one reaction per run, not per wait) */
  private watchedStop: DurableHooks | undefined;
  /** where the main process returned (its frames are gone by the time the run's outcome is made) */
  private resultSite: Site | undefined;
  /** durable runs only (runtime/durable, issue 5): journals and replays nondeterminism */
  durable: DurableHooks | undefined = undefined;
  /** Restate runs only (runtime/restate/placement.ts): may place a spawned child on another worker */
  placement: ChildPlacement | undefined = undefined;
  /** placement seam: a placed child's VM runs this closure as its main process instead of the entry unit's main */
  entryClosure: { closure: ClosureVal; args: Value[] } | undefined = undefined;

  constructor(
    readonly bundle: Bundle,
    readonly host: Host,
    options: RunOptions = {},
  ) {
    this.fns = bundle.functions;
    this.compiledLoops = (options.compileLoops ?? compileLoopsByDefault()) ? new CompiledLoops(this.fns, options.hotLoopAfter) : null;
    this.maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
    this.keepFinished = options.keepFinished === true;
    this.sweepAfter = this.sweepMin = Math.max(1, options.sweepMin ?? SWEEP_MIN);
    this.maxAlloc = options.maxAlloc ?? DEFAULT_MAX_ALLOC;
    this.allocStart = this.allocLeft = this.maxAlloc > 0 ? this.maxAlloc : Number.MAX_SAFE_INTEGER;
    this.maxTimeMs = options.maxTimeMs ?? 0;
    this.queue = new RunQueue(options.seed === undefined ? undefined : seededRandom(options.seed));
    this.toolEnv = { output: (line) => host.output(line), alloc: (n) => this.charge(n) };
    // Events go to the host's sink (the trace, the panel); nothing keeps them in memory, so a long
    // run does not accumulate them, and a run without a sink pays nothing per event.
    this.events = new EventLog(host.event ? (e) => host.event!(e) : undefined, false);
    this.effects = new EffectWaits(this.events, options.inferRetries);
    this.toolLoops = new ToolLoops({
      bundle,
      events: this.events,
      startTool: (parent, closure, args) => this.startTool(parent, closure, args),
      askAgain: (p, effect) => this.askAgain(p, effect),
    });
    if (options.context) this.contextLimits = { working: 8_000, episodic: 32_000, ...options.context };
  }

  // ---------------------------------------------------------------------------------------------
  // Budgets

  /**
   * Ends the run at the next safe point (between slices, or when the scheduler next waits): the
   * outcome is a failure with `reason`. Effects in flight are the host's to refuse or finish.
   */
  halt(reason: string): void {
    this.haltReason ??= reason;
    this.wakeScheduler?.();
  }

  /** What the run has spent of its allocation budget so far (cells of about 8 bytes). */
  get allocated(): number {
    return this.allocStart - this.allocLeft;
  }

  /**
   * Spends `n` units of the allocation budget. Inside `exec` an exhausted budget throws (the
   * instruction does not complete); elsewhere the scheduler ends the run at its next safe point.
   */
  charge(n: number, to: Process | undefined = this.current): void {
    this.allocLeft -= n;
    if (to !== undefined) {
      // budgets.ts: charged to the process that spends it (a message: to its receiver)
      to.spent += n;
      const limits = to.limits;
      if (limits !== null && limits.alloc > 0 && to.spent - limits.allocFrom > limits.alloc && to.over === null) {
        to.over = 'alloc';
        this.overBudget.push(to);
      }
      if (this.allocLeft < 0) this.blamed ??= to;
    }
    // only the running process stops mid-instruction: it is the one that fails
    if (this.inExec && to === this.current && (this.allocLeft < 0 || to?.over != null)) throw ALLOC_EXHAUSTED;
  }

  /** A deep copy for another process (a message, a spawned closure, a result), charged to the budget (of `to`, else the running process). */
  copy(v: Value, memo?: Map<object, unknown>, to?: Process): Value {
    if (v === null || typeof v !== 'object') return v;
    if (memo === undefined && v instanceof ClosureVal && v.cells.length === 0) {
      // a closure over nothing (a typical spawned body): what `isolate` would make, without its memo
      this.charge(closureCost(0), to);
      return new ClosureVal(v.proto, [], v.name);
    }
    const seen = memo ?? new Map<object, unknown>();
    const before = seen.size;
    const out = isolate(v, seen);
    if (seen.size > before) this.charge(copiedCost(seen, before), to);
    return out;
  }

  // ---------------------------------------------------------------------------------------------
  // The scheduler: runs ready processes a slice at a time (run-queue.ts), and when none is ready
  // waits for an effect (effect-waits.ts) or a timer (timers.ts)

  async run(): Promise<RunOutcome> {
    if (this.maxTimeMs <= 0) return this.schedule().then((o) => this.abandonEffects(o));
    const seconds = this.maxTimeMs / 1000;
    const timer = setTimeout(() => this.halt(`time budget of ${seconds} s exhausted; raise it with --max-time`), this.maxTimeMs);
    try {
      return this.abandonEffects(await this.schedule());
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * The run is over: effects still in flight (a process that was abandoned when main ended) are
   * aborted, so the host does not wait for their replies. A durable run that stopped (suspended,
   * waiting) keeps them: their outcome is for the resume to settle.
   */
  private abandonEffects(outcome: RunOutcome): RunOutcome {
    if (this.durable?.stoppedNow) return outcome;
    this.effects.abortAll('the run ended');
    return outcome;
  }

  private async schedule(): Promise<RunOutcome> {
    // a VM restored from a snapshot (issue 17) already has its processes, and waits on its effects
    const main = this.restored ? this.main : this.newProcess(0, false);
    if (!this.restored) {
      this.main = main;
      const entry = this.entryClosure ?? { closure: new ClosureVal(this.bundle.units[this.bundle.entry].main, [], 'main'), args: [] };
      main.fn = entry.closure.name ?? null; // named after it returns too, as a spawned process is
      main.stack[0] = entry.closure;
      entry.args.forEach((a, i) => (main.stack[1 + i] = a));
      main.sp = this.enter(main, entry.closure, entry.args.length, 1, 0);
      this.queue.push(main);
    }
    let lastYield = nowMs();
    let slices = 0;
    for (;;) {
      while (!this.queue.empty) {
        if (this.debug !== undefined && this.debug.paused !== null) await this.debug.paused; // debugger hook
        if ((++slices & 63) === 0 && nowMs() - lastYield > YIELD_EVERY_MS) {
          // a long computation lets the host's event loop run (a Stop button, a debugger's pause)
          await new Promise((resolve) => setImmediate(resolve));
          lastYield = nowMs();
        }
        const end = this.runSlice(main);
        if (end !== undefined) return end;
      }
      if (main.finished && !this.procs.hasLiveDetached()) return this.outcome(main);
      if (this.haltReason !== null) return this.failRun(main, this.haltReason, true);
      // A durable run that suspended (or failed) is over in this OS process: waiting on its
      // sleepers would spin, since no timer may fire after the stop.
      if (this.durable?.stoppedNow) return this.failRun(main, 'the durable run stopped', true);
      const woke = await this.awaitEffectOrTimer();
      if (this.exhausted !== null) return this.failRun(this.exhausted.p, this.exhausted.message, false);
      if (this.allocLeft < 0 || this.overBudget.length > 0) {
        const end = this.settleBudgets();
        if (end) return end;
      }
      if (!woke) {
        // Nothing can ever run again. Detached processes that wait forever end with the run.
        if (main.finished) return this.outcome(main);
        return this.failRun(main, 'deadlock: every process is waiting', true);
      }
    }
  }

  /**
   * A durable run's slice (issue 45), run in parts as long as the durable layer asks for (as many
   * steps as its journal may grow before a snapshot is due), with a safe point between two parts:
   * nothing else happens there — no timer check, no other process, no cancellation — so the slice
   * runs exactly as if it were whole, and a snapshot taken there holds `p` at the front of the run
   * queue with the rest of its slice (`carried`), which a restore gives back. A long loop of one
   * process that journals as it goes (a clock reading, a local read) is so snapshotted within the
   * slice, not only once it ends. `this.left` is then the whole slice's.
   */
  private execInParts(p: Process, slice: number): number {
    const durable = this.durable!;
    let left = slice;
    for (;;) {
      const part = this.debug === undefined && this.effects.count === 0 ? Math.min(left, durable.stepsToSafePoint?.() ?? left) : left;
      const st = this.exec(p, part);
      left -= part - this.left;
      if (st !== YIELD || this.left > 0 || left <= 0) {
        this.left = left;
        return st;
      }
      // the part's budget is spent, the slice's is not: a safe point, with `p` running
      if (durable.snapshotDue === true && this.effects.count === 0) {
        // the snapshot counts the steps this slice has spent so far, as the scheduler counts them once it ends
        const spent = slice - left;
        this.running = { p, left };
        this.used += spent;
        if (p.limits !== null) p.steps += spent;
        try {
          durable.safePoint?.();
        } finally {
          this.running = undefined;
          this.used -= spent;
          if (p.limits !== null) p.steps -= spent;
        }
      }
    }
  }

  /**
   * One turn of the scheduler: the next ready process runs a slice, and what it ended in is
   * handled. The run's outcome when it is over, else undefined. A plain method apart from the
   * async `schedule` (issue 45): small and called once per slice, V8 compiles it early, where the
   * loop of an async function waits for on-stack replacement.
   */
  private runSlice(main: Process): RunOutcome | undefined {
    if (this.haltReason !== null) return this.failRun(main, this.haltReason, true);
    if (this.exhausted !== null) return this.failRun(this.exhausted.p, this.exhausted.message, false);
    if (this.allocLeft < 0 || this.overBudget.length > 0) {
      const end = this.settleBudgets();
      if (end) return end;
    }
    // a durable run's safe point (issue 45): between slices, with no effect in flight, the
    // durable layer may snapshot the VM when its journal has grown enough (one property test)
    if (this.durable?.snapshotDue === true && this.debugSlice === 0 && this.effects.count === 0 && this.debug === undefined) this.durable.safePoint?.();
    // debugger hook: a slice a debugger stop cut short goes on first, as if it had not stopped
    const carried = this.debugSlice;
    this.debugSlice = 0;
    if (this.timers.size > 0 && carried === 0) this.fireTimers();
    const p = carried > 0 ? this.queue.front() : this.queue.next();
    if (p.status !== READY) return undefined;
    if (p.cancel === 'requested') {
      this.deliverCancel(p);
      if (p.finished) {
        if (main.finished && !this.procs.hasLiveDetached()) return this.outcome(main);
        return undefined;
      }
    }
    if (p.peek('joining').length > 0 && this.mustJoin(p)) return undefined;
    let slice = carried > 0 ? carried : this.queue.slice(SLICE, SEEDED_SLICE);
    if (this.maxSteps > 0) slice = Math.min(slice, this.maxSteps - this.used);
    if (slice <= 0) return this.budgetExhausted(p);
    const limits = p.limits;
    if (limits !== null && limits.steps > 0) slice = Math.min(slice, Math.max(1, limits.steps - p.steps));
    const started = limits !== null && limits.timeMs > 0 ? nowMs() : 0;
    this.current = p;
    this.inExec = true;
    const st = this.durable === undefined ? this.exec(p, slice) : this.execInParts(p, slice);
    this.inExec = false;
    this.used += slice - this.left;
    if (limits !== null) this.spendOwn(p, limits, slice - this.left, started, st);
    switch (st) {
      case YIELD:
        if (this.maxSteps > 0 && this.used >= this.maxSteps) return this.budgetExhausted(p);
        if (this.debugSlice > 0) this.queue.pushFront(p); // debugger hook
        else this.queue.push(p);
        break;
      case DONE:
      case FAILED:
        this.finish(p, st);
        break;
      case BLOCKED:
        p.status = BLOCKED;
        if (p.deadline !== null) this.timers.add(p);
        break;
      case EFFECT:
        p.status = EFFECT;
        this.startEffect(p);
        break;
    }
    if (this.allocLeft < 0 || this.overBudget.length > 0) {
      const end = this.settleBudgets();
      if (end) return end;
    }
    if (main.finished && !this.procs.hasLiveDetached()) return this.outcome(main);
    if (this.endedSinceSweep >= this.sweepAfter) this.sweepFinished();
    return undefined;
  }

  /** Raises `Cancelled` in `p` at this safe point (between slices), so a `catch` can clean up. */
  private deliverCancel(p: Process): void {
    this.abandonToolCalls(p);
    p.cancel = 'delivered';
    p.waiting = null;
    p.deadline = null;
    if (!this.raise(p, cancelledValue(p.cancelReason))) this.finish(p, FAILED);
  }

  /**
   * An error left scopes whose tasks are still stopping: the catch block runs only once they
   * have ended, so leaving a scope never leaves a task behind.
   */
  private mustJoin(p: Process): boolean {
    p.joining = p.joining.filter((id) => !this.procs.get(id)?.finished);
    if (p.joining.length === 0) return false;
    p.status = BLOCKED;
    p.waiting = 'join';
    return true;
  }

  /**
   * Waits for the oldest pending effect or the earliest timer (`receive(ms)`, `sleep`), whichever
   * comes first, and makes its process runnable. False when there is nothing to wait for.
   */
  private async awaitEffectOrTimer(): Promise<boolean> {
    const sleeper = this.timers.earliest();
    const effects = this.effects;
    if (effects.count === 0 && !sleeper) return false;
    // durable replay (issue 5): the journal says whether a timer or an effect came first, and which
    if (this.durable?.replaying) {
      if (sleeper && this.durable.timerFirst()) return this.fireTimers(true), true;
      if (effects.count > 0) {
        const i = effects.count > 1 ? this.durable.effectFirst(0) : 0;
        const result = await effects.at(i).promise;
        this.resumeEffect(effects.take(i), result);
        return true;
      }
    }
    // Whichever finishes first, so one slow effect never holds up the others' results. An effect
    // that has settled already is taken at once (the first in start order); otherwise the wait is
    // one promise for "an effect settled", not one per pending effect (issue 17).
    let i = effects.firstSettled();
    if (i < 0) {
      let timer: NodeJS.Timeout | undefined;
      if (this.durable) {
        // One reaction per durable run wakes this wait when the run stops, instead of one per wait:
        // `stopped` never settles in a run that ends normally, so a reaction added to it on every
        // wait stayed reachable for the whole run (57,000 leftover closures in a 100,000-step run).
        if (this.watchedStop !== this.durable) {
          this.watchedStop = this.durable;
          void this.durable.stopped.then(() => this.wakeScheduler?.());
        }
        if (this.durable.stoppedNow) return true; // the scheduler's loop ends the run
      }
      const racers: Promise<'effect' | 'timer' | 'stopped'>[] = [effects.settledSignal()];
      racers.push(new Promise<'stopped'>((resolve) => (this.wakeScheduler = () => resolve('stopped'))));
      if (sleeper) {
        racers.push(
          new Promise<'timer'>((resolve) => {
            timer = setTimeout(() => resolve('timer'), Math.max(0, sleeper.deadline! - this.now()));
          }),
        );
      }
      const first = await Promise.race(racers);
      clearTimeout(timer);
      this.wakeScheduler = undefined;
      effects.stopWaiting();
      if (first === 'stopped') return true; // the scheduler's loop ends the run
      if (first === 'timer') {
        this.fireTimers(true);
        return true;
      }
      i = effects.firstSettled();
      if (i < 0) return true; // an effect the scheduler took already: wait again
    }
    if (this.durable && effects.count > 1) this.durable.effectFirst(i);
    const w = effects.take(i);
    const settled = w.settled!;
    if ('error' in settled) throw settled.error;
    this.resumeEffect(w, settled.result);
    return true;
  }

  /** Wakes the processes whose `receive(ms)` or `sleep` time is up. */
  private fireTimers(awaited = false): void {
    for (const p of this.timers.due(this.now(), this.durable, awaited, (id) => this.procs.get(id))) {
      p.timedOut = true;
      this.wake(p);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Per-process budgets (budgets.ts)

  /** After a slice of `p`, which has limits of its own: its steps and time. */
  private spendOwn(p: Process, limits: Limits, steps: number, started: number, st: number): void {
    p.steps += steps;
    if (limits.timeMs > 0) p.timeMs += nowMs() - started;
    if (st === DONE || st === FAILED || p.over !== null) return;
    const over: BudgetKind | null = limits.steps > 0 && p.steps >= limits.steps ? 'steps' : limits.timeMs > 0 && p.timeMs >= limits.timeMs ? 'time' : null;
    if (over) {
      p.over = over;
      this.overBudget.push(p);
    }
  }

  /**
   * Fails every process past a limit of its own; then, if the run's allocation budget is spent, the
   * process that spent its last cell (its spending is returned to the run: its values die with it).
   * The run ends only when the main process is to blame, or the budget is still spent.
   */
  private settleBudgets(): RunOutcome | undefined {
    const over = this.overBudget;
    this.overBudget = [];
    for (const p of over) {
      if (p.finished || p.over === null) continue;
      const limits = p.limits!;
      const limit = p.over === 'alloc' ? limits.alloc : p.over === 'steps' ? limits.steps : limits.timeMs;
      if (p === this.main) return this.failRun(p, budgetError(p.over, limit, 0, false).get('message') as string, false);
      this.failOnBudget(p, budgetError(p.over, limit, this.site(p).line, false));
    }
    if (this.allocLeft >= 0) return undefined;
    const blamed = this.blamed;
    this.blamed = undefined;
    if (blamed === undefined || blamed === this.main || blamed.finished) return this.allocExhausted();
    this.failOnBudget(blamed, budgetError('alloc', this.maxAlloc, this.site(blamed).line, true));
    return this.allocLeft < 0 ? this.allocExhausted() : undefined;
  }

  /** `p` fails with `error` (it cannot catch it); what it spent goes back to the run. */
  private failOnBudget(p: Process, error: Map<string, Value>): void {
    if (p.status === EFFECT) this.effects.abortFor(p, error.get('message') as string);
    this.timers.delete(p);
    p.failure = { value: error, site: this.site(p), stack: this.stackTrace(p) };
    p.inbox = new Mailbox();
    this.allocLeft += p.spent;
    p.spent = 0;
    this.finish(p, FAILED);
  }

  // ActorRuntime (runtime/vm/actors.ts)

  process(pid: number): Process | undefined {
    return this.procs.get(pid);
  }

  processes(): Iterable<Process> {
    return this.procs.values();
  }

  linkedChildren(pid: number): readonly number[] {
    return this.procs.linkedChildren(pid);
  }

  /** How many processes the table holds: the live ones, and the finished ones not let go (sweep.ts). */
  get processCount(): number {
    return this.procs.size;
  }

  /**
   * Whether finished processes may leave the table: not when a view of the run can ask about any
   * of them by pid — the events' sink (the panel, a trace), a durable run's journal and snapshots,
   * a debugger, a placed child's proxy — nor when the host asked to keep them.
   */
  private sweepAllowed(): boolean {
    return !this.keepFinished && !this.events.active && this.durable === undefined && this.debug === undefined && this.placement === undefined && this.entryClosure === undefined;
  }

  /** Lets go of the finished processes nothing can ask about (sweep.ts); called between slices. */
  private sweepFinished(): void {
    if (!this.sweepAllowed()) {
      this.endedSinceSweep = 0;
      this.sweepAfter = Number.MAX_SAFE_INTEGER;
      return;
    }
    const procs = this.procs;
    // a sweep visits every process in the table: not before as many have ended since the last one
    // as half the table holds (100,000 queued children would otherwise be walked to free nothing)
    const size = procs.size;
    if (this.endedSinceSweep * 2 < size) {
      this.sweepAfter = Math.ceil(size / 2);
      return;
    }
    this.endedSinceSweep = 0;
    const held = heldPids({
      processes: procs.values(),
      get: (pid) => procs.get(pid),
      vmValues: [this.moduleCache, this.methods],
      main: this.main.id,
    });
    const { kept, freed } = procs.sweep(held.pids);
    // a sweep that let little go (every pid still held, as in a spawn_link loop whose signals wait
    // unread) makes the next one wait four times longer; one that freed most resets the wait
    this.sweepBackoff = freed * 4 < kept + freed ? Math.min(this.sweepBackoff * 4, 64) : 1;
    this.sweepAfter = nextSweepAfter(this.sweepMin, kept, held.walked) * this.sweepBackoff;
  }

  /** Every process with its state, parent, links and mailbox size: the editor's actor tree. */
  inspectProcesses(): ProcessInfo[] {
    return [...this.procs.values()].map(inspect);
  }

  /** Host.modelSupports: a host that does not say supports nothing optional */
  modelSupports(feature: string): boolean {
    return this.host.modelSupports?.(feature) === true;
  }

  now(): number {
    return nowMs() - this.startedAt;
  }

  /** `process_name`: a durable run journals the name, so a stored run shows it (runtime/durable/process-names.ts) */
  processNamed(p: Process, name: string): void {
    this.durable?.processNamed(p, name);
  }

  // ---- durable restore (issue 17; runtime/durable/snapshot.ts): the scheduler's state at a safe point
  private restored = false;
  /** at a safe point inside a slice (`execInParts`): the process running, and the steps its slice has left */
  private running: { p: Process; left: number } | undefined;

  durableState(): SchedulerState & SchedulerWaits {
    return {
      processes: [...this.procs.values()],
      main: this.main.id,
      nextPid: this.procs.nextPid,
      used: this.used,
      allocLeft: this.allocLeft,
      inferSeq: this.effects.inferSeq,
      now: this.now(),
      sleeping: this.timers.ids(),
      methods: this.methods,
      moduleCache: this.moduleCache,
      resultSite: this.resultSite,
      // the process running at a safe point inside its slice goes on first, with the rest of its slice
      ready: this.running ? [this.running.p.id, ...this.queue.ids()] : this.queue.ids(),
      carried: this.running?.left ?? 0,
      pending: this.effects.ids(),
      seeded: this.queue.seeded,
    };
  }

  /** A restored run holds scopes numbered up to `id`: new ones number above them (issue 17). */
  reserveScopeIds(id: number): void {
    this.procs.reserveScopeIds(id);
  }

  /** Before `run`: the VM continues from `s`, with the effects of `resumed` pending (their results given). */
  restoreState(s: SchedulerState, resumed: { pid: number; result: EffectResult }[]): void {
    for (const p of s.processes) this.procs.restore(p);
    this.main = this.procs.get(s.main)!;
    this.procs.nextPid = s.nextPid;
    this.used = s.used;
    this.allocLeft = s.allocLeft;
    this.effects.inferSeq = s.inferSeq;
    this.startedAt = nowMs() - s.now;
    for (const id of s.sleeping) this.timers.add(this.procs.get(id)!);
    for (const [k, v] of s.methods) this.methods.set(k, v);
    for (const [k, v] of s.moduleCache) this.moduleCache.set(k, v);
    this.resultSite = s.resultSite;
    for (const r of resumed) this.effects.restore(this.procs.get(r.pid)!, r.result);
    for (const id of s.ready ?? []) this.queue.push(this.procs.get(id)!);
    this.debugSlice = s.carried ?? 0; // the front process goes on with the rest of its slice
    this.restored = true;
  }

  // ---------------------------------------------------------------------------------------------
  // Process lifecycle (lifecycle.ts): creating, waking, delivering to and finishing processes

  private newProcess(parent: number, linked: boolean): Process {
    return this.procs.create(parent, linked, this.contextLimits, this.events);
  }

  /** Starts a process running `closure(args)`; errors (arity, types) are raised in the caller. */
  private spawn(parent: Process, closure: ClosureVal, args: Value[], linked: boolean): Process {
    this.charge(PROCESS_COST);
    // placement seam: a child placed elsewhere is a proxy waiting on one effect (ports/placement.ts);
    // a parent with a context keeps its children here (the context does not travel)
    // and an agent's processes stay here too: a worker elsewhere would not hold them to its capabilities
    // (nor a process with limits of its own, to them)
    const placed = this.placement && !parent.hasContext() && parent.grants === null && parent.limits === null ? this.placement.place(closure, args, this.procs.nextPid) : null;
    if (placed) {
      const proxy = this.newProcess(parent.id, linked);
      this.durable?.processSpawned(proxy.id, parent.id, closure.name ?? null);
      proxy.effect = { kind: 'tool', request: { ...placed, pid: proxy.id } };
      proxy.status = EFFECT;
      this.startEffect(proxy);
      return proxy;
    }
    const child = this.newProcess(parent.id, linked);
    child.grants = parent.grants; // an agent's capabilities bind every process its computations start
    // a process's own limits bind what it starts: a child gets at most what its parent has left (budgets.ts)
    if (parent.limits !== null) child.limits = { ...leftOf(parent.limits, parent), allocFrom: child.spent };
    // a child starts from its parent's context as it is now, and owns its copy from then on
    if (parent.hasContext()) child.context = parent.context.snapshot();
    child.fn = closure.name ?? null;
    child.stack.push(closure);
    for (let i = 0; i < args.length; i++) child.stack.push(args[i]);
    child.sp = this.enter(child, closure, args.length, 1, 0);
    this.queue.push(child);
    this.durable?.processSpawned(child.id, parent.id, child.fn);
    return child;
  }

  /** An agent was granted `categories` (agents.ts): a durable run journals the grant (ports/durable.ts). */
  agentGranted(agent: Process, name: string, categories: readonly string[]): void {
    this.durable?.agentGranted(agent, name, categories);
  }

  /** A process started by a tool (agents.ts): a detached one is owned by the runtime. */
  startProcess(parent: Process, closure: ClosureVal, args: Value[], detached: boolean): Process {
    const child = this.spawn(parent, closure, args, false);
    if (detached) {
      child.detached = true;
      child.events.push(spawnedEvent(child));
    }
    return child;
  }

  /**
   * Makes a waiting process runnable. A process waiting on an effect is woken only to be
   * cancelled: the effect's late result is then ignored (see `resumeEffect`).
   */
  wake(p: Process): void {
    // a cancelled process no longer waits for its effect: the host stops the work
    if (p.status === EFFECT && p.cancel === 'requested') this.effects.abortFor(p, p.cancelReason || 'cancelled');
    if (p.status === BLOCKED || (p.status === EFFECT && p.cancel === 'requested')) {
      this.used++; // a resumption is a step: --max-steps bounds waiting loops too
      p.status = READY;
      p.waiting = null;
      p.effect = null;
      this.queue.push(p);
    }
  }

  deliver(to: Process, message: Value): void {
    if (to.finished) return;
    this.charge(MESSAGE_COST, to); // a message is charged to its receiver (budgets.ts)
    to.inbox.push(message);
    if (to.waiting === 'receive' || to.waiting === 'select') this.wake(to);
  }

  private finish(p: Process, st: number): void {
    finishProcess(this, p, st);
    this.endedSinceSweep++;
    if (this.toolLoops.runsCall(p)) this.toolLoops.callEnded(p, (pid) => this.procs.get(pid));
    this.abandonToolCalls(p);
  }

  /** An inferring process that stopped waiting on its tool calls (cancelled, failed, ended): they stop too. */
  private abandonToolCalls(p: Process): void {
    for (const id of this.toolLoops.abandoned(p)) {
      const q = this.procs.get(id);
      if (q !== undefined && !q.finished) requestCancel(this, q, `cancelled: the infer of #${p.id} that called it stopped waiting`);
    }
  }

  /** A tool call of an infer's tool loop starts as a child of the inferring process (tool-loop.ts). */
  private startTool(parent: Process, closure: ClosureVal, args: Value[]): Process {
    return this.spawn(parent, this.copy(closure) as ClosureVal, args, false);
  }

  /** The inferring process asks the model its next round. */
  private askAgain(p: Process, effect: PendingEffect): void {
    p.effect = effect;
    p.status = EFFECT;
    this.startEffect(p);
  }

  // ---------------------------------------------------------------------------------------------
  // Effects (effect-waits.ts): started when a process yields EFFECT, resumed with their result

  private startEffect(p: Process): void {
    this.effects.start(p, this.durable ? this.durable.host(p, p.effect!, this.host) : this.host); // issue 5
  }

  private resumeEffect(w: EffectWait, result: EffectResult): void {
    const p = w.p;
    if (p.status !== EFFECT || p.effect !== w.effect) return; // cancelled meanwhile: the reply is dropped
    if (w.effect.kind === 'tool' && w.effect.request.name === REMOTE_CHILD_TOOL && this.placement) return this.settlePlaced(p, result);
    this.used++; // a resumption is a step
    this.current = p;
    p.status = READY;
    p.effect = null;
    let failure: Value | undefined;
    if (result.kind === 'infer' && result.outcome.ok === 'tools') {
      // a model round that called tools: the process goes on waiting while they run (tool-loop.ts)
      p.status = EFFECT;
      this.toolLoops.round(p, w.effect, result.outcome, result.id ?? '');
      return;
    }
    if (result.kind === 'infer') {
      this.toolLoops.end(p);
      const outcome = result.outcome as InferOutcome; // a round that called tools went to the loop above
      if (!outcome.ok && outcome.details.reason === 'budget') {
        // a run-wide budget, like --max-steps: no catch sees it; the run ends at this infer
        this.exhausted ??= { p, message: outcome.message };
        p.status = BLOCKED;
        return;
      }
      if (!outcome.ok) failure = inferErrorValue(outcome, this.site(p).line);
      else if (w.effect.kind === 'infer') p.stack[p.sp++] = inferredValue(outcome, w.effect.desc.schema);
    } else {
      const tool = (w.effect as Extract<PendingEffect, { kind: 'tool' }>).request.name;
      this.events.emit({ kind: 'tool.reply',  pid: p.id, tool, ok: result.ok });
      if (tool === ASK_TOOL) {
        // checked again here, against T from the bytecode: a journal's recorded answer is outside data too
        const asked = askArgs((w.effect as Extract<PendingEffect, { kind: 'tool' }>).request.args);
        const checked = result.ok ? checkAnswer(asked.schema, result.value) : undefined;
        if (checked?.ok) {
          this.charge(plainCost(checked.value));
          p.stack[p.sp++] = this.allocLeft < 0 ? null : fromReply(checked.value, asked.schema);
        } else {
          const message = checked ? `the answer to \`ask ${asked.typeName}\` is not a ${asked.typeName}: ${checked.message}` : (result as { message: string }).message;
          failure = new Map<string, Value>([['type', 'AskError'], ['message', message], ['line', this.site(p).line], ['ask', asked.typeName]]);
        }
      } else if (result.ok) {
        if (tool !== SUSPEND_TOOL) {
          // `suspend;` pushes nothing; a reply past the allocation budget is not converted (the run ends)
          this.charge(plainCost(result.value));
          p.stack[p.sp++] = this.allocLeft < 0 ? null : fromPlain(result.value);
        }
      }
      else {
        failure = new Map<string, Value>([
          ['type', 'EffectError'],
          ['tool', tool],
          ['message', result.message],
          ['line', this.site(p).line],
        ]);
      }
    }
    if (failure !== undefined && !this.raise(p, failure)) {
      this.finish(p, FAILED);
      return;
    }
    this.queue.push(p);
  }

  /** A placed child's proxy ends as the child did elsewhere (placement seam, ports/placement.ts). */
  private settlePlaced(p: Process, result: EffectResult): void {
    p.effect = null;
    const r: ReturnType<ChildPlacement['settle']> =
      result.kind === 'tool' && result.ok
        ? this.placement!.settle(result.value)
        : { ok: false, error: new Map<string, Value>([['type', 'EffectError'], ['tool', 'spawn'], ['message', result.kind === 'tool' && !result.ok ? result.message : 'the placed child gave no outcome']]), output: [] };
    for (const line of r.output) this.toolEnv.output(line);
    if (r.ok) {
      p.result = r.value;
      this.finish(p, DONE);
    } else {
      p.failure = { value: r.error, site: this.site(p), stack: [] };
      this.finish(p, FAILED);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Outcomes, sites and errors

  private outcome(p: Process): RunOutcome {
    if (p.status === DONE && containsIdentity(p.result)) {
      return this.resultError(p, "the program's result holds an identity handle, which cannot be serialized");
    }
    if (p.status === DONE) {
      let json: unknown;
      try {
        json = toJson(p.result);
      } catch (e) {
        if (!(e instanceof VMError)) throw e;
        return this.resultError(p, `the program's result is nested more than ${MAX_JSON_DEPTH} levels deep, too deep to serialize`);
      }
      return { ok: true, value: p.result, rendered: render(p.result), json };
    }
    const f = p.failure!;
    return {
      ok: false,
      error: { message: failureMessage(f.value), ...f.site, value: f.value, stack: f.stack },
    };
  }

  private budgetExhausted(p: Process): RunOutcome {
    return this.failRun(p, `step budget of ${this.maxSteps} exhausted; raise it with --max-steps`, false);
  }

  /** The allocation budget ran out: the run ends where the process that spent the last of it stands. */
  private allocExhausted(): RunOutcome {
    const p = this.current && this.current.frames.length > 0 ? this.current : this.main;
    return this.failRun(p, `allocation budget of ${this.maxAlloc} exhausted (about ${Math.round(this.maxAlloc * 8 / 1e6)} MB of values made); raise it with --max-alloc`, p !== this.current);
  }

  /** A result the run cannot hand over, reported where the program returned it. */
  private resultError(p: Process, message: string): RunOutcome {
    const site = this.resultSite ?? this.site(p);
    return { ok: false, error: { message, ...site, value: runtimeErrorValue(message, site.line), stack: [{ fn: this.fns[this.bundle.units[this.bundle.entry].main].name, ...site }] } };
  }

  private failRun(p: Process, message: string, blockedAtOp: boolean): RunOutcome {
    const site = this.site(p, blockedAtOp);
    return {
      ok: false,
      error: { message, ...site, value: runtimeErrorValue(message, site.line), stack: this.stackTrace(p, blockedAtOp) },
    };
  }

  /** The source location of the running (or last run) instruction of `p`. */
  site(p: Process, exact = false): Site {
    return processSite(this.bundle, p, exact);
  }

  stackTrace(p: Process, exact = false): StackEntry[] {
    return stackTrace(this.bundle, p, exact);
  }

  /** Throws `value` in `p` at its current instruction: unwinds to the innermost handler. */
  private raise(p: Process, value: Value): boolean {
    if (this.debug !== undefined) this.debug.raised(p, value, p.handlers.length > 0); // debugger hook: exception breakpoints
    const h = p.handlers.pop();
    if (!h) {
      const failure: Failure = { value, site: this.site(p), stack: this.stackTrace(p) };
      p.failure = failure;
      return false;
    }
    for (let i = p.frames.length - 1; i > h.frame; i--) {
      const m = p.frames[i].module;
      if (m >= 0) p.loading = p.loading.filter((u) => u !== m);
    }
    p.frames.length = h.frame + 1;
    p.gatherCursor = 0;
    p.sp = h.sp;
    p.stack[p.sp++] = value;
    p.frames[h.frame].ip = h.ip;
    abandonScopes(this, p, p.handlers.length);
    // An `invoke` the throw leaves ends: its caller's context comes back (issue 3).
    while (p.invokes.length > 0 && p.invokes[p.invokes.length - 1].handlers > p.handlers.length) {
      p.context = p.invokes.pop()!.saved;
      this.events.emit({ kind: 'invoke.exit',  pid: p.id, thrown: true });
    }
    return true;
  }

  private errorValue(p: Process, e: unknown): Value {
    if (e instanceof TurnThrow || e instanceof ProcessFailed) return e.value;
    const line = this.site(p).line;
    if (e instanceof EffectRefused) return e.errorValue(line);
    if (e instanceof VMError) return runtimeErrorValue(e.message, line);
    if (e instanceof RangeError && /call stack/i.test(e.message)) return runtimeErrorValue('call depth limit exceeded', line);
    return runtimeErrorValue(`internal error: ${e instanceof Error ? e.message : String(e)}`, line);
  }

  // ---------------------------------------------------------------------------------------------
  // Calls

  /**
   * Pushes a frame for `closure` whose arguments are at stack[base .. base+argc). For a method
   * the receiver is at stack[base] and `argc` counts it. Returns the new stack height.
   */
  private enter(p: Process, closure: ClosureVal, argc: number, base: number, ret: number): number {
    const proto = this.fns[closure.proto];
    const first = proto.method ? 1 : 0;
    // the parameters given (those past it are filled in with null, unchecked)
    let given = argc - first;
    if (proto.required !== undefined) {
      argc = first + countArguments(proto, p.stack, base + first, given);
      given = proto.arity;
    } else if (given === 1 && proto.std && proto.arity > 1 && unwrap(p.stack[base + first]) instanceof Map) {
      // Turn v1's single-map form of a standard-module function: the map first, null for the rest
      for (; argc - first < proto.arity; argc++) p.stack[base + argc] = null;
    } else given = proto.arity;
    if (argc - first !== proto.arity) {
      const got = argc - first;
      throw new VMError(
        `${proto.name} expects ${proto.arity} argument${proto.arity === 1 ? '' : 's'}, got ${got}`,
      );
    }
    if (p.frames.length >= MAX_FRAMES) throw new VMError('call depth limit exceeded');
    const stack = p.stack;
    const params = proto.params;
    for (let i = 0; i < given; i++) {
      const check = params[i].check;
      if (check !== 0 && !checkParam(stack[base + first + i], check)) {
        const v = stack[base + first + i];
        throw new VMError(`parameter ${params[i].name} of ${proto.name} expects ${params[i].type}, got ${describeMismatch(v, check)}`);
      }
    }
    let sp = base + argc;
    for (let i = argc; i < proto.nslots; i++) stack[sp++] = null;
    const frame: Frame = { closure, proto: closure.proto, ip: 0, bp: base, ret, module: -1 };
    // a process's first frame: an array of one (a push would reserve 17 slots, docs/performance.md)
    if (p.frames.length === 0) p.frames = [frame];
    else p.frames.push(frame);
    return sp;
  }

  /**
   * `+` on anything but two numbers. Joining lists is charged before it copies; a string is charged
   * what it adds to its longer string operand (the engine shares that one), so building a text
   * piece by piece costs its final length, not the square of it.
   */
  private addSlow(a: Value, b: Value): Value {
    // a text joined with a text or a number (`"k" + i`): what binarySlow would make, as JavaScript's
    // own `+` renders a number exactly as `render` does, charged the same
    if (typeof a === 'string' ? typeof b === 'string' || typeof b === 'number' : typeof a === 'number' && typeof b === 'string') {
      const r = (a as string) + (b as string);
      this.charge(textCost(r.length - Math.max(typeof a === 'string' ? a.length : 0, typeof b === 'string' ? b.length : 0)));
      return r;
    }
    const x = unwrap(a);
    const y = unwrap(b);
    if (Array.isArray(x) && Array.isArray(y)) this.charge(listCost(x.length + y.length));
    const r = binarySlow(Op.ADD, a, b);
    const t = unwrap(r);
    if (typeof t === 'string') this.charge(textCost(t.length - Math.max(typeof x === 'string' ? x.length : 0, typeof y === 'string' ? y.length : 0)));
    return r;
  }

  private method(type: string, name: string): ClosureVal | undefined {
    return this.methods.get(type)?.get(name);
  }

  // ---------------------------------------------------------------------------------------------
  // The interpreter loop

  /** Runs `p` for at most `budget` reductions. Returns YIELD, DONE, FAILED, BLOCKED or EFFECT. */
  exec(p: Process, budget: number): number {
    const fns = this.fns;
    const stack = p.stack;
    let frame = p.frames[p.frames.length - 1];
    let code = fns[frame.proto].code;
    let consts = fns[frame.proto].consts;
    let ip = frame.ip;
    let bp = frame.bp;
    let sp = p.sp;
    let to = 0; // where a compiled loop left off
    for (;;) {
      try {
        for (;;) {
          switch (code[ip++]) {
            // debugger hook: a breakpoint/step trap the debugger patched into a copy of the code
            case 255 /* DEBUG_TRAP, runtime/vm/debug.ts */:
              if (this.debug!.trap(p, frame.proto, ip - 1)) {
                ip--; // the original instruction is back: run it
                break;
              }
              frame.ip = ip - 1;
              p.sp = sp;
              this.left = this.debugSlice = budget;
              return YIELD;
            // end debugger hook
            case 95 /* ADD_LC_LOOP */: {
              // ADD_LC_ST and the LOOP_CMP_LC after it (operands at ip+4..): numbers only, no debugger
              const a = stack[bp + code[ip + 1]];
              const k = consts[code[ip + 2]] as number;
              if (typeof a !== 'number' || this.debug !== undefined) {
                stack[bp + code[ip]] = typeof a === 'number' ? a + k : this.addSlow(a, k);
                ip += 3; // the LOOP_CMP_LC runs on its own
                break;
              }
              stack[bp + code[ip]] = a + k;
              const x = stack[bp + code[ip + 5]];
              const y = consts[code[ip + 6]] as number;
              if (typeof x !== 'number') {
                ip += 3;
                break;
              }
              let r: boolean;
              switch (code[ip + 4]) {
                case 0 /* CMP_LT */: r = x < y; break;
                case 1 /* CMP_LE */: r = x <= y; break;
                case 2 /* CMP_GT */: r = x > y; break;
                default: r = x >= y;
              }
              if (!r) {
                ip += 8;
                break;
              }
              const edge = ip + 3; // the LOOP_CMP_LC after it
              ip = code[ip + 7];
              if (--budget <= 0) {
                frame.ip = ip;
                p.sp = sp;
                this.left = 0;
                return YIELD;
              }
              // a hot effect-free loop runs as JavaScript from here (runtime/vm/jit); never under a debugger
              if (this.compiledLoops !== null && this.debug === undefined && (to = this.compiledLoops.enter(frame.proto, ip, edge, stack, bp, sp, budget)) >= 0) {
                ip = to;
                sp += this.compiledLoops.out.depth;
                budget = this.compiledLoops.out.budget;
                if (budget <= 0) {
                  frame.ip = ip;
                  p.sp = sp;
                  this.left = 0;
                  return YIELD;
                }
              }
              break;
            }
            case 71 /* LOOP_CMP_LC */: {
              const a = stack[bp + code[ip + 1]];
              const b = consts[code[ip + 2]] as number;
              let r: boolean;
              if (typeof a === 'number') {
                switch (code[ip]) {
                  case 0 /* CMP_LT */: r = a < b; break;
                  case 1 /* CMP_LE */: r = a <= b; break;
                  case 2 /* CMP_GT */: r = a > b; break;
                  default: r = a >= b;
                }
              } else r = truthy(binarySlow(cmpOp(code[ip]), a, b));
              if (!r) {
                ip += 4;
                break;
              }
              const edge = ip - 1;
              ip = code[ip + 3];
              if (--budget <= 0) {
                frame.ip = ip;
                p.sp = sp;
                this.left = 0;
                return YIELD;
              }
              // a hot effect-free loop runs as JavaScript from here (runtime/vm/jit); never under a debugger
              if (this.compiledLoops !== null && this.debug === undefined && (to = this.compiledLoops.enter(frame.proto, ip, edge, stack, bp, sp, budget)) >= 0) {
                ip = to;
                sp += this.compiledLoops.out.depth;
                budget = this.compiledLoops.out.budget;
                if (budget <= 0) {
                  frame.ip = ip;
                  p.sp = sp;
                  this.left = 0;
                  return YIELD;
                }
              }
              break;
            }
            case 72 /* LOOP_CMP_LL */: {
              const a = stack[bp + code[ip + 1]];
              const b = stack[bp + code[ip + 2]];
              let r: boolean;
              if (typeof a === 'number' && typeof b === 'number') {
                switch (code[ip]) {
                  case 0 /* CMP_LT */: r = a < b; break;
                  case 1 /* CMP_LE */: r = a <= b; break;
                  case 2 /* CMP_GT */: r = a > b; break;
                  default: r = a >= b;
                }
              } else r = truthy(binarySlow(cmpOp(code[ip]), a, b));
              if (!r) {
                ip += 4;
                break;
              }
              const edge = ip - 1;
              ip = code[ip + 3];
              if (--budget <= 0) {
                frame.ip = ip;
                p.sp = sp;
                this.left = 0;
                return YIELD;
              }
              // a hot effect-free loop runs as JavaScript from here (runtime/vm/jit); never under a debugger
              if (this.compiledLoops !== null && this.debug === undefined && (to = this.compiledLoops.enter(frame.proto, ip, edge, stack, bp, sp, budget)) >= 0) {
                ip = to;
                sp += this.compiledLoops.out.depth;
                budget = this.compiledLoops.out.budget;
                if (budget <= 0) {
                  frame.ip = ip;
                  p.sp = sp;
                  this.left = 0;
                  return YIELD;
                }
              }
              break;
            }
            case 73 /* LOOP_IF_TRUE */: {
              const c = stack[--sp];
              if (!(c === true || (c !== false && truthy(c)))) {
                ip++;
                break;
              }
              const edge = ip - 1;
              ip = code[ip];
              if (--budget <= 0) {
                frame.ip = ip;
                p.sp = sp;
                this.left = 0;
                return YIELD;
              }
              // a hot effect-free loop runs as JavaScript from here (runtime/vm/jit); never under a debugger
              if (this.compiledLoops !== null && this.debug === undefined && (to = this.compiledLoops.enter(frame.proto, ip, edge, stack, bp, sp, budget)) >= 0) {
                ip = to;
                sp += this.compiledLoops.out.depth;
                budget = this.compiledLoops.out.budget;
                if (budget <= 0) {
                  frame.ip = ip;
                  p.sp = sp;
                  this.left = 0;
                  return YIELD;
                }
              }
              break;
            }
            case 33 /* JCMP_LC */: {
              const a = stack[bp + code[ip + 1]];
              const b = consts[code[ip + 2]] as number;
              let r: boolean;
              if (typeof a === 'number') {
                switch (code[ip]) {
                  case 0 /* CMP_LT */: r = a < b; break;
                  case 1 /* CMP_LE */: r = a <= b; break;
                  case 2 /* CMP_GT */: r = a > b; break;
                  default: r = a >= b;
                }
              } else r = truthy(binarySlow(cmpOp(code[ip]), a, b));
              ip = r ? ip + 4 : code[ip + 3];
              break;
            }
            case 34 /* JCMP_LL */: {
              const a = stack[bp + code[ip + 1]];
              const b = stack[bp + code[ip + 2]];
              let r: boolean;
              if (typeof a === 'number' && typeof b === 'number') {
                switch (code[ip]) {
                  case 0 /* CMP_LT */: r = a < b; break;
                  case 1 /* CMP_LE */: r = a <= b; break;
                  case 2 /* CMP_GT */: r = a > b; break;
                  default: r = a >= b;
                }
              } else r = truthy(binarySlow(cmpOp(code[ip]), a, b));
              ip = r ? ip + 4 : code[ip + 3];
              break;
            }
            case 35 /* ADD_LL_ST */: {
              const a = stack[bp + code[ip + 1]];
              const b = stack[bp + code[ip + 2]];
              stack[bp + code[ip]] = typeof a === 'number' && typeof b === 'number' ? a + b : this.addSlow(a, b);
              ip += 3;
              break;
            }
            case 36 /* ADD_LC_ST */: {
              const a = stack[bp + code[ip + 1]];
              const b = consts[code[ip + 2]] as number;
              stack[bp + code[ip]] = typeof a === 'number' ? a + b : this.addSlow(a, b);
              ip += 3;
              break;
            }
            case 32 /* LOOP */: {
              const edge = ip - 1;
              ip = code[ip];
              if (--budget <= 0) {
                frame.ip = ip;
                p.sp = sp;
                this.left = 0;
                return YIELD;
              }
              // a hot effect-free loop runs as JavaScript from here (runtime/vm/jit); never under a debugger
              if (this.compiledLoops !== null && this.debug === undefined && (to = this.compiledLoops.enter(frame.proto, ip, edge, stack, bp, sp, budget)) >= 0) {
                ip = to;
                sp += this.compiledLoops.out.depth;
                budget = this.compiledLoops.out.budget;
                if (budget <= 0) {
                  frame.ip = ip;
                  p.sp = sp;
                  this.left = 0;
                  return YIELD;
                }
              }
              break;
            }
            case 6 /* LOAD_LOCAL */:
              stack[sp++] = stack[bp + code[ip++]];
              break;
            case 7 /* STORE_LOCAL */:
              stack[bp + code[ip++]] = stack[--sp];
              break;
            case 0 /* CONST */:
              stack[sp++] = consts[code[ip++]] as Value;
              break;
            case 31 /* JUMP_IF_FALSE */: {
              const c = stack[--sp];
              if (c === true || (c !== false && truthy(c))) ip++;
              else ip = code[ip];
              break;
            }
            case 30 /* JUMP */:
              ip = code[ip];
              break;
            case 8 /* LOAD_CELL */:
              stack[sp++] = (stack[bp + code[ip++]] as unknown as { v: Value }).v;
              break;
            case 9 /* STORE_CELL */:
              (stack[bp + code[ip++]] as unknown as { v: Value }).v = stack[--sp];
              break;
            case 10 /* LOAD_UPVAL */:
              stack[sp++] = frame.closure.cells[code[ip++]].v;
              break;
            case 13 /* ADD */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              stack[sp - 1] = typeof a === 'number' && typeof b === 'number' ? a + b : this.addSlow(a, b);
              break;
            }
            case 14 /* SUB */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              stack[sp - 1] = typeof a === 'number' && typeof b === 'number' ? a - b : binarySlow(Op.SUB, a, b);
              break;
            }
            case 15 /* MUL */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              stack[sp - 1] = typeof a === 'number' && typeof b === 'number' ? a * b : binarySlow(Op.MUL, a, b);
              break;
            }
            case 19 /* LT */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              stack[sp - 1] = typeof a === 'number' && typeof b === 'number' ? a < b : binarySlow(Op.LT, a, b);
              break;
            }
            case 20 /* GT */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              stack[sp - 1] = typeof a === 'number' && typeof b === 'number' ? a > b : binarySlow(Op.GT, a, b);
              break;
            }
            case 21 /* LE */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              stack[sp - 1] = typeof a === 'number' && typeof b === 'number' ? a <= b : binarySlow(Op.LE, a, b);
              break;
            }
            case 22 /* GE */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              stack[sp - 1] = typeof a === 'number' && typeof b === 'number' ? a >= b : binarySlow(Op.GE, a, b);
              break;
            }
            case 17 /* EQ */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              // The same uncertain value on both sides keeps its confidence (comparisons take the minimum); a handle is never compared.
              stack[sp - 1] = a === b && !(a instanceof Uncertain) && !(a instanceof IdentityVal) ? true : binarySlow(Op.EQ, a, b);
              break;
            }
            case 18 /* NE */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              // The same uncertain value on both sides keeps its confidence (comparisons take the minimum); a handle is never compared.
              stack[sp - 1] = a === b && !(a instanceof Uncertain) && !(a instanceof IdentityVal) ? false : binarySlow(Op.NE, a, b);
              break;
            }
            case 16 /* DIV */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              stack[sp - 1] = typeof a === 'number' && typeof b === 'number' && b !== 0 ? a / b : binarySlow(Op.DIV, a, b);
              break;
            }
            case 44 /* CALL */: {
              const argc = code[ip++];
              let callee = stack[sp - argc - 1];
              if (!(callee instanceof ClosureVal)) {
                callee = unwrap(callee);
                if (!(callee instanceof ClosureVal)) throw new VMError(`cannot call a ${typeName(callee)} (not a closure)`);
              }
              frame.ip = ip;
              sp = this.enter(p, callee, argc, sp - argc, sp - argc - 1);
              frame = p.frames[p.frames.length - 1];
              code = fns[frame.proto].code;
              consts = fns[frame.proto].consts;
              ip = 0;
              bp = frame.bp;
              if (--budget <= 0) {
                p.sp = sp;
                this.left = 0;
                return YIELD;
              }
              break;
            }
            case 47 /* RETURN */: {
              const result = stack[sp - 1];
              const fi = p.frames.length - 1;
              const hs = p.handlers;
              while (hs.length > 0 && hs[hs.length - 1].frame >= fi) hs.pop();
              if (frame.module >= 0) {
                const m = frame.module;
                this.moduleCache.set(m, result);
                p.loading = p.loading.filter((u) => u !== m);
              }
              p.frames.pop();
              if (fi === 0) {
                if (p === this.main) {
                  frame.ip = ip;
                  this.resultSite = siteOf(this.bundle, frame, false); // where a result that cannot be serialized is reported
                }
                p.result = result;
                p.sp = 0;
                this.left = budget;
                return DONE;
              }
              sp = frame.ret;
              stack[sp++] = result;
              frame = p.frames[fi - 1];
              code = fns[frame.proto].code;
              consts = fns[frame.proto].consts;
              ip = frame.ip;
              bp = frame.bp;
              break;
            }
            case 41 /* INDEX */: {
              const i = stack[--sp];
              const t = stack[sp - 1];
              if (Array.isArray(t) && typeof i === 'number' && i >= 0 && i < t.length && Number.isInteger(i)) stack[sp - 1] = t[i];
              else stack[sp - 1] = indexSlow(t, i);
              break;
            }
            case 42 /* GET_FIELD */:
              stack[sp - 1] = getField(stack[sp - 1], consts[code[ip++]] as string);
              break;
            case 4 /* POP */:
              sp--;
              break;
            case 1 /* NULL */:
              stack[sp++] = null;
              break;
            case 2 /* TRUE */:
              stack[sp++] = true;
              break;
            case 3 /* FALSE */:
              stack[sp++] = false;
              break;
            case 52 /* FOR_ITER */: {
              const l = stack[bp + code[ip]] as Value[];
              const is = bp + code[ip + 1];
              const i = stack[is] as number;
              if (i < l.length) {
                stack[bp + code[ip + 2]] = l[i];
                stack[is] = i + 1;
                ip += 4;
              } else ip = code[ip + 3];
              break;
            }
            case 53 /* APPEND_LOCAL */:
              this.charge(1);
              (stack[bp + code[ip++]] as Value[]).push(stack[--sp]);
              break;
            case 26 /* AND_JUMP */: {
              const a = stack[sp - 1];
              // An uncertain left side is not short-circuited: its confidence combines with the right's.
              if (a === true || a instanceof Uncertain || (a !== false && truthy(a))) ip++;
              else {
                stack[sp - 1] = false;
                ip = code[ip];
              }
              break;
            }
            case 27 /* AND_END */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              stack[sp - 1] = a === true && typeof b === 'boolean' ? b : withConfidence(truthy(a) && truthy(b), Math.min(confidenceOf(a), confidenceOf(b)));
              break;
            }
            case 28 /* OR_JUMP */: {
              const a = stack[sp - 1];
              if (a === true || (a !== false && !(a instanceof Uncertain) && truthy(a))) {
                stack[sp - 1] = true;
                ip = code[ip];
              } else ip++;
              break;
            }
            case 29 /* OR_END */: {
              const b = stack[--sp];
              const a = stack[sp - 1];
              // `or` takes the larger confidence of two uncertain sides; a certain side is neutral
              const c = !(a instanceof Uncertain) ? confidenceOf(b) : !(b instanceof Uncertain) ? a.c : Math.max(a.c, b.c);
              stack[sp - 1] = a === false && typeof b === 'boolean' ? b : withConfidence(truthy(a) || truthy(b), c);
              break;
            }
            case 25 /* NOT */: {
              const a = stack[sp - 1];
              stack[sp - 1] = a === true ? false : a === false ? true : withConfidence(!truthy(a), confidenceOf(a));
              break;
            }
            case 46 /* METHOD_CALL */: {
              const name = consts[code[ip++]] as string;
              const argc = code[ip++];
              const recvAt = sp - argc - 1;
              const recv = unwrap(stack[recvAt]);
              let fn: Value | undefined;
              let asMethod = false;
              if (recv instanceof StructVal) {
                const m = this.method(recv.type, name);
                if (m) {
                  fn = m;
                  asMethod = fns[m.proto].method;
                } else fn = recv.fields.get(name);
              } else if (recv instanceof Map) {
                fn = recv.get(name);
              }
              fn = fn === undefined ? undefined : unwrap(fn);
              if (!(fn instanceof ClosureVal)) {
                if (fn === undefined) throw new VMError(`${typeName(recv)} has no method ${name}`);
                throw new VMError(`${typeName(recv)}.${name} is a ${typeName(fn)}, not a closure`);
              }
              frame.ip = ip;
              if (asMethod) {
                sp = this.enter(p, fn, argc + 1, recvAt, recvAt);
              } else {
                stack[recvAt] = fn;
                sp = this.enter(p, fn, argc, recvAt + 1, recvAt);
              }
              frame = p.frames[p.frames.length - 1];
              code = fns[frame.proto].code;
              consts = fns[frame.proto].consts;
              ip = 0;
              bp = frame.bp;
              if (--budget <= 0) {
                p.sp = sp;
                this.left = 0;
                return YIELD;
              }
              break;
            }
            case 45 /* CALL_BUILTIN */: {
              let argc = code[ip++];
              const target = unwrap(stack[sp - argc - 1]);
              if (typeof target === 'string') {
                if (target === 'select') {
                  // select.ts: the first ready arm; its `then` closure is called with the value
                  const chosen = select(this, p, toolArgs(stack.slice(sp - argc, sp)));
                  if (chosen === BLOCK) {
                    frame.ip = ip - 2; // ask again when woken
                    p.sp = sp;
                    this.left = budget;
                    return BLOCKED;
                  }
                  sp -= argc + 1;
                  const then = chosen.then === undefined ? undefined : unwrap(chosen.then);
                  if (then === undefined) {
                    stack[sp++] = new Map<string, Value>([['branch', chosen.branch], ['value', chosen.value]]);
                    break;
                  }
                  if (!(then instanceof ClosureVal)) throw new VMError(`select: arm ${chosen.index}'s "then" must be a closure, got ${typeName(then)}`);
                  const recvAt = sp;
                  stack[sp++] = then;
                  stack[sp++] = chosen.value;
                  frame.ip = ip;
                  sp = this.enter(p, then, fns[then.proto].arity === 0 ? (sp--, 0) : 1, recvAt + 1, recvAt);
                  frame = p.frames[p.frames.length - 1];
                  code = fns[frame.proto].code;
                  consts = fns[frame.proto].consts;
                  ip = 0;
                  bp = frame.bp;
                  break;
                }
                if (Object.hasOwn(AGENT_TOOLS, target)) {
                  const result = AGENT_TOOLS[target](this, p, toolArgs(stack.slice(sp - argc, sp)));
                  sp -= argc + 1;
                  stack[sp++] = result;
                  break;
                }
                if (Object.hasOwn(PROCESS_TOOLS, target)) {
                  let result = PROCESS_TOOLS[target](this, p, toolArgs(stack.slice(sp - argc, sp)));
                  if (this.durable && target === 'now') result = this.durable.clock(p, result as number); // issue 5
                  if (result === BLOCK) {
                    frame.ip = ip - 2; // run the tool again when woken
                    p.sp = sp;
                    this.left = budget;
                    return BLOCKED;
                  }
                  sp -= argc + 1;
                  stack[sp++] = result;
                  break;
                }
                if (EFFECT_TOOL_NAMES.has(target)) {
                  const values = toolArgs(stack.slice(sp - argc, sp));
                  if (p.grants !== null) refuseUngranted(p.grants, { tool: target }, effectCategory(target));
                  refuseHandleData(target, values);
                  const args = values.map(toHostArg);
                  sp -= argc + 1;
                  p.effect = { kind: 'tool', request: { name: target, args, pid: p.id } };
                  frame.ip = ip;
                  p.sp = sp;
                  this.left = budget;
                  return EFFECT;
                }
                const tool = Object.hasOwn(TOOLS, target) ? TOOLS[target] : Object.hasOwn(PURE_STD_TOOLS, target) ? PURE_STD_TOOLS[target] : undefined;
                if (!tool) throw new VMError(`unknown tool "${target}"`);
                const raw = stack.slice(sp - argc, sp);
                let result = tool(toolArgs(raw), this.toolEnv);
                // a pure function keeps its arguments' lowest confidence (a certain argument is neutral)
                if (target !== 'echo') for (const a of raw) if (a instanceof Uncertain) result = withConfidence(result, a.c);
                sp -= argc + 1;
                stack[sp++] = result;
                break;
              }
              if (!(target instanceof ClosureVal)) throw new VMError(`call expects a closure or a tool name, got ${typeName(target)}`);
              if (argc === 1) {
                // Turn v1's calling convention for a single argument (docs/language.md)
                const bound = singleArgument(fns[target.proto], stack[sp - 1]);
                if (bound) {
                  sp--;
                  for (const x of bound) stack[sp++] = x;
                  argc = bound.length;
                }
              }
              frame.ip = ip;
              sp = this.enter(p, target, argc, sp - argc, sp - argc - 1);
              frame = p.frames[p.frames.length - 1];
              code = fns[frame.proto].code;
              consts = fns[frame.proto].consts;
              ip = 0;
              bp = frame.bp;
              if (--budget <= 0) {
                p.sp = sp;
                this.left = 0;
                return YIELD;
              }
              break;
            }
            case 43 /* CLOSURE */: {
              const id = code[ip++];
              const proto = fns[id];
              const ups = proto.upvalues;
              const cells = new Array(ups.length);
              for (let i = 0; i < ups.length; i++) {
                const u = ups[i];
                cells[i] = u.local ? stack[bp + u.index] : frame.closure.cells[u.index];
              }
              this.charge(closureCost(ups.length));
              stack[sp++] = new ClosureVal(id, cells, proto.name);
              break;
            }
            case 37 /* MAKE_LIST */: {
              const n = code[ip++];
              this.charge(listCost(n));
              const items = stack.slice(sp - n, sp);
              sp -= n;
              stack[sp++] = items;
              break;
            }
            case 38 /* MAKE_MAP */: {
              const keys = consts[code[ip++]] as string[];
              const n = code[ip++];
              this.charge(mapCost(n));
              const m = new Map<string, Value>();
              const base = sp - n;
              for (let i = 0; i < n; i++) m.set(keys[i], stack[base + i]);
              sp = base;
              stack[sp++] = m;
              break;
            }
            case 39 /* MAKE_STRUCT */: {
              const desc = consts[code[ip++]] as StructDesc;
              const n = code[ip++];
              const base = sp - n - (desc.spread ? 1 : 0);
              const made = makeStruct(desc, stack, base, n);
              this.charge(mapCost(made.fields.size));
              stack[base] = made;
              sp = base + 1;
              break;
            }
            case 5 /* DUP */:
              stack[sp] = stack[sp - 1];
              sp++;
              break;
            case 11 /* NEW_CELL */:
              stack[bp + code[ip++]] = new Cell(null) as unknown as Value;
              break;
            case 12 /* BOX */: {
              const s = bp + code[ip++];
              stack[s] = new Cell(stack[s]) as unknown as Value;
              break;
            }
            case 23 /* SIM */: {
              const b = stack[--sp];
              stack[sp - 1] = binarySlow(Op.SIM, stack[sp - 1], b);
              break;
            }
            case 24 /* NEG */: {
              const a = stack[sp - 1];
              if (typeof a === 'number') stack[sp - 1] = -a;
              else if (a instanceof Uncertain && typeof a.v === 'number') stack[sp - 1] = new Uncertain(-a.v, a.c);
              else throw new VMError(`cannot negate ${typeName(a)}`);
              break;
            }
            case 40 /* MAKE_VEC */: {
              const n = code[ip++];
              this.charge(listCost(n));
              const items: number[] = [];
              for (let i = sp - n; i < sp; i++) {
                const x = unwrap(stack[i]);
                if (typeof x !== 'number') throw new VMError(`a vec holds numbers, got ${typeName(x)}`);
                items.push(x);
              }
              sp -= n;
              stack[sp++] = new VecVal(items);
              break;
            }
            case 48 /* TRY */:
              p.handlers.push({ frame: p.frames.length - 1, ip: code[ip++], sp });
              break;
            case 49 /* END_TRY */:
              p.handlers.pop();
              break;
            case 50 /* THROW */:
              throw new TurnThrow(stack[--sp]);
            case 51 /* ITER_CHECK */: {
              const s = bp + code[ip++];
              const l = unwrap(stack[s]);
              if (!Array.isArray(l)) throw new VMError(`expected a List, got ${typeName(l)}`);
              stack[s] = l;
              break;
            }
            case 54 /* IMPL */: {
              const desc = consts[code[ip++]] as ImplDesc;
              const n = code[ip++];
              let table = this.methods.get(desc.type);
              if (!table) this.methods.set(desc.type, (table = new Map()));
              for (let i = 0; i < n; i++) {
                const c = unwrap(stack[sp - n + i]);
                if (!(c instanceof ClosureVal)) throw new VMError(`method ${desc.type}.${desc.names[i]} must be a closure`);
                table.set(desc.names[i], c);
              }
              sp -= n;
              break;
            }
            case 55 /* USE */: {
              const unit = code[ip++];
              if (this.moduleCache.has(unit)) {
                stack[sp++] = this.moduleCache.get(unit)!;
                break;
              }
              if (p.loading.includes(unit)) {
                const chain = [...p.loading.slice(p.loading.indexOf(unit)), unit].map((u) => this.bundle.units[u].path);
                throw new VMError(`module cycle: ${chain.join(' -> ')}`);
              }
              const u = this.bundle.units[unit];
              const c = new ClosureVal(u.main, [], 'main');
              stack[sp++] = c;
              frame.ip = ip;
              sp = this.enter(p, c, 0, sp, sp - 1);
              frame = p.frames[p.frames.length - 1];
              frame.module = unit;
              p.loading.push(unit);
              code = fns[frame.proto].code;
              consts = fns[frame.proto].consts;
              ip = 0;
              bp = frame.bp;
              break;
            }
            case 56 /* INFER */: {
              const desc = consts[code[ip++]] as InferDesc;
              const prompt = stack[--sp];
              if (prompt instanceof IdentityVal) throw new VMError('an identity handle cannot be sent in a prompt');
              let options: InferOptions | undefined;
              if (desc.options) {
                const n = desc.options.length;
                sp -= n;
                try {
                  options = readInferOptions(desc.options, stack.slice(sp, sp + n).map(unwrap));
                } catch (e) {
                  if (e instanceof InferOptionError) throw new VMError(e.message);
                  throw e;
                }
              }
              if (p.grants !== null) refuseUngranted(p.grants, { infer: desc.typeName }, 'model');
              let tools: ToolSet | undefined;
              const toolsAt = desc.options?.indexOf(TOOLS_OPTION) ?? -1;
              if (toolsAt >= 0) {
                try {
                  tools = toolSetOf(stack[sp + toolsAt], this.bundle);
                } catch (e) {
                  if (e instanceof ToolOfferError) throw new VMError(e.message);
                  throw e;
                }
              }
              const effect: Extract<PendingEffect, { kind: 'infer' }> = {
                kind: 'infer',
                desc,
                request: {
                  typeName: desc.typeName, schema: desc.schema, prompt: promptText(prompt), pid: p.id, tiers: p.context.tiers(), ...withMedia(p.context.mediaPresent(), prompt), ...(options ? { options } : {}),
                  ...(tools && tools.offers.length > 0 ? { tools: tools.offers } : {}),
                },
              };
              if (tools && tools.offers.length > 0) this.toolLoops.begin(p, effect, tools);
              p.effect = effect;
              frame.ip = ip;
              p.sp = sp;
              this.left = budget;
              return EFFECT;
            }
            case 96 /* ASK */: {
              // `ask T { prompt }` (issue 43): a typed question to a person, yielded as the ASK_TOOL
              // effect so a durable run journals it (runtime/ask/, ports/ask.ts)
              const desc = consts[code[ip++]] as InferDesc;
              const prompt = stack[--sp];
              if (prompt instanceof IdentityVal) throw new VMError('an identity handle cannot be sent in a question');
              frame.ip = ip;
              p.sp = sp;
              const at = this.site(p);
              const request: AskRequest = { name: ASK_TOOL, args: [desc.typeName, desc.schema, promptText(prompt)], pid: p.id, at };
              p.effect = { kind: 'tool', request };
              this.left = budget;
              return EFFECT;
            }
            case 57 /* CONFIDENCE */: {
              const a = stack[sp - 1];
              stack[sp - 1] = a instanceof Uncertain ? a.c : 1;
              break;
            }
            case 58 /* SPAWN */: {
              const link = code[ip++] === 1;
              const c = unwrap(stack[sp - 1]);
              if (!(c instanceof ClosureVal)) throw new VMError(`spawn expects a closure, got ${typeName(c)}`);
              const child = this.spawn(p, this.copy(c) as ClosureVal, [], link);
              stack[sp - 1] = new PidVal(child.id);
              break;
            }
            case 59 /* SPAWN_EACH */: {
              const c = unwrap(stack[--sp]);
              const l = unwrap(stack[sp - 1]);
              if (!Array.isArray(l)) throw new VMError(`spawn_each expects a List, got ${typeName(l)}`);
              if (!(c instanceof ClosureVal)) throw new VMError(`spawn_each expects a closure, got ${typeName(c)}`);
              const pids: Value[] = [];
              for (const item of l) {
                // the closure and its item are copied together (shared parts stay shared) when the item is data
                const memo = item !== null && typeof item === 'object' ? new Map<object, unknown>() : undefined;
                const child = this.spawn(p, this.copy(c, memo) as ClosureVal, [this.copy(item, memo)], false);
                pids.push(new PidVal(child.id));
              }
              stack[sp - 1] = pids;
              break;
            }
            case 60 /* GATHER */: {
              const v = unwrap(stack[sp - 1]);
              const single = v instanceof PidVal;
              const list = single ? [v] : v;
              if (!Array.isArray(list)) throw new VMError(`gather expects a List of pids, got ${typeName(v)}`);
              let waitOn: Process | undefined;
              // Resume the scan where the last wake-up left it: gather over n pids stays O(n).
              for (let i = p.gatherCursor; i < list.length; i++) {
                const pid = unwrap(list[i]);
                if (!(pid instanceof PidVal)) throw new VMError(`gather expects pids, got ${typeName(pid)}`);
                const q = this.procs.get(pid.id);
                if (!q) throw new VMError(`gather: no process ${pid.id}`);
                if (!q.finished) {
                  waitOn = q;
                  p.gatherCursor = i;
                  break;
                }
              }
              if (waitOn) {
                if (waitOn === p) throw new VMError('a process cannot gather itself');
                waitOn.watchers.push(p.id);
                p.waiting = 'gather';
                frame.ip = ip - 1;
                p.sp = sp;
                this.left = budget;
                return BLOCKED;
              }
              p.gatherCursor = 0;
              // a failed child's slot is a ChildError, never mistaken for a result (runtime/vm/actors.ts)
              const results = list.map((x) => gatheredValue(this, this.procs.get((unwrap(x) as PidVal).id)!));
              stack[sp - 1] = single ? results[0] : results;
              break;
            }
            case 61 /* RECEIVE */:
              if (p.inbox.size > 0) {
                stack[sp++] = p.inbox.shift()!;
                break;
              }
              p.waiting = 'receive';
              frame.ip = ip - 1;
              p.sp = sp;
              this.left = budget;
              return BLOCKED;
            case 90 /* RECEIVE_T */: {
              if (p.inbox.size > 0) {
                p.deadline = null;
                p.timedOut = false;
                stack[sp - 1] = p.inbox.shift()!;
                break;
              }
              if (timedWait(this, p, millisArg(stack[sp - 1]))) {
                stack[sp - 1] = null;
                break;
              }
              p.waiting = 'receive';
              frame.ip = ip - 1;
              p.sp = sp;
              this.left = budget;
              return BLOCKED;
            }
            case 91 /* SCOPE_ENTER */:
              openScope(p, SCOPE_POLICIES[code[ip++]], this.procs.newScopeId());
              break;
            case 92 /* SCOPE_EXIT */: {
              const rec = p.scopes[p.scopes.length - 1];
              const result = scopeResult(this, rec);
              if (!result.done) {
                p.waiting = 'scope';
                frame.ip = ip - 1;
                p.sp = sp;
                this.left = budget;
                return BLOCKED;
              }
              p.scopes.pop();
              if ('error' in result) throw new TurnThrow(result.error);
              stack[sp++] = result.value;
              break;
            }
            case 93 /* TASK */:
            case 94 /* DETACH */: {
              const c = unwrap(stack[sp - 1]);
              const what = code[ip - 1] === Op.TASK ? 'task' : 'detach';
              if (!(c instanceof ClosureVal)) throw new VMError(`${what} expects a closure, got ${typeName(c)}`);
              const rec = what === 'task' ? innermostScope(p) : undefined;
              const child = this.spawn(p, this.copy(c) as ClosureVal, [], false);
              if (rec) {
                rec.tasks.push(child.id);
                if (rec.taskLimits) child.limits = { ...tighter(rec.taskLimits, leftOf(child.limits, child)), allocFrom: child.spent };
                child.ownerScope = { pid: p.id, scope: rec.id };
              } else {
                child.detached = true;
                child.events.push(spawnedEvent(child));
              }
              stack[sp - 1] = new PidVal(child.id);
              break;
            }
            case 62 /* SEND */: {
              const msg = stack[--sp];
              // a handle in a message passes as itself (capability passing): the receiver holds the same
              // grant, and its effects are journaled with it; it is still never printed or serialized
              const pid = unwrap(stack[sp - 1]);
              if (!(pid instanceof PidVal)) throw new VMError(`send expects a pid, got ${typeName(pid)}`);
              const to = this.procs.get(pid.id);
              if (to?.effect?.kind === 'tool' && to.effect.request.name === REMOTE_CHILD_TOOL) throw new VMError(`process #${to.id} runs on another worker (Restate placement): it has no mailbox here`);
              if (to && !to.finished) {
                this.deliver(to, this.copy(msg, undefined, to));
                // who sent to whom (the run panel's message edges): the pids only, never the message
                if (this.events.active) this.events.emit({ kind: 'process.send', pid: p.id, to: to.id });
              }
              stack[sp - 1] = null;
              break;
            }
            case 63 /* REMEMBER */: {
              const v = stack[--sp];
              const key = keyString(stack[sp - 1], 'remember');
              this.charge(4 + textCost(key.length));
              p.memory.set(key, v);
              stack[sp - 1] = null;
              break;
            }
            case 64 /* RECALL */: {
              const v = p.memory.get(keyString(stack[sp - 1], 'recall'));
              stack[sp - 1] = v === undefined ? null : v;
              break;
            }
            case 65 /* CTX_APPEND */:
            case 66 /* CTX_SYSTEM */: {
              const v = stack[sp - 1];
              if (v instanceof IdentityVal) throw new VMError('an identity handle cannot be put in a context');
              const text = promptText(v);
              this.charge(textCost(text.length));
              for (const m of mediaIn(v)) p.context.addMedia(m);
              if (code[ip - 1] === Op.CTX_APPEND) {
                const moved = p.context.append(text);
                if (moved.demoted.length > 0) this.events.emit({ kind: 'context.demote',  pid: p.id, entries: moved.demoted.length, tokens: moved.demoted.reduce((a, e) => a + e.tokens, 0) });
                if (moved.dropped.length > 0) this.events.emit({ kind: 'context.drop',  pid: p.id, entries: moved.dropped.length, tokens: moved.dropped.reduce((a, e) => a + e.tokens, 0) });
              } else p.context.addSystem(text);
              stack[sp - 1] = null;
              break;
            }
            case 67 /* GRANT */: {
              // Only the handle: kind and name. The secret stays with the host's vault.
              const name = unwrap(stack[sp - 1]);
              if (typeof name !== 'string' || name === '') throw new VMError(`an identity needs a name (a non-empty Str), got ${typeName(name)}`);
              stack[sp - 1] = new IdentityVal(consts[code[ip++]] as string, name);
              break;
            }
            case 68 /* ERROR */:
              throw new VMError(consts[code[ip++]] as string);
            case 70 /* UNDEFINED */:
              throw new VMError(`undefined name ${consts[code[ip++]] as string}`);
            case 74 /* INVOKE_ENTER */:
              p.invokes.push({ saved: p.context, handlers: p.handlers.length });
              p.context = p.context.snapshot();
              this.events.emit({ kind: 'invoke.enter',  pid: p.id, depth: p.invokes.length });
              break;
            case 75 /* INVOKE_EXIT */: {
              const r = p.invokes.pop();
              if (r) p.context = r.saved;
              this.events.emit({ kind: 'invoke.exit',  pid: p.id, thrown: false });
              break;
            }
            case 69 /* SUSPEND */:
              // issue 5: a durable run commits a snapshot here (runtime/durable); otherwise an error
              if (!this.durable) throw new VMError('suspend needs a store: this run was started without one (the run API\'s `store` or `storeIfSuspends`; `turn run` keeps such a program in .turn/)');
              p.effect = { kind: 'tool', request: { name: SUSPEND_TOOL, args: [], pid: p.id } };
              frame.ip = ip;
              p.sp = sp;
              this.left = budget;
              return EFFECT;
            default:
              throw new Error(`bad opcode ${code[ip - 1]} at ${ip - 1} in ${fns[frame.proto].name}`);
          }
        }
      } catch (e) {
        frame.ip = ip;
        p.sp = sp;
        if (e === ALLOC_EXHAUSTED) {
          this.left = budget;
          return YIELD; // the scheduler ends the run here
        }
        if (!this.raise(p, this.errorValue(p, e))) {
          this.left = budget;
          return FAILED;
        }
        if (p.joining.length > 0) {
          this.left = budget;
          return YIELD; // the scheduler holds it until the abandoned scopes' tasks have ended
        }
        frame = p.frames[p.frames.length - 1];
        code = fns[frame.proto].code;
        consts = fns[frame.proto].consts;
        ip = frame.ip;
        bp = frame.bp;
        sp = p.sp;
      }
    }
  }
}


/** Runs a compiled program to completion. */
export function runBundle(bundle: Bundle, host: Host, options?: RunOptions): Promise<RunOutcome> {
  return new VM(bundle, host, options).run();
}
