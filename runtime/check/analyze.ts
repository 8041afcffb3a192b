// The analyzer: Turn's gradual typing over the AST. It resolves names the way the VM does (`let`
// binds in the enclosing function, closures see enclosing functions, methods see their struct's
// fields), knows struct layouts and closure signatures, and reports what it can prove wrong:
// undefined names, unknown structs/fields/methods/types, call arity, and mismatches against
// annotations. Where a type is unknown it says nothing (that is what makes it gradual).
import type * as A from '../syntax/ast.js';
import { SCOPE_POLICIES } from '../syntax/ast.js';
import { forEachChild, walk } from '../syntax/walk.js';
import type { Diagnostic } from '../diagnostics.js';
import { IDENTITY_KINDS, parseIdentity } from '../effects/identity.js';
import { HANDLES_COMPARED } from '../values/index.js';
import { suggest } from './spelling.js';
import { expectation, INFER_OPTION_NAMES, INFER_OPTIONS, optionProblem, TOOLS_OPTION } from '../infer/options.js';
import { unsupportedInferType } from './infer-types.js';
import { schemaKey } from './schemas.js';
import { fieldCheckProblems } from './field-checks.js';
import { narrowingsOf, pathKey, unionField, type NarrowContext } from './narrow.js';
import { asWritten, literalTypeOf, neverEqual } from './literal-types.js';
import { hostToolResult, isHostTool, unknownHostTool } from './host-tools.js';
import { lengthHint, undefinedCalleeHint } from './hints.js';
import { withHint } from '../syntax/hints.js';
/** the built-in struct of a failed child's slot in `gather` (runtime/vm/actors.ts CHILD_ERROR) */
const CHILD_ERROR = 'ChildError';
import {
  ANY,
  BOOL,
  BUILTIN_TYPE_NAMES,
  NULL,
  NUM,
  STR,
  isAssignable,
  nonNull,
  resolveType,
  typeToString,
  type StaticType,
  type TypeResolver,
  type ApiOperation,
  type ApiShape,
  type ModuleMember,
  type ModuleShape,
} from './types.js';

/** Tools that would print, serialize or store a value as text: a handle given to them is a leak. */
const LEAKING_TOOLS = new Set(['echo', 'json_stringify', 'json_pretty', 'to_string', 'str_join', 'fs_write', 'fs_append']);
const MCP_TOOLS = new Set(['mcp_call', 'mcp_tools', 'mcp_resources', 'mcp_read', 'mcp_templates', 'mcp_subscribe', 'mcp_unsubscribe', 'mcp_updates', 'mcp_prompts', 'mcp_prompt']);
/** The host tools whose first argument is a credential (`credential: 0` in runtime/effects/tools.ts). */
const CREDENTIAL_TOOLS = new Set(['http_request', 'fs_read', 'fs_write', 'fs_append', 'fs_list', 'fs_exists', ...MCP_TOOLS]);

/** Parameter names that say a closure's first argument is a credential (std/net's and absorbed APIs' `auth`, std/fs's `cap`). */
const CREDENTIAL_PARAMS = new Set(['auth', 'cap', 'identity', 'credential', 'cred']);
const credentialParam = (sig: ClosureSig | undefined): boolean => sig !== undefined && sig.params.length > 0 && CREDENTIAL_PARAMS.has(sig.params[0].name);

/**
 * `{"kind": "bearer", "name": ...}`: a map literal written in the shape of an identity handle. Its
 * `kind` must be a literal identity kind, unless `anyKind` (a host tool's credential position,
 * where no map of a `kind` and a `name` is anything but a forgery).
 */
function handleShaped(e: A.Expr, anyKind: boolean): boolean {
  if (e.kind !== 'Map' || !e.entries.some((x) => x.key === 'name')) return false;
  const kind = e.entries.find((x) => x.key === 'kind')?.value;
  if (kind === undefined) return false;
  return kind.kind === 'String' ? (IDENTITY_KINDS as readonly string[]).includes(kind.value) : anyKind;
}


export interface StructInfo {
  decl: A.StructDecl;
  fields: Map<string, StaticType>;
  methods: Map<string, ClosureSig>;
}

export interface ClosureSig {
  /** `mayLeaveOut`: a trailing parameter a call may leave out (an absorbed operation's optional one) */
  params: { name: string; type?: StaticType; mayLeaveOut?: boolean }[];
  result?: StaticType;
}

/** Where a name was first bound; read by the symbol index (symbols.ts), never by the checks. */
export type BindingOrigin =
  | { kind: 'let'; stmt: A.LetStmt }
  | { kind: 'param'; param: A.Param }
  | { kind: 'catch'; stmt: A.TryStmt }
  | { kind: 'field'; struct: StructInfo; name: string }
  | { kind: 'self'; struct: StructInfo };

export interface Binding {
  type: StaticType;
  /** Known signature when the name is bound once, to a closure literal. */
  sig?: ClosureSig;
  bindings: number;
  declared?: StaticType;
  origin?: BindingOrigin;
}

export class FunctionScope {
  readonly names = new Map<string, Binding>();
  /** `scope` blocks open in this function: `return` inside one would leave its tasks behind */
  openScopes = 0;
  constructor(
    readonly parent: FunctionScope | undefined,
    /** Inside an `impl` method: the struct whose fields are visible as plain names. */
    readonly receiver?: StructInfo,
    readonly declaredResult?: StaticType,
  ) {}

  lookup(name: string): Binding | undefined {
    for (let s: FunctionScope | undefined = this; s; s = s.parent) {
      const b = s.names.get(name);
      if (b) return b;
      if (s.receiver) {
        if (name === 'self') return { type: { kind: 'Struct', name: s.receiver.decl.name.name }, bindings: 1, origin: { kind: 'self', struct: s.receiver } };
        const field = s.receiver.fields.get(name);
        if (field) return { type: field, bindings: 1, origin: { kind: 'field', struct: s.receiver, name } };
      }
    }
    return undefined;
  }
}

export interface AnalysisResult {
  diagnostics: Diagnostic[];
  structs: Map<string, StructInfo>;
}

/**
 * Hooks for tools that need what the analyzer resolves (the language server's symbol index,
 * runtime/check/symbols.ts). They observe only: diagnostics are the same with or without them.
 */
export interface AnalysisObserver {
  /** A function scope (the program, a closure or an `impl` method), once its names are hoisted. */
  enterScope?(owner: A.Program | A.Closure, scope: FunctionScope): void;
  /** A name read as an expression and what it resolves to (undefined: an undefined name). */
  reference?(id: A.Identifier, binding: Binding | undefined, scope: FunctionScope): void;
  /** A `let` and the binding it writes (undefined where the analyzer binds nothing). */
  let?(stmt: A.LetStmt, binding: Binding | undefined, scope: FunctionScope): void;
  /** The static type of an expression. */
  expr?(e: A.Expr, type: StaticType, scope: FunctionScope): void;
}

/**
 * `imported`: struct and alias declarations (and their `impl`s) from elsewhere that this file may name — the structs of
 * the schemas it absorbs (`use schema::...`) and the types of the modules it uses (modules.ts); a
 * declaration of this file's own with the same name takes their place. `modules`: the type of each
 * `use "..."` whose module was checked (a map of its members), else that `use` is Any.
 */
export function analyze(
  program: A.Program,
  observer?: AnalysisObserver,
  imported: (A.StructDecl | A.TypeAliasDecl | A.ImplDecl)[] = [],
  apis?: ReadonlyMap<string, ApiShape>,
  modules?: ReadonlyMap<A.UseExpr, StaticType>,
): AnalysisResult {
  const analyzer = new Analyzer(observer, apis, modules);
  analyzer.run(program, imported);
  return { diagnostics: analyzer.diagnostics, structs: analyzer.structs };
}

class Analyzer implements TypeResolver {
  readonly diagnostics: Diagnostic[] = [];
  /** the item types of each list literal, for element checks against a declared `List<T>` */
  private readonly itemTypes = new WeakMap<A.ListLit, StaticType[]>();
  /** a map literal's value types, for `Map<T>` checks */
  private readonly entryTypes = new WeakMap<A.MapLit, StaticType[]>();
  readonly structs = new Map<string, StructInfo>();
  private readonly aliases = new Map<string, A.TypeAliasDecl>();
  private readonly resolvingAliases = new Set<string>();
  /** the type each expression was given, for narrowing (narrow.ts) */
  private readonly exprTypes = new WeakMap<A.Expr, StaticType>();
  /** what the enclosing `if` conditions proved, by `pathKey` (cleared inside a closure) */
  private narrowed = new Map<string, StaticType>();
  private readonly narrowContext: NarrowContext = {
    typeOf: (e) => this.exprTypes.get(e),
    fields: (name) => this.structs.get(name)?.fields,
  };

  constructor(
    private readonly observer?: AnalysisObserver,
    /** the typed operations of the absorbed schemas, by `schemaKey` (runtime/check/schemas.ts) */
    private readonly apis?: ReadonlyMap<string, ApiShape>,
    /** the type of each `use "..."` of a checked module (runtime/check/modules.ts) */
    private readonly modules?: ReadonlyMap<A.UseExpr, StaticType>,
  ) {}

  /** declarations of other files: their problems are reported in their own file, not here */
  private readonly foreign = new Set<A.Node>();

  run(program: A.Program, imported: (A.StructDecl | A.TypeAliasDecl | A.ImplDecl)[] = []): void {
    const own = (d: A.StructDecl | A.TypeAliasDecl | A.ImplDecl) => {
      const name = d.kind === 'Impl' ? d.typeName.name : d.name.name;
      return program.body.some((s) => (s.kind === 'Struct' || s.kind === 'TypeAlias') && s.name.name === name);
    };
    const visible = imported.filter((d) => !own(d));
    for (const d of visible) this.foreign.add(d);
    this.declareTypes([...visible, ...program.body]);
    const top = new FunctionScope(undefined);
    this.hoist(program.body, top);
    this.observer?.enterScope?.(program, top);
    this.statements(program.body, top);
  }

  // ------------------------------------------------------------------ declarations

  lookupNamed(name: string): StaticType | undefined {
    if (this.structs.has(name)) return { kind: 'Struct', name };
    const alias = this.aliases.get(name);
    if (!alias || this.resolvingAliases.has(name)) return undefined;
    this.resolvingAliases.add(name);
    try {
      return resolveType(alias.type, this);
    } finally {
      this.resolvingAliases.delete(name);
    }
  }

  private declareTypes(body: A.Stmt[]): void {
    for (const s of body) {
      if (s.kind === 'Struct') {
        if (this.structs.has(s.name.name) || this.aliases.has(s.name.name)) {
          if (!this.foreign.has(s)) this.report(s.name.span, `\`${s.name.name}\` is already declared`, 'duplicate');
          continue;
        }
        this.structs.set(s.name.name, { decl: s, fields: new Map(), methods: new Map() });
      } else if (s.kind === 'TypeAlias') {
        if (this.structs.has(s.name.name) || this.aliases.has(s.name.name)) {
          if (!this.foreign.has(s)) this.report(s.name.span, `\`${s.name.name}\` is already declared`, 'duplicate');
          continue;
        }
        this.aliases.set(s.name.name, s);
      }
    }
    if (!this.structs.has(CHILD_ERROR)) this.structs.set(CHILD_ERROR, childErrorStruct());
    // Field types after all names are known, so structs can refer to each other.
    for (const info of this.structs.values()) {
      const params = new Set(info.decl.typeParams.map((p) => p.name));
      if (this.foreign.has(info.decl)) {
        for (const f of info.decl.fields) if (!info.fields.has(f.name.name)) info.fields.set(f.name.name, resolveType(f.type, this, params));
        continue;
      }
      for (const f of info.decl.fields) {
        if (info.fields.has(f.name.name)) {
          this.report(f.name.span, `field \`${f.name.name}\` is declared twice in ${info.decl.name.name}`, 'duplicate');
        }
        this.checkTypeExpr(f.type, params);
        info.fields.set(f.name.name, resolveType(f.type, this, params));
        for (const p of fieldCheckProblems(f, info.fields.get(f.name.name)!)) this.report(p.span, p.message, 'field-check');
      }
    }
    for (const alias of this.aliases.values()) if (!this.foreign.has(alias)) this.checkTypeExpr(alias.type);
    for (const s of body) {
      if (s.kind !== 'Impl') continue;
      const info = this.structs.get(s.typeName.name);
      if (!info) {
        if (!this.foreign.has(s)) this.report(s.typeName.span, `\`impl\` for unknown struct \`${s.typeName.name}\``, 'unknown-struct');
        continue;
      }
      for (const m of s.methods) {
        if (m.value.kind !== 'Closure') {
          if (!this.foreign.has(s)) this.report(m.value.span, `method \`${m.name.name}\` must be a closure (\`turn(..) { .. }\`)`, 'invalid-method');
          continue;
        }
        info.methods.set(m.name.name, this.signature(m.value));
      }
    }
  }

  private signature(c: A.Closure): ClosureSig {
    return {
      params: c.params.map((p) => ({ name: p.name.name, type: p.type ? resolveType(p.type, this) : undefined })),
      result: c.returnType ? resolveType(c.returnType, this) : undefined,
    };
  }

  /** Reports unknown type names in a written type. */
  private checkTypeExpr(t: A.TypeExpr, typeParams: ReadonlySet<string> = new Set()): void {
    walk(t, (n) => {
      if (n.kind !== 'NamedType') return;
      // an empty name is the parser's placeholder for a missing type, reported as a syntax error
      if (n.name !== '' && !BUILTIN_TYPE_NAMES.has(n.name) && !typeParams.has(n.name) && !this.structs.has(n.name) && !this.aliases.has(n.name)) {
        this.report(n.span, `unknown type \`${n.name}\``, 'unknown-type');
      }
    });
  }

  // ------------------------------------------------------------------ statements

  /**
   * `let` binds in the enclosing function, so names are known function-wide before the walk.
   * Iterative (a stack of what is left to visit, in source order), so `else if` chains and nested
   * blocks cost no JavaScript stack.
   */
  private hoist(body: A.Stmt[], scope: FunctionScope): void {
    /** A node to visit, or the `try` whose `catch` name is bound next. */
    const pending: (A.Node | CatchName)[] = [];
    const pushAll = (nodes: readonly A.Node[]): void => {
      for (let i = nodes.length - 1; i >= 0; i--) pending.push(nodes[i]);
    };
    pushAll(body);
    while (pending.length > 0) {
      const n = pending.pop()!;
      if (n instanceof CatchName) {
        if (!scope.names.has(n.stmt.param.name)) scope.names.set(n.stmt.param.name, { type: ANY, bindings: 1, origin: { kind: 'catch', stmt: n.stmt } });
        continue;
      }
      switch (n.kind) {
        case 'Let': {
          const existing = scope.names.get(n.name.name);
          const declared = n.type ? resolveType(n.type, this) : undefined;
          if (existing) {
            existing.bindings++;
            existing.sig = undefined;
          } else {
            scope.names.set(n.name.name, {
              type: ANY,
              bindings: 1,
              declared,
              sig: n.value.kind === 'Closure' ? this.signature(n.value) : undefined,
              origin: { kind: 'let', stmt: n },
            });
          }
          break;
        }
        case 'Try':
          // The `catch` name is bound after the `try` block's own names.
          pending.push(n.handler, new CatchName(n), n.body);
          break;
        case 'Block':
        case 'If':
        case 'While':
        case 'Entry': {
          const children: A.Node[] = [];
          forEachChild(n, (c) => children.push(c));
          pushAll(children);
          break;
        }
        default:
          // Expressions (whatever they contain), declarations, names and types bind nothing here.
          break;
      }
    }
  }

  private statements(body: A.Stmt[], scope: FunctionScope): void {
    for (const s of body) this.statement(s, scope);
  }

  // Depth (docs/reliability.md): a program may nest up to MAX_NESTING levels (syntax/lower.ts), and
  // this walk recurses along them, so the methods on the way down — `statement`, `expr`,
  // `exprType` and what they call per kind — keep their frames small: a case with locals of its
  // own is a method, and lists are walked with loops rather than `map` and a closure.

  private statement(s: A.Stmt, scope: FunctionScope): void {
    switch (s.kind) {
      case 'Let':
        this.letStatement(s, scope);
        return;
      case 'Return':
        this.returnStatement(s, scope);
        return;
      case 'Impl':
        this.implMethods(s, scope);
        return;
      case 'If':
        this.ifStatement(s, scope);
        return;
      case 'While':
        this.expr(s.condition, scope);
        this.statements(s.body.body, scope);
        return;
      case 'ExprStmt':
        this.expr(s.expr, scope);
        return;
      case 'Try':
        this.statements(s.body.body, scope);
        this.statements(s.handler.body, scope);
        return;
      case 'Throw':
        this.expr(s.value, scope);
        return;
      case 'Entry':
        this.statements(s.body.body, scope);
        return;
      case 'Struct':
      case 'TypeAlias':
      case 'Suspend':
        return;
    }
  }

  /** Each branch sees what the condition proves there (narrow.ts). */
  private ifStatement(s: A.IfStmt, scope: FunctionScope): void {
    this.expr(s.condition, scope);
    const proofs = narrowingsOf(s.condition, this.narrowContext);
    const before = this.narrowed;
    const branch = (pick: 'then' | 'else'): Map<string, StaticType> => {
      const m = new Map(before);
      for (const p of proofs) if (p[pick]) m.set(p.key, p[pick]);
      return m;
    };
    this.narrowed = branch('then');
    this.statements(s.then.body, scope);
    this.narrowed = branch('else');
    if (s.else?.kind === 'Block') this.statements(s.else.body, scope);
    else if (s.else) this.statement(s.else, scope);
    this.narrowed = before;
  }

  private letStatement(s: A.LetStmt, scope: FunctionScope): void {
    if (s.type) this.checkTypeExpr(s.type);
    const t = this.expr(s.value, scope);
    const b = scope.names.get(s.name.name);
    if (b?.declared && !isAssignable(asWritten(s.value, t, b.declared), b.declared)) {
      this.mismatch(s.value.span, `\`${s.name.name}\` is declared`, b.declared, asWritten(s.value, t, b.declared));
    } else if (b?.declared) this.checkElements(s.value, b.declared, `\`${s.name.name}\``);
    if (b) b.type = b.declared ?? (b.bindings === 1 ? t : ANY);
    this.observer?.let?.(s, b, scope);
  }

  private returnStatement(s: A.ReturnStmt, scope: FunctionScope): void {
    if (scope.openScopes > 0) {
      this.report(s.span, '`return` cannot leave a `scope` block: the scope\'s value is its tasks\' results', 'scope-return');
    }
    const t = s.value ? this.expr(s.value, scope) : NULL;
    if (scope.declaredResult && s.value && !isAssignable(asWritten(s.value, t, scope.declaredResult), scope.declaredResult)) {
      this.mismatch(s.value.span, 'the closure returns', scope.declaredResult, asWritten(s.value, t, scope.declaredResult));
    } else if (scope.declaredResult && s.value) this.checkElements(s.value, scope.declaredResult, 'the result');
  }

  private implMethods(s: A.ImplDecl, scope: FunctionScope): void {
    const info = this.structs.get(s.typeName.name);
    for (const m of s.methods) {
      if (m.value.kind === 'Closure') this.closure(m.value, scope, info);
    }
  }

  // ------------------------------------------------------------------ expressions

  private expr(e: A.Expr, scope: FunctionScope): StaticType {
    let t: StaticType;
    switch (e.kind) {
      case 'Number':
        t = NUM;
        break;
      case 'String':
        t = STR;
        break;
      case 'Bool':
        t = BOOL;
        break;
      case 'Null':
        t = NULL;
        break;
      case 'Identifier':
        t = this.identifier(e, scope);
        break;
      case 'List':
        t = this.list(e, scope);
        break;
      case 'Map':
        t = this.map(e, scope);
        break;
      case 'Vec':
        t = this.vec(e, scope);
        break;
      case 'StructLit':
        t = this.structLiteral(e, scope);
        break;
      case 'Closure':
        t = this.closureExpr(e, scope);
        break;
      case 'Binary':
        t = this.binary(e, scope);
        break;
      case 'Unary':
        t = this.unary(e, scope);
        break;
      case 'Index':
        t = this.index(e, scope);
        break;
      case 'Member':
        t = this.member(e, scope);
        break;
      case 'MethodCall':
        t = this.methodCall(e, scope);
        break;
      case 'Call':
        t = this.call(e, scope);
        break;
      case 'CallBuiltin':
        t = this.callBuiltin(e, scope);
        break;
      case 'ListOp':
        t = this.listOp(e, scope);
        break;
      case 'Use':
        t = this.modules?.get(e) ?? ANY;
        break;
      case 'UseSchema': {
        this.expr(e.source, scope);
        const api = this.apis?.get(schemaKey(e));
        t = api ? { kind: 'Map', api } : ANY;
        break;
      }
      case 'Grant':
        t = this.grant(e, scope);
        break;
      case 'Infer':
        t = this.infer(e, scope);
        break;
      case 'Confidence':
        this.expr(e.operand, scope);
        t = NUM;
        break;
      case 'Spawn':
        t = this.spawn(e, scope);
        break;
      case 'SpawnEach':
        t = this.spawnEach(e, scope);
        break;
      case 'Gather': {
        // a list of pids gives a list; one pid its result — or a ChildError when that child failed
        const operand = this.expr(e.operand, scope);
        t = operand.kind === 'List' ? { kind: 'List', element: ANY } : ANY;
        break;
      }
      case 'Receive':
        t = this.receive(e, scope);
        break;
      case 'Invoke':
        t = this.invoke(e, scope);
        break;
      case 'Scope':
        t = this.scopeBlock(e, scope);
        break;
      case 'Task':
        t = this.task(e, scope);
        break;
      case 'Detach':
        t = this.detach(e, scope);
        break;
      case 'Send':
        t = this.send(e, scope);
        break;
      case 'Remember':
        t = this.remember(e, scope);
        break;
      case 'Recall':
        this.expr(e.key, scope);
        t = ANY;
        break;
      case 'Context':
        t = this.context(e, scope);
        break;
    }
    this.exprTypes.set(e, t);
    this.observer?.expr?.(e, t, scope);
    return t;
  }

  private map(e: A.MapLit, scope: FunctionScope): StaticType {
    this.entryTypes.set(e, e.entries.map((entry) => this.expr(entry.value, scope)));
    // Turn v1's single-map forms carry the credential as `"identity"` (std/net, std/fs)
    const identity = e.entries.find((entry) => entry.key === 'identity');
    if (identity) this.credential(identity.value);
    return { kind: 'Map' };
  }

  private vec(e: A.VecLit, scope: FunctionScope): StaticType {
    for (const i of e.items) this.expectType(i, scope, NUM, 'a vector element');
    return { kind: 'Vec' };
  }

  private closureExpr(e: A.Closure, scope: FunctionScope): StaticType {
    this.closure(e, scope);
    return this.closureType(e);
  }

  private spawn(e: A.SpawnExpr, scope: FunctionScope): StaticType {
    this.expr(e.body, scope);
    this.checkFnArity(e.body, 0, e.link ? 'spawn_link' : 'spawn');
    return { kind: 'Pid' };
  }

  private spawnEach(e: A.SpawnEachExpr, scope: FunctionScope): StaticType {
    this.expr(e.list, scope);
    this.expr(e.fn, scope);
    this.checkFnArity(e.fn, 1, 'spawn_each');
    return { kind: 'List', element: { kind: 'Pid' } };
  }

  private receive(e: A.ReceiveExpr, scope: FunctionScope): StaticType {
    if (e.timeout) this.expectType(e.timeout, scope, NUM, 'a receive timeout (milliseconds)');
    return ANY;
  }

  private invoke(e: A.InvokeExpr, scope: FunctionScope): StaticType {
    if (e.call.kind === 'Closure') this.checkFnArity(e.call, 0, 'invoke');
    return this.expr(e.call, scope);
  }

  private task(e: A.TaskExpr, scope: FunctionScope): StaticType {
    this.expr(e.body, scope);
    this.checkFnArity(e.body, 0, 'task');
    return { kind: 'Pid' };
  }

  private detach(e: A.DetachExpr, scope: FunctionScope): StaticType {
    this.expr(e.body, scope);
    this.checkFnArity(e.body, 0, 'detach');
    return ANY;
  }

  private send(e: A.SendExpr, scope: FunctionScope): StaticType {
    this.expectType(e.pid, scope, { kind: 'Pid' }, 'the target of `send`');
    // a handle in a message passes as itself: the receiver holds the same grant (capability passing)
    this.expr(e.message, scope);
    return NULL;
  }

  private remember(e: A.RememberExpr, scope: FunctionScope): StaticType {
    this.expr(e.key, scope);
    this.expr(e.value, scope);
    return NULL;
  }

  private context(e: A.ContextExpr, scope: FunctionScope): StaticType {
    if (this.expr(e.arg, scope).kind === 'Identity') this.report(e.arg.span, 'an identity handle cannot be put in a context', 'identity-leak');
    return NULL;
  }

  private identifier(e: A.Identifier, scope: FunctionScope): StaticType {
    const b = scope.lookup(e.name);
    this.observer?.reference?.(e, b, scope);
    if (!b) {
      this.report(e.span, `undefined name \`${e.name}\``, 'undefined-name');
      return ANY;
    }
    return this.narrowed.get(e.name) ?? b.type;
  }

  private list(e: A.ListLit, scope: FunctionScope): StaticType {
    const types: StaticType[] = [];
    for (const x of e.items) types.push(this.expr(x, scope));
    this.itemTypes.set(e, types);
    const first = types[0];
    const same = first && types.every((t) => sameType(t, first));
    return { kind: 'List', element: same ? first : ANY };
  }

  private unary(e: A.Unary, scope: FunctionScope): StaticType {
    const t = this.expr(e.operand, scope);
    if (e.op === '-') {
      if (t.kind !== 'Any' && t.kind !== 'Num') this.report(e.span, `cannot negate a ${typeToString(t)}`, 'type-mismatch');
      return NUM;
    }
    return BOOL;
  }

  private index(e: A.Index, scope: FunctionScope): StaticType {
    const target = this.expr(e.target, scope);
    const index = this.expr(e.index, scope);
    if (target.kind === 'List') {
      if (index.kind !== 'Any' && index.kind !== 'Num') this.report(e.index.span, `a list index must be a Num, not ${typeToString(index)}`, 'type-mismatch');
      return target.element;
    }
    if (target.kind === 'Struct' && e.index.kind === 'String') return this.fieldType(target.name, e.index.value, e.index.span);
    if (['Num', 'Bool', 'Null'].includes(target.kind)) this.report(e.span, `cannot index a ${typeToString(target)}`, 'type-mismatch');
    return ANY;
  }

  private member(e: A.Member, scope: FunctionScope): StaticType {
    const written = this.expr(e.target, scope);
    const key = pathKey(e);
    const proved = key === undefined ? undefined : this.narrowed.get(key);
    if (proved) return proved;
    if (written.kind === 'Optional' && written.inner.kind !== 'Any') {
      const what = pathKey(e.target) ?? 'the value';
      this.report(e.name.span, `\`${what}\` may be null (${typeToString(written)}): test it first, e.g. \`if ${what} != null { ... }\``, 'maybe-null');
    }
    const target = nonNull(written);
    if (target.kind === 'Union') {
      if (!target.members.every((m) => m.kind === 'Struct')) return ANY;
      const r = unionField(target, e.name.name, pathKey(e.target) ?? 'the value', this.narrowContext);
      if (r.ok) return r.type;
      this.report(e.name.span, r.message, r.code);
      return ANY;
    }
    if (target.kind === 'Map' && target.module) return this.moduleMember(target.module, e.name)?.type ?? ANY;
    if (target.kind === 'Map' && target.api) {
      const op = this.apiOperation(target.api, e.name);
      return op ? { kind: 'Closure', params: op.params.map((p) => p.type), result: op.result } : ANY;
    }
    if (target.kind === 'Struct') {
      const info = this.structs.get(target.name);
      if (info?.methods.has(e.name.name)) return { kind: 'Closure', params: [], result: ANY };
      return this.fieldType(target.name, e.name.name, e.name.span);
    }
    if (['Num', 'Str', 'Bool', 'Null', 'List'].includes(target.kind)) {
      const message = `a ${typeToString(target)} has no field \`${e.name.name}\``;
      const hint = target.kind === 'List' || target.kind === 'Str' ? lengthHint(e.name.name, pathKey(e.target) ?? 'xs') : undefined;
      this.report(e.name.span, hint ? withHint(message, hint) : message, 'unknown-field');
    }
    return ANY;
  }

  private call(e: A.CallExpr, scope: FunctionScope): StaticType {
    const sig = e.callee.kind === 'Identifier' ? scope.lookup(e.callee.name)?.sig : undefined;
    const reported = this.diagnostics.length;
    const calleeType = this.expr(e.callee, scope);
    // `echo("hi")`: the undefined name just reported gets a second line saying how Turn calls it
    const hint = e.callee.kind === 'Identifier' && this.diagnostics.length === reported + 1 ? undefinedCalleeHint(e.callee.name) : undefined;
    const last = this.diagnostics[reported];
    if (hint && last.code === 'undefined-name') last.message = withHint(last.message, hint);
    const argTypes: StaticType[] = [];
    for (const x of e.args) argTypes.push(this.expr(x, scope));
    if (['Num', 'Str', 'Bool', 'Null', 'List', 'Map', 'Struct'].includes(calleeType.kind)) {
      this.report(e.callee.span, `a ${typeToString(calleeType)} is not callable`, 'not-callable');
    }
    // a module's or an API's function (`net.get(auth, ...)`), or a closure whose first parameter is named as a credential
    if (e.args.length > 0 && (e.callee.kind === 'Member' || credentialParam(sig))) this.credential(e.args[0]);
    if (sig) this.checkCall(sig, e.args, argTypes, calleeName(e.callee), e.span, false);
    return sig?.result ?? (calleeType.kind === 'Closure' ? calleeType.result : ANY);
  }

  private callBuiltin(e: A.CallBuiltin, scope: FunctionScope): StaticType {
    const targetType = this.expr(e.target, scope);
    const argTypes: StaticType[] = [];
    for (const x of e.args) argTypes.push(this.expr(x, scope));
    if (e.target.kind === 'String' && LEAKING_TOOLS.has(e.target.value)) {
      argTypes.forEach((t, i) => {
        // fs_write's and fs_append's first argument is their credential (identity::filesystem)
        if (t.kind === 'Identity' && !(i === 0 && e.target.kind === 'String' && e.target.value.startsWith('fs_'))) this.report(e.args[i].span, `an identity handle cannot be passed to \`${e.target.kind === 'String' ? e.target.value : ''}\`: its secret stays with the host`, 'identity-leak');
      });
    }
    if (e.args.length > 0) {
      if (e.target.kind === 'String' ? CREDENTIAL_TOOLS.has(e.target.value) : e.target.kind === 'Identifier' && credentialParam(scope.lookup(e.target.name)?.sig)) {
        this.credential(e.args[0], e.target.kind === 'String' ? e.target.value : undefined);
      }
      if (e.target.kind === 'String' && CREDENTIAL_TOOLS.has(e.target.value)) this.credentialType(e.args[0], argTypes[0]);
      // an MCP call's credential is a handle or null: a map there is never a capability map
      if (e.target.kind === 'String' && MCP_TOOLS.has(e.target.value) && argTypes[0].kind === 'Map') {
        this.report(e.args[0].span, `\`${e.target.value}\` takes an identity handle (\`grant identity::bearer("NAME")\`) or null as its credential, not a map`, 'forged-identity');
      }
    }
    if (e.target.kind === 'String') {
      // a tool name the VM does not answer fails there as "unknown tool": reported here first
      if (!isHostTool(e.target.value)) this.report(e.target.span, unknownHostTool(e.target.value), 'unknown-tool');
      return hostToolResult(e.target.value);
    }
    const sig = e.target.kind === 'Identifier' ? scope.lookup(e.target.name)?.sig : undefined;
    if (sig) this.checkCall(sig, e.args, argTypes, calleeName(e.target), e.span, true);
    else if (['Num', 'Bool', 'Null', 'List', 'Map', 'Struct'].includes(targetType.kind)) {
      this.report(e.target.span, `\`call\` needs a closure or a tool name, not a ${typeToString(targetType)}`, 'not-callable');
    }
    return sig?.result ?? ANY;
  }

  private listOp(e: A.ListOp, scope: FunctionScope): StaticType {
    const list = this.expr(e.list, scope);
    this.expr(e.fn, scope);
    this.checkFnArity(e.fn, 1, e.op);
    if (['Num', 'Str', 'Bool', 'Map', 'Struct'].includes(list.kind)) {
      this.report(e.list.span, `\`${e.op}\` needs a list, not a ${typeToString(list)}`, 'type-mismatch');
    }
    return e.op === 'filter' && list.kind === 'List' ? list : { kind: 'List', element: ANY };
  }

  /**
   * A credential position the checker can see — the first argument of `http_request`, `fs_*` and
   * `mcp_*`, of a module's or an API's function (std/net, std/fs, absorbed APIs: `net.get(auth,
   * ...)`), of a closure whose first parameter is `auth`, `cap`, `identity`... — or the `identity`
   * of Turn v1's single map: a map written in the shape of a handle is not one (only a `grant`
   * makes a handle), so it is reported here rather than only refused when the call runs.
   */
  private credential(e: A.Expr, tool?: string): void {
    if (!handleShaped(e, tool !== undefined && CREDENTIAL_TOOLS.has(tool))) return;
    this.report(e.span, 'a map is not an identity handle: only `grant identity::kind("name")` makes one, and a credential position takes only the handle', 'forged-identity');
  }

  /** A value the checker knows is a struct, in a credential position: data of a handle's shape, never one. */
  private credentialType(e: A.Expr, t: StaticType | undefined): void {
    if (t?.kind !== 'Struct') return;
    this.report(e.span, `a ${t.name} is not an identity handle: only \`grant identity::kind("name")\` makes one, and a credential position takes only the handle`, 'forged-identity');
  }

  private grant(e: A.GrantExpr, scope: FunctionScope): StaticType {
    this.expectType(e.name, scope, STR, 'an identity name');
    // which secret goes where (and under which header or query name) is the grant line's to say,
    // where a reader and `turn check` see it, never a value computed at run time from data
    if (e.name.kind !== 'String') {
      this.report(e.name.span, 'a grant names its secret with a string literal (`grant identity::bearer("github")`): which secret is sent, and where, is fixed in the source, never computed from data', 'identity-name');
    }
    const kind = e.identityKind.name;
    if (!(IDENTITY_KINDS as readonly string[]).includes(kind)) {
      this.report(e.identityKind.span, `unknown identity kind \`${kind}\`: use ${IDENTITY_KINDS.join(', ')}`, 'identity-kind');
    } else if (e.name.kind === 'String') {
      const parsed = parseIdentity(kind, e.name.value);
      if (!parsed.ok) this.report(e.name.span, parsed.message, 'identity-kind');
    }
    return { kind: 'Identity' };
  }

  /** `infer T { ... }`, and `ask T { ... }` (e.person): the expression has type T either way. */
  private infer(e: A.InferExpr, scope: FunctionScope): StaticType {
    const keyword = e.person ? 'ask' : 'infer';
    if (e.person) {
      // a person's answer has no model options; their values are still checked as expressions
      for (const o of e.options ?? []) {
        this.report(o.name.span, `\`ask\` takes no options (\`${o.name.name}\`): a person answers it, not a model`, 'ask-option');
        this.expr(o.value, scope);
      }
    } else this.inferOptions(e, scope);
    this.checkTypeExpr(e.type);
    const t = resolveType(e.type, this);
    const bad = unsupportedInferType(t, this.structs);
    if (bad) this.report(e.type.span, `\`${keyword}\` cannot produce ${bad}: use a struct, Num, Str, Bool, a string enum or a List of them`, 'infer-type');
    const body = e.body.body;
    const last = body[body.length - 1];
    const prompt = last?.kind === 'ExprStmt' ? last : undefined;
    // the block's statements run in its own scope (LANGUAGE.md §1), which sees the enclosing names
    const inner = new FunctionScope(scope, undefined, undefined);
    inner.openScopes = scope.openScopes;
    const stmts = prompt ? body.slice(0, -1) : body;
    this.hoist(stmts, inner);
    this.statements(stmts, inner);
    if (prompt && this.expr(prompt.expr, inner).kind === 'Identity') {
      this.report(prompt.expr.span, 'an identity handle cannot be sent in a prompt', 'identity-leak');
    }
    if (!prompt) this.report(e.body.span, `\`${keyword}\` needs a prompt: end its block with an expression such as "Summarise this";`, 'infer-prompt');
    return t;
  }

  /** `with { name: value, ... }`: known names, each once, and values that can be what the option takes. */
  private inferOptions(e: A.InferExpr, scope: FunctionScope): void {
    const seen = new Set<string>();
    for (const o of e.options ?? []) {
      // evaluated in the enclosing scope, before the block
      const name = o.name.name;
      if (name === TOOLS_OPTION) {
        if (seen.has(name)) this.report(o.name.span, `the infer option \`${name}\` is given twice`, 'infer-option');
        seen.add(name);
        this.toolsOption(o.value, scope);
        continue;
      }
      const t = this.expr(o.value, scope);
      const spec = Object.hasOwn(INFER_OPTIONS, name) ? INFER_OPTIONS[name] : undefined;
      if (!spec) {
        this.report(o.name.span, `unknown infer option \`${name}\`${suggest(name, INFER_OPTION_NAMES)}; the options are ${INFER_OPTION_NAMES.join(', ')}`, 'infer-option');
        continue;
      }
      if (seen.has(name)) this.report(o.name.span, `the infer option \`${name}\` is given twice`, 'infer-option');
      seen.add(name);
      const literal = literalValue(o.value);
      if (literal !== NOT_LITERAL) {
        const problem = optionProblem(name, literal);
        if (problem) this.report(o.value.span, problem, 'infer-option');
      } else if (!isAssignable(t, NUM)) {
        this.report(o.value.span, `infer option ${name} needs ${expectation(spec)}, got a value of type ${typeToString(t)}`, 'infer-option');
      }
    }
  }

  /** `tools: [f, g]`: a List whose items can be functions (each item's own span for one that cannot). */
  private toolsOption(value: A.Expr, scope: FunctionScope): void {
    const notTool = (s: StaticType) => s.kind !== 'Closure' && s.kind !== 'Any';
    if (value.kind === 'List') {
      value.items.forEach((item, i) => {
        const it = this.expr(item, scope);
        if (notTool(it)) this.report(item.span, `infer option tools: item ${i + 1} is a ${typeToString(it)}, not a function the model could call`, 'infer-option');
      });
      return;
    }
    const t = this.expr(value, scope);
    if (t.kind !== 'Any' && t.kind !== 'List') {
      this.report(value.span, `infer option tools needs a List of functions, got a value of type ${typeToString(t)}`, 'infer-option');
    }
  }

  private scopeBlock(e: A.ScopeExpr, scope: FunctionScope): StaticType {
    if (!(SCOPE_POLICIES as readonly string[]).includes(e.policy.name)) {
      this.report(e.policy.span, `unknown scope policy \`${e.policy.name}\`: use fail_fast, wait_all, first_success or best_effort`, 'scope-policy');
    }
    scope.openScopes++;
    this.statements(e.body.body, scope);
    scope.openScopes--;
    if (e.policy.name === 'best_effort') return { kind: 'Map' }; // {"results": [...], "failures": [ChildError...]}
    return e.policy.name === 'first_success' ? ANY : { kind: 'List', element: ANY };
  }

  private closure(c: A.Closure, outer: FunctionScope, receiver?: StructInfo): void {
    // a closure may run after its names changed: what an enclosing `if` proved does not hold in it
    const narrowed = this.narrowed;
    this.narrowed = new Map();
    try {
      this.closureBody(c, outer, receiver);
    } finally {
      this.narrowed = narrowed;
    }
  }

  private closureBody(c: A.Closure, outer: FunctionScope, receiver?: StructInfo): void {
    const declaredResult = c.returnType ? resolveType(c.returnType, this) : undefined;
    if (c.returnType) this.checkTypeExpr(c.returnType);
    const scope = new FunctionScope(outer, receiver, declaredResult);
    const seen = new Set<string>();
    for (const p of c.params) {
      if (seen.has(p.name.name)) this.report(p.name.span, `parameter \`${p.name.name}\` is declared twice`, 'duplicate');
      seen.add(p.name.name);
      if (p.type) this.checkTypeExpr(p.type);
      const type = p.type ? resolveType(p.type, this) : ANY;
      scope.names.set(p.name.name, { type, declared: p.type ? type : undefined, bindings: 1, origin: { kind: 'param', param: p } });
    }
    this.hoist(c.body.body, scope);
    this.observer?.enterScope?.(c, scope);
    this.statements(c.body.body, scope);
  }

  private closureType(c: A.Closure): StaticType {
    const sig = this.signature(c);
    return { kind: 'Closure', params: sig.params.map((p) => p.type ?? ANY), result: sig.result ?? ANY };
  }

  private structLiteral(e: A.StructLit, scope: FunctionScope): StaticType {
    const info = this.structs.get(e.name.name);
    if (e.spread) this.expectType(e.spread, scope, { kind: 'Struct', name: e.name.name }, 'the `..` spread');
    if (!info) {
      for (const f of e.fields) this.expr(f.value, scope);
      this.report(e.name.span, `unknown struct \`${e.name.name}\``, 'unknown-struct');
      return ANY;
    }
    const given = new Set<string>();
    for (const f of e.fields) {
      const t = this.expr(f.value, scope);
      if (given.has(f.name.name)) this.report(f.name.span, `field \`${f.name.name}\` is given twice`, 'duplicate');
      given.add(f.name.name);
      const declared = info.fields.get(f.name.name);
      if (!declared) {
        this.report(f.name.span, `${e.name.name} has no field \`${f.name.name}\`${wireNameHint(info, f.name.name) ?? suggest(f.name.name, info.fields.keys())}`, 'unknown-field');
      } else {
        // a literal given for a literal-typed or enum field is checked as that literal (`kind:
        // "aprove"` where `kind: "approve"` is declared, `priority: "medium"` for `"low" | "high"`)
        const given = asWritten(f.value, t, declared);
        if (!isAssignable(given, declared)) this.mismatch(f.value.span, `field \`${f.name.name}\` of ${e.name.name} is`, declared, given);
        else this.checkElements(f.value, declared, `field \`${f.name.name}\` of ${e.name.name}`);
      }
    }
    if (!e.spread) {
      // as written: a `T?` field of a generic struct resolves to Any, and may still be left out
      const optional = new Set(info.decl.fields.filter((f) => f.type.kind === 'OptionalType').map((f) => f.name.name));
      const missing = [...info.fields.keys()].filter((n) => !given.has(n) && !optional.has(n));
      if (missing.length > 0) {
        this.report(e.span, `missing ${missing.length === 1 ? 'field' : 'fields'} ${missing.map((m) => '`' + m + '`').join(', ')} in ${e.name.name}`, 'missing-field');
      }
    }
    return { kind: 'Struct', name: e.name.name };
  }

  private fieldType(structName: string, field: string, where: A.Span): StaticType {
    const info = this.structs.get(structName);
    if (!info) return ANY;
    const t = info.fields.get(field);
    if (!t) {
      this.report(where, `${structName} has no field \`${field}\`${wireNameHint(info, field) ?? suggest(field, info.fields.keys())}`, 'unknown-field');
      return ANY;
    }
    return t;
  }

  private methodCall(e: A.MethodCall, scope: FunctionScope): StaticType {
    const target = this.expr(e.target, scope);
    const argTypes: StaticType[] = [];
    for (const x of e.args) argTypes.push(this.expr(x, scope));
    if (e.args.length > 0) this.credential(e.args[0]);
    if (target.kind === 'Map' && target.api) return this.apiCall(target.api, e, argTypes);
    if (target.kind === 'Map' && target.module) return this.moduleCall(target.module, e, argTypes);
    if (target.kind === 'Struct') {
      const info = this.structs.get(target.name);
      if (!info) return ANY;
      const method = info.methods.get(e.name.name);
      if (method) {
        this.checkCall(method, e.args, argTypes, `${target.name}.${e.name.name}`, e.span, false);
        return method.result ?? ANY;
      }
      const field = info.fields.get(e.name.name);
      if (field && (field.kind === 'Closure' || field.kind === 'Any')) return field.kind === 'Closure' ? field.result : ANY;
      this.report(e.name.span, `${target.name} has no method \`${e.name.name}\`${suggest(e.name.name, info.methods.keys())}`, 'unknown-method');
      return ANY;
    }
    if (['Num', 'Str', 'Bool', 'Null', 'List', 'Pid', 'Vec'].includes(target.kind)) {
      this.report(e.name.span, `a ${typeToString(target)} has no method \`${e.name.name}\``, 'unknown-method');
    }
    return ANY;
  }

  /** `api.client(base)` or `api.op(auth, ...)` on an absorbed API: checked against the spec's types. */
  private apiCall(api: ApiShape, e: A.MethodCall, argTypes: StaticType[]): StaticType {
    if (api.module && e.name.name === 'client') {
      this.checkCall({ params: [{ name: 'base', type: api.clientBase ?? STR }] }, e.args, argTypes, 'client', e.span, false);
      return { kind: 'Map', api: { ...api, module: false, hasDefault: true } };
    }
    const op = this.apiOperation(api, e.name);
    if (!op) return ANY;
    this.checkCall({ params: op.params, result: op.result }, e.args, argTypes, e.name.name, e.span, false);
    return op.result;
  }

  /** `money.fmt(x)` on a checked module: the member must exist, be callable, and take what it is given. */
  private moduleCall(shape: ModuleShape, e: A.MethodCall, argTypes: StaticType[]): StaticType {
    const member = this.moduleMember(shape, e.name);
    if (!member) return ANY;
    if (member.sig) {
      this.checkCall(member.sig, e.args, argTypes, e.name.name, e.span, false);
      return member.sig.result ?? (member.type.kind === 'Closure' ? member.type.result : ANY);
    }
    const t = member.type;
    if (t.kind === 'Closure') return t.result;
    if (t.kind !== 'Any' && t.kind !== 'Optional' && t.kind !== 'Union') {
      this.report(e.name.span, `\`${e.name.name}\` of module \`${shape.spec}\` is a ${typeToString(t)}, not a closure`, 'not-callable');
    }
    return ANY;
  }

  /** The member `name` of a checked module, or a located error naming the members there are. */
  private moduleMember(shape: ModuleShape, name: A.Identifier): ModuleMember | undefined {
    const member = shape.members.get(name.name);
    if (member) return member;
    const known = [...shape.members.keys()];
    const list = known.length > 0 ? ` (it exports ${known.slice(0, 8).join(', ')}${known.length > 8 ? ', ...' : ''})` : ' (its map is empty)';
    this.report(name.span, `module \`${shape.spec}\` has no member \`${name.name}\`${suggest(name.name, known)}${list}`, 'unknown-member');
    return undefined;
  }

  /** The operation `name` of an absorbed API, or a located error naming the operations there are. */
  private apiOperation(api: ApiShape, name: A.Identifier): ApiOperation | undefined {
    const op = api.operations.get(name.name);
    if (op && (!api.module || api.hasDefault)) return op;
    if (api.module && name.name === 'client') return { params: [{ name: 'base', type: api.clientBase ?? STR }], result: { kind: 'Map', api: { ...api, module: false, hasDefault: true } } };
    if (op) {
      this.report(name.span, `\`${name.name}\`: ${api.spec} names no server, so its operations are reached through \`client(BASE_URL)\``, 'unknown-operation');
      return undefined;
    }
    const known = [...api.operations.keys()];
    const list = known.length > 0 ? ` (it has ${known.slice(0, 8).join(', ')}${known.length > 8 ? ', ...' : ''})` : '';
    this.report(name.span, `${api.spec} has no operation \`${name.name}\`${suggest(name.name, api.module ? ['client', ...known] : known)}${list}`, 'unknown-operation');
    return undefined;
  }

  private checkCall(sig: ClosureSig, args: A.Expr[], argTypes: StaticType[], name: string, where: A.Span, spreads: boolean): void {
    if (spreads && args.length === 1 && this.singleArgument(sig, args[0], argTypes[0], name)) return;
    // an absorbed operation's or a closure's `auth`: a struct (an API's reply, a model's) is never a handle
    if (args.length > 0 && credentialParam(sig)) this.credentialType(args[0], argTypes[0]);
    let required = sig.params.length;
    while (required > 0 && sig.params[required - 1].mayLeaveOut) required--;
    if (args.length < required || args.length > sig.params.length) {
      const want = required === sig.params.length ? plural(required, 'argument') : `${required} to ${sig.params.length} arguments`;
      this.report(where, `\`${name}\` takes ${want}, got ${args.length}`, 'arity');
      return;
    }
    sig.params.slice(0, args.length).forEach((p, i) => {
      if (p.type && !isAssignable(asWritten(args[i], argTypes[i], p.type), p.type)) {
        this.mismatch(args[i].span, `parameter \`${p.name}\` of \`${name}\` is`, p.type, asWritten(args[i], argTypes[i], p.type));
      } else if (p.type) this.checkElements(args[i], p.type, `parameter \`${p.name}\` of \`${name}\``);
    });
  }

  /**
   * Turn v1's calling convention for `call(f, x)` (docs/language.md): a closure of no parameters
   * takes any single argument; a list spreads; a map or struct binds parameters by name. Returns
   * true when `x` is taken that way (and checks what it can see of it).
   */
  private singleArgument(sig: ClosureSig, arg: A.Expr, t: StaticType, name: string): boolean {
    const n = sig.params.length;
    if (n === 0) return true;
    const first = sig.params[0];
    const declared = first.type;
    if (t.kind === 'List' || t.kind === 'Any') {
      if (n > 1) return true;
      if (t.kind === 'Any' || !declared || declared.kind === 'Any') return true;
      const only = arg.kind === 'List' && arg.items.length === 1 ? this.itemTypes.get(arg)?.[0] : undefined;
      if (declared.kind === 'List') {
        // `call(f, [[a, b]])` spreads its one list element; `call(f, [a])` passes the list itself
        if (!only || only.kind !== 'List') return false;
        if (!isAssignable(only, declared)) this.mismatch(arg.span, `parameter \`${first.name}\` of \`${name}\` is`, declared, only);
        return true;
      }
      if (arg.kind === 'List' && arg.items.length === 1) {
        const item = this.typeOfLiteral(arg.items[0]);
        if (item && !isAssignable(item, declared)) this.mismatch(arg.items[0].span, `parameter \`${first.name}\` of \`${name}\` is`, declared, item);
      }
      return true;
    }
    if (t.kind !== 'Map' && t.kind !== 'Struct') return false;
    if (n === 1 && declared && (declared.kind === 'Map' || (t.kind === 'Struct' && declared.kind === 'Struct' && declared.name === t.name))) return false;
    if (arg.kind === 'Map') {
      const keys = new Map(arg.entries.map((e) => [e.key, e.value] as const));
      if (n === 1 && !keys.has(first.name)) return false;
      for (const p of sig.params) {
        const v = keys.get(p.name);
        const vt = v && p.type ? this.typeOfLiteral(v) && asWritten(v, this.typeOfLiteral(v)!, p.type) : undefined;
        if (v && vt && p.type && !isAssignable(vt, p.type)) this.mismatch(v.span, `parameter \`${p.name}\` of \`${name}\` is`, p.type, vt);
      }
    }
    return true;
  }

  /** The type of an already-analyzed literal expression, when it is one (no re-analysis). */
  private typeOfLiteral(e: A.Expr): StaticType | undefined {
    switch (e.kind) {
      case 'Number': return NUM;
      case 'String': return STR;
      case 'Bool': return BOOL;
      default: return undefined;
    }
  }

  private checkFnArity(fn: A.Expr, arity: number, what: string): void {
    if (fn.kind === 'Closure' && fn.params.length !== arity) {
      this.report(fn.span, `\`${what}\` needs a closure of ${plural(arity, 'parameter')}, this one takes ${fn.params.length}`, 'arity');
    }
  }

  private binary(e: A.Binary, scope: FunctionScope): StaticType {
    const l = this.expr(e.left, scope);
    const r = e.op === 'and' || e.op === 'or' ? this.shortCircuitRight(e, scope) : this.expr(e.right, scope);
    if ((l.kind === 'Identity') !== (r.kind === 'Identity') && l.kind !== 'Any' && r.kind !== 'Any' && e.op !== 'and' && e.op !== 'or') {
      this.report(e.span, `an identity handle cannot be ${e.op === '+' ? 'concatenated' : 'used with `' + e.op + '`'}: its secret stays with the host`, 'identity-leak');
      return e.op === '+' ? ANY : BOOL;
    }
    if (l.kind === 'Identity' && r.kind === 'Identity' && (e.op === '==' || e.op === '!=')) {
      this.report(e.span, HANDLES_COMPARED, 'identity-leak');
      return BOOL;
    }
    switch (e.op) {
      case '+':
        if (l.kind === 'Str' || r.kind === 'Str' || l.kind === 'Enum' || r.kind === 'Enum') return STR;
        if (l.kind === 'Num' && r.kind === 'Num') return NUM;
        this.arithmetic(e, l, r, ['Bool', 'Map', 'Struct', 'Closure', 'Pid']);
        return ANY;
      case '-':
      case '*':
      case '/':
        this.arithmetic(e, l, r, ['Str', 'Enum', 'Bool', 'List', 'Map', 'Struct', 'Closure', 'Pid', 'Null']);
        return NUM;
      case '~>':
        return NUM;
      case '==':
      case '!=': {
        // a comparison whose sides share no value is a slip (`t.priority == "urgent"` for `"low" | "high"`)
        // (two literals compared are a test of the language, not a slip)
        const [ll, rl] = [literalTypeOf(e.left), literalTypeOf(e.right)];
        const never = ll && rl ? undefined : neverEqual(ll ?? l, rl ?? r);
        if (never) this.report(e.span, `this comparison is always ${e.op === '==' ? 'false' : 'true'}: ${never}`, 'never-equal');
        return BOOL;
      }
      default:
        return BOOL;
    }
  }

  /** `a and b` reads `b` where `a` holds, `a or b` where it does not: each sees what that proves. */
  private shortCircuitRight(e: A.Binary, scope: FunctionScope): StaticType {
    const before = this.narrowed;
    const pick = e.op === 'and' ? 'then' : 'else';
    const m = new Map(before);
    for (const p of narrowingsOf(e.left, this.narrowContext)) if (p[pick]) m.set(p.key, p[pick]);
    this.narrowed = m;
    try {
      return this.expr(e.right, scope);
    } finally {
      this.narrowed = before;
    }
  }

  private arithmetic(e: A.Binary, l: StaticType, r: StaticType, invalid: string[]): void {
    for (const [t, side] of [[l, e.left], [r, e.right]] as const) {
      if (invalid.includes(t.kind)) {
        this.report(side.span, `\`${e.op}\` cannot take a ${typeToString(t)}`, 'type-mismatch');
        return;
      }
    }
  }

  /** A list literal given where `List<T>` is expected: each element must be a T (Turn v1 checks elements). */
  private checkElements(e: A.Expr, written: StaticType, what: string): void {
    const expected = nonNull(written);
    if (expected.kind === 'Map' && expected.value && e.kind === 'Map') return this.checkEntries(e, expected.value, written, what);
    if (expected.kind !== 'List' || e.kind !== 'List') return;
    const types = this.itemTypes.get(e);
    if (!types) return;
    e.items.forEach((item, i) => {
      const t = asWritten(item, types[i], expected.element);
      if (!isAssignable(t, expected.element)) {
        this.report(item.span, `type mismatch: ${what} is ${typeToString(expected)}, but element ${i} is ${typeToString(t)}`, 'type-mismatch');
      } else this.checkElements(item, expected.element, `${what} (element ${i})`);
    });
  }

  /** A map literal given where `Map<T>` (or `Map<Str, T>`) is written: each value must be a T. */
  private checkEntries(e: A.MapLit, value: StaticType, written: StaticType, what: string): void {
    const types = this.entryTypes.get(e);
    if (!types) return;
    e.entries.forEach((entry, i) => {
      const t = asWritten(entry.value, types[i], value);
      if (!isAssignable(t, value)) {
        this.report(entry.value.span, `type mismatch: ${what} is ${typeToString(written)}, but the value of ${JSON.stringify(entry.key)} is ${typeToString(t)}`, 'type-mismatch');
      } else this.checkElements(entry.value, value, `${what} (value of ${JSON.stringify(entry.key)})`);
    });
  }

  private expectType(e: A.Expr, scope: FunctionScope, expected: StaticType, what: string): void {
    const t = this.expr(e, scope);
    if (!isAssignable(t, expected)) this.mismatch(e.span, `${what} must be`, expected, t);
  }

  private mismatch(where: A.Span, context: string, expected: StaticType, actual: StaticType): void {
    this.report(where, `type mismatch: ${context} ${typeToString(expected)}, got ${typeToString(actual)}`, 'type-mismatch');
  }

  private report(span: A.Span, message: string, code: string): void {
    this.diagnostics.push({ severity: 'error', message, span, code });
  }
}

/**
 * The built-in struct of a failed child's slot in `gather` (runtime/vm/actors.ts makes it):
 * `ChildError { pid: Pid, type: Str, message: Str, error: Any }`. A program's own struct of that
 * name takes its place.
 */
function childErrorStruct(): StructInfo {
  const at = { start: 0, end: 0 };
  const decl: A.StructDecl = { kind: 'Struct', name: { kind: 'Identifier', name: CHILD_ERROR, span: at }, typeParams: [], fields: [], span: at };
  const fields = new Map<string, StaticType>([
    ['pid', { kind: 'Pid' }],
    ['type', STR],
    ['message', STR],
    ['error', ANY],
  ]);
  return { decl, fields, methods: new Map() };
}

/** In `hoist`'s work list: bind the `catch` name of `stmt` now. */
class CatchName {
  constructor(readonly stmt: A.TryStmt) {}
}

function sameType(a: StaticType, b: StaticType): boolean {
  return typeToString(a) === typeToString(b);
}

function calleeName(e: A.Expr): string {
  return e.kind === 'Identifier' ? e.name : 'closure';
}

/**
 * For an absorbed struct (its fields' docs say "On the wire: `type`." where the spec's name is not a
 * Turn name: runtime/absorb/module.ts), the field a spec name stands for: ` (the spec's \`type\` is \`type_\` in Turn)`.
 */
function wireNameHint(info: StructInfo, name: string): string | undefined {
  // an absorbed struct's request form (runtime/absorb/directions.ts) names the fields it leaves out
  const readOnly = /Read-only \(set by the server, never sent\): ([^\n]*)\./.exec(info.decl.description ?? '');
  if (readOnly && readOnly[1].split(', ').includes(`\`${name}\``)) return `: it is read-only in the spec (the server sets it), so a request cannot send it`;
  const f = info.decl.fields.find((x) => x.description?.includes(`On the wire: \`${name}\`.`));
  return f ? ` (the spec's \`${name}\` is \`${f.name.name}\` in Turn)` : undefined;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}



const NOT_LITERAL = Symbol('not a literal');

/** The value of a literal (`3`, `-1`, `"x"`, `true`, `null`), else NOT_LITERAL. */
function literalValue(e: A.Expr): unknown {
  switch (e.kind) {
    case 'Number':
    case 'String':
    case 'Bool':
      return e.value;
    case 'Null':
      return null;
    case 'Unary':
      return e.op === '-' && e.operand.kind === 'Number' ? -e.operand.value : NOT_LITERAL;
    default:
      return NOT_LITERAL;
  }
}
