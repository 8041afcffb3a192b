// Hot effect-free loops compiled to JavaScript (issue 29, docs/performance.md "The VM loop").
//
// The interpreter calls `enter` each time it takes a loop's back edge. Once a loop head has been
// reached `hotAfter` times, its loop — the instructions from the head to the back edge — is
// translated into a JavaScript function (`new Function`), provided every instruction in it is one
// of a small effect-free set: number and boolean locals, number constants, arithmetic,
// comparisons, jumps. No call, no effect, no allocation, no receive: nothing in a compiled loop can
// suspend, send, allocate or observe the scheduler, so running it as JavaScript is invisible
// except for its speed. The bytecode itself is not changed (its hash neither).
//
// The compiled function is specialised on the types its locals held when it was compiled (number
// or boolean) and checks them each time it is entered; if they differ it returns -1 and the
// interpreter goes on as if nothing happened. Inside, every value is a number or a boolean by
// construction (each instruction's operand types are checked when compiling), so no type test is
// left in the loop. It leaves for the interpreter, with the locals written back and any operands
// of the instruction it stopped before pushed on the value stack:
// - when the loop ends (a jump or a fall-through out of the region);
// - before an instruction whose outcome the interpreter must produce: a division by zero (the
//   interpreter raises the error, with its line), a `return`, a `throw`;
// - when the step budget of the slice is spent: each back edge taken costs one step, exactly as in
//   the interpreter, so slices, `--max-steps`, per-process step limits and the scheduler's fairness
//   are unchanged.
// The interpreter never enters compiled code while a debugger is attached (its traps, which
// stepping, breakpoints and time travel rely on, live in the interpreted instructions).
import type { FunctionProto } from '../../compile/bundle.js';
import { Op, OPERANDS } from '../../compile/opcodes.js';
import type { Value } from '../../values/index.js';

/** What a compiled loop hands back besides the ip to go on at. */
export interface LoopExit {
  /** the slice's step budget left */
  budget: number;
  /** values the loop pushed on the value stack (the operands of the instruction it stopped before) */
  depth: number;
}

/**
 * A compiled loop: runs from the loop head with the frame's locals at `stack[bp..]` and the value
 * stack's top at `sp`. Returns the ip the interpreter goes on at (`out` says the budget left and
 * the values pushed), or -1 when the locals do not hold the types it was compiled for.
 */
export type CompiledLoop = (stack: Value[], bp: number, sp: number, budget: number, out: LoopExit) => number;

/** Default number of times a loop head is reached by a back edge before its loop is compiled. */
export const HOT_LOOP_AFTER = 50;
/** Entries refused by the type check before a loop is given up on (its locals' types changed for good). */
const MAX_MISSES = 16;

/** `compile`'s answer when a local the loop uses holds no number or boolean yet */
const LATER = Symbol('later');
const COMPILED = -1;
const GIVEN_UP = -2;

/** Loop heads of one function: a hit count (>= 0), COMPILED or GIVEN_UP per code position. */
interface Sites {
  state: Int32Array;
  loops: (CompiledLoop | undefined)[];
  misses: Int32Array;
}

/**
 * Compiled loops live as long as their bytecode: VMs that run the same bundle (a benchmark's
 * repetitions, a server's requests) share them. Keyed by the code array itself, so a debugger's
 * patched copy of a function never meets another copy's loops. `null`: not compilable.
 */
const shared = new WeakMap<Int32Array, Map<string, CompiledLoop | null>>();

/** Compiled-loop entries of every VM in this process (for tests that run programs through the run API). */
let entriesInProcess = 0;
export function compiledLoopEntries(): number {
  return entriesInProcess;
}

export class CompiledLoops {
  /** times a compiled loop was entered (and ran): tests assert on it so compilation cannot silently stop */
  entries = 0;
  /** loops compiled or taken from the shared cache by this VM */
  compiled = 0;
  readonly out: LoopExit = { budget: 0, depth: 0 };
  private readonly sites: (Sites | undefined)[] = [];

  constructor(
    private readonly fns: FunctionProto[],
    private readonly hotAfter = hotAfterByDefault(),
  ) {}

  /**
   * At a taken back edge (the instruction at `edge`) to `head`, with the step already counted and
   * the budget not spent: runs the loop compiled if it is hot and compilable. Returns the ip to go
   * on at (then `out` holds the budget left and the values pushed), or -1: not entered, the
   * interpreter goes on at `head` as usual.
   */
  enter(proto: number, head: number, edge: number, stack: Value[], bp: number, sp: number, budget: number): number {
    let sites = this.sites[proto];
    if (sites === undefined) {
      const n = this.fns[proto].code.length;
      sites = this.sites[proto] = { state: new Int32Array(n), loops: [], misses: new Int32Array(n) };
    }
    const state = sites.state[head];
    if (state !== COMPILED) {
      if (state === GIVEN_UP) return -1;
      if (state + 1 < this.hotAfter) {
        sites.state[head] = state + 1;
        return -1;
      }
      const loop = this.compile(proto, head, edge, stack, bp);
      if (loop === LATER) {
        // counted as a miss, and tried again after as many back edges
        sites.state[head] = ++sites.misses[head] >= MAX_MISSES ? GIVEN_UP : 0;
        return -1;
      }
      if (loop === null) {
        sites.state[head] = GIVEN_UP;
        return -1;
      }
      sites.loops[head] = loop;
      sites.state[head] = COMPILED;
      this.compiled++;
    }
    const to = sites.loops[head]!(stack, bp, sp, budget, this.out);
    if (to < 0) {
      if (++sites.misses[head] >= MAX_MISSES) sites.state[head] = GIVEN_UP;
      return -1;
    }
    this.entries++;
    entriesInProcess++;
    return to;
  }

  private compile(proto: number, head: number, edge: number, stack: Value[], bp: number): CompiledLoop | null | typeof LATER {
    const fn = this.fns[proto];
    const types: LocalTypes = [];
    for (let s = 0; s < fn.nslots; s++) {
      const v = stack[bp + s];
      types.push(typeof v === 'number' ? 'n' : typeof v === 'boolean' ? 'b' : null);
    }
    const key = `${head}:${edge}:${types.map((t) => t ?? '-').join('')}`;
    let byLoop = shared.get(fn.code);
    if (byLoop === undefined) shared.set(fn.code, (byLoop = new Map()));
    const known = byLoop.get(key);
    if (known !== undefined) return known;
    const t = translate(fn, head, edge, types);
    if ('refused' in t && t.later) return LATER;
    const loop = 'source' in t ? build(t.source) : null;
    byLoop.set(key, loop);
    return loop;
  }
}

/** The function a translation's source makes; null where Node refuses code from strings (`--disallow-code-generation-from-strings`). */
function build(source: string): CompiledLoop | null {
  try {
    return new Function(source)() as CompiledLoop;
  } catch (e) {
    if (e instanceof EvalError) return null;
    throw e;
  }
}

// ---------------------------------------------------------------------------------------------
// Translation

/** The static type of a value in a compiled loop: a number or a boolean. */
type Ty = 'n' | 'b';
/** The type each local slot held when the loop was compiled (null: neither; such a slot must not be used). */
type LocalTypes = (Ty | null)[];

/** What the stack holds before an instruction: the types of the values pushed since the loop head. */
type StackState = Ty[];

class NotCompilable extends Error {
  constructor(
    why: string,
    /** the loop may compile later: a local it uses does not hold a number or a boolean yet */
    readonly later = false,
  ) {
    super(why);
  }
}

function refuse(why: string, later = false): never {
  throw new NotCompilable(why, later);
}

/** A loop's translation, or why there is none (and whether to try again at a later back edge). */
type Translation = { source: string } | { refused: string; later: boolean };

/** A number as a JavaScript literal that reads back as the same number (-0, NaN, Infinity included). */
function numberLiteral(v: number): string {
  if (Object.is(v, -0)) return '(-0)';
  if (Number.isNaN(v)) return 'NaN';
  if (!Number.isFinite(v)) return v > 0 ? 'Infinity' : '(-Infinity)';
  return v < 0 ? `(${String(v)})` : String(v);
}

const CMP = ['<', '<=', '>', '>='];
const BINARY: Record<number, string> = { [Op.ADD]: '+', [Op.SUB]: '-', [Op.MUL]: '*', [Op.LT]: '<', [Op.GT]: '>', [Op.LE]: '<=', [Op.GE]: '>=' };

/**
 * The JavaScript source of a function returning the compiled loop from `head` to the back edge at
 * `edge`, or null when the loop holds anything outside the compiled set.
 */
export function loopSource(fn: FunctionProto, head: number, edge: number, types: LocalTypes): string | null {
  const t = translate(fn, head, edge, types);
  return 'source' in t ? t.source : null;
}

function translate(fn: FunctionProto, head: number, edge: number, types: LocalTypes): Translation {
  try {
    return { source: new LoopTranslator(fn, head, edge, types).source() };
  } catch (e) {
    if (e instanceof NotCompilable) return { refused: e.message, later: e.later };
    throw e;
  }
}

class LoopTranslator {
  private readonly code: Int32Array;
  private readonly consts: unknown[];
  /** the first ip past the loop: the back edge's fall-through */
  private readonly end: number;
  /** the stack before each reachable instruction of the loop */
  private readonly before = new Map<number, StackState>();
  /** locals the loop reads or writes, and those it writes */
  private readonly used = new Set<number>();
  private readonly stored = new Set<number>();
  /** positions jumped to from inside the loop (each becomes a `case`) */
  private readonly labels = new Set<number>();
  private maxDepth = 0;

  constructor(
    fn: FunctionProto,
    private readonly head: number,
    edge: number,
    private readonly types: LocalTypes,
  ) {
    this.code = fn.code;
    this.consts = fn.consts;
    if (!(head < edge && edge < this.code.length)) refuse('not a backward edge');
    this.end = edge + 1 + OPERANDS[this.code[edge]];
    // the loop must decode instruction by instruction from its head to its back edge
    let ip = head;
    while (ip < edge) ip += 1 + (OPERANDS[this.code[ip]] ?? refuse('unknown opcode'));
    if (ip !== edge) refuse('the back edge is not on an instruction boundary');
  }

  private inLoop(ip: number): boolean {
    return ip >= this.head && ip < this.end;
  }

  private local(slot: number): Ty {
    const t = this.types[slot];
    // (null: perhaps a `let` of the body the loop has not reached yet, when the test comes first)
    if (t === undefined || t === null) refuse(`slot ${slot} holds neither a number nor a boolean`, t === null);
    this.used.add(slot);
    return t;
  }

  private store(slot: number, t: Ty): void {
    if (this.local(slot) !== t) refuse(`slot ${slot} would change type`);
    this.stored.add(slot);
  }

  private num(k: number): number {
    const v = this.consts[k];
    if (typeof v !== 'number') refuse('a constant that is not a number');
    return v;
  }

  source(): string {
    this.analyse();
    const body: string[] = [];
    const ips = [...this.before.keys()].sort((a, b) => a - b);
    for (let i = 0; i < ips.length; i++) {
      const ip = ips[i];
      const lines = this.emit(ip, this.before.get(ip)!, ips[i + 1]);
      body.push(`/* ${ip} */ ${lines}`);
    }
    // the head is always a label (back edges return to it); with no other label the loop needs no switch
    const onlyHead = this.labels.size === 1;
    const cases = ips.map((ip, i) => (onlyHead || !this.labels.has(ip) ? '' : `case ${ip}:\n`) + body[i]).join('\n');
    const locals = [...this.used].sort((a, b) => a - b);
    const guard = locals
      .map((s) => `let l${s} = stack[bp + ${s}];\nif (typeof l${s} !== '${this.types[s] === 'n' ? 'number' : 'boolean'}') return -1;`)
      .join('\n');
    const temps: string[] = [];
    for (let d = 0; d < this.maxDepth; d++) temps.push(`n${d} = 0`, `b${d} = false`);
    const loopBody = onlyHead ? cases : `switch (pc) {\n${cases}\n}`;
    return [
      '"use strict";',
      `return function compiledLoop(stack, bp, sp, budget, out) {`,
      guard,
      temps.length > 0 ? `let ${temps.join(', ')};` : '',
      onlyHead ? '' : `let pc = ${this.head};`,
      'for (;;) {',
      loopBody,
      '}',
      '};',
    ].join('\n');
  }

  /** Walks every path from the head, recording the stack's types before each instruction. */
  private analyse(): void {
    const work: [number, StackState][] = [[this.head, []]];
    this.labels.add(this.head);
    while (work.length > 0) {
      const [ip, st] = work.pop()!;
      const seen = this.before.get(ip);
      if (seen !== undefined) {
        if (seen.join('') !== st.join('')) refuse('paths meet with different stacks');
        continue;
      }
      this.before.set(ip, st);
      this.maxDepth = Math.max(this.maxDepth, st.length);
      for (const [to, after] of this.successors(ip, st)) {
        if (this.inLoop(to)) work.push([to, after]);
      }
    }
  }

  /** The positions `ip` can go on at, each with the stack there; checks operand types on the way. */
  private successors(ip: number, st: StackState): [number, StackState][] {
    const c = this.code;
    const op = c[ip];
    const next = ip + 1 + (OPERANDS[op] ?? 0);
    const pop = (t?: Ty): Ty => {
      const v = st.length > 0 ? st[st.length - 1] : refuse('pops below the loop head');
      if (t !== undefined && v !== t) refuse('an operand of the wrong type');
      st = st.slice(0, -1);
      return v;
    };
    const push = (t: Ty) => {
      st = [...st, t];
    };
    const jump = (to: number) => {
      if (this.inLoop(to)) this.labels.add(to);
    };
    switch (op) {
      case Op.CONST:
        this.num(c[ip + 1]);
        push('n');
        return [[next, st]];
      case Op.TRUE:
      case Op.FALSE:
        push('b');
        return [[next, st]];
      case Op.POP:
        pop();
        return [[next, st]];
      case Op.DUP: {
        const t = pop();
        push(t);
        push(t);
        return [[next, st]];
      }
      case Op.LOAD_LOCAL:
        push(this.local(c[ip + 1]));
        return [[next, st]];
      case Op.STORE_LOCAL:
        this.store(c[ip + 1], pop());
        return [[next, st]];
      case Op.ADD:
      case Op.SUB:
      case Op.MUL:
      case Op.DIV:
        pop('n');
        pop('n');
        push('n');
        return [[next, st]];
      case Op.LT:
      case Op.GT:
      case Op.LE:
      case Op.GE:
        pop('n');
        pop('n');
        push('b');
        return [[next, st]];
      case Op.EQ:
      case Op.NE:
        pop();
        pop();
        push('b');
        return [[next, st]];
      case Op.NEG:
        pop('n');
        push('n');
        return [[next, st]];
      case Op.NOT:
        pop('b');
        push('b');
        return [[next, st]];
      case Op.JUMP:
      case Op.LOOP:
        jump(c[ip + 1]);
        return [[c[ip + 1], st]];
      case Op.JUMP_IF_FALSE:
      case Op.LOOP_IF_TRUE:
        pop();
        jump(c[ip + 1]);
        return [[next, st], [c[ip + 1], st]];
      case Op.AND_JUMP:
      case Op.OR_JUMP:
        pop('b');
        push('b');
        jump(c[ip + 1]);
        return [[next, st], [c[ip + 1], st]];
      case Op.AND_END:
      case Op.OR_END:
        pop('b');
        pop('b');
        push('b');
        return [[next, st]];
      case Op.JCMP_LC:
      case Op.LOOP_CMP_LC:
        if (this.local(c[ip + 2]) !== 'n') refuse('a comparison of a boolean');
        this.num(c[ip + 3]);
        jump(c[ip + 4]);
        return [[next, st], [c[ip + 4], st]];
      case Op.JCMP_LL:
      case Op.LOOP_CMP_LL:
        if (this.local(c[ip + 2]) !== 'n' || this.local(c[ip + 3]) !== 'n') refuse('a comparison of a boolean');
        jump(c[ip + 4]);
        return [[next, st], [c[ip + 4], st]];
      case Op.ADD_LL_ST:
        if (this.local(c[ip + 2]) !== 'n' || this.local(c[ip + 3]) !== 'n') refuse('an addition of a boolean');
        this.store(c[ip + 1], 'n');
        return [[next, st]];
      case Op.ADD_LC_ST:
      case Op.ADD_LC_LOOP: // as ADD_LC_ST: on numbers the fused test is the LOOP_CMP_LC right after it
        if (this.local(c[ip + 2]) !== 'n') refuse('an addition of a boolean');
        this.num(c[ip + 3]);
        this.store(c[ip + 1], 'n');
        return [[next, st]];
      case Op.RETURN:
      case Op.THROW:
        // the interpreter runs these: the compiled loop stops before them
        return [];
      default:
        return refuse(`opcode ${op} is not compiled`);
    }
  }

  // ---- emitting JavaScript

  private v(t: Ty, d: number): string {
    return `${t}${d}`;
  }

  /** Leaves for the interpreter at `ip`: the written locals back in their slots, the stack's values pushed. */
  private exit(ip: number, st: StackState): string {
    const parts: string[] = [];
    for (const s of [...this.stored].sort((a, b) => a - b)) parts.push(`stack[bp + ${s}] = l${s};`);
    st.forEach((t, d) => parts.push(`stack[sp + ${d}] = ${this.v(t, d)};`));
    parts.push(`out.budget = budget; out.depth = ${st.length}; return ${ip};`);
    return parts.join(' ');
  }

  /** Goes on at `to`: inside the loop a jump (or `continue` to the head), outside it an exit. */
  private goto(to: number, st: StackState): string {
    if (!this.inLoop(to)) return this.exit(to, st);
    if (this.labels.size === 1 && to === this.head) return 'continue;';
    return `pc = ${to}; continue;`;
  }

  /** A taken back edge to `to`: one step, as in the interpreter; a spent budget leaves there. */
  private backEdge(to: number, st: StackState): string {
    return `if (--budget <= 0) { ${this.exit(to, st)} } ${this.goto(to, st)}`;
  }

  private emit(ip: number, st: StackState, nextEmitted: number | undefined): string {
    const c = this.code;
    const op = c[ip];
    const next = ip + 1 + (OPERANDS[op] ?? 0);
    const d = st.length;
    const top = (k: number) => this.v(st[d - k], d - k); // k = 1: the top of the stack
    const after = (s: StackState) => (nextEmitted === next ? '' : ` ${this.goto(next, s)}`);
    const without = (k: number, ...pushed: Ty[]) => [...st.slice(0, d - k), ...pushed];
    const lit = (k: number) => numberLiteral(this.consts[k] as number);
    const cmp = (kind: number) => CMP[kind] ?? '>=';
    switch (op) {
      case Op.CONST:
        return `n${d} = ${lit(c[ip + 1])};` + after(without(0, 'n'));
      case Op.TRUE:
      case Op.FALSE:
        return `b${d} = ${op === Op.TRUE};` + after(without(0, 'b'));
      case Op.POP:
        return after(without(1)).trimStart();
      case Op.DUP:
        return `${this.v(st[d - 1], d)} = ${top(1)};` + after(without(0, st[d - 1]));
      case Op.LOAD_LOCAL: {
        const t = this.types[c[ip + 1]]!;
        return `${t}${d} = l${c[ip + 1]};` + after(without(0, t));
      }
      case Op.STORE_LOCAL:
        return `l${c[ip + 1]} = ${top(1)};` + after(without(1));
      case Op.ADD:
      case Op.SUB:
      case Op.MUL:
      case Op.LT:
      case Op.GT:
      case Op.LE:
      case Op.GE: {
        const r: Ty = op === Op.ADD || op === Op.SUB || op === Op.MUL ? 'n' : 'b';
        return `${r}${d - 2} = ${top(2)} ${BINARY[op]} ${top(1)};` + after(without(2, r));
      }
      case Op.DIV:
        // division by zero: the interpreter raises it, at this instruction
        return `if (${top(1)} === 0) { ${this.exit(ip, st)} } n${d - 2} = ${top(2)} / ${top(1)};` + after(without(2, 'n'));
      case Op.EQ:
      case Op.NE:
        // numbers and booleans: Turn's equality is JavaScript's strict one (NaN is not equal to itself)
        return `b${d - 2} = ${top(2)} ${op === Op.EQ ? '===' : '!=='} ${top(1)};` + after(without(2, 'b'));
      case Op.NEG:
        return `n${d - 1} = -${top(1)};` + after(st);
      case Op.NOT:
        return `b${d - 1} = !${top(1)};` + after(st);
      case Op.JUMP:
        return this.goto(c[ip + 1], st);
      case Op.JUMP_IF_FALSE: {
        const rest = without(1);
        return `if (!(${truthy(st[d - 1], top(1))})) { ${this.goto(c[ip + 1], rest)} }` + after(rest);
      }
      case Op.LOOP_IF_TRUE: {
        const rest = without(1);
        return `if (${truthy(st[d - 1], top(1))}) { ${this.backEdge(c[ip + 1], rest)} }` + after(rest);
      }
      case Op.AND_JUMP:
        // false stays on the stack as the result; true goes on to the right side
        return `if (!${top(1)}) { ${this.goto(c[ip + 1], st)} }` + after(st);
      case Op.OR_JUMP:
        return `if (${top(1)}) { ${this.goto(c[ip + 1], st)} }` + after(st);
      case Op.AND_END:
      case Op.OR_END:
        return `b${d - 2} = ${top(2)} ${op === Op.AND_END ? '&&' : '||'} ${top(1)};` + after(without(2, 'b'));
      case Op.LOOP:
        return this.backEdge(c[ip + 1], st);
      case Op.JCMP_LC:
        return `if (!(l${c[ip + 2]} ${cmp(c[ip + 1])} ${lit(c[ip + 3])})) { ${this.goto(c[ip + 4], st)} }` + after(st);
      case Op.JCMP_LL:
        return `if (!(l${c[ip + 2]} ${cmp(c[ip + 1])} l${c[ip + 3]})) { ${this.goto(c[ip + 4], st)} }` + after(st);
      case Op.LOOP_CMP_LC:
        return `if (l${c[ip + 2]} ${cmp(c[ip + 1])} ${lit(c[ip + 3])}) { ${this.backEdge(c[ip + 4], st)} }` + after(st);
      case Op.LOOP_CMP_LL:
        return `if (l${c[ip + 2]} ${cmp(c[ip + 1])} l${c[ip + 3]}) { ${this.backEdge(c[ip + 4], st)} }` + after(st);
      case Op.ADD_LL_ST:
        return `l${c[ip + 1]} = l${c[ip + 2]} + l${c[ip + 3]};` + after(st);
      case Op.ADD_LC_ST:
      case Op.ADD_LC_LOOP:
        return `l${c[ip + 1]} = l${c[ip + 2]} + ${lit(c[ip + 3])};` + after(st);
      case Op.RETURN:
      case Op.THROW:
        return this.exit(ip, st);
      default:
        return refuse(`opcode ${op} is not compiled`);
    }
  }
}

/** Turn's truthiness of a value of static type `t`, as a JavaScript expression. */
function truthy(t: Ty, v: string): string {
  return t === 'b' ? v : `(${v} !== 0 && ${v} === ${v})`;
}

/** Loops are compiled unless TURN_NO_JIT=1 is in the environment (a VM option overrides it). */
export function compileLoopsByDefault(): boolean {
  return typeof process === 'undefined' || process.env.TURN_NO_JIT !== '1';
}

/**
 * HOT_LOOP_AFTER, or TURN_JIT_HOT_AFTER from the environment: with 1, every loop that can be is
 * compiled at its first back edge (how the test suites are run against the compiled path).
 */
function hotAfterByDefault(): number {
  const n = typeof process === 'undefined' ? NaN : Number(process.env.TURN_JIT_HOT_AFTER);
  return Number.isInteger(n) && n >= 1 ? n : HOT_LOOP_AFTER;
}
