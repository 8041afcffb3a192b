// What the cursor is in: the facts completion, hover and code actions share. Worked out from the text
// before the cursor and the tree-sitter tree, because while someone types the AST is often broken
// exactly where the cursor is.
import type { Node as CstNode } from 'web-tree-sitter';
import type { SymbolIndex } from '../runtime/index.js';
import { lookupName } from '../runtime/index.js';
import { ANY, type StaticType } from '../runtime/index.js';
import type { Analysis, TurnDocument } from './document.js';

const WORD_BEFORE = /[_\p{ID_Continue}]*$/u;

export interface CursorContext {
  doc: TurnDocument;
  analysis: Analysis;
  offset: number;
  /** The identifier characters just before the cursor (what is being typed). */
  word: string;
  /** Offset where `word` starts. */
  wordStart: number;
  /** The text of the line before `word`, block comments removed. */
  before: string;
  /** Offset of the last character before `word` that is not whitespace or inside a block comment. */
  lastSignificant: number;
  /** Inside a comment or a string literal. */
  inCommentOrString: boolean;
}

export function cursorContext(doc: TurnDocument, offset: number): CursorContext {
  const text = doc.text;
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const prefix = text.slice(lineStart, offset);
  const word = WORD_BEFORE.exec(prefix)?.[0] ?? '';
  return {
    doc,
    analysis: doc.analysis(),
    offset,
    word,
    wordStart: offset - word.length,
    before: prefix.slice(0, prefix.length - word.length).replace(/\/\*.*?\*\//g, ''),
    lastSignificant: skipTriviaBack(text, offset - word.length),
    inCommentOrString: inCommentOrString(doc, offset),
  };
}

/** The offset of the last significant character before `offset` (-1 if none): skips whitespace and block comments. */
export function skipTriviaBack(text: string, offset: number): number {
  let i = offset - 1;
  for (;;) {
    while (i >= 0 && /\s/.test(text[i])) i--;
    if (i >= 1 && text[i] === '/' && text[i - 1] === '*') {
      const open = text.lastIndexOf('/*', i - 2);
      if (open < 0) return i;
      i = open - 1;
      continue;
    }
    return i;
  }
}

/** The innermost CST node around `offset` (a cursor right after a token counts as in it). */
export function nodeAt(doc: TurnDocument, offset: number): CstNode | undefined {
  const root = doc.tree?.rootNode;
  if (!root) return undefined;
  return root.descendantForIndex(Math.max(0, offset - 1), offset) ?? undefined;
}

function inCommentOrString(doc: TurnDocument, offset: number): boolean {
  for (let n = nodeAt(doc, offset); n; n = n.parent ?? undefined) {
    if (n.type === 'line_comment') return offset > n.startIndex;
    if (n.type === 'block_comment') return offset > n.startIndex && offset < n.endIndex;
    if (n.type === 'string') return offset > n.startIndex && offset < n.endIndex;
  }
  return false;
}

/**
 * The static type of the expression that ends just before a `.` at `dotOffset`: from the analyzer's
 * expression types when the AST has that expression, else by following a written chain `a.b.c`
 * from the name `a` in scope (the AST is usually broken right after a `.`).
 */
export function typeBeforeDot(index: SymbolIndex, text: string, dotOffset: number): StaticType | undefined {
  let end = dotOffset;
  while (end > 0 && /\s/.test(text[end - 1])) end--;
  let best: { span: number; type: StaticType } | undefined;
  for (const [expr, type] of index.exprTypes) {
    if (expr.span.end === end && expr.kind !== 'Null' && (!best || expr.span.end - expr.span.start > best.span)) {
      best = { span: expr.span.end - expr.span.start, type };
    }
  }
  if (best && best.type.kind !== 'Any') return best.type;
  const chain = /([_\p{ID_Start}][_\p{ID_Continue}]*(?:\s*\.\s*[_\p{ID_Start}][_\p{ID_Continue}]*)*)$/u.exec(text.slice(0, end));
  if (!chain) return best?.type;
  const parts = chain[1].split('.').map((p) => p.trim());
  let t: StaticType | undefined = lookupName(index, dotOffset, parts[0])?.type;
  for (const field of parts.slice(1)) {
    if (t?.kind !== 'Struct') return ANY;
    t = index.structs.get(t.name)?.fields.get(field);
  }
  return t ?? best?.type;
}
