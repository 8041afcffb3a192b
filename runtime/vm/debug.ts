// The VM side of the debugger (extension/debug/ speaks DAP on top of it).
//
// Zero cost when no debugger is attached: the interpreter loop is unchanged except for one extra
// `case` (opcode 255, DEBUG_TRAP) that plain bytecode never contains, the scheduler checks
// `vm.debug` once per slice, and `raise` asks it about errors. A Debugger replaces each function's
// code with a copy and patches DEBUG_TRAP over the first instruction of every source line. When the
// loop meets a trap it calls `trap()`: the debugger either stops (the process yields with its ip
// on the trap, and the scheduler awaits `paused` before running anything), or puts the original
// opcode back and lets it run ("lifted"), patching it again at the next trap.
//
// Every trap a process meets for the first time is one *step* of the run, numbered from 1 (`tick`).
// Stops never change the order processes run in (the VM lets a stopped process finish its slice
// first), and a durable run's replay feeds every recorded result, so re-executing a run from its
// start meets the same steps in the same order: that is how the debugger steps backward (time
// travel, extension/debug/time-travel.ts). `trace` keeps, for each step, the process, the position
// and the call depth, so the debugger can tell which earlier step to go back to.
//
// All processes stop together: there is one scheduler, and while `paused` is set nothing runs.
// A process that stopped (or that met a trap while the run was held) passes that trap the next
// time it runs, so a breakpoint in code several actors run stops each of them once per visit and
// Continue goes on for all of them.
import type { FunctionProto } from '../compile/bundle.js';
import { OPERANDS, Op } from '../compile/opcodes.js';
import type { Process } from './process.js';
import type { DebugHook } from '../ports/debug.js';
import { getField } from './ops.js';
import { Cell, renderValue, type Value, type VM } from './index.js';
import { equals, truthy } from '../values/index.js';

export const DEBUG_TRAP = 255;

export type { DebugHook };

export type StepMode = 'continue' | 'in' | 'over' | 'out' | 'pause';

export interface StopEvent {
  reason: 'entry' | 'breakpoint' | 'step' | 'pause' | 'model' | 'effect' | 'approval' | 'exception' | 'goto';
  pid: number;
  description: string;
  /** the step the run stands on (time travel) */
  tick: number;
}

/** Which run-time errors stop the debugger: `uncaught` (no `catch` of the process takes it), `all`. */
export type ExceptionFilter = 'uncaught' | 'all';

/** A breakpoint as the editor sets it: a line, with an optional condition, hit condition and log message. */
export interface BreakpointSpec {
  line: number;
  /** stops only when this expression is true (names, `.field`/`[i]` paths, literals, == != < <= > >=, !, && and ||) */
  condition?: string;
  /** `N` or `>= N` (from the Nth hit on), `== N`, `> N`, `< N`, `<= N`, `% N` (every Nth hit) */
  hitCondition?: string;
  /** a logpoint: prints this message (with `{expression}` parts evaluated) instead of stopping */
  logMessage?: string;
}

/** Where a breakpoint bound: its line, or null (no code at or after it) with the reason. */
export interface BoundBreakpoint {
  line: number | null;
  message?: string;
}

export interface LineStart {
  proto: number;
  ip: number;
  path: string;
  line: number;
}

export interface FrameInfo {
  index: number;
  name: string;
  path: string;
  line: number;
  column: number;
}

/** What stopped the run at a run-time error: the failing process as it stood before the error unwound it. */
export interface ErrorStop {
  pid: number;
  message: string;
  value: Value;
  caught: boolean;
  frames: FrameInfo[];
  locals: { name: string; value: Value }[][];
}

export interface DebuggerOptions {
  stopOnEntry?: boolean;
  /** replay to this step: nothing stops (or logs) before it, and the run stops there */
  stopAtTick?: number;
  exceptions?: ExceptionFilter[];
}

interface Breakpoint {
  line: number;
  condition: string | undefined;
  hit: ((n: number) => boolean) | undefined;
  log: string | undefined;
  hits: number;
}

const key = (proto: number, ip: number) => proto * 0x100000 + ip;

/** How many of the latest steps the debugger remembers for Step Back (16 bytes each); a step back further goes to the oldest kept. */
export const TRACE_STEPS = 1 << 20;

/** A ring of the latest steps: process, position and call depth, by step number (from 1). */
class StepTrace {
  private readonly pids = new Int32Array(TRACE_STEPS);
  private readonly keys = new Float64Array(TRACE_STEPS);
  private readonly depths = new Int32Array(TRACE_STEPS);
  private last = 0;

  record(tick: number, pid: number, k: number, depth: number): void {
    const i = tick % TRACE_STEPS;
    this.pids[i] = pid;
    this.keys[i] = k;
    this.depths[i] = depth;
    this.last = tick;
  }

  /** the oldest step still kept (1 before any) */
  get oldest(): number {
    return Math.max(1, this.last - TRACE_STEPS + 1);
  }

  has(tick: number): boolean {
    return tick >= this.oldest && tick <= this.last;
  }

  pid(tick: number): number {
    return this.pids[tick % TRACE_STEPS];
  }

  key(tick: number): number {
    return this.keys[tick % TRACE_STEPS];
  }

  depth(tick: number): number {
    return this.depths[tick % TRACE_STEPS];
  }
}

export class Debugger implements DebugHook {
  paused: Promise<void> | null = null;
  private release: (() => void) | null = null;
  readonly lineStarts: LineStart[] = [];
  private readonly byKey = new Map<number, LineStart>();
  /** original opcodes of patched positions */
  private readonly patched = new Map<number, number>();
  private readonly breakpoints = new Map<number, Breakpoint>();
  private mode: StepMode = 'continue';
  private from: { pid: number; depth: number; line: number } | null = null;
  /** per process, the trap it stopped on (or was parked on): running it again is not a new step */
  private readonly resumeAt = new Map<number, number>();
  /** processes parked on a trap while the run was held: their trap may still stop them when they run on */
  private readonly parked = new Set<number>();
  /** the position whose original opcode is back while it runs; patched again at the next trap */
  private lifted: number | null = null;
  private target: number | null;
  exceptions = new Set<ExceptionFilter>();
  /** the steps met so far (the step the run stands on) */
  tick = 0;
  /** the last TRACE_STEPS steps met: process, position and call depth of each (where Step Back goes) */
  private readonly trace = new StepTrace();
  /** the steps where a breakpoint stopped the run (or would have, when a replay passed them): where Reverse Continue goes */
  private readonly breakpointTicks: number[] = [];
  stoppedPid: number | null = null;
  /** the function each process runs (its bottom frame when it first ran a line): how the editor names an actor, also once it ended */
  readonly names = new Map<number, string>();
  /** the run-time error the run is stopped at, while it is */
  errorStop: ErrorStop | null = null;
  onStop: (e: StopEvent) => void = () => {};
  /** a logpoint's message, evaluated */
  onLog: (text: string, pid: number, path: string, line: number) => void = () => {};

  constructor(
    readonly vm: VM,
    options: DebuggerOptions | boolean = {},
  ) {
    const opts = typeof options === 'boolean' ? { stopOnEntry: options } : options;
    for (const f of vm.fns) {
      f.code = f.code.slice(); // a copy: the bundle's code stays pristine
      this.scan(f);
      slotNames(vm, f); // read from the code before traps cover it
    }
    for (const ls of this.lineStarts) {
      const k = key(ls.proto, ls.ip);
      this.byKey.set(k, ls);
      this.patch(k);
    }
    this.target = opts.stopAtTick ?? null;
    for (const e of opts.exceptions ?? []) this.exceptions.add(e);
    vm.debug = this;
    if (opts.stopOnEntry && this.target === null) this.mode = 'pause';
  }

  /** Instruction boundaries whose source line differs from the previous instruction's. */
  private scan(f: FunctionProto): void {
    const unit = this.vm.bundle.units[f.unit];
    let last = -1;
    for (let ip = 0; ip < f.code.length; ip += 1 + (OPERANDS[f.code[ip]] ?? 0)) {
      const line = unit.file.position(f.spans[ip] ?? 0).line;
      if (line !== last) this.lineStarts.push({ proto: f.id, ip, path: unit.path, line });
      last = line;
    }
  }

  private patch(k: number): void {
    if (this.patched.has(k)) return;
    const code = this.vm.fns[Math.floor(k / 0x100000)].code;
    this.patched.set(k, code[k % 0x100000]);
    code[k % 0x100000] = DEBUG_TRAP;
  }

  private unpatch(k: number): void {
    const op = this.patched.get(k);
    if (op === undefined) return;
    this.vm.fns[Math.floor(k / 0x100000)].code[k % 0x100000] = op;
    this.patched.delete(k);
  }

  /** True while the debugger replays the run to an earlier step (nothing stops or logs before it). */
  get traveling(): boolean {
    return this.target !== null;
  }

  /** Sets the breakpoints of one file; returns where each one binds (the first line with code at or after it). */
  setBreakpoints(path: string, specs: (BreakpointSpec | number)[]): BoundBreakpoint[] {
    for (const k of [...this.breakpoints.keys()]) if (this.byKey.get(k)!.path === path) this.breakpoints.delete(k);
    const inFile = this.lineStarts.filter((l) => l.path === path);
    return specs.map((s) => {
      const spec = typeof s === 'number' ? { line: s } : s;
      const bound = inFile.filter((l) => l.line >= spec.line).reduce<number | null>((m, l) => (m === null || l.line < m ? l.line : m), null);
      if (bound === null) return { line: null, message: 'no code at or after this line' };
      let hit: ((n: number) => boolean) | undefined;
      if (spec.hitCondition?.trim()) {
        hit = hitTest(spec.hitCondition);
        if (!hit) return { line: null, message: `cannot read the hit count \`${spec.hitCondition}\` (N, >= N, == N, > N, < N, <= N or % N)` };
      }
      if (spec.condition?.trim()) {
        const problem = conditionProblem(spec.condition);
        if (problem) return { line: null, message: problem };
      }
      const bp: Breakpoint = { line: bound, condition: spec.condition?.trim() || undefined, hit, log: spec.logMessage || undefined, hits: 0 };
      for (const l of inFile) if (l.line === bound) this.breakpoints.set(key(l.proto, l.ip), bp);
      return { line: bound };
    });
  }

  trap(p: Process, proto: number, ip: number): boolean {
    const k = key(proto, ip);
    if (this.lifted !== null && this.lifted !== k) this.patch(this.lifted);
    this.lifted = null;
    if (this.resumeAt.get(p.id) === k) {
      this.resumeAt.delete(p.id);
      if (!this.parked.delete(p.id)) return this.pass(k);
      // parked while the run was held: the trap had no say yet
      const reason = this.wouldStop(p, k);
      return reason ? this.stopAt(p, ip, k, reason[0], reason[1]) : this.pass(k);
    }
    // a trap met for the first time: one step of the run
    const tick = ++this.tick;
    if (!this.names.has(p.id)) this.names.set(p.id, p.frames[0]?.closure.name ?? `#${p.id}`);
    const depth = p.frames.length;
    this.trace.record(tick, p.id, k, depth);
    if (this.target !== null) {
      // hit counts go on as they did the first time; nothing stops or logs before the target
      const bp = this.breakpoints.get(k);
      if (bp) this.breakpointHit(p, bp, true);
      if (tick < this.target) return this.pass(k);
      this.target = null;
      return this.stopAt(p, ip, k, 'goto', `step ${tick}`);
    }
    // the run is held (an error, an effect) in the middle of this slice: the process waits on the trap
    if (this.paused !== null) {
      this.parked.add(p.id);
      return this.park(p, ip, k);
    }
    const reason = this.wouldStop(p, k);
    return reason ? this.stopAt(p, ip, k, reason[0], reason[1]) : this.pass(k);
  }

  /** Whether a breakpoint or the step in progress stops `p` at `k`, and why. */
  private wouldStop(p: Process, k: number): [StopEvent['reason'], string] | null {
    const line = this.byKey.get(k)?.line ?? 0;
    const bp = this.breakpoints.get(k);
    if (bp) {
      const outcome = this.breakpointHit(p, bp);
      if (outcome !== null) return ['breakpoint', outcome];
    }
    if (this.stepStops(p.id, p.frames.length, line)) return this.mode === 'pause' ? ['pause', 'paused'] : ['step', `line ${line}`];
    return null;
  }

  /** Runs the original instruction at `k` now; the trap comes back at the next trap. */
  private pass(k: number): boolean {
    this.unpatch(k);
    this.lifted = k;
    return true;
  }

  private park(p: Process, ip: number, k: number): boolean {
    p.frames[p.frames.length - 1].ip = ip; // where it stands, for whoever inspects it
    this.resumeAt.set(p.id, k);
    return false;
  }

  private stopAt(p: Process, ip: number, k: number, reason: StopEvent['reason'], description: string): boolean {
    this.park(p, ip, k);
    this.stop(p.id, reason, description);
    return false;
  }

  /** A description when the breakpoint stops here; null when it does not (condition false, hit count not reached, a logpoint). */
  private breakpointHit(p: Process, bp: Breakpoint, quiet = false): string | null {
    const frame = p.frames.length - 1;
    if (bp.condition !== undefined) {
      try {
        if (!truthy(this.evaluate(bp.condition, p.id, frame))) return null;
      } catch (e) {
        return `the condition \`${bp.condition}\` failed: ${(e as Error).message}`;
      }
    }
    bp.hits++;
    if (bp.hit && !bp.hit(bp.hits)) return null;
    if (bp.log === undefined && this.breakpointTicks[this.breakpointTicks.length - 1] !== this.tick) this.breakpointTicks.push(this.tick);
    if (quiet) return null;
    if (bp.log !== undefined) {
      const site = this.byKey.get(key(p.frames[frame].proto, p.frames[frame].ip));
      this.onLog(this.interpolate(bp.log, p.id, frame), p.id, site?.path ?? '', bp.line);
      return null;
    }
    return `breakpoint at line ${bp.line}${bp.hits > 1 ? ` (hit ${bp.hits})` : ''}`;
  }

  /** A logpoint's message: `{expression}` parts evaluated in the process's top frame. */
  private interpolate(message: string, pid: number, frame: number): string {
    return message.replace(/\{([^{}]+)\}/g, (_, expr: string) => {
      try {
        return debugRender(this.evaluate(expr, pid, frame));
      } catch (e) {
        return `<${(e as Error).message}>`;
      }
    });
  }

  private stepStops(pid: number, depth: number, line: number): boolean {
    const f = this.from;
    switch (this.mode) {
      case 'pause':
        return true;
      case 'in':
        return !f || (pid === f.pid && (line !== f.line || depth !== f.depth));
      case 'over':
        if (!f || pid !== f.pid) return false;
        return depth < f.depth || (depth === f.depth && line !== f.line);
      case 'out':
        return f !== null && pid === f.pid && depth < f.depth;
      default:
        return false;
    }
  }

  private stop(pid: number, reason: StopEvent['reason'], description: string): void {
    this.mode = 'continue';
    this.stoppedPid = pid;
    if (!this.paused) this.paused = new Promise<void>((r) => (this.release = r));
    this.onStop({ reason, pid, description, tick: this.tick });
  }

  /** Holds the run from outside the interpreter (a model reply, an effect, an approval) until resumed. */
  hold(pid: number, reason: 'model' | 'effect' | 'approval' | 'pause', description: string): Promise<void> {
    if (this.target !== null) return Promise.resolve(); // a replay to an earlier step holds nowhere
    this.stop(pid, reason, description);
    return this.paused!;
  }

  /** An error raised in `p` (before it unwinds): stops there when the exception filters ask for it. */
  raised(p: Process, value: Value, caught: boolean): void {
    if (this.target !== null || this.paused !== null) return;
    if (!(this.exceptions.has('all') || (this.exceptions.has('uncaught') && !caught))) return;
    if (value instanceof Map && value.get('type') === 'Cancelled') return; // a cancellation is not an error
    const frames = this.frames(p.id, false, false);
    this.errorStop = {
      pid: p.id,
      message: errorMessage(value),
      value,
      caught,
      frames,
      locals: frames.map((f) => this.locals(p.id, f.index)),
    };
    this.stop(p.id, 'exception', `${caught ? 'error' : 'uncaught error'}: ${this.errorStop.message}`);
  }

  /** Asks the run to stop at the next line any process reaches. */
  pause(): void {
    if (this.paused) return;
    this.mode = 'pause';
  }

  /** Resumes every process: continue, or step in/over/out from where `pid` stands. */
  resume(mode: Exclude<StepMode, 'pause'>, pid = this.stoppedPid): void {
    const p = pid !== null ? this.vm.process(pid) : undefined;
    const live = p && p.frames.length > 0 && this.errorStop?.pid !== pid ? p : undefined;
    this.from = live ? { pid: live.id, depth: live.frames.length, line: this.frames(live.id)[0]?.line ?? 0 } : null;
    this.mode = live || mode === 'continue' ? mode : 'continue';
    if (this.errorStop && mode !== 'continue' && p && p.frames.length > 0) {
      // from an error: the next line the process runs (its `catch`)
      this.from = { pid: p.id, depth: Infinity, line: -1 };
      this.mode = 'over';
    }
    this.stoppedPid = null;
    this.errorStop = null;
    const release = this.release;
    this.paused = null;
    this.release = null;
    release?.();
  }

  /** Detaches: every trap goes, the run continues at full speed. */
  detach(): void {
    this.breakpoints.clear();
    this.mode = 'continue';
    this.target = null;
    this.lifted = null;
    this.resumeAt.clear();
    this.parked.clear();
    for (const k of [...this.patched.keys()]) this.unpatch(k);
    this.errorStop = null;
    const release = this.release;
    this.paused = null;
    this.release = null;
    release?.();
    if (this.vm.debug === this) this.vm.debug = undefined;
  }

  // ---- time travel

  /** The step to go back to for a step back from `tick` in `pid` (the previous line it ran at this depth or outside it). */
  stepBackTarget(pid: number, tick = this.tick): number {
    // the depth the process stands at: its step's, or (stopped elsewhere: an error, an effect) its stack's
    const depth =
      this.trace.has(tick) && this.trace.pid(tick) === pid ? this.trace.depth(tick)
      : this.errorStop?.pid === pid ? this.errorStop.frames.length
      : (this.vm.process(pid)?.frames.length || Infinity);
    for (let t = tick - 1; this.trace.has(t); t--) {
      if (this.trace.pid(t) === pid && this.trace.depth(t) <= depth) return t;
    }
    return this.trace.oldest;
  }

  /**
   * The step to go back to for a reverse continue from `tick`: the last earlier step where a
   * breakpoint that is still set stopped the run, its condition and hit count held (null: none, go
   * to the start).
   */
  reverseContinueTarget(tick = this.tick): number | null {
    for (let i = this.breakpointTicks.length - 1; i >= 0; i--) {
      const t = this.breakpointTicks[i];
      if (t < tick && this.trace.has(t) && this.breakpoints.has(this.trace.key(t))) return t;
    }
    return null;
  }

  // ---- inspection

  /** The stack of `pid`, innermost first. The top frame's line is exact when it sits on a trap. */
  frames(pid: number, fromErrorStop = true, exactTop = true): FrameInfo[] {
    if (fromErrorStop && this.errorStop?.pid === pid) return this.errorStop.frames;
    const p = this.vm.process(pid);
    if (!p) return [];
    const out: FrameInfo[] = [];
    for (let i = p.frames.length - 1; i >= 0; i--) {
      const f = p.frames[i];
      const proto = this.vm.fns[f.proto];
      const unit = this.vm.bundle.units[proto.unit];
      const top = i === p.frames.length - 1;
      // exact when it stands on a trap; otherwise its ip is past the instruction it ran last
      const exact = exactTop && top && this.resumeAt.get(pid) === key(f.proto, f.ip);
      let at = exact ? f.ip : f.ip - 1;
      at = Math.max(0, Math.min(at, proto.spans.length - 1));
      const pos = unit.file.position(proto.spans[at] ?? 0);
      out.push({ index: i, name: proto.name, path: unit.path, line: pos.line, column: pos.column });
    }
    return out;
  }

  /** The named locals of frame `index` of `pid` (parameters and `let`s; compiler temporaries are left out). */
  locals(pid: number, index: number): { name: string; value: Value }[] {
    if (this.errorStop?.pid === pid) {
      const at = this.errorStop.frames.findIndex((f) => f.index === index);
      if (at >= 0) return this.errorStop.locals[at];
    }
    const p = this.vm.process(pid);
    const f = p?.frames[index];
    if (!p || !f) return [];
    const proto = this.vm.fns[f.proto];
    const names = slotNames(this.vm, proto);
    const out: { name: string; value: Value }[] = [];
    // a frame's slots are set when it is entered (runtime/vm `enter`), so they are all there
    for (let slot = 0; slot < proto.nslots; slot++) {
      const name = names.get(slot);
      if (name === undefined) continue;
      let v = p.stack[f.bp + slot];
      if (v instanceof Cell) v = v.v;
      if (v === undefined) continue;
      out.push({ name, value: v });
    }
    return out;
  }

  /**
   * The debugger's expressions: names, `memory.KEY`, `context.P0|P1|P2`, `.field` and `[index]`
   * paths over them, literals (numbers, "text", true, false, null), comparisons (== != < <= > >=),
   * `!`, `&&`, `||` and parentheses. Used by Evaluate, hovers, conditions and logpoints.
   */
  evaluate(expr: string, pid: number, frame: number): Value {
    const tokens = tokenize(expr);
    let i = 0;
    const peek = () => tokens[i];
    const next = () => tokens[i++];
    const or = (): Value => {
      let v = and();
      while (peek() === '||') {
        next();
        const r = and();
        v = truthy(v) || truthy(r);
      }
      return v;
    };
    const and = (): Value => {
      let v = cmp();
      while (peek() === '&&') {
        next();
        const r = cmp();
        v = truthy(v) && truthy(r);
      }
      return v;
    };
    const cmp = (): Value => {
      const a = unary();
      const op = peek();
      if (op === '==' || op === '!=' || op === '<' || op === '<=' || op === '>' || op === '>=') {
        next();
        const b = unary();
        if (op === '==') return equals(a, b);
        if (op === '!=') return !equals(a, b);
        if (typeof a !== typeof b || (typeof a !== 'number' && typeof a !== 'string')) throw new Error(`cannot compare ${debugRender(a)} ${op} ${debugRender(b)}`);
        const x = a;
        const y = b as number | string;
        return op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
      }
      return a;
    };
    const unary = (): Value => {
      if (peek() === '!') {
        next();
        return !truthy(unary());
      }
      if (peek() === '(') {
        next();
        const v = or();
        if (next() !== ')') throw new Error(`a \`(\` without its \`)\` in \`${expr.trim()}\``);
        return v;
      }
      const t = next();
      if (t === undefined) throw new Error(`\`${expr.trim()}\` ends too soon`);
      if (/^-?\d/.test(t)) return Number(t);
      if (t.startsWith('"')) return JSON.parse(t) as string;
      if (t === 'true' || t === 'false') return t === 'true';
      if (t === 'null') return null;
      if (/^[A-Za-z_]/.test(t)) return this.path(t, pid, frame);
      throw new Error(`cannot evaluate \`${expr.trim()}\` (names, .field and [index] paths, literals, comparisons, !, && and ||)`);
    };
    const v = or();
    if (i < tokens.length) throw new Error(`cannot evaluate \`${expr.trim()}\`: unexpected \`${tokens[i]}\``);
    return v;
  }

  private path(text: string, pid: number, frame: number): Value {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|"[^"]*")\])*)$/.exec(text)!;
    const p = this.vm.process(pid);
    let value: Value;
    if (m[1] === 'memory' && p) {
      value = new Map(p.memory);
    } else if (m[1] === 'context' && p) {
      const t = p.context.tiers();
      value = new Map<string, Value>([['P0', t.system], ['P1', t.working], ['P2', t.episodic]]);
    } else {
      const local = this.locals(pid, frame).find((l) => l.name === m[1]);
      if (!local) throw new Error(`\`${m[1]}\` is not defined here`);
      value = local.value;
    }
    for (const part of m[2].match(/\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|"[^"]*")\]/g) ?? []) {
      if (part.startsWith('.')) value = value instanceof Map ? (value.get(part.slice(1)) ?? null) : getField(value, part.slice(1));
      else {
        const k = part.slice(1, -1);
        if (Array.isArray(value)) value = value[Number(k)] ?? null;
        else if (value instanceof Map) value = value.get(k.replace(/^"|"$/g, '')) ?? null;
        else throw new Error(`cannot index ${debugRender(value)}`);
      }
    }
    return value;
  }
}

const TOKEN = /\s*(\|\||&&|==|!=|<=|>=|[<>!()]|-?\d+(?:\.\d+)?|"(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|"[^"]*")\])*)/y;

function tokenize(expr: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let at = 0;
  while (at < expr.length) {
    if (/^\s*$/.test(expr.slice(at))) break;
    TOKEN.lastIndex = at;
    const m = TOKEN.exec(expr);
    if (!m) throw new Error(`cannot evaluate \`${expr.trim()}\`: unexpected \`${expr.slice(at).trim().slice(0, 20)}\` (names, .field and [index] paths, literals, comparisons, !, && and ||)`);
    out.push(m[1]);
    at = TOKEN.lastIndex;
  }
  return out;
}

/** Why a condition cannot be read, or null. */
function conditionProblem(condition: string): string | null {
  try {
    tokenize(condition);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/** A hit condition as a test of the hit count: `N` (from the Nth on), `>= N`, `== N`, `> N`, `< N`, `<= N`, `% N`. */
function hitTest(text: string): ((n: number) => boolean) | undefined {
  const m = /^\s*(>=|==|<=|>|<|%|=)?\s*(\d+)\s*$/.exec(text);
  if (!m) return undefined;
  const k = Number(m[2]);
  switch (m[1]) {
    case '==':
    case '=':
      return (n) => n === k;
    case '>':
      return (n) => n > k;
    case '<':
      return (n) => n < k;
    case '<=':
      return (n) => n <= k;
    case '%':
      return (n) => k > 0 && n % k === 0;
    default:
      return (n) => n >= k;
  }
}

function errorMessage(v: Value): string {
  if (v instanceof Map && typeof v.get('message') === 'string') return v.get('message') as string;
  return debugRender(v);
}

const slotNameCache = new WeakMap<FunctionProto, Map<number, string>>();

/**
 * Slot names: parameters from the prototype, `let` (and `for NAME in`, `catch NAME`) names from
 * the source line of each store. A name belongs to one slot: the compiler numbers declared
 * variables before its temporaries, so of two slots stored on a `let NAME` line the lower one is NAME.
 */
export function slotNames(vm: VM, proto: FunctionProto): Map<number, string> {
  const cached = slotNameCache.get(proto);
  if (cached) return cached;
  const names = new Map<number, string>();
  const first = proto.method ? 1 : 0;
  if (proto.method) names.set(0, 'self');
  proto.params.forEach((param, i) => names.set(first + i, param.name));
  const unit = vm.bundle.units[proto.unit];
  const text = unit.file.text;
  const code = proto.code;
  const slotOf = new Map<string, number>();
  for (const [slot, name] of names) slotOf.set(name, slot);
  for (let ip = 0; ip < code.length; ip += 1 + (OPERANDS[code[ip]] ?? 0)) {
    const op = code[ip];
    let slot = -1;
    if (op === Op.STORE_LOCAL) slot = code[ip + 1];
    else if (op === Op.ADD_LL_ST || op === Op.ADD_LC_ST || op === Op.ADD_LC_LOOP) slot = code[ip + 1];
    if (slot < 0 || names.has(slot)) continue;
    const at = proto.spans[ip] ?? 0;
    const lineStart = text.lastIndexOf('\n', Math.max(0, at - 1)) + 1;
    const lineEnd = text.indexOf('\n', at);
    const line = text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
    const m =
      /\blet\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(line) ??
      /\bfor\s+([A-Za-z_][A-Za-z0-9_]*)\s+in\b/.exec(line) ??
      /\bcatch\s*\(?\s*([A-Za-z_][A-Za-z0-9_]*)/.exec(line) ??
      /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=[^=]/.exec(line);
    if (!m) continue;
    const had = slotOf.get(m[1]);
    if (had !== undefined && had < slot) continue;
    if (had !== undefined) names.delete(had);
    names.set(slot, m[1]);
    slotOf.set(m[1], slot);
  }
  slotNameCache.set(proto, names);
  return names;
}

/** A short rendering for the Variables view. */
export function debugRender(v: Value): string {
  const s = renderValue(v);
  return s.length > 500 ? s.slice(0, 500) + '…' : s;
}
