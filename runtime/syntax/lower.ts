// Lowers the tree-sitter CST into the typed AST of ast.ts, collecting syntax diagnostics.
// Error recovery is the parser's: ERROR and MISSING nodes become diagnostics, and lowering goes
// on with placeholders so the language server still sees the rest of the file.
//
// Depth (docs/reliability.md): the CST can be as deep as the source is long. Lowering recurses
// along it only RECURSION_CHUNK levels at a time: a node met deeper than that is lowered by an
// iterative walk of its subtree (`prepare`), bottom-up, so when its parent is lowered its children
// are already in `lowered` and the recursive-looking calls are look-ups. The walk also counts the
// levels: a statement holding anything nested more than MAX_NESTING levels is reported once and
// left out, which bounds every later pass over the AST (the analyzer, the compiler, the symbol
// index...). Ordinary code never gets that deep and is lowered by plain recursion.
import type { Node as CstNode, TreeCursor } from 'web-tree-sitter';
import type { Diagnostic } from '../diagnostics.js';
import type * as A from './ast.js';
import type { SourceFile } from './source.js';
import { describeExpected, slipInError, slipInMissing } from './hints.js';

/**
 * Deeper nesting than this is reported instead of risking the JavaScript stack in later passes.
 * A level is an expression (parentheses included), a block, a generic or function type, or an
 * `else if`.
 */
export const MAX_NESTING = 1000;

/** How many levels lowering recurses before it lowers the rest of a subtree iteratively. */
const RECURSION_CHUNK = 64;

/** The CST node types of expressions (grammar.js `_expression`). */
const EXPRESSION_TYPES = new Set<string>([
  'identifier', 'number', 'string', 'true', 'false', 'null', 'list', 'map', 'struct_literal', 'vec_literal',
  'closure', 'parenthesized_expression', 'binary_expression', 'unary_expression', 'index_expression',
  'member_expression', 'method_call', 'call_expression', 'builtin_call', 'list_operation', 'use_expression',
  'use_schema', 'grant_expression', 'infer_expression', 'ask_expression', 'confidence_expression', 'spawn_expression', 'spawn_each',
  'gather_expression', 'receive', 'send_expression', 'remember_expression', 'recall_expression', 'context_call',
  'invoke_expression', 'scope_expression', 'task_expression', 'detach_expression',
]);

/** Expressions lowered where they are met: they hold no expression, block or type. */
const LEAF_EXPRESSIONS = new Set<string>(['identifier', 'number', 'string', 'true', 'false', 'null', 'use_expression']);

/** Types that hold types. */
const COMPOUND_TYPES = new Set<string>(['generic_type', 'function_type', 'optional_type', 'union_type', 'parenthesized_type']);

/**
 * Whether a node of `type` under a node of `parentType`, in its `field`, is one level of nesting:
 * what lowering passes to `expr`, `block`, `type` (a compound type) or `elseIf`.
 */
function isLevel(type: string, parentType: string, field: () => string | null): boolean {
  if (parentType === 'literal_type') return false;
  if (type === 'identifier' || type === 'string') return !isName(type, parentType, field());
  return EXPRESSION_TYPES.has(type) || type === 'block' || COMPOUND_TYPES.has(type) || (type === 'if_statement' && parentType === 'if_statement');
}

/** Whether an identifier or string is a name or path its parent reads (a `let`'s, a map key...), not an expression. */
function isName(type: string, parentType: string, field: string | null): boolean {
  if (type === 'identifier') {
    return field === 'parameter' || field === 'kind' || field === 'policy' || field === 'protocol' || (field === 'name' && parentType !== 'grant_expression');
  }
  return parentType === 'literal_type' || field === 'path' || (field === 'key' && parentType === 'map_entry');
}

const BINARY_OPS = new Set<string>(['+', '-', '*', '/', '==', '!=', '<', '>', '<=', '>=', 'and', 'or', '~>']);

/**
 * Lowers the file's CST. With `reuse` (the language server keeps one per document), a top-level
 * statement whose type and text are those of a statement lowered last time, both free of syntax
 * errors and of diagnostics, is not lowered again: its AST is taken from the cache and its spans
 * moved to where it now starts. Lowering is a function of a statement's own subtree, and a
 * subtree without errors is a function of its text, so the result is the same as lowering afresh
 * (test/language-server/incremental.test.ts compares the two after random edits).
 */
export function lowerProgram(root: CstNode, file: SourceFile, reuse?: LoweringCache): { program: A.Program; diagnostics: Diagnostic[] } {
  const lowerer = new Lowerer(file, reuse);
  const program = lowerer.program(root);
  return { program, diagnostics: lowerer.diagnostics };
}

interface CachedStatement {
  /** undefined for a top-level node that lowers to no statement. */
  stmt: A.Stmt | undefined;
  /** Where the statement started when its spans were last set. */
  start: number;
  /** Every span object in the statement's AST, once each: moving the statement rewrites these. */
  spans: A.Span[];
}

/**
 * The top-level statements of the last lowering, by node type and text. Owned by one document:
 * each lowering takes the statements it reuses out of it and leaves it holding this lowering's.
 * The ASTs it hands out are moved (their spans rewritten) on reuse, so a program lowered earlier
 * with the same cache must no longer be used.
 */
export class LoweringCache {
  entries = new Map<string, CachedStatement[]>();
  /** How many top-level statements the last lowering reused and lowered (for tests and benchmarks). */
  reused = 0;
  lowered = 0;
}

/**
 * The span objects in `node`'s AST, each once (nodes may share one). Found by going through every
 * object and array below `node`, not by `walk`: spans also sit on objects that are not nodes (a
 * closure's parameters), and relocating must miss none. Iterative, like `walk`.
 */
function spansOf(node: A.Node): A.Span[] {
  const seen = new Set<A.Span>();
  const pending: unknown[] = [node];
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value !== 'object' || value === null) continue;
    if (Array.isArray(value)) {
      for (const item of value) pending.push(item);
      continue;
    }
    for (const [key, field] of Object.entries(value)) {
      if (key === 'span') seen.add(field as A.Span);
      else pending.push(field);
    }
  }
  return [...seen];
}

/** Unwinds to the statement being lowered, which is left out (the problem is reported once). */
class TooDeep extends Error {}

class Lowerer {
  readonly diagnostics: Diagnostic[] = [];
  /** Levels of nesting (see `isLevel`) above the node being lowered by recursion. */
  private depth = 0;
  /** Nodes lowered ahead by `prepare`, by node id. */
  private readonly lowered = {
    exprs: new Map<number, A.Expr>(),
    blocks: new Map<number, A.Block>(),
    types: new Map<number, A.TypeExpr>(),
    ifs: new Map<number, A.IfStmt>(),
  };
  /** Statements left out because something in them is nested too deep (reported once). */
  private readonly tooDeep = new Set<number>();
  private reportedTooDeep = false;

  constructor(
    private readonly file: SourceFile,
    private readonly reuse?: LoweringCache,
  ) {}

  program(root: CstNode): A.Program {
    this.collectSyntaxErrors(root);
    return { kind: 'Program', body: this.reuse ? this.topLevel(root, this.reuse) : this.statements(root), span: span(root) };
  }

  /** `statements(root)`, taking unchanged statements from `cache` (see `lowerProgram`). */
  private topLevel(root: CstNode, cache: LoweringCache): A.Stmt[] {
    const previous = cache.entries;
    const next = new Map<string, CachedStatement[]>();
    const text = this.file.text;
    const anyError = root.hasError;
    const out: A.Stmt[] = [];
    cache.reused = 0;
    cache.lowered = 0;
    for (const child of named(root)) {
      const start = child.startIndex;
      // A struct's description is the doc comment before it, outside its node: part of its key.
      const doc = child.type === 'struct_declaration' ? docBefore(child) : undefined;
      const key = child.type + '\u0000' + (doc === undefined ? '' : doc + '\u0000') + text.slice(start, child.endIndex);
      const clean = !anyError || !child.hasError;
      let entry = clean ? previous.get(key)?.pop() : undefined;
      if (entry) {
        cache.reused++;
        const delta = start - entry.start;
        if (delta !== 0) {
          for (const s of entry.spans) {
            s.start += delta;
            s.end += delta;
          }
          entry.start = start;
        }
      } else {
        cache.lowered++;
        const diagnosticsBefore = this.diagnostics.length;
        const deepBefore = this.reportedTooDeep;
        let stmt: A.Stmt | undefined;
        if (!this.tooDeep.has(child.id)) {
          try {
            stmt = this.statement(child);
          } catch (e) {
            if (!(e instanceof TooDeep)) throw e; // reported once; the statement is left out
          }
        }
        // Only what lowered cleanly is kept: a reported statement (or one lowered after the one
        // nesting report, which would not report again) is lowered afresh next time.
        if (!clean || deepBefore || this.diagnostics.length !== diagnosticsBefore) {
          if (stmt) out.push(stmt);
          continue;
        }
        entry = { stmt, start, spans: stmt ? spansOf(stmt) : [] };
      }
      if (entry.stmt) out.push(entry.stmt);
      const list = next.get(key);
      if (list) list.push(entry);
      else next.set(key, [entry]);
    }
    cache.entries = next;
    return out;
  }

  // ---------------------------------------------------------------- depth

  /**
   * Lowers `node` — one level of nesting below `this.depth` — with `lower` by recursion, or, past
   * RECURSION_CHUNK levels, by `prepare` (then `lower` finds its children lowered).
   */
  private nested<T>(node: CstNode, lower: (node: CstNode) => T): T {
    if (this.depth >= RECURSION_CHUNK && node.childCount > 0 && !node.isError) this.prepare(node);
    this.depth++;
    try {
      return lower.call(this, node);
    } finally {
      this.depth--;
    }
  }

  /**
   * One iterative walk of `root`'s subtree (a tree cursor), `root` being one level below
   * `this.depth`. Going down, it counts the levels of nesting; past MAX_NESTING it reports the node
   * (the first time) and leaves out the innermost statement holding it: one inside the subtree is
   * skipped, one outside is unwound to with TooDeep. Coming back up, it lowers each node that holds
   * others, so its parent finds it lowered. ERROR nodes are not entered: they are reported, never
   * lowered. `root` itself is left to the caller.
   */
  private prepare(root: CstNode): void {
    // Per depth of the cursor: the node's type and id, its level, and the depth of the innermost
    // statement holding it (its own depth for a statement; -1 when it is outside the subtree).
    const types: string[] = [root.type];
    const ids: number[] = [root.id];
    const levels: number[] = [this.depth + 1];
    const statements: number[] = [-1];
    const cursor = root.walk();
    try {
      if (!cursor.gotoFirstChild()) return;
      let depth = 1;
      for (;;) {
        const type = cursor.nodeType;
        let descend = false;
        if (type !== 'ERROR') {
          const parentType = types[depth - 1];
          const level = levels[depth - 1] + (isLevel(type, parentType, () => cursor.currentFieldName) ? 1 : 0);
          // A block's named children are statements (the file's are lowered by recursion).
          const statement = parentType === 'block' && cursor.nodeIsNamed ? depth : statements[depth - 1];
          types[depth] = type;
          ids[depth] = cursor.nodeId;
          if (level > MAX_NESTING) {
            this.tooDeepAt({ start: cursor.startIndex, end: cursor.endIndex }, statement >= 0);
            // The statement, inside the subtree, is left out: back up to it, and go on after it
            // without lowering it.
            this.tooDeep.add(ids[statement]);
            for (; depth > statement; depth--) cursor.gotoParent();
          } else {
            levels[depth] = level;
            statements[depth] = statement;
            descend = true;
          }
        }
        if (descend && cursor.gotoFirstChild()) {
          depth++;
          continue;
        }
        // The node is done (a leaf, skipped, or left out): on to its next sibling, lowering the
        // parents it leaves on the way.
        while (!cursor.gotoNextSibling()) {
          cursor.gotoParent();
          depth--;
          if (depth === 0) return;
          this.lowerAhead(types[depth], cursor);
        }
      }
    } finally {
      cursor.delete();
    }
  }

  /** Reports nesting past MAX_NESTING at `where` (the first time); unwinds unless `handled`. */
  private tooDeepAt(where: A.Span, handled = false): void {
    if (!this.reportedTooDeep) {
      this.reportedTooDeep = true;
      this.error(where, `nesting too deep: more than ${MAX_NESTING} levels of nested expressions, blocks or types`, 'nesting');
    }
    if (!handled) throw new TooDeep();
  }

  /** Lowers the cursor's node, of `type`, if it holds others (see `prepare`). */
  private lowerAhead(type: string, cursor: TreeCursor): void {
    if (EXPRESSION_TYPES.has(type)) {
      if (LEAF_EXPRESSIONS.has(type)) return;
      const node = cursor.currentNode;
      this.lowered.exprs.set(node.id, this.exprInner(node));
    } else if (type === 'block') {
      const node = cursor.currentNode;
      this.lowered.blocks.set(node.id, this.blockInner(node));
    } else if (COMPOUND_TYPES.has(type)) {
      const node = cursor.currentNode;
      this.lowered.types.set(node.id, this.typeInner(node));
    } else if (type === 'if_statement') {
      const node = cursor.currentNode;
      this.lowered.ifs.set(node.id, this.ifStatementInner(node));
    }
  }

  // ---------------------------------------------------------------- syntax errors

  private collectSyntaxErrors(root: CstNode): void {
    if (!root.hasError) return;
    const cursor = root.walk();
    try {
      let descend = true;
      for (;;) {
        const node = cursor.currentNode;
        if (node.isMissing) {
          this.missing(node);
          descend = false;
        } else if (node.isError) {
          this.unexpected(node);
          descend = false; // one diagnostic per error region
        } else {
          descend = node.hasError;
        }
        if (descend && cursor.gotoFirstChild()) continue;
        while (!cursor.gotoNextSibling()) {
          if (!cursor.gotoParent()) return;
        }
      }
    } finally {
      cursor.delete();
    }
  }

  /** Reported where the parser found something else: at the next token, which it names. */
  private missing(node: CstNode): void {
    const text = this.file.text;
    const slip = slipInMissing(node, text);
    if (slip) return this.error(slip.span, slip.message);
    let at = node.startIndex;
    while (at < text.length && /\s/.test(text[at])) at++;
    const expected = describeExpected(node.type);
    const found = at < text.length ? `, found \`${String.fromCodePoint(text.codePointAt(at)!)}\`` : ' at the end of the file';
    this.error({ start: at, end: at }, `syntax error: expected ${expected}${found}`);
  }

  /**
   * An ERROR node holds the tokens the parser could not fit. Point at a character no token can
   * start with if there is one; otherwise at the last token before the statement's terminator,
   * which is usually where the parser gave up.
   */
  private unexpected(node: CstNode): void {
    const leaves: CstNode[] = [];
    const pending: CstNode[] = [node]; // iterative: an ERROR node can hold deep subtrees
    while (pending.length > 0) {
      const n = pending.pop()!;
      if (n.childCount === 0) leaves.push(n);
      else for (let i = n.childCount - 1; i >= 0; i--) {
        const c = n.child(i);
        if (c) pending.push(c);
      }
    }
    const slip = slipInError(node, leaves);
    if (slip) return this.error(slip.span, slip.message);
    let culprit = leaves.find((l) => l.isError) ?? leaves[leaves.length - 1];
    if (culprit && !culprit.isError && (culprit.type === ';' || culprit.type === '}') && leaves.length > 1) {
      culprit = leaves[leaves.length - 2];
    }
    const text = culprit ? this.file.text.slice(culprit.startIndex, culprit.endIndex) : '';
    if (!culprit || text.length === 0) {
      this.error(span(node), 'syntax error: unexpected end of file');
      return;
    }
    const shown = text.length > 30 ? text.slice(0, 30) + '…' : text;
    this.error(span(culprit), `syntax error: unexpected \`${shown.replace(/\n/g, '\\n')}\``);
  }

  private error(where: A.Span, message: string, code = 'syntax'): void {
    this.diagnostics.push({ severity: 'error', message, span: where, code });
  }

  // ---------------------------------------------------------------- statements

  private statements(parent: CstNode): A.Stmt[] {
    const out: A.Stmt[] = [];
    for (const child of named(parent)) {
      if (this.tooDeep.has(child.id)) continue; // reported once; the statement is left out
      try {
        const stmt = this.statement(child);
        if (stmt) out.push(stmt);
      } catch (e) {
        if (!(e instanceof TooDeep)) throw e; // reported once; the statement is left out
      }
    }
    return out;
  }

  private statement(node: CstNode): A.Stmt | undefined {
    const s = span(node);
    switch (node.type) {
      case 'let_statement':
        return this.letStatement(node);
      case 'expression_statement': {
        const inner = named(node)[0];
        return inner ? { kind: 'ExprStmt', expr: this.expr(inner), span: s } : undefined;
      }
      case 'return_statement': {
        const value = node.childForFieldName('value');
        return { kind: 'Return', value: value ? this.expr(value) : undefined, span: s };
      }
      case 'if_statement':
        return this.ifStatement(node);
      case 'while_statement':
        return {
          kind: 'While',
          condition: this.expr(node.childForFieldName('condition')),
          body: this.block(node.childForFieldName('body'), node),
          span: s,
        };
      case 'try_statement':
        return {
          kind: 'Try',
          body: this.block(node.childForFieldName('body'), node),
          param: this.identifier(node.childForFieldName('parameter'), node),
          handler: this.block(node.childForFieldName('handler'), node),
          span: s,
        };
      case 'throw_statement':
        return { kind: 'Throw', value: this.expr(node.childForFieldName('value')), span: s };
      case 'struct_declaration': {
        const params = node.childForFieldName('type_parameters');
        const description = docBefore(node);
        return {
          kind: 'Struct',
          ...(description === undefined ? {} : { description }),
          name: this.identifier(node.childForFieldName('name'), node),
          typeParams: params ? named(params).map((p) => this.identifier(p, params)) : [],
          fields: fieldChildren(node, 'field').map((f) => this.fieldDeclaration(f)),
          span: s,
        };
      }
      case 'impl_declaration':
        return {
          kind: 'Impl',
          typeName: this.identifier(node.childForFieldName('type'), node),
          methods: fieldChildren(node, 'method').map((m) => this.letStatement(m)),
          span: s,
        };
      case 'type_alias':
        return {
          kind: 'TypeAlias',
          name: this.identifier(node.childForFieldName('name'), node),
          type: this.type(node.childForFieldName('type'), node),
          span: s,
        };
      case 'entry_block':
        return { kind: 'Entry', body: this.block(node.childForFieldName('body'), node), span: s };
      case 'suspend_statement':
        return { kind: 'Suspend', span: s };
      default:
        // ERROR nodes and comments: already reported / not statements.
        return undefined;
    }
  }

  private fieldDeclaration(f: CstNode): A.FieldDecl {
    const description = docBefore(f);
    return {
      kind: 'FieldDecl',
      name: this.identifier(f.childForFieldName('name'), f),
      type: this.type(f.childForFieldName('type'), f),
      ...(description === undefined ? {} : { description }),
      checks: fieldChildren(f, 'check').map((c) => ({
        kind: 'FieldCheck',
        name: this.identifier(c.childForFieldName('name'), c),
        args: this.arguments(c),
        span: span(c),
      })),
      span: span(f),
    };
  }

  private letStatement(node: CstNode): A.LetStmt {
    const type = node.childForFieldName('type');
    return {
      kind: 'Let',
      name: this.identifier(node.childForFieldName('name'), node),
      type: type ? this.type(type, node) : undefined,
      value: this.expr(node.childForFieldName('value'), node),
      span: span(node),
    };
  }

  private ifStatement(node: CstNode): A.IfStmt {
    return this.lowered.ifs.get(node.id) ?? this.ifStatementInner(node);
  }

  /** An `else if`: one level deeper than its `if`. */
  private elseIf(node: CstNode): A.IfStmt {
    return this.lowered.ifs.get(node.id) ?? this.nested(node, this.ifStatementInner);
  }

  private ifStatementInner(node: CstNode): A.IfStmt {
    const alt = node.childForFieldName('alternative');
    return {
      kind: 'If',
      condition: this.expr(node.childForFieldName('condition'), node),
      then: this.block(node.childForFieldName('consequence'), node),
      else: alt ? (alt.type === 'if_statement' ? this.elseIf(alt) : this.block(alt, node)) : undefined,
      span: span(node),
    };
  }

  private block(node: CstNode | null, parent: CstNode): A.Block {
    if (!node) return { kind: 'Block', body: [], span: endSpan(parent) };
    return this.lowered.blocks.get(node.id) ?? this.nested(node, this.blockInner);
  }

  private blockInner(node: CstNode): A.Block {
    return { kind: 'Block', body: this.statements(node), span: span(node) };
  }

  // ---------------------------------------------------------------- types

  private type(node: CstNode | null, parent: CstNode): A.TypeExpr {
    if (!node) return { kind: 'NamedType', name: 'Any', args: [], span: endSpan(parent) };
    const ahead = this.lowered.types.get(node.id);
    if (ahead) return ahead;
    return COMPOUND_TYPES.has(node.type) ? this.nested(node, this.typeInner) : this.typeInner(node);
  }

  private typeInner(node: CstNode): A.TypeExpr {
    const s = span(node);
    switch (node.type) {
      case 'type_identifier':
      case 'identifier':
        return { kind: 'NamedType', name: node.text, args: [], span: s };
      case 'generic_type': {
        const args = node.childForFieldName('arguments');
        return {
          kind: 'NamedType',
          name: node.childForFieldName('name')?.text ?? 'Any',
          args: args ? named(args).map((a) => this.type(a, args)) : [],
          span: s,
        };
      }
      case 'function_type':
        return {
          kind: 'FunctionType',
          params: fieldChildren(node, 'parameter').map((p) => this.type(p, node)),
          result: this.type(node.childForFieldName('result'), node),
          span: s,
        };
      case 'optional_type':
        return { kind: 'OptionalType', inner: this.type(node.childForFieldName('type'), node), span: s };
      case 'parenthesized_type': {
        const inner = this.type(named(node)[0] ?? null, node);
        return { ...inner, span: s };
      }
      case 'union_type': {
        const members = fieldChildren(node, 'member').map((m) => this.type(m, node));
        // Only string literals: today's string enum (JSON Schema `enum`), with its meaning kept.
        if (members.every((m) => m.kind === 'LiteralType' && typeof m.value === 'string')) {
          return { kind: 'EnumType', values: members.map((m) => (m as A.LiteralType).value as string), span: s };
        }
        return { kind: 'UnionType', members, span: s };
      }
      case 'literal_type':
        return { kind: 'LiteralType', value: this.literalValue(node), span: s };
      default:
        return { kind: 'NamedType', name: 'Any', args: [], span: s };
    }
  }

  // ---------------------------------------------------------------- expressions

  private expr(node: CstNode | null, parent?: CstNode): A.Expr {
    if (!node) return { kind: 'Null', span: parent ? endSpan(parent) : { start: 0, end: 0 } };
    return this.lowered.exprs.get(node.id) ?? this.nested(node, this.exprInner);
  }

  private exprInner(node: CstNode): A.Expr {
    const s = span(node);
    switch (node.type) {
      case 'identifier':
        // A MISSING identifier is the parser's placeholder for an absent expression (reported already).
        return node.isMissing ? { kind: 'Null', span: s } : { kind: 'Identifier', name: node.text, span: s };
      case 'number':
        return { kind: 'Number', value: Number(node.text), span: s };
      case 'string':
        return { kind: 'String', value: this.stringValue(node), span: s };
      case 'true':
        return { kind: 'Bool', value: true, span: s };
      case 'false':
        return { kind: 'Bool', value: false, span: s };
      case 'null':
        return { kind: 'Null', span: s };
      case 'list':
        return { kind: 'List', items: named(node).map((n) => this.expr(n)), span: s };
      case 'vec_literal':
        return { kind: 'Vec', items: named(node).map((n) => this.expr(n)), span: s };
      case 'map':
        return {
          kind: 'Map',
          entries: fieldChildren(node, 'entry').map((e) => ({
            key: this.stringValue(e.childForFieldName('key')),
            value: this.expr(e.childForFieldName('value'), e),
            span: span(e),
          })),
          span: s,
        };
      case 'struct_literal':
        return this.structLiteral(node);
      case 'closure':
        return this.closure(node);
      case 'parenthesized_expression':
        return this.expr(named(node)[0] ?? null, node);
      case 'binary_expression': {
        const op = node.childForFieldName('operator')?.type ?? '+';
        if (!BINARY_OPS.has(op)) this.error(s, `unknown operator \`${op}\``);
        return {
          kind: 'Binary',
          op: op as A.BinaryOp,
          left: this.expr(node.childForFieldName('left'), node),
          right: this.expr(node.childForFieldName('right'), node),
          span: s,
        };
      }
      case 'unary_expression':
        return {
          kind: 'Unary',
          op: node.childForFieldName('operator')?.type === '-' ? '-' : '!',
          operand: this.expr(node.childForFieldName('operand'), node),
          span: s,
        };
      case 'index_expression':
        return {
          kind: 'Index',
          target: this.expr(node.childForFieldName('target'), node),
          index: this.expr(node.childForFieldName('index'), node),
          span: s,
        };
      case 'member_expression':
        return {
          kind: 'Member',
          target: this.expr(node.childForFieldName('target'), node),
          name: this.identifier(node.childForFieldName('name'), node),
          span: s,
        };
      case 'method_call':
        return {
          kind: 'MethodCall',
          target: this.expr(node.childForFieldName('target'), node),
          name: this.identifier(node.childForFieldName('name'), node),
          args: this.arguments(node),
          span: s,
        };
      case 'call_expression':
        return {
          kind: 'Call',
          callee: this.expr(node.childForFieldName('function'), node),
          args: this.arguments(node),
          span: s,
        };
      case 'builtin_call': {
        const args = this.arguments(node);
        if (args.length === 0) {
          this.error(s, '`call` needs a closure or a tool name as its first argument', 'arity');
          return { kind: 'CallBuiltin', target: { kind: 'Null', span: s }, args: [], span: s };
        }
        return { kind: 'CallBuiltin', target: args[0], args: args.slice(1), span: s };
      }
      case 'list_operation': {
        const op = node.childForFieldName('operator')?.type === 'filter' ? 'filter' : 'map';
        const [list, fn] = this.fixedArguments(node, op, 2);
        return { kind: 'ListOp', op, list, fn, span: s };
      }
      case 'spawn_each': {
        const [list, fn] = this.fixedArguments(node, 'spawn_each', 2);
        return { kind: 'SpawnEach', list, fn, span: s };
      }
      case 'use_expression': {
        const pathNode = node.childForFieldName('path');
        return {
          kind: 'Use',
          path: { kind: 'String', value: this.stringValue(pathNode), span: pathNode ? span(pathNode) : s },
          span: s,
        };
      }
      case 'use_schema':
        return {
          kind: 'UseSchema',
          protocol: this.identifier(node.childForFieldName('protocol'), node),
          source: this.expr(node.childForFieldName('source'), node),
          span: s,
        };
      case 'grant_expression':
        return {
          kind: 'Grant',
          identityKind: this.identifier(node.childForFieldName('kind'), node),
          name: this.expr(node.childForFieldName('name'), node),
          span: s,
        };
      case 'infer_expression':
      case 'ask_expression': {
        const opts = node.childForFieldName('options');
        return {
          kind: 'Infer',
          ...(node.type === 'ask_expression' ? { person: true as const } : {}),
          type: this.type(node.childForFieldName('type'), node),
          ...(opts
            ? {
                options: fieldChildren(opts, 'option').map((o) => ({
                  name: this.identifier(o.childForFieldName('name'), o),
                  value: this.expr(o.childForFieldName('value'), o),
                  span: span(o),
                })),
              }
            : {}),
          body: this.block(node.childForFieldName('body'), node),
          span: s,
        };
      }
      case 'confidence_expression':
        return { kind: 'Confidence', operand: this.expr(node.childForFieldName('operand'), node), span: s };
      case 'spawn_expression':
        return {
          kind: 'Spawn',
          link: node.childForFieldName('mode')?.type === 'spawn_link',
          body: this.expr(node.childForFieldName('body'), node),
          span: s,
        };
      case 'gather_expression':
        return { kind: 'Gather', operand: this.expr(node.childForFieldName('operand'), node), span: s };
      case 'receive': {
        const timeout = node.childForFieldName('timeout');
        return { kind: 'Receive', timeout: timeout ? this.expr(timeout, node) : undefined, span: s };
      }
      case 'invoke_expression':
        return { kind: 'Invoke', call: this.expr(node.childForFieldName('call'), node), span: s };
      case 'scope_expression':
        return {
          kind: 'Scope',
          policy: this.identifier(node.childForFieldName('policy'), node),
          body: this.block(node.childForFieldName('body'), node),
          span: s,
        };
      case 'task_expression':
        return { kind: 'Task', body: this.expr(node.childForFieldName('body'), node), span: s };
      case 'detach_expression':
        return { kind: 'Detach', body: this.expr(node.childForFieldName('body'), node), span: s };
      case 'send_expression':
        return {
          kind: 'Send',
          pid: this.expr(node.childForFieldName('pid'), node),
          message: this.expr(node.childForFieldName('message'), node),
          span: s,
        };
      case 'remember_expression':
        return {
          kind: 'Remember',
          key: this.expr(node.childForFieldName('key'), node),
          value: this.expr(node.childForFieldName('value'), node),
          span: s,
        };
      case 'recall_expression':
        return { kind: 'Recall', key: this.expr(node.childForFieldName('key'), node), span: s };
      case 'context_call':
        return {
          kind: 'Context',
          op: node.childForFieldName('operation')?.type === 'system' ? 'system' : 'append',
          arg: this.expr(node.childForFieldName('argument'), node),
          span: s,
        };
      default:
        // An ERROR node in expression position: reported already; keep going with a placeholder.
        return { kind: 'Null', span: s };
    }
  }

  private structLiteral(node: CstNode): A.StructLit {
    const spreads = fieldChildren(node, 'spread');
    const fields = fieldChildren(node, 'field');
    if (spreads.length > 1) this.error(span(spreads[1]), 'a struct literal takes at most one `..base` spread');
    const spread = spreads[0];
    if (spread && fields.some((f) => f.startIndex > spread.startIndex)) {
      this.error(span(spread), 'the `..base` spread must come after the named fields');
    }
    return {
      kind: 'StructLit',
      name: this.identifier(node.childForFieldName('name'), node),
      fields: fields.map((f) => ({
        name: this.identifier(f.childForFieldName('name'), f),
        value: this.expr(f.childForFieldName('value'), f),
        span: span(f),
      })),
      spread: spread ? this.expr(named(spread)[0] ?? null, spread) : undefined,
      span: span(node),
    };
  }

  private closure(node: CstNode): A.Closure {
    const params = node.childForFieldName('parameters');
    const ret = node.childForFieldName('return_type');
    return {
      kind: 'Closure',
      params: params
        ? fieldChildren(params, 'parameter').map((p) => {
            const type = p.childForFieldName('type');
            return {
              name: this.identifier(p.childForFieldName('name'), p),
              type: type ? this.type(type, p) : undefined,
              span: span(p),
            };
          })
        : [],
      returnType: ret ? this.type(ret, node) : undefined,
      body: this.block(node.childForFieldName('body'), node),
      span: span(node),
    };
  }

  private arguments(node: CstNode): A.Expr[] {
    const args = node.childForFieldName('arguments');
    return args ? named(args).map((a) => this.expr(a)) : [];
  }

  private fixedArguments(node: CstNode, name: string, count: number): A.Expr[] {
    const args = this.arguments(node);
    if (args.length !== count) {
      this.error(span(node), `\`${name}\` takes ${count} arguments, got ${args.length}`, 'arity');
    }
    const out = args.slice(0, count);
    while (out.length < count) out.push({ kind: 'Null', span: endSpan(node) });
    return out;
  }

  private identifier(node: CstNode | null, parent: CstNode): A.Identifier {
    if (!node) return { kind: 'Identifier', name: '', span: endSpan(parent) };
    return { kind: 'Identifier', name: node.text, span: span(node) };
  }

  private literalValue(node: CstNode): string | number | boolean | null {
    const inner = named(node)[0];
    switch (inner?.type) {
      case 'string':
        return this.stringValue(inner);
      case 'number':
        return node.text.trimStart().startsWith('-') ? -Number(inner.text) : Number(inner.text);
      case 'true':
        return true;
      case 'false':
        return false;
      default:
        return null;
    }
  }

  /** The value of a string literal, with escapes decoded. */
  private stringValue(node: CstNode | null): string {
    if (!node) return '';
    let out = '';
    for (const part of named(node)) {
      if (part.type === 'string_content') out += part.text;
      else if (part.type === 'escape_sequence') out += this.decodeEscape(part);
    }
    return out;
  }

  private decodeEscape(node: CstNode): string {
    const text = node.text;
    switch (text[1]) {
      case 'n':
        return '\n';
      case 'r':
        return '\r';
      case 't':
        return '\t';
      case '0':
        return '\0';
      case 'u': {
        const hex = text.startsWith('\\u{') ? text.slice(3, -1) : text.slice(2);
        const code = parseInt(hex, 16);
        if (code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
          this.error(span(node), `invalid Unicode escape \`${text}\``);
          return '\ufffd';
        }
        return String.fromCodePoint(code);
      }
      default:
        return text.slice(1);
    }
  }
}

function span(node: CstNode): A.Span {
  return { start: node.startIndex, end: node.endIndex };
}

function endSpan(node: CstNode): A.Span {
  return { start: node.endIndex, end: node.endIndex };
}

function named(node: CstNode): CstNode[] {
  const out: CstNode[] = [];
  for (const child of node.namedChildren) {
    if (child && child.type !== 'line_comment' && child.type !== 'block_comment' && child.type !== 'doc_comment') out.push(child);
  }
  return out;
}

/**
 * The description a run of `///` comments directly before `node` gives it (undefined if none):
 * each line without its `///` and one space, joined by newlines. Another comment in between
 * ends the run.
 */
function docBefore(node: CstNode): string | undefined {
  const lines: string[] = [];
  for (let c = node.previousSibling; c && c.type === 'doc_comment'; c = c.previousSibling) {
    lines.unshift(c.text.slice(3).replace(/^ /, '').trimEnd());
  }
  return lines.length > 0 ? lines.join('\n') : undefined;
}

function fieldChildren(node: CstNode, field: string): CstNode[] {
  return node.childrenForFieldName(field).filter((c): c is CstNode => c !== null);
}
