// The typed AST every later stage works on. Produced from the tree-sitter CST by `lower.ts`.
// Spans are UTF-16 offsets into the source text (JavaScript string indices); `SourceFile`
// turns them into lines and columns for diagnostics, the debugger and the language server.

export interface Span {
  start: number;
  end: number;
}

interface NodeBase {
  span: Span;
}

// ---------------------------------------------------------------------------------------------
// Types as written in the source (`Num`, `List<Str>`, `Point`, `Box<Num>`, `(Num) -> Str`, `"a" | "b"`,
// `Str?`, `Approve | Reject`, `"yes"`, `3`, `Map<Str, Num>`). Parentheses leave no node of their own.

export type TypeExpr = NamedType | FunctionType | EnumType | OptionalType | UnionType | LiteralType;

export interface NamedType extends NodeBase {
  kind: 'NamedType';
  name: string;
  args: TypeExpr[];
}

export interface FunctionType extends NodeBase {
  kind: 'FunctionType';
  params: TypeExpr[];
  result: TypeExpr;
}

/** A union of string literals, usable as an enum in `infer` (`"low" | "high"`). */
export interface EnumType extends NodeBase {
  kind: 'EnumType';
  values: string[];
}

/** `T?`: a `T`, absent or null. */
export interface OptionalType extends NodeBase {
  kind: 'OptionalType';
  inner: TypeExpr;
}

/** `A | B | C` of any types except only string literals (that is an `EnumType`). */
export interface UnionType extends NodeBase {
  kind: 'UnionType';
  members: TypeExpr[];
}

/** A literal as a type: `"yes"`, `3`, `true`, `false`, `null`. */
export interface LiteralType extends NodeBase {
  kind: 'LiteralType';
  value: string | number | boolean | null;
}

// ---------------------------------------------------------------------------------------------
// Statements

export interface Program extends NodeBase {
  kind: 'Program';
  body: Stmt[];
}

export interface Block extends NodeBase {
  kind: 'Block';
  body: Stmt[];
}

export type Stmt =
  | LetStmt
  | ExprStmt
  | ReturnStmt
  | IfStmt
  | WhileStmt
  | TryStmt
  | ThrowStmt
  | StructDecl
  | ImplDecl
  | TypeAliasDecl
  | EntryBlock
  | SuspendStmt;

export interface Identifier extends NodeBase {
  kind: 'Identifier';
  name: string;
}

/** `let name: T = value;` — binds in the enclosing function's scope (updates an existing name). */
export interface LetStmt extends NodeBase {
  kind: 'Let';
  name: Identifier;
  type?: TypeExpr;
  value: Expr;
}

export interface ExprStmt extends NodeBase {
  kind: 'ExprStmt';
  expr: Expr;
}

export interface ReturnStmt extends NodeBase {
  kind: 'Return';
  value?: Expr;
}

export interface IfStmt extends NodeBase {
  kind: 'If';
  condition: Expr;
  then: Block;
  /** `else { }` or `else if ...` */
  else?: Block | IfStmt;
}

export interface WhileStmt extends NodeBase {
  kind: 'While';
  condition: Expr;
  body: Block;
}

export interface TryStmt extends NodeBase {
  kind: 'Try';
  body: Block;
  param: Identifier;
  handler: Block;
}

export interface ThrowStmt extends NodeBase {
  kind: 'Throw';
  value: Expr;
}

export interface FieldDecl extends NodeBase {
  kind: 'FieldDecl';
  name: Identifier;
  type: TypeExpr;
  /** the `///` doc comment directly before the field, without the slashes */
  description?: string;
  /** `@range(0, 150)`, `@check("even", turn(v) { .. })`... in source order */
  checks: FieldCheck[];
}

/** One check annotation after a field's type: `@name(args)`; runtime/infer/checks.ts knows the names. */
export interface FieldCheck extends NodeBase {
  kind: 'FieldCheck';
  name: Identifier;
  args: Expr[];
}

export interface StructDecl extends NodeBase {
  kind: 'Struct';
  /** the `///` doc comment directly before the struct, without the slashes */
  description?: string;
  name: Identifier;
  typeParams: Identifier[];
  fields: FieldDecl[];
}

/** `impl Name { let m = turn(..) {..}; ... }` — methods see the struct's fields as plain names. */
export interface ImplDecl extends NodeBase {
  kind: 'Impl';
  typeName: Identifier;
  methods: LetStmt[];
}

export interface TypeAliasDecl extends NodeBase {
  kind: 'TypeAlias';
  name: Identifier;
  type: TypeExpr;
}

/** A top-level `turn { ... }` block: the program's entry, as in Turn v1. */
export interface EntryBlock extends NodeBase {
  kind: 'Entry';
  body: Block;
}

export interface SuspendStmt extends NodeBase {
  kind: 'Suspend';
}

// ---------------------------------------------------------------------------------------------
// Expressions

export type Expr =
  | NumberLit
  | StringLit
  | BoolLit
  | NullLit
  | Identifier
  | ListLit
  | MapLit
  | StructLit
  | VecLit
  | Closure
  | Binary
  | Unary
  | Index
  | Member
  | MethodCall
  | CallExpr
  | CallBuiltin
  | ListOp
  | UseExpr
  | UseSchemaExpr
  | GrantExpr
  | InferExpr
  | ConfidenceExpr
  | SpawnExpr
  | SpawnEachExpr
  | GatherExpr
  | ReceiveExpr
  | SendExpr
  | RememberExpr
  | RecallExpr
  | ContextExpr
  | InvokeExpr
  | ScopeExpr
  | TaskExpr
  | DetachExpr;

export interface NumberLit extends NodeBase {
  kind: 'Number';
  value: number;
}

export interface StringLit extends NodeBase {
  kind: 'String';
  value: string;
}

export interface BoolLit extends NodeBase {
  kind: 'Bool';
  value: boolean;
}

export interface NullLit extends NodeBase {
  kind: 'Null';
}

export interface ListLit extends NodeBase {
  kind: 'List';
  items: Expr[];
}

export interface MapEntry extends NodeBase {
  key: string;
  value: Expr;
}

export interface MapLit extends NodeBase {
  kind: 'Map';
  entries: MapEntry[];
}

export interface FieldInit extends NodeBase {
  name: Identifier;
  value: Expr;
}

/** `Name { field: v, ..base }` */
export interface StructLit extends NodeBase {
  kind: 'StructLit';
  name: Identifier;
  fields: FieldInit[];
  spread?: Expr;
}

/** `vec [1, 2, 3]` */
export interface VecLit extends NodeBase {
  kind: 'Vec';
  items: Expr[];
}

export interface Param extends NodeBase {
  name: Identifier;
  type?: TypeExpr;
}

/** `turn(a: T, b: U) -> R { ... }` */
export interface Closure extends NodeBase {
  kind: 'Closure';
  params: Param[];
  returnType?: TypeExpr;
  body: Block;
}

export type BinaryOp = '+' | '-' | '*' | '/' | '==' | '!=' | '<' | '>' | '<=' | '>=' | 'and' | 'or' | '~>';

export interface Binary extends NodeBase {
  kind: 'Binary';
  op: BinaryOp;
  left: Expr;
  right: Expr;
}

export interface Unary extends NodeBase {
  kind: 'Unary';
  op: '!' | '-';
  operand: Expr;
}

/** `x[i]` */
export interface Index extends NodeBase {
  kind: 'Index';
  target: Expr;
  index: Expr;
}

/** `x.f` */
export interface Member extends NodeBase {
  kind: 'Member';
  target: Expr;
  name: Identifier;
}

/** `x.m(a, b)` — an `impl` method, or a closure stored in a field or map entry. */
export interface MethodCall extends NodeBase {
  kind: 'MethodCall';
  target: Expr;
  name: Identifier;
  args: Expr[];
}

/** `f(a, b)` — a direct call of a closure value. */
export interface CallExpr extends NodeBase {
  kind: 'Call';
  callee: Expr;
  args: Expr[];
}

/** `call(f, a, b)` — applies a closure, or calls a host tool when `f` is a string. */
export interface CallBuiltin extends NodeBase {
  kind: 'CallBuiltin';
  target: Expr;
  args: Expr[];
}

/** `map(list, f)` and `filter(list, f)` */
export interface ListOp extends NodeBase {
  kind: 'ListOp';
  op: 'map' | 'filter';
  list: Expr;
  fn: Expr;
}

/** `use "path"` — evaluates a module once (cached) and yields its returned value. */
export interface UseExpr extends NodeBase {
  kind: 'Use';
  path: StringLit;
}

/** `use schema::openapi("spec")` — absorbed at compile time. */
export interface UseSchemaExpr extends NodeBase {
  kind: 'UseSchema';
  protocol: Identifier;
  source: Expr;
}

/** `grant identity::kind("name")` */
export interface GrantExpr extends NodeBase {
  kind: 'Grant';
  identityKind: Identifier;
  name: Expr;
}

/**
 * `infer T { prompt; }` — the value of the block's last expression statement is the prompt.
 * `infer T with { max_tokens: 200, seed: 7 } { ... }`: options of this model call (runtime/infer/options.ts).
 * `ask T { prompt; }` is the same node with `person`: the same type, block and scope, answered by a
 * person instead of a model (runtime/ask/), so everything that reads an infer's block reads an ask's.
 */
export interface InferExpr extends NodeBase {
  kind: 'Infer';
  /** `ask T { ... }`: a person answers (the run's ask port), not a model */
  person?: true;
  type: TypeExpr;
  /** the `with { ... }` options in source order (absent without `with`) */
  options?: InferOption[];
  body: Block;
}

/** `name: value` in an infer's `with { ... }`; the value is any expression, evaluated before the prompt. */
export interface InferOption extends NodeBase {
  name: Identifier;
  value: Expr;
}

export interface ConfidenceExpr extends NodeBase {
  kind: 'Confidence';
  operand: Expr;
}

/** `spawn e` / `spawn_link e`, where `e` evaluates to a closure of no parameters. */
export interface SpawnExpr extends NodeBase {
  kind: 'Spawn';
  link: boolean;
  body: Expr;
}

/** `spawn_each(list, turn(x) { ... })` */
export interface SpawnEachExpr extends NodeBase {
  kind: 'SpawnEach';
  list: Expr;
  fn: Expr;
}

export interface GatherExpr extends NodeBase {
  kind: 'Gather';
  operand: Expr;
}

/** `receive`, or `receive(ms)`: waits at most `ms` milliseconds, then yields `null`. */
export interface ReceiveExpr extends NodeBase {
  kind: 'Receive';
  timeout?: Expr;
}

/** `send pid, message` */
export interface SendExpr extends NodeBase {
  kind: 'Send';
  pid: Expr;
  message: Expr;
}

export interface RememberExpr extends NodeBase {
  kind: 'Remember';
  key: Expr;
  value: Expr;
}

export interface RecallExpr extends NodeBase {
  kind: 'Recall';
  key: Expr;
}

/** `context.append(x)` / `context.system(s)` */
export interface ContextExpr extends NodeBase {
  kind: 'Context';
  op: 'append' | 'system';
  arg: Expr;
}

/** `invoke f(x)` / `invoke turn() {..}`: a scoped invocation on a snapshot of the caller's context. */
export interface InvokeExpr extends NodeBase {
  kind: 'Invoke';
  call: Expr;
}

/** The failure policies of `scope`; a policy's position here is also its bytecode operand. */
export const SCOPE_POLICIES = ['fail_fast', 'wait_all', 'first_success', 'best_effort'] as const;
export type ScopePolicy = (typeof SCOPE_POLICIES)[number];

/** `scope wait_all { task ..; }`: concurrent tasks owned by the scope, under an explicit failure policy. */
export interface ScopeExpr extends NodeBase {
  kind: 'Scope';
  policy: Identifier;
  body: Block;
}

/** `task e`: starts `e` (a closure of no parameters) as a task of the innermost enclosing scope. */
export interface TaskExpr extends NodeBase {
  kind: 'Task';
  body: Expr;
}

/** `detach e`: a process owned by the runtime rather than its creator; yields a handle. */
export interface DetachExpr extends NodeBase {
  kind: 'Detach';
  body: Expr;
}

/** Every node kind, each with a `kind`; syntax/walk.ts enumerates their children. */
export type Node = Program | Block | Stmt | Expr | TypeExpr | FieldDecl | FieldCheck;
