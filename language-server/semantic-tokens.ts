// textDocument/semanticTokens/full: colours names by what they are (the TextMate grammar already
// colours keywords, strings, numbers and comments). Identifiers come from the tree-sitter tree;
// what each one means comes from the symbol index.
import type { SemanticTokens, SemanticTokensLegend, SemanticTokensParams } from 'vscode-languageserver';
import type { Node as CstNode } from 'web-tree-sitter';
import type { SymbolDef } from '../runtime/index.js';
import { BUILTIN_TYPE_NAMES } from '../runtime/index.js';
import type { TurnDocument } from './document.js';

export const TOKEN_TYPES = ['namespace', 'type', 'struct', 'typeParameter', 'parameter', 'variable', 'property', 'function', 'method', 'enumMember'] as const;
export const TOKEN_MODIFIERS = ['declaration', 'readonly', 'defaultLibrary'] as const;

export const SEMANTIC_TOKENS_LEGEND: SemanticTokensLegend = { tokenTypes: [...TOKEN_TYPES], tokenModifiers: [...TOKEN_MODIFIERS] };

type TokenType = (typeof TOKEN_TYPES)[number];
const T = (t: TokenType) => TOKEN_TYPES.indexOf(t);
const M = { declaration: 1, readonly: 2, defaultLibrary: 4 };

function typeOf(def: SymbolDef): TokenType {
  switch (def.kind) {
    case 'struct':
      return 'struct';
    case 'typeAlias':
      return 'type';
    case 'field':
      return 'property';
    case 'method':
      return 'method';
    case 'function':
      return 'function';
    case 'parameter':
      return 'parameter';
    default:
      return 'variable';
  }
}

export interface Token {
  line: number;
  character: number;
  length: number;
  type: TokenType;
  modifiers: number;
}

/** The tokens of `doc`, in document order (exposed for tests; the handler encodes them). */
export function semanticTokens(doc: TurnDocument): Token[] {
  const tree = doc.tree;
  if (!tree) return [];
  const { index } = doc.analysis();
  const refsByStart = new Map<number, (typeof index.refs)[number]>();
  for (const r of index.refs) refsByStart.set(r.span.start, r);
  const tokens: Token[] = [];
  const push = (node: CstNode, type: TokenType, modifiers: number) => {
    if (node.startPosition.row !== node.endPosition.row || node.endIndex <= node.startIndex) return;
    tokens.push({ line: node.startPosition.row, character: node.startPosition.column, length: node.endIndex - node.startIndex, type, modifiers });
  };
  const cursor = tree.walk();
  try {
    for (;;) {
      const node = cursor.currentNode;
      const t = node.type;
      if ((t === 'identifier' || t === 'type_identifier' || t === 'field_identifier') && !node.isMissing) {
        const field = cursor.currentFieldName;
        const parentType = node.parent?.type;
        const ref = refsByStart.get(node.startIndex);
        if (ref && ref.span.end === node.endIndex) {
          let mods = ref.role === 'definition' ? M.declaration : 0;
          if (ref.symbol.kind === 'self') mods |= M.readonly;
          push(node, typeOf(ref.symbol), mods);
        } else if (t === 'type_identifier' && BUILTIN_TYPE_NAMES.has(node.text)) {
          push(node, 'type', M.defaultLibrary);
        } else if (t === 'type_identifier' && parentType === 'type_parameters') {
          push(node, 'typeParameter', M.declaration);
        } else if (field === 'kind' && parentType === 'grant_expression') {
          push(node, 'enumMember', M.defaultLibrary);
        } else if (field === 'protocol' && parentType === 'use_schema') {
          push(node, 'namespace', M.defaultLibrary);
        } else if (field === 'policy' && parentType === 'scope_expression') {
          push(node, 'enumMember', M.defaultLibrary);
        } else if (t === 'type_identifier') {
          push(node, 'type', 0);
        }
      }
      if (cursor.gotoFirstChild()) continue;
      while (!cursor.gotoNextSibling()) {
        if (!cursor.gotoParent()) return tokens;
      }
    }
  } finally {
    cursor.delete();
  }
}

/** LSP's relative encoding: five integers per token. */
export function encodeTokens(tokens: readonly Token[]): number[] {
  const data: number[] = [];
  let line = 0;
  let character = 0;
  for (const t of tokens) {
    const dl = t.line - line;
    data.push(dl, dl === 0 ? t.character - character : t.character, t.length, T(t.type), t.modifiers);
    line = t.line;
    character = t.character;
  }
  return data;
}

export function onSemanticTokens(doc: TurnDocument, _params: SemanticTokensParams): SemanticTokens {
  return { data: encodeTokens(semanticTokens(doc)) };
}
