// Compiles the AST of every unit of a program into a Bundle of function prototypes.
import { sha256Hex } from '../hash.js';
import * as path from 'node:path';
import { stdDirectory } from '../check/index.js';
import type {
  Binary, Block, Closure, Expr, IfStmt, ImplDecl, InferExpr, InvokeExpr, LetStmt, ListOp, MapLit, Program, Stmt, StructLit, TryStmt,
  TypeExpr, UseExpr, UseSchemaExpr, WhileStmt,
} from '../syntax/ast.js';
import type { SourceFile } from '../syntax/source.js';
import { typeToSchema, SchemaError, type StructInfo } from '../infer/schema.js';
import { Analyzer, inferScope, type FnInfo } from './analyze.js';
import { walk } from '../syntax/walk.js';
import { returnedClosureName, spawnedClosureName } from './closure-names.js';
import { launchMapsIn, type LaunchMapSite } from '../check/launch-maps.js';
import { Check, Cmp, Op } from './opcodes.js';
import { toolSignature, type ToolSignature } from './tool-signature.js';
import { SCOPE_POLICIES, type ScopePolicy } from '../syntax/ast.js';
import type { Bundle, FunctionProto, ImplDesc, InferDesc, StructDesc, UpvalueDesc } from './bundle.js';

export type { Bundle, BundleUnit, FunctionProto, ParamInfo, StructDesc, ImplDesc, InferDesc, UpvalueDesc } from './bundle.js';
export { Op, OP_NAMES, OPERANDS, Cmp, Check } from './opcodes.js';
export { disassemble } from './disasm.js';

export interface SourceUnit {
  path: string;
  file: SourceFile;
  program: Program;
  /** resolved module path for each `use "..."` node in this unit */
  uses: Map<UseExpr | UseSchemaExpr, string>;
}

type Ref =
  | { kind: 'local'; slot: number; cell: boolean }
  | { kind: 'upval'; index: number }
  | { kind: 'field'; self: Ref; name: string }
  | { kind: 'undef' };

class FnState {
  readonly code: number[] = [];
  readonly spans: number[] = [];
  readonly consts: unknown[] = [];
  private readonly constIndex = new Map<string, number>();
  readonly slots = new Map<string, number>();
  readonly cells = new Set<number>();
  readonly upvalues: (UpvalueDesc & { name: string })[] = [];
  nslots = 0;

  constructor(
    readonly parent: FnState | null,
    readonly info: FnInfo,
  ) {}

  constant(v: string | number): number {
    const key = typeof v + ':' + String(v);
    let i = this.constIndex.get(key);
    if (i === undefined) {
      i = this.consts.length;
      this.consts.push(v);
      this.constIndex.set(key, i);
    }
    return i;
  }

  descriptor(d: unknown): number {
    this.consts.push(d);
    return this.consts.length - 1;
  }

  hidden(): number {
    return this.nslots++;
  }

  addUpvalue(local: boolean, index: number, name: string): number {
    const i = this.upvalues.findIndex((u) => u.local === local && u.index === index);
    if (i >= 0) return i;
    this.upvalues.push({ local, index, name });
    return this.upvalues.length - 1;
  }
}

function typeText(t: TypeExpr): string {
  switch (t.kind) {
    case 'NamedType':
      return t.args.length ? `${t.name}<${t.args.map(typeText).join(', ')}>` : t.name;
    case 'FunctionType':
      return `(${t.params.map(typeText).join(', ')}) -> ${typeText(t.result)}`;
    case 'EnumType':
      return t.values.map((v) => JSON.stringify(v)).join(' | ');
    case 'OptionalType': {
      const inner = typeText(t.inner);
      return t.inner.kind === 'NamedType' || t.inner.kind === 'LiteralType' ? `${inner}?` : `(${inner})?`;
    }
    case 'UnionType':
      return t.members.map((m) => (m.kind === 'FunctionType' ? `(${typeText(m)})` : typeText(m))).join(' | ');
    case 'LiteralType':
      return JSON.stringify(t.value);
  }
}

/** The parameter through which a closure learns which of its arguments a call gave (FunctionProto.required). */
export const ARGUMENTS_GIVEN = 'arguments_given';

function countsArguments(params: { name: string }[]): boolean {
  return params.length > 0 && params[params.length - 1].name === ARGUMENTS_GIVEN;
}

/** The parameters before `arguments_given` that a call must give: all but the trailing ones declared `T?`. */
function requiredCount(params: { type?: TypeExpr }[]): number {
  let n = params.length - 1;
  while (n > 0 && params[n - 1].type?.kind === 'OptionalType') n--;
  return n;
}

function checkOf(t: TypeExpr | undefined, aliases: Map<string, TypeExpr>, depth = 0): number {
  if (!t || t.kind !== 'NamedType' || depth > 10) return Check.NONE;
  switch (t.name) {
    case 'Num':
      return Check.NUM;
    case 'Str':
      return Check.STR;
    case 'Bool':
      return Check.BOOL;
    case 'List': {
      // `List<T>`: the element check rides in the bits above the container's (Turn v1 checks elements)
      const element = t.args.length === 1 ? checkOf(t.args[0], aliases, depth + 1) : Check.NONE;
      return element === Check.NONE ? Check.LIST : Check.LIST | (element << 4);
    }
    case 'Map':
      return Check.MAP;
  }
  const a = aliases.get(t.name);
  return a ? checkOf(a, aliases, depth + 1) : Check.NONE;
}

const CMP: Record<string, number> = { '<': Cmp.LT, '<=': Cmp.LE, '>': Cmp.GT, '>=': Cmp.GE };
const BINOP: Record<string, number> = {
  '+': Op.ADD, '-': Op.SUB, '*': Op.MUL, '/': Op.DIV, '==': Op.EQ, '!=': Op.NE,
  '<': Op.LT, '>': Op.GT, '<=': Op.LE, '>=': Op.GE, '~>': Op.SIM,
};

class Compiler {
  readonly functions: FunctionProto[] = [];
  readonly structs = new Map<string, StructInfo>();
  readonly aliases = new Map<string, TypeExpr>();
  private analyzer: Analyzer;
  private unitIndex = 0;
  private unit!: SourceUnit;
  private fs!: FnState;
  /** the names of the functions being compiled, innermost last (closure-names.ts) */
  private readonly fnNames: string[] = [];
  /** the last `let x = y + k` emitted as ADD_LC_ST: a loop test right after it fuses with it */
  private lastAddLC: { fs: FnState; pos: number } | null = null;
  private readonly schemaCache = new Map<string, object>();
  /** each closure literal's prototype id → its node and unit: a tool's signature is made from them on first use (tool-signature.ts) */
  readonly closureSites = new Map<number, { node: Closure; unit: number }>();

  constructor(
    private readonly units: SourceUnit[],
    private readonly unitByPath: Map<string, number>,
  ) {
    for (const u of units) this.collectDecls(u.program);
    this.analyzer = new Analyzer((name) => this.structs.get(name)?.fields.map((f) => f.name));
  }

  /** Struct and alias declarations anywhere in a unit (the first of a name wins). */
  private collectDecls(program: Program): void {
    walk(program, (n, role) => {
      if (role === 'name' || role === 'type') return false;
      if (n.kind === 'Struct') {
        if (!this.structs.has(n.name.name))
          this.structs.set(n.name.name, {
            name: n.name.name,
            typeParams: n.typeParams.map((p) => p.name),
            fields: n.fields.map((f) => ({ name: f.name.name, type: f.type, description: f.description, checks: f.checks })),
            description: n.description,
          });
      } else if (n.kind === 'TypeAlias') {
        if (!this.aliases.has(n.name.name)) this.aliases.set(n.name.name, n.type);
      }
      return true;
    });
  }

  compileUnit(index: number): number {
    this.unitIndex = index;
    this.unit = this.units[index];
    const program = this.unit.program;
    const info = this.analyzer.analyzeProgram(program, program.body);
    return this.compileFunction(null, info, 'main', [], program.body, false, program.span.end);
  }

  // ---------------------------------------------------------------------------------------------
  // Functions

  private compileFunction(
    parent: FnState | null,
    info: FnInfo,
    name: string,
    params: { name: string; type?: TypeExpr }[],
    body: Stmt[],
    method: boolean,
    endOffset: number,
  ): number {
    const id = this.functions.length;
    this.functions.push(null as unknown as FunctionProto); // reserved
    const saved = this.fs;
    const fs = new FnState(parent, info);
    this.fs = fs;
    this.fnNames.push(name);
    for (const n of info.declared) fs.slots.set(n, fs.nslots++);
    for (const n of info.captured) {
      const s = fs.slots.get(n);
      if (s !== undefined) fs.cells.add(s);
    }
    const start = body.length ? body[0].span.start : endOffset;
    // Prologue: box captured slots, initialize shadowing names from their outer value.
    for (const n of info.declared) {
      const slot = fs.slots.get(n)!;
      if (!fs.cells.has(slot)) continue;
      this.emit(start, info.params.includes(n) ? Op.BOX : Op.NEW_CELL, slot);
    }
    for (const n of info.shadowInit) {
      const outer = this.resolveOuter(fs, n);
      if (outer.kind === 'undef') continue;
      this.load(outer, start, n);
      this.storeName(n, start);
    }
    for (const s of body) this.stmt(s);
    this.emit(endOffset, Op.NULL);
    this.emit(endOffset, Op.RETURN);
    this.functions[id] = {
      id,
      name,
      unit: this.unitIndex,
      arity: params.length,
      method,
      params: params.map((p) => ({ name: p.name, check: checkOf(p.type, this.aliases), type: p.type ? typeText(p.type) : 'Any' })),
      nslots: fs.nslots,
      code: Int32Array.from(fs.code),
      spans: Int32Array.from(fs.spans),
      consts: fs.consts,
      upvalues: fs.upvalues.map(({ local, index }) => ({ local, index })),
      ...(portablePath(this.unit.path).startsWith('std:') ? { std: true } : {}),
      ...(countsArguments(params) ? { required: requiredCount(params) } : {}),
    };
    this.fs = saved;
    this.fnNames.pop();
    return id;
  }

  /** Compiles a closure literal and emits CLOSURE; a method's struct fields come from the analysis. */
  private closure(n: Closure, name: string, method = false): void {
    const info = this.analyzer.infos.get(n)!;
    const id = this.compileFunction(
      this.fs,
      info,
      name,
      n.params.map((p) => ({ name: p.name.name, type: p.type })),
      n.body.body,
      method,
      n.body.span.end - 1,
    );
    this.closureSites.set(id, { node: n, unit: this.unitIndex });
    this.emit(n.span.start, Op.CLOSURE, id);
  }

  // ---------------------------------------------------------------------------------------------
  // Names

  private resolve(fs: FnState, name: string): Ref {
    const slot = fs.slots.get(name);
    if (slot !== undefined) return { kind: 'local', slot, cell: fs.cells.has(slot) };
    return this.resolveOuter(fs, name);
  }

  /** Resolves a name skipping `fs`'s own slots: its struct fields (methods), then enclosing functions. */
  private resolveOuter(fs: FnState, name: string): Ref {
    if (fs.info.fields?.has(name) && name !== 'self') return { kind: 'field', self: this.resolve(fs, 'self'), name };
    return this.resolveUp(fs, name) ?? { kind: 'undef' };
  }

  private resolveUp(fs: FnState, name: string): Ref | null {
    const parent = fs.parent;
    if (!parent) return null;
    const slot = parent.slots.get(name);
    if (slot !== undefined) {
      if (!parent.cells.has(slot)) throw new Error(`internal: ${name} captured but not boxed`);
      return { kind: 'upval', index: fs.addUpvalue(true, slot, name) };
    }
    if (parent.info.fields?.has(name)) {
      const self = this.resolveUp(fs, 'self');
      return self ? { kind: 'field', self, name } : null;
    }
    const r = this.resolveUp(parent, name);
    if (!r) return null;
    if (r.kind === 'upval') return { kind: 'upval', index: fs.addUpvalue(false, r.index, name) };
    if (r.kind === 'field') {
      const self = this.resolveUp(fs, 'self');
      return self ? { kind: 'field', self, name } : null;
    }
    return null;
  }

  private load(r: Ref, at: number, name: string): void {
    switch (r.kind) {
      case 'local':
        this.emit(at, r.cell ? Op.LOAD_CELL : Op.LOAD_LOCAL, r.slot);
        return;
      case 'upval':
        this.emit(at, Op.LOAD_UPVAL, r.index);
        return;
      case 'field':
        this.load(r.self, at, 'self');
        this.emit(at, Op.GET_FIELD, this.fs.constant(r.name));
        return;
      case 'undef':
        this.emit(at, Op.UNDEFINED, this.fs.constant(name));
        return;
    }
  }

  private storeName(name: string, at: number): void {
    const slot = this.fs.slots.get(name);
    if (slot === undefined) throw new Error(`internal: ${name} is not declared`);
    this.emit(at, this.fs.cells.has(slot) ? Op.STORE_CELL : Op.STORE_LOCAL, slot);
  }

  private plainLocal(e: Expr): number {
    if (e.kind !== 'Identifier') return -1;
    const slot = this.fs.slots.get(e.name);
    return slot !== undefined && !this.fs.cells.has(slot) ? slot : -1;
  }

  // ---------------------------------------------------------------------------------------------
  // Emission

  private emit(at: number, op: number, ...args: number[]): number {
    const pos = this.fs.code.length;
    this.fs.code.push(op, ...args);
    for (let i = 0; i <= args.length; i++) this.fs.spans.push(at);
    return pos;
  }

  private here(): number {
    return this.fs.code.length;
  }

  /** Sets the last operand of the instruction at `pos` (a jump target) to `target`. */
  private patch(pos: number, operandIndex: number, target = this.here()): void {
    this.fs.code[pos + operandIndex] = target;
  }

  // ---------------------------------------------------------------------------------------------
  // Statements

  private block(b: Block): void {
    for (const s of b.body) this.stmt(s);
  }

  // Depth (docs/reliability.md): a program may nest up to MAX_NESTING levels (syntax/lower.ts), and
  // `stmt` and `expr` recurse along them, so they keep their frames small: a case with locals of
  // its own is a method, and lists are walked with loops rather than `forEach` and a closure.

  private stmt(s: Stmt): void {
    const at = s.span.start;
    switch (s.kind) {
      case 'Let':
        this.letStmt(s);
        return;
      case 'ExprStmt':
        this.expr(s.expr);
        this.emit(at, Op.POP);
        return;
      case 'Return':
        if (s.value?.kind === 'Closure') this.closure(s.value, returnedClosureName(this.fnNames.at(-1) ?? 'main'));
        else if (s.value) this.expr(s.value);
        else this.emit(at, Op.NULL);
        this.emit(at, Op.RETURN);
        return;
      case 'If':
        this.ifStmt(s);
        return;
      case 'While':
        this.whileStmt(s);
        return;
      case 'Try':
        this.tryStmt(s);
        return;
      case 'Throw':
        this.expr(s.value);
        this.emit(at, Op.THROW);
        return;
      case 'Struct':
      case 'TypeAlias':
        return;
      case 'Impl':
        this.impl(s);
        return;
      case 'Entry':
        this.block(s.body);
        return;
      case 'Suspend':
        this.emit(at, Op.SUSPEND);
        return;
    }
  }

  private letStmt(s: LetStmt): void {
    const dst = this.fs.slots.get(s.name.name)!;
    const v = s.value;
    if (!this.fs.cells.has(dst) && v.kind === 'Binary' && v.op === '+') {
      const a = this.plainLocal(v.left);
      if (a >= 0) {
        const b = this.plainLocal(v.right);
        if (b >= 0) {
          this.emit(v.span.start, Op.ADD_LL_ST, dst, a, b);
          return;
        }
        if (v.right.kind === 'Number') {
          this.lastAddLC = { fs: this.fs, pos: this.emit(v.span.start, Op.ADD_LC_ST, dst, a, this.fs.constant(v.right.value)) };
          return;
        }
      }
    }
    if (v.kind === 'Closure') this.closure(v, s.name.name);
    else this.expr(v);
    this.storeName(s.name.name, s.span.start);
  }

  private ifStmt(s: IfStmt): void {
    const jf = this.condJump(s.condition);
    this.block(s.then);
    if (s.else) {
      const j = this.emit(s.span.start, Op.JUMP, 0);
      this.patchCond(jf);
      if (s.else.kind === 'Block') this.block(s.else);
      else this.ifStmt(s.else);
      this.patch(j, 1);
    } else {
      this.patchCond(jf);
    }
  }

  private whileStmt(s: WhileStmt): void {
    // Inverted loop: jump to the condition at the bottom, which jumps back to the body.
    const j = this.emit(s.span.start, Op.JUMP, 0);
    const body = this.here();
    this.block(s.body);
    this.patch(j, 1);
    this.loopBack(s.condition, body);
  }

  private tryStmt(s: TryStmt): void {
    const at = s.span.start;
    const t = this.emit(at, Op.TRY, 0);
    this.block(s.body);
    this.emit(at, Op.END_TRY);
    const j = this.emit(at, Op.JUMP, 0);
    this.patch(t, 1);
    this.storeName(s.param.name, s.param.span.start);
    this.block(s.handler);
    this.patch(j, 1);
  }

  /** Emits a jump taken when `cond` is false; returns [position, operand index] to patch. */
  private condJump(cond: Expr): [number, number] {
    if (cond.kind === 'Binary' && cond.op in CMP) {
      const a = this.plainLocal(cond.left);
      if (a >= 0) {
        if (cond.right.kind === 'Number') {
          return [this.emit(cond.span.start, Op.JCMP_LC, CMP[cond.op], a, this.fs.constant(cond.right.value), 0), 4];
        }
        const b = this.plainLocal(cond.right);
        if (b >= 0) return [this.emit(cond.span.start, Op.JCMP_LL, CMP[cond.op], a, b, 0), 4];
      }
    }
    this.expr(cond);
    return [this.emit(cond.span.start, Op.JUMP_IF_FALSE, 0), 1];
  }

  /** Emits a backward jump to `target` taken while `cond` holds (a step for the budget). */
  private loopBack(cond: Expr, target: number): void {
    if (cond.kind === 'Binary' && cond.op in CMP) {
      const a = this.plainLocal(cond.left);
      if (a >= 0) {
        if (cond.right.kind === 'Number') {
          // a body ending in `let i = i + k` runs that add and this test in one dispatch
          const last = this.lastAddLC;
          if (last !== null && last.fs === this.fs && last.pos === this.here() - 4) this.fs.code[last.pos] = Op.ADD_LC_LOOP;
          this.emit(cond.span.start, Op.LOOP_CMP_LC, CMP[cond.op], a, this.fs.constant(cond.right.value), target);
          return;
        }
        const b = this.plainLocal(cond.right);
        if (b >= 0) {
          this.emit(cond.span.start, Op.LOOP_CMP_LL, CMP[cond.op], a, b, target);
          return;
        }
      }
    }
    this.expr(cond);
    this.emit(cond.span.start, Op.LOOP_IF_TRUE, target);
  }

  private patchCond([pos, idx]: [number, number]): void {
    this.patch(pos, idx);
  }

  private impl(s: ImplDecl): void {
    const names: string[] = [];
    for (const m of s.methods) {
      names.push(m.name.name);
      if (m.value.kind === 'Closure') this.closure(m.value, `${s.typeName.name}.${m.name.name}`, true);
      else this.expr(m.value);
    }
    const desc: ImplDesc = { type: s.typeName.name, names };
    this.emit(s.span.start, Op.IMPL, this.fs.descriptor(desc), names.length);
  }

  // ---------------------------------------------------------------------------------------------
  // Expressions

  private expr(e: Expr): void {
    const at = e.span.start;
    switch (e.kind) {
      case 'Number':
      case 'String':
        this.emit(at, Op.CONST, this.fs.constant(e.value));
        return;
      case 'Bool':
        this.emit(at, e.value ? Op.TRUE : Op.FALSE);
        return;
      case 'Null':
        this.emit(at, Op.NULL);
        return;
      case 'Identifier':
        this.load(this.resolve(this.fs, e.name), at, e.name);
        return;
      case 'List':
      case 'Vec':
        this.exprs(e.items);
        this.emit(at, e.kind === 'List' ? Op.MAKE_LIST : Op.MAKE_VEC, e.items.length);
        return;
      case 'Map':
        this.mapLiteral(e);
        return;
      case 'StructLit':
        this.structLiteral(e);
        return;
      case 'Closure':
        this.closure(e, 'anonymous');
        return;
      case 'Binary':
        this.binary(e);
        return;
      case 'Unary':
        this.expr(e.operand);
        this.emit(at, e.op === '!' ? Op.NOT : Op.NEG);
        return;
      case 'Index':
        this.expr(e.target);
        this.expr(e.index);
        this.emit(e.index.span.start, Op.INDEX);
        return;
      case 'Member':
        this.expr(e.target);
        this.emit(e.name.span.start, Op.GET_FIELD, this.fs.constant(e.name.name));
        return;
      case 'MethodCall':
        this.expr(e.target);
        this.exprs(e.args);
        this.emit(e.name.span.start, Op.METHOD_CALL, this.fs.constant(e.name.name), e.args.length);
        return;
      case 'Call':
        this.expr(e.callee);
        this.exprs(e.args);
        this.emit(at, Op.CALL, e.args.length);
        return;
      case 'CallBuiltin':
        this.expr(e.target);
        this.exprs(e.args);
        this.emit(at, Op.CALL_BUILTIN, e.args.length);
        return;
      case 'ListOp':
        this.listOp(e);
        return;
      case 'Use':
      case 'UseSchema':
        this.use(e);
        return;
      case 'Grant':
        // the analyzer refuses a name that is not a literal; a program compiled without it (a
        // stored run's sources) fails at the grant rather than letting data pick the secret
        if (e.name.kind !== 'String') {
          this.emit(at, Op.ERROR, this.fs.constant('a grant names its secret with a string literal: which secret is sent, and where, is fixed in the source'));
          return;
        }
        this.expr(e.name);
        this.emit(at, Op.GRANT, this.fs.constant(e.identityKind.name));
        return;
      case 'Infer':
        this.infer(e);
        return;
      case 'Confidence':
        this.expr(e.operand);
        this.emit(at, Op.CONFIDENCE);
        return;
      case 'Spawn':
        this.fnOperand(e.body, e.body.kind === 'Closure' ? spawnedClosureName(e.body) : 'spawned');
        this.emit(at, Op.SPAWN, e.link ? 1 : 0);
        return;
      case 'SpawnEach':
        this.expr(e.list);
        this.fnOperand(e.fn, 'spawned');
        this.emit(at, Op.SPAWN_EACH);
        return;
      case 'Gather':
        this.expr(e.operand);
        this.emit(at, Op.GATHER);
        return;
      case 'Receive':
        if (e.timeout) this.expr(e.timeout);
        this.emit(at, e.timeout ? Op.RECEIVE_T : Op.RECEIVE);
        return;
      case 'Send':
        this.expr(e.pid);
        this.expr(e.message);
        this.emit(at, Op.SEND);
        return;
      case 'Remember':
        this.expr(e.key);
        this.expr(e.value);
        this.emit(at, Op.REMEMBER);
        return;
      case 'Recall':
        this.expr(e.key);
        this.emit(at, Op.RECALL);
        return;
      case 'Context':
        this.expr(e.arg);
        this.emit(at, e.op === 'append' ? Op.CTX_APPEND : Op.CTX_SYSTEM);
        return;
      case 'Scope':
        // the operand is the policy's position in SCOPE_POLICIES, which the VM decodes
        this.emit(at, Op.SCOPE_ENTER, Math.max(0, SCOPE_POLICIES.indexOf(e.policy.name as ScopePolicy)));
        this.block(e.body);
        this.emit(at, Op.SCOPE_EXIT); // errors the scope raises point at `scope`
        return;
      case 'Task':
        this.expr(e.body);
        this.emit(at, Op.TASK);
        return;
      case 'Detach':
        this.expr(e.body);
        this.emit(at, Op.DETACH);
        return;
      case 'Invoke':
        this.invoke(e);
        return;
      default: {
        const unhandled: never = e;
        throw new Error(`compiler: unhandled expression ${(unhandled as Expr).kind}`);
      }
    }
  }

  /** Each of `items`, in order. */
  private exprs(items: Expr[]): void {
    for (let i = 0; i < items.length; i++) this.expr(items[i]);
  }

  /** A closure literal compiled under `name`, or any other expression giving a closure. */
  private fnOperand(e: Expr, name: string): void {
    if (e.kind === 'Closure') this.closure(e, name);
    else this.expr(e);
  }

  private mapLiteral(e: MapLit): void {
    for (const x of e.entries) this.expr(x.value);
    this.emit(e.span.start, Op.MAKE_MAP, this.fs.descriptor(e.entries.map((x) => x.key)), e.entries.length);
  }

  private structLiteral(e: StructLit): void {
    for (const f of e.fields) this.expr(f.value);
    const decl = this.structs.get(e.name.name);
    const names = e.fields.map((f) => f.name.name);
    const filled: string[] = [];
    // An omitted `T?` field is null (with a spread, the base supplies what the literal omits).
    if (decl && !e.spread) {
      for (const f of decl.fields) {
        if (f.type.kind === 'OptionalType' && !names.includes(f.name)) {
          this.emit(e.span.start, Op.NULL);
          names.push(f.name);
          filled.push(f.name);
        }
      }
    }
    if (e.spread) this.expr(e.spread);
    const desc: StructDesc = {
      type: e.name.name,
      names,
      spread: !!e.spread,
      order: decl ? decl.fields.map((f) => f.name) : null,
      ...(filled.length > 0 ? { filled } : {}),
    };
    this.emit(e.span.start, Op.MAKE_STRUCT, this.fs.descriptor(desc), names.length);
  }

  private use(e: UseExpr | UseSchemaExpr): void {
    const at = e.span.start;
    const path = this.unit.uses.get(e);
    const idx = path === undefined ? undefined : this.unitByPath.get(path);
    if (idx !== undefined) this.emit(at, Op.USE, idx);
    else if (e.kind === 'Use') this.emit(at, Op.ERROR, this.fs.constant(`module "${e.path.value}" is not available`));
    // The checker absorbed the spec into a generated module (runtime/check/schemas.ts).
    else this.emit(at, Op.ERROR, this.fs.constant(`schema ${e.protocol.name} was not absorbed`));
  }

  private invoke(e: InvokeExpr): void {
    // issue 3: `invoke f(x)` / `invoke turn() {..}` runs the call on a snapshot of the
    // caller's context; INVOKE_EXIT (or a throw past it, see VM.raise) restores the caller's.
    const at = e.span.start;
    this.emit(at, Op.INVOKE_ENTER);
    const c = e.call;
    if (c.kind === 'Call' || c.kind === 'MethodCall' || c.kind === 'CallBuiltin') this.expr(c);
    else {
      this.fnOperand(c, 'invoked');
      this.emit(at, Op.CALL, 0);
    }
    this.emit(at, Op.INVOKE_EXIT);
  }

  private binary(e: Binary): void {
    const at = e.span.start;
    if (e.op === 'and' || e.op === 'or') {
      this.expr(e.left);
      const j = this.emit(at, e.op === 'and' ? Op.AND_JUMP : Op.OR_JUMP, 0);
      this.expr(e.right);
      this.emit(at, e.op === 'and' ? Op.AND_END : Op.OR_END);
      this.patch(j, 1);
      return;
    }
    this.expr(e.left);
    this.expr(e.right);
    this.emit(at, BINOP[e.op]);
  }

  private listOp(e: ListOp): void {
    const fs = this.fs;
    const at = e.span.start;
    const list = fs.hidden(), fn = fs.hidden(), idx = fs.hidden(), elem = fs.hidden(), out = fs.hidden();
    this.expr(e.list);
    this.emit(at, Op.STORE_LOCAL, list);
    this.emit(e.list.span.start, Op.ITER_CHECK, list);
    if (e.fn.kind === 'Closure') this.closure(e.fn, 'anonymous');
    else this.expr(e.fn);
    this.emit(at, Op.STORE_LOCAL, fn);
    this.emit(at, Op.MAKE_LIST, 0);
    this.emit(at, Op.STORE_LOCAL, out);
    this.emit(at, Op.CONST, fs.constant(0));
    this.emit(at, Op.STORE_LOCAL, idx);
    const top = this.emit(at, Op.FOR_ITER, list, idx, elem, 0);
    this.emit(at, Op.LOAD_LOCAL, fn);
    this.emit(at, Op.LOAD_LOCAL, elem);
    this.emit(at, Op.CALL, 1);
    if (e.op === 'map') {
      this.emit(at, Op.APPEND_LOCAL, out);
    } else {
      const skip = this.emit(at, Op.JUMP_IF_FALSE, 0);
      this.emit(at, Op.LOAD_LOCAL, elem);
      this.emit(at, Op.APPEND_LOCAL, out);
      this.patch(skip, 1);
    }
    this.emit(at, Op.LOOP, top);
    this.patch(top, 4);
    this.emit(at, Op.LOAD_LOCAL, out);
    // Release the hidden references.
    for (const s of [list, fn, elem, out]) {
      this.emit(at, Op.NULL);
      this.emit(at, Op.STORE_LOCAL, s);
    }
  }

  private infer(e: InferExpr): void {
    const fs = this.fs;
    const at = e.span.start;
    const scope = inferScope(e);
    // the options' values, in source order, under the prompt: INFER takes them with it
    for (const o of e.options ?? []) this.expr(o.value);
    if (scope) {
      // the block's statements run in their own scope: a closure called here returns the prompt
      this.closure(scope, 'infer');
      this.emit(at, Op.CALL, 0);
      this.inferOp(e);
      return;
    }
    const prompt = fs.hidden();
    this.emit(at, Op.NULL);
    this.emit(at, Op.STORE_LOCAL, prompt);
    const body = e.body.body;
    let last = -1;
    body.forEach((s, i) => {
      if (s.kind === 'ExprStmt') last = i;
    });
    body.forEach((s, i) => {
      if (i === last && s.kind === 'ExprStmt') {
        this.expr(s.expr);
        this.emit(s.span.start, Op.STORE_LOCAL, prompt);
      } else {
        this.stmt(s);
      }
    });
    this.emit(at, Op.LOAD_LOCAL, prompt);
    this.inferOp(e);
  }

  /** INFER (ASK for `ask T`) on the prompt at the top of the stack. */
  private inferOp(e: InferExpr): void {
    const fs = this.fs;
    const at = e.span.start;
    const keyword = e.person ? 'ask' : 'infer';
    let schema: object | undefined;
    const typeName = typeText(e.type);
    try {
      schema = this.schemaCache.get(typeName);
      if (!schema) {
        schema = typeToSchema(e.type, {
          struct: (n) => this.structs.get(n),
          alias: (n) => this.aliases.get(n),
        });
        this.schemaCache.set(typeName, schema);
      }
    } catch (err) {
      if (!(err instanceof SchemaError)) throw err;
      this.emit(at, Op.POP);
      this.emit(at, Op.ERROR, fs.constant(`${keyword} ${typeName}: ${err.message}`));
      return;
    }
    if (e.person) {
      // the analyzer refuses an ask's options; a program compiled without it fails here
      if ((e.options ?? []).length > 0) {
        for (let i = 0; i < (e.options ?? []).length; i++) this.emit(at, Op.POP);
        this.emit(at, Op.POP);
        this.emit(at, Op.ERROR, fs.constant('`ask` takes no options: a person answers it, not a model'));
        return;
      }
      this.emit(at, Op.ASK, fs.descriptor({ typeName, schema: schema as InferDesc['schema'] } satisfies InferDesc));
      return;
    }
    const options = (e.options ?? []).map((o) => o.name.name);
    // without options the descriptor (so the bytecode and its hash) is what it always was
    const desc: InferDesc = { typeName, schema: schema as InferDesc['schema'], ...(options.length > 0 ? { options } : {}) };
    this.emit(at, Op.INFER, fs.descriptor(desc));
  }
}

/** A unit's path as the bytecode hash sees it: standard modules as `std:NAME`, others as they are. */
export function portablePath(p: string): string {
  const std = stdDirectory() + path.sep;
  return p.startsWith(std) ? `std:${p.slice(std.length)}` : p;
}

/** The local path of a portable one (`std:NAME` in this install's std folder). */
export function localPath(p: string): string {
  return p.startsWith('std:') ? path.join(stdDirectory(), p.slice(4)) : p;
}

/** A closure's signature as a tool, made once per prototype on first use (not part of the hash: it is derived from the sources). */
function toolSignatures(c: Compiler, units: SourceUnit[]): (proto: number) => ToolSignature | undefined {
  const made = new Map<number, ToolSignature>();
  const env = { struct: (n: string) => c.structs.get(n), alias: (n: string) => c.aliases.get(n) };
  return (proto) => {
    let sig = made.get(proto);
    if (!sig) {
      const site = c.closureSites.get(proto);
      if (!site) return undefined;
      sig = toolSignature(site.node, env, units[site.unit].file);
      made.set(proto, sig);
    }
    return sig;
  };
}

/** Compiles every unit; `entryPath` names the unit the program starts in. */
export function compileBundle(units: SourceUnit[], entryPath: string): Bundle {
  const unitByPath = new Map<string, number>();
  units.forEach((u, i) => unitByPath.set(u.path, i));
  const entry = unitByPath.get(entryPath);
  if (entry === undefined) throw new Error(`compileBundle: no unit has the entry path ${entryPath}`);
  const c = new Compiler(units, unitByPath);
  const mains = units.map((_, i) => c.compileUnit(i));
  const structs: Record<string, string[]> = {};
  for (const [name, s] of c.structs) structs[name] = s.fields.map((f) => f.name);
  const canonical = JSON.stringify({
    // std modules by name, not by where this Turn is installed: a run started by one install
    // (the CLI) resumes under another (the editor's)
    units: units.map((u, i) => ({ path: portablePath(u.path), main: mains[i] })),
    entry,
    structs,
    functions: c.functions.map((f) => ({ ...f, code: Array.from(f.code), spans: Array.from(f.spans) })),
  });
  let version: string | undefined;
  let launchMaps: LaunchMapSite[] | undefined;
  return {
    // hashed when first read (a durable run, a snapshot), so a plain run never loads node:crypto
    get version(): string {
      return (version ??= sha256Hex(canonical));
    },
    units: units.map((u, i) => ({ path: u.path, file: u.file, main: mains[i] })),
    entry,
    functions: c.functions,
    structs,
    toolSignature: toolSignatures(c, units),
    // found when a run first launches a stdio server, so a run without one never walks for them
    get launchMaps(): readonly LaunchMapSite[] {
      return (launchMaps ??= units.flatMap((u) => launchMapsIn(u.program, u.file).literal));
    },
  };
}
