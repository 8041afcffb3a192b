// textDocument/foldingRange and textDocument/selectionRange, both from the tree-sitter tree.
import { FoldingRangeKind } from 'vscode-languageserver';
import type { FoldingRange, FoldingRangeParams, SelectionRange, SelectionRangeParams } from 'vscode-languageserver';
import type { Node as CstNode } from 'web-tree-sitter';
import { spanToRange } from './diagnostics.js';
import type { TurnDocument } from './document.js';

const FOLDABLE = new Set([
  'block', 'struct_declaration', 'impl_declaration', 'list', 'map', 'struct_literal', 'arguments', 'parameters', 'vec_literal', 'string',
]);

export function onFoldingRanges(doc: TurnDocument, _params: FoldingRangeParams): FoldingRange[] {
  const tree = doc.tree;
  if (!tree) return [];
  const out: FoldingRange[] = [];
  const seenStart = new Set<number>();
  const lines = doc.text.split('\n');
  const cursor = tree.walk();
  try {
    walk: for (;;) {
      const n = cursor.currentNode;
      const startLine = n.startPosition.row;
      const endLine = n.endPosition.row;
      if (endLine > startLine) {
        if (n.type === 'block_comment') out.push({ startLine, endLine, kind: FoldingRangeKind.Comment });
        else if (FOLDABLE.has(n.type) && !seenStart.has(startLine)) {
          // Keep the closing bracket's line visible when it starts with the bracket.
          const last = /^\s*[}\])]/.test(lines[endLine] ?? '') ? endLine - 1 : endLine;
          if (last > startLine) {
            seenStart.add(startLine);
            out.push({ startLine, endLine: last });
          }
        }
      }
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) break walk;
      }
    }
  } finally {
    cursor.delete();
  }
  // Runs of line comments, and `// region` … `// endregion` markers.
  const regions: number[] = [];
  let runStart = -1;
  for (let i = 0; i <= lines.length; i++) {
    const line = lines[i];
    const isComment = line !== undefined && /^\s*\/\//.test(line);
    if (line !== undefined && /^\s*\/\/\s*region\b/.test(line)) regions.push(i);
    else if (line !== undefined && /^\s*\/\/\s*endregion\b/.test(line) && regions.length) {
      out.push({ startLine: regions.pop()!, endLine: i, kind: FoldingRangeKind.Region });
    }
    if (isComment && !/^\s*\/\/\s*(end)?region\b/.test(line)) {
      if (runStart < 0) runStart = i;
    } else {
      if (runStart >= 0 && i - 1 > runStart) out.push({ startLine: runStart, endLine: i - 1, kind: FoldingRangeKind.Comment });
      runStart = -1;
    }
  }
  return out.sort((a, b) => a.startLine - b.startLine);
}

export function onSelectionRanges(doc: TurnDocument, params: SelectionRangeParams): SelectionRange[] {
  const root = doc.tree?.rootNode;
  return params.positions.map((position) => {
    const offset = doc.offsetAt(position);
    const whole: SelectionRange = { range: spanToRange(doc.file, 0, doc.text.length) };
    if (!root) return whole;
    // Outermost first, then each smaller node that covers a strictly smaller span.
    const chain: CstNode[] = [];
    for (let n: CstNode | null = root.descendantForIndex(offset, offset); n; n = n.parent) chain.unshift(n);
    let current: SelectionRange | undefined;
    let last = '';
    for (const n of chain) {
      const key = `${n.startIndex}:${n.endIndex}`;
      if (key === last) continue;
      last = key;
      current = { range: spanToRange(doc.file, n.startIndex, n.endIndex), parent: current };
    }
    return current ?? whole;
  });
}
