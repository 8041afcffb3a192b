// The Turn formatter: reprints the tokens of the tree-sitter CST with canonical whitespace, so that
// comments survive exactly where they were. Used by `turn fmt` and the language server's
// textDocument/formatting. Style:
//
//  - 4 spaces of indentation; one statement per line; at most one blank line kept between statements
//    (where the source had one), none after `{` or before `}`.
//  - Blocks (`if`, `while`, closures, `turn { }`, `impl`) open on the same line: `if x {`, `} else {`;
//    an empty block is `{}`. Struct declarations put one field per line. A short struct declaration
//    or `infer` block written on one line (at most SHORT characters, no comment inside) stays on it:
//    `struct P { x: Num };`, `infer Str { "Summarise"; }`.
//  - Lists, maps, struct literals, arguments and parameters stay on one line unless the source breaks
//    the line right after the opening bracket; then each element goes on its own line.
//  - Spaces around binary operators, `->`, `=` and `|`; after `,` and `:`; none inside `( )`, `[ ]`,
//    `<>` of types, or `{}` of maps; `P { x: 1 }` for struct literals; none before a call's `(`.
//  - Comments stay: a `//` comment that followed code on its line still does, as far from it as it was
//    where that line is unchanged (aligned comments stay aligned); others get their own line;
//    a `/* */` comment written against a token (`/*x*/name`) stays against it.
//  - Tokens are never added or removed, only whitespace: formatting cannot change what a program means.
//  - A file with syntax errors is not formatted.
// Formatting is idempotent: formatting its own output changes nothing (tested on every fixture).
import type { Node as CstNode } from 'web-tree-sitter';
import { createParser } from '../syntax/parse.js';
import { nestingBeyond, nestingMessage } from '../syntax/nesting.js';
import { SourceFile } from '../syntax/source.js';

export const INDENT = '    ';

interface Tok {
  text: string;
  type: string;
  parent: CstNode | null;
  start: number;
  end: number;
  /** Newlines in the source between the previous token and this one. */
  newlinesBefore: number;
  /** Whether the source has no whitespace at all between the previous token and this one. */
  touching: boolean;
}

type Mode = 'block' | 'multi' | 'inline';

const ATOMIC = new Set(['string', 'line_comment', 'doc_comment', 'block_comment', 'number']);
/** Comments that run to the end of their line: `//` and `///` (a doc comment). */
const LINE_COMMENTS = new Set(['line_comment', 'doc_comment']);
const OPENERS = new Set(['{', '[', '(', '<']);
const CLOSERS = new Set(['}', ']', ')', '>']);
const BLOCK_CONTAINERS = new Set(['block', 'impl_declaration']);
const AUTO_CONTAINERS = new Set(['list', 'map', 'struct_literal', 'arguments', 'parameters', 'vec_literal', 'infer_options']);
/** Parents whose `(` follows the word before it directly: `f(x)`, `turn(a)`, `recall(k)`. */
const TIGHT_PARENS = new Set(['arguments', 'parameters', 'remember_expression', 'recall_expression', 'context_call', 'use_schema', 'grant_expression', 'receive']);
const TYPE_BRACKETS = new Set(['type_arguments', 'type_parameters']);
const STATEMENT_PARENTS = new Set(['source_file', 'block']);
/** The longest struct declaration or `infer` block kept on the one line it was written on. */
const SHORT = 80;
/** The most spaces kept before a `//` comment that follows code (its alignment). */
const MAX_COMMENT_GAP = 40;

/** A struct declaration or `infer` block written on one line, short, without comments: kept on that line. */
function writtenShort(node: CstNode, text: string): boolean {
  if (node.endIndex - node.startIndex > SHORT) return false;
  const inner = text.slice(node.startIndex, node.endIndex);
  return !inner.includes('\n') && !inner.includes('//') && !inner.includes('/*');
}

// Depth (docs/reliability.md): a file can nest as deep as it is long, and the formatter has no
// reason to refuse one that parses, so every walk of the tree below is iterative.

/** The children of `node`, last first: pushed on a stack, they come off in source order. */
function pushChildren(stack: CstNode[], children: (CstNode | null)[]): void {
  for (let i = children.length - 1; i >= 0; i--) {
    const c = children[i];
    if (c) stack.push(c);
  }
}

function collect(root: CstNode, text: string): Tok[] {
  const toks: Tok[] = [];
  let prevEnd = 0;
  const stack: CstNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.childCount === 0 || ATOMIC.has(node.type)) {
      if (node.endIndex === node.startIndex && !node.isMissing) continue;
      let newlines = 0;
      for (let i = prevEnd; i < node.startIndex; i++) if (text.charCodeAt(i) === 10) newlines++;
      toks.push({ text: text.slice(node.startIndex, node.endIndex), type: node.type, parent: node.parent, start: node.startIndex, end: node.endIndex, newlinesBefore: newlines, touching: prevEnd === node.startIndex });
      prevEnd = node.endIndex;
      continue;
    }
    pushChildren(stack, node.children);
  }
  return toks;
}

/** The formatted text of a parsed file. The tree must have no errors (see `formatSource`). */
export function formatTree(root: CstNode, text: string): string {
  const toks = collect(root, text);
  // Containers: their mode, keyed by the container node's id; statements: their first offsets.
  const modes = new Map<number, Mode>();
  const statementStarts = new Set<number>();
  /** the statements of a block kept on one line: one space between them */
  const inlineStatements = new Set<number>();
  const visit = (node: CstNode) => {
    if (node.type === 'block' && (node.parent?.type === 'infer_expression' || node.parent?.type === 'ask_expression') && writtenShort(node, text)) {
      modes.set(node.id, 'inline');
      for (const c of node.namedChildren) if (c) inlineStatements.add(c.startIndex);
    } else if (BLOCK_CONTAINERS.has(node.type)) modes.set(node.id, 'block');
    else if (node.type === 'struct_declaration') modes.set(node.id, writtenShort(node, text) ? 'inline' : 'multi');
    else if (AUTO_CONTAINERS.has(node.type)) {
      const open = node.children.find((c) => c && OPENERS.has(c.type));
      const next = open?.nextSibling;
      const gap = open && next ? text.slice(open.endIndex, next.startIndex) : '';
      modes.set(node.id, gap.includes('\n') ? 'multi' : 'inline');
    }
    if (STATEMENT_PARENTS.has(node.type)) {
      for (const c of node.namedChildren) if (c && !LINE_COMMENTS.has(c.type) && c.type !== 'block_comment') statementStarts.add(c.startIndex);
    } else if (node.type === 'impl_declaration') {
      for (const c of node.childrenForFieldName('method')) if (c) statementStarts.add(c.startIndex);
    }
  };
  for (const pending = [root]; pending.length > 0; ) {
    const node = pending.pop()!;
    visit(node);
    pushChildren(pending, node.namedChildren);
  }

  const modeOfBracket = (t: Tok): Mode | undefined => (t.parent && (OPENERS.has(t.type) || CLOSERS.has(t.type)) ? modes.get(t.parent.id) : undefined);
  const isOpen = (t: Tok, ...m: Mode[]) => OPENERS.has(t.type) && m.includes(modeOfBracket(t) as Mode);
  const isClose = (t: Tok, ...m: Mode[]) => CLOSERS.has(t.type) && m.includes(modeOfBracket(t) as Mode);

  let out = '';
  let depth = 0;
  const newline = (blank: boolean) => '\n' + (blank ? '\n' : '') + INDENT.repeat(depth);

  for (let i = 0; i < toks.length; i++) {
    const cur = toks[i];
    const prev = toks[i - 1];
    const blank = cur.newlinesBefore >= 2;
    if (isClose(cur, 'block', 'multi')) depth = Math.max(0, depth - 1);
    let sep: string;
    if (!prev) sep = '';
    else if (LINE_COMMENTS.has(prev.type)) sep = newline(blank && !isClose(cur, 'block', 'multi'));
    else if ((cur.type === 'block_comment' || prev.type === 'block_comment') && cur.touching) sep = '';
    else if (LINE_COMMENTS.has(cur.type) || cur.type === 'block_comment') {
      if (cur.newlinesBefore === 0) sep = prev.type === '(' || prev.type === '[' ? '' : commentGap(text, prev, cur, out);
      else sep = newline(blank && !isOpen(prev, 'block', 'multi'));
    } else if (isClose(cur, 'block', 'multi')) sep = prev.parent?.id === cur.parent?.id && isOpen(prev, 'block', 'multi') ? '' : newline(false);
    else if (isOpen(prev, 'block', 'multi')) sep = newline(false);
    else if (prev.type === ',' && prev.parent && modes.get(prev.parent.id) === 'multi') sep = newline(blank);
    else if (statementStarts.has(cur.start)) sep = inlineStatements.has(cur.start) ? ' ' : newline(blank);
    else sep = inlineSpace(prev, cur, modes);
    out += sep + cur.text;
    if (isOpen(cur, 'block', 'multi')) depth++;
  }
  return out.length > 0 ? out + '\n' : '';
}

/**
 * The spaces before a comment that follows code on its line: as written (its alignment) when the
 * formatter left the code before it on that line as it was; else one.
 */
function commentGap(text: string, prev: Tok, cur: Tok, out: string): string {
  const written = text.slice(prev.end, cur.start);
  if (written.length < 1 || written.length > MAX_COMMENT_GAP || !/^ +$/.test(written)) return ' ';
  const lineOut = out.slice(out.lastIndexOf('\n') + 1);
  const lineSrc = text.slice(text.lastIndexOf('\n', prev.end - 1) + 1, prev.end);
  return lineOut === lineSrc ? written : ' ';
}

function inlineSpace(prev: Tok, cur: Tok, modes: Map<number, Mode>): string {
  const p = prev.type;
  const c = cur.type;
  const prevParent = prev.parent?.type ?? '';
  const curParent = cur.parent?.type ?? '';
  if (p === '(' || p === '[' || p === '.' || p === '::' || p === '..') return '';
  if (p === '<' && TYPE_BRACKETS.has(prevParent)) return '';
  if ((p === '!' || p === '-') && prevParent === 'unary_expression') return '';
  // `Str?`, `@range(..)`, `-1` as a type
  if (c === '?' && curParent === 'optional_type') return '';
  if (p === '@' && prevParent === 'check_annotation') return '';
  if (p === '-' && prevParent === 'literal_type') return '';
  if (c === ',' || c === ';' || c === ')' || c === ']' || c === '.' || c === '::' || c === ':') return '';
  if ((c === '<' || c === '>') && TYPE_BRACKETS.has(curParent)) return '';
  if (c === '(' && TIGHT_PARENS.has(curParent)) return '';
  if (c === '[' && curParent === 'index_expression') return '';
  const inlineMap = (t: Tok) => t.parent?.type === 'map' && modes.get(t.parent.id) === 'inline';
  if (p === '{' && inlineMap(prev)) return '';
  if (c === '}' && inlineMap(cur)) return '';
  if (p === '{' && c === '}') return '';
  return ' ';
}

export type FormatResult = { ok: true; text: string; changed: boolean } | { ok: false; message: string; line: number; column: number };

/** Parses and formats `text`; a file with syntax errors comes back unformatted, with where the first error is. */
export async function formatSource(text: string): Promise<FormatResult> {
  const deep = nestingBeyond(text);
  if (deep >= 0) {
    const { line, column } = new SourceFile('', text).position(deep);
    return { ok: false, message: nestingMessage(), line, column };
  }
  const parser = await createParser();
  const tree = parser.parse(text);
  try {
    if (!tree) return { ok: false, message: 'the parser returned no tree', line: 1, column: 1 };
    if (tree.rootNode.hasError) {
      const bad = firstError(tree.rootNode);
      return { ok: false, message: 'syntax errors: fix them before formatting', line: (bad?.startPosition.row ?? 0) + 1, column: (bad?.startPosition.column ?? 0) + 1 };
    }
    const formatted = formatTree(tree.rootNode, text);
    return { ok: true, text: formatted, changed: formatted !== text };
  } finally {
    tree?.delete();
    parser.delete();
  }
}

/** The first ERROR or MISSING node in source order. */
function firstError(root: CstNode): CstNode | undefined {
  const stack: CstNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.isError || node.isMissing) return node;
    pushChildren(stack, node.children.filter((c) => c && (c.hasError || c.isMissing || c.isError)));
  }
  return undefined;
}
