// The one enumeration of the AST's children, and the pre-order walk built on it. Every pass that
// goes down the tree uses `forEachChild` (directly, or through `walk`) for the nodes it does not
// treat specially, so a new node kind is added here, once: the `switch` below is exhaustive and
// fails to type-check until the new kind is listed.
import type { Node, Stmt } from './ast.js';

/**
 * How a child sits in its parent:
 * - `code`: a statement, block or expression the parent runs (a closure's body included);
 * - `decl`: a declaration inside a declaration (a struct's fields, an `impl`'s methods);
 * - `name`: an identifier or literal the parent interprets itself rather than evaluates (a `let`'s
 *   or a parameter's name, a field or member name, a `catch` name, a `use` path, a scope policy,
 *   an identity kind): an `Identifier` here is not a reference to a variable;
 * - `type`: a type as written.
 */
export type ChildRole = 'code' | 'decl' | 'name' | 'type';

export type ChildVisitor = (child: Node, role: ChildRole) => void;

/** Calls `visit` on each direct child of `node`, in source order. */
export function forEachChild(node: Node, visit: ChildVisitor): void {
  switch (node.kind) {
    case 'Program':
    case 'Block':
      for (const s of node.body) visit(s, 'code');
      return;

    // ---- statements
    case 'Let':
      visit(node.name, 'name');
      if (node.type) visit(node.type, 'type');
      visit(node.value, 'code');
      return;
    case 'ExprStmt':
      visit(node.expr, 'code');
      return;
    case 'Return':
      if (node.value) visit(node.value, 'code');
      return;
    case 'If':
      visit(node.condition, 'code');
      visit(node.then, 'code');
      if (node.else) visit(node.else, 'code');
      return;
    case 'While':
      visit(node.condition, 'code');
      visit(node.body, 'code');
      return;
    case 'Try':
      visit(node.body, 'code');
      visit(node.param, 'name');
      visit(node.handler, 'code');
      return;
    case 'Throw':
      visit(node.value, 'code');
      return;
    case 'Struct':
      visit(node.name, 'name');
      for (const p of node.typeParams) visit(p, 'name');
      for (const f of node.fields) visit(f, 'decl');
      return;
    case 'FieldDecl':
      visit(node.name, 'name');
      visit(node.type, 'type');
      for (const c of node.checks) visit(c, 'decl');
      return;
    case 'FieldCheck':
      // a check's arguments are code: `@check`'s predicate is a closure (runtime/infer/predicate.ts)
      visit(node.name, 'name');
      for (const a of node.args) visit(a, 'code');
      return;
    case 'Impl':
      visit(node.typeName, 'name');
      for (const m of node.methods) visit(m, 'decl');
      return;
    case 'TypeAlias':
      visit(node.name, 'name');
      visit(node.type, 'type');
      return;
    case 'Entry':
      visit(node.body, 'code');
      return;
    case 'Suspend':
      return;

    // ---- expressions
    case 'Number':
    case 'String':
    case 'Bool':
    case 'Null':
    case 'Identifier':
      return;
    case 'List':
    case 'Vec':
      for (const item of node.items) visit(item, 'code');
      return;
    case 'Map':
      for (const e of node.entries) visit(e.value, 'code');
      return;
    case 'StructLit': {
      visit(node.name, 'name');
      // The spread belongs after the fields (the parser reports it anywhere else), but it is
      // still visited where it was written.
      let spread = node.spread;
      for (const f of node.fields) {
        if (spread && spread.span.start < f.span.start) {
          visit(spread, 'code');
          spread = undefined;
        }
        visit(f.name, 'name');
        visit(f.value, 'code');
      }
      if (spread) visit(spread, 'code');
      return;
    }
    case 'Closure':
      for (const p of node.params) {
        visit(p.name, 'name');
        if (p.type) visit(p.type, 'type');
      }
      if (node.returnType) visit(node.returnType, 'type');
      visit(node.body, 'code');
      return;
    case 'Binary':
      visit(node.left, 'code');
      visit(node.right, 'code');
      return;
    case 'Unary':
    case 'Confidence':
    case 'Gather':
      visit(node.operand, 'code');
      return;
    case 'Index':
      visit(node.target, 'code');
      visit(node.index, 'code');
      return;
    case 'Member':
      visit(node.target, 'code');
      visit(node.name, 'name');
      return;
    case 'MethodCall':
      visit(node.target, 'code');
      visit(node.name, 'name');
      for (const a of node.args) visit(a, 'code');
      return;
    case 'Call':
      visit(node.callee, 'code');
      for (const a of node.args) visit(a, 'code');
      return;
    case 'CallBuiltin':
      visit(node.target, 'code');
      for (const a of node.args) visit(a, 'code');
      return;
    case 'ListOp':
    case 'SpawnEach':
      visit(node.list, 'code');
      visit(node.fn, 'code');
      return;
    case 'Use':
      visit(node.path, 'name');
      return;
    case 'UseSchema':
      visit(node.protocol, 'name');
      visit(node.source, 'code');
      return;
    case 'Grant':
      visit(node.identityKind, 'name');
      visit(node.name, 'code');
      return;
    case 'Infer':
      visit(node.type, 'type');
      for (const o of node.options ?? []) {
        visit(o.name, 'name');
        visit(o.value, 'code');
      }
      visit(node.body, 'code');
      return;
    case 'Spawn':
    case 'Task':
    case 'Detach':
      visit(node.body, 'code');
      return;
    case 'Receive':
      if (node.timeout) visit(node.timeout, 'code');
      return;
    case 'Send':
      visit(node.pid, 'code');
      visit(node.message, 'code');
      return;
    case 'Remember':
      visit(node.key, 'code');
      visit(node.value, 'code');
      return;
    case 'Recall':
      visit(node.key, 'code');
      return;
    case 'Context':
      visit(node.arg, 'code');
      return;
    case 'Invoke':
      visit(node.call, 'code');
      return;
    case 'Scope':
      visit(node.policy, 'name');
      visit(node.body, 'code');
      return;

    // ---- types
    case 'NamedType':
      for (const a of node.args) visit(a, 'type');
      return;
    case 'FunctionType':
      for (const p of node.params) visit(p, 'type');
      visit(node.result, 'type');
      return;
    case 'OptionalType':
      visit(node.inner, 'type');
      return;
    case 'UnionType':
      for (const m of node.members) visit(m, 'type');
      return;
    case 'EnumType':
    case 'LiteralType':
      return;

    default: {
      const unknown: never = node;
      throw new Error(`forEachChild: unknown node kind ${(unknown as { kind: string }).kind}`);
    }
  }
}

/** `false` skips the node's children (the walk goes on with its siblings). */
export type WalkVisitor = (node: Node, role: ChildRole) => boolean | void;

/**
 * Visits `node` and everything below it in pre-order (a parent before its children, children in
 * source order). Iterative, so a deeply nested tree cannot overflow the JavaScript stack. `node`
 * itself is reported as `code` (as `type` if it is a type, `decl` if it is a field declaration).
 */
export function walk(node: Node, visit: WalkVisitor): void {
  const nodes: Node[] = [node];
  const roles: ChildRole[] = [rootRole(node)];
  const push: ChildVisitor = (child, role) => {
    nodes.push(child);
    roles.push(role);
  };
  while (nodes.length > 0) {
    const current = nodes.pop()!;
    const role = roles.pop()!;
    if (visit(current, role) === false) continue;
    // Push the children, then reverse them in place so the first child is popped first.
    const base = nodes.length;
    forEachChild(current, push);
    for (let i = base, j = nodes.length - 1; i < j; i++, j--) {
      [nodes[i], nodes[j]] = [nodes[j], nodes[i]];
      [roles[i], roles[j]] = [roles[j], roles[i]];
    }
  }
}

function rootRole(node: Node): ChildRole {
  switch (node.kind) {
    case 'NamedType':
    case 'FunctionType':
    case 'EnumType':
    case 'OptionalType':
    case 'UnionType':
    case 'LiteralType':
      return 'type';
    case 'FieldDecl':
    case 'FieldCheck':
      return 'decl';
    default:
      return 'code';
  }
}

const STATEMENT_KINDS: Record<Stmt['kind'], true> = {
  Let: true,
  ExprStmt: true,
  Return: true,
  If: true,
  While: true,
  Try: true,
  Throw: true,
  Struct: true,
  Impl: true,
  TypeAlias: true,
  Entry: true,
  Suspend: true,
};

/** Whether `node` is a statement (not a block, an expression, a type or a field declaration). */
export function isStatement(node: Node): node is Stmt {
  return Object.hasOwn(STATEMENT_KINDS, node.kind);
}
