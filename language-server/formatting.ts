// textDocument/formatting: the formatter of runtime/format (also `turn fmt`), as one whole-document edit.
import type { DocumentFormattingParams, TextEdit } from 'vscode-languageserver';
import { formatTree } from '../runtime/index.js';
import { spanToRange } from './diagnostics.js';
import type { TurnDocument } from './document.js';

export function onFormatting(doc: TurnDocument, _params: DocumentFormattingParams): TextEdit[] {
  const tree = doc.tree;
  // A file with syntax errors is left alone: formatting it could move text the parser did not understand.
  if (!tree || tree.rootNode.hasError) return [];
  const formatted = formatTree(tree.rootNode, doc.text);
  if (formatted === doc.text) return [];
  return [{ range: spanToRange(doc.file, 0, doc.text.length), newText: formatted }];
}
