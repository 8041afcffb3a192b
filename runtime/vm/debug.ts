// The VM side of the debugger (extension/debug/ speaks DAP on top of it).
//
// Zero cost when no debugger is attached: the interpreter loop is unchanged except for one extra
// `case` (opcode 255, DEBUG_TRAP) that plain bytecode never contains, and the scheduler checks
// `vm.debug` once per slice. A Debugger replaces each function's code with a copy and patches
// DEBUG_TRAP over the first instruction of source lines:
//   - at breakpoints, always;
//   - at every line start while stepping or pausing ("armed"), and for one instruction after
//     running a breakpoint's original instruction, so the breakpoint can be re-patched.
// When the loop meets a trap it calls `trap()`: either the debugger stops (the process yields with
// its ip on the trap, and the scheduler awaits `paused` before running anything), or the
// original opcode is put back and run.
import type { FunctionProto } from '../compile/bundle.js';
import { OPERANDS, Op } from '../compile/opcodes.js';
import type { Process } from './process.js';
import type { DebugHook } from '../ports/debug.js';
import { getField } from './ops.js';
import { Cell, renderValue, type Value, type VM } from './index.js';

export const DEBUG_TRAP = 255;

export type { DebugHook };

export type StepMode = 'continue' | 'in' | 'over' | 'out' | 'pause';

export interface StopEvent {
  reason: 'entry' | 'breakpoint' | 'step' | 'pause' | 'model' | 'effect' | 'approval';
  pid: number;
  description: string;
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

const key = (proto: number, ip: number) => proto * 0x100000 + ip;

export class Debugger implements DebugHook {
  paused: Promise<void> | null = null;
  private release: (() => void) | null = null;
  readonly lineStarts: LineStart[] = [];
  private readonly byKey = new Map<number, LineStart>();
  /** original opcodes of patched positions */
  private readonly patched = new Map<number, number>();
  private readonly breakpoints = new Set<number>();
  private mode: StepMode = 'continue';
  private from: { pid: number; depth: number; line: number } | null = null;
  /** the trap a stopped process sits on: running it again must not stop */
  private resumeAt: { pid: number; k: number } | null = null;
  /** a wanted trap lifted to run its original instruction; re-patched at the next trap */
  private lifted: number | null = null;
  stoppedPid: number | null = null;
  onStop: (e: StopEvent) => void = () => {};

  constructor(readonly vm: VM, stopOnEntry = false) {
    const fns = vm.fns;
    for (const f of fns) {
      f.code = f.code.slice(); // a copy: the bundle's code stays pristine
      this.scan(f);
    }
    for (const ls of this.lineStarts) this.byKey.set(key(ls.proto, ls.ip), ls);
    vm.debug = this;
    if (stopOnEntry) this.mode = 'pause';
    this.apply();
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

  /** Sets the breakpoints of one file; returns the line each one binds to (or null: no code at or after it). */
  setBreakpoints(path: string, lines: number[]): (number | null)[] {
    for (const k of [...this.breakpoints]) if (this.byKey.get(k)!.path === path) this.breakpoints.delete(k);
    const inFile = this.lineStarts.filter((l) => l.path === path);
    const out = lines.map((line) => {
      const bound = inFile.filter((l) => l.line >= line).reduce<number | null>((m, l) => (m === null || l.line < m ? l.line : m), null);
      if (bound === null) return null;
      for (const l of inFile) if (l.line === bound) this.breakpoints.add(key(l.proto, l.ip));
      return bound;
    });
    this.apply();
    return out;
  }

  private armed(): boolean {
    return this.mode !== 'continue' || this.lifted !== null;
  }

  /** Patches/unpatches so that exactly the wanted positions trap. */
  private apply(): void {
    const armed = this.armed();
    const fns = this.vm.fns;
    for (const ls of this.lineStarts) {
      const k = key(ls.proto, ls.ip);
      const want = k !== this.lifted && (armed || this.breakpoints.has(k));
      const has = this.patched.has(k);
      if (want && !has) {
        this.patched.set(k, fns[ls.proto].code[ls.ip]);
        fns[ls.proto].code[ls.ip] = DEBUG_TRAP;
      } else if (!want && has) {
        fns[ls.proto].code[ls.ip] = this.patched.get(k)!;
        this.patched.delete(k);
      }
    }
  }

  trap(p: Process, proto: number, ip: number): boolean {
    const k = key(proto, ip);
    const depth = p.frames.length;
    const line = this.byKey.get(k)?.line ?? 0;
    this.lifted = null;
    const resuming = this.resumeAt !== null && this.resumeAt.pid === p.id && this.resumeAt.k === k;
    if (!resuming) {
      const reason = this.shouldStop(p.id, k, depth, line);
      if (reason) {
        p.frames[p.frames.length - 1].ip = ip; // where it stands, for whoever inspects it from onStop
        this.stop(p.id, reason, reason === 'breakpoint' ? `breakpoint at line ${line}` : reason === 'pause' ? 'paused' : `line ${line}`);
        this.resumeAt = { pid: p.id, k };
        this.apply();
        return false;
      }
    } else this.resumeAt = null;
    // Run the original instruction now; keep the trap for later if it is still wanted.
    const code = this.vm.fns[proto].code;
    const original = this.patched.get(k);
    if (original !== undefined) {
      code[ip] = original;
      this.patched.delete(k);
    }
    if (this.armed() || this.breakpoints.has(k)) this.lifted = k;
    this.apply();
    return true;
  }

  private shouldStop(pid: number, k: number, depth: number, line: number): StopEvent['reason'] | null {
    if (this.breakpoints.has(k)) return 'breakpoint';
    const f = this.from;
    switch (this.mode) {
      case 'pause':
        return 'pause';
      case 'in':
        return !f || pid !== f.pid || line !== f.line || depth !== f.depth ? 'step' : null;
      case 'over':
        if (!f || pid !== f.pid) return null;
        return depth < f.depth || (depth === f.depth && line !== f.line) ? 'step' : null;
      case 'out':
        return f && pid === f.pid && depth < f.depth ? 'step' : null;
      default:
        return null;
    }
  }

  private stop(pid: number, reason: StopEvent['reason'], description: string): void {
    this.mode = 'continue';
    this.stoppedPid = pid;
    if (!this.paused) this.paused = new Promise<void>((r) => (this.release = r));
    this.onStop({ reason, pid, description });
  }

  /** Holds the run from outside the interpreter (a model reply, an effect, an approval) until resumed. */
  hold(pid: number, reason: 'model' | 'effect' | 'approval' | 'pause', description: string): Promise<void> {
    this.stop(pid, reason, description);
    return this.paused!;
  }

  /** Asks the run to stop at the next line any process reaches. */
  pause(): void {
    if (this.paused) return;
    this.mode = 'pause';
    this.apply();
  }

  /** Resumes: continue, or step in/over/out from where `pid` stands. */
  resume(mode: Exclude<StepMode, 'pause'>, pid = this.stoppedPid): void {
    const p = pid !== null ? this.vm.process(pid) : undefined;
    this.from = p ? { pid: p.id, depth: p.frames.length, line: this.frames(p.id)[0]?.line ?? 0 } : null;
    this.mode = p || mode === 'continue' ? mode : 'continue';
    this.stoppedPid = null;
    this.apply();
    const release = this.release;
    this.paused = null;
    this.release = null;
    release?.();
  }

  /** Detaches: every trap goes, the run continues at full speed. */
  detach(): void {
    this.breakpoints.clear();
    this.mode = 'continue';
    this.lifted = null;
    for (const [k, op] of this.patched) this.vm.fns[Math.floor(k / 0x100000)].code[k % 0x100000] = op;
    this.patched.clear();
    const release = this.release;
    this.paused = null;
    release?.();
    this.vm.debug = undefined;
  }

  // ---- inspection

  /** The stack of `pid`, innermost first. The top frame's line is exact when it sits on a trap. */
  frames(pid: number): FrameInfo[] {
    const p = this.vm.process(pid);
    if (!p) return [];
    const out: FrameInfo[] = [];
    for (let i = p.frames.length - 1; i >= 0; i--) {
      const f = p.frames[i];
      const proto = this.vm.fns[f.proto];
      const unit = this.vm.bundle.units[proto.unit];
      const top = i === p.frames.length - 1;
      const exact = top && (this.patched.get(key(f.proto, f.ip)) !== undefined || this.byKey.has(key(f.proto, f.ip)));
      let at = exact ? f.ip : f.ip - 1;
      at = Math.max(0, Math.min(at, proto.spans.length - 1));
      const pos = unit.file.position(proto.spans[at] ?? 0);
      out.push({ index: i, name: proto.name, path: unit.path, line: pos.line, column: pos.column });
    }
    return out;
  }

  /** The locals of frame `index` of `pid`, named from parameters and `let` statements. */
  locals(pid: number, index: number): { name: string; value: Value }[] {
    const p = this.vm.process(pid);
    const f = p?.frames[index];
    if (!p || !f) return [];
    const proto = this.vm.fns[f.proto];
    const names = slotNames(this.vm, proto);
    const out: { name: string; value: Value }[] = [];
    const top = index === p.frames.length - 1 ? p.sp : p.frames[index + 1].bp;
    for (let slot = 0; slot < proto.nslots && f.bp + slot < top; slot++) {
      let v = p.stack[f.bp + slot];
      if (v instanceof Cell) v = v.v;
      if (v === undefined) continue;
      out.push({ name: names.get(slot) ?? `$${slot}`, value: v });
    }
    return out;
  }

  /** Names, `memory.KEY`, `context.P0|P1|P2`, then `.field` and `[index]` paths over them (the debugger's evaluate). */
  evaluate(expr: string, pid: number, frame: number): Value {
    const text = expr.trim();
    const m = /^([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[(?:\d+|"[^"]*")\])*)$/.exec(text);
    if (!m) throw new Error(`cannot evaluate \`${text}\` (names, .field and [index] paths only)`);
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

const slotNameCache = new WeakMap<FunctionProto, Map<number, string>>();

/** Slot names: parameters from the prototype, `let` names from the source line of each store. */
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
  for (let ip = 0; ip < code.length; ip += 1 + (OPERANDS[code[ip]] ?? 0)) {
    const op = code[ip];
    let slot = -1;
    if (op === Op.STORE_LOCAL) slot = code[ip + 1];
    else if (op === Op.ADD_LL_ST || op === Op.ADD_LC_ST) slot = code[ip + 1];
    if (slot < 0 || names.has(slot)) continue;
    const at = proto.spans[ip] ?? 0;
    const lineStart = text.lastIndexOf('\n', Math.max(0, at - 1)) + 1;
    const lineEnd = text.indexOf('\n', at);
    const line = text.slice(lineStart, lineEnd < 0 ? undefined : lineEnd);
    const m = /\blet\s+([A-Za-z_][A-Za-z0-9_]*)/.exec(line) ?? /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=[^=]/.exec(line);
    if (m) names.set(slot, m[1]);
  }
  slotNameCache.set(proto, names);
  return names;
}

/** A short rendering for the Variables view. */
export function debugRender(v: Value): string {
  const s = renderValue(v);
  return s.length > 500 ? s.slice(0, 500) + '…' : s;
}
