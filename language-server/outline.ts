// textDocument/documentSymbol (the outline) and workspace/symbol.
import { SymbolKind } from 'vscode-languageserver';
import type { DocumentSymbol, DocumentSymbolParams, SymbolInformation, WorkspaceSymbolParams } from 'vscode-languageserver';
import type { Ast as A } from '../runtime/index.js';
import { forEachChild } from '../runtime/index.js';
import { typeToString, type StaticType } from '../runtime/index.js';
import { spanToRange } from './diagnostics.js';
import type { TurnDocument } from './document.js';
import type { Workspace } from './workspace.js';

function sym(doc: TurnDocument, name: string, kind: SymbolKind, span: A.Span, nameSpan: A.Span, detail?: string, children?: DocumentSymbol[]): DocumentSymbol {
  const file = doc.file;
  return {
    name: name || '<missing name>',
    kind,
    detail,
    range: spanToRange(file, span.start, span.end),
    selectionRange: spanToRange(file, nameSpan.start, nameSpan.end),
    children,
  };
}

/** The static type of each `let` the index knows, by its statement: built once per outline. */
type LetTypes = ReadonlyMap<object, StaticType>;

function letTypes(doc: TurnDocument): LetTypes {
  const types = new Map<object, StaticType>();
  for (const d of doc.analysis().index.symbols) if (d.decl && !types.has(d.decl)) types.set(d.decl, d.type);
  return types;
}

/**
 * The outline of `stmts`: declarations, and lets (with what closures declare inside them). Linear in
 * the size of the program: a `let`'s type is a map lookup (a search of the index per `let` made a
 * 1 MB document take 18 s).
 */
function outline(doc: TurnDocument, stmts: A.Stmt[], seen: Set<string>, types: LetTypes): DocumentSymbol[] {
  const out: DocumentSymbol[] = [];
  // an explicit stack, in source order: blocks nest as deep as the nesting limit allows
  const pending: A.Node[] = stmts.slice().reverse();
  while (pending.length > 0) {
    const s = pending.pop()!;
    switch (s.kind) {
      case 'Struct':
        out.push(
          sym(doc, s.name.name, SymbolKind.Struct, s.span, s.name.span, 'struct',
            s.fields.map((f) => sym(doc, f.name.name, SymbolKind.Field, f.span, f.name.span, doc.text.slice(f.type.span.start, f.type.span.end)))),
        );
        break;
      case 'TypeAlias':
        out.push(sym(doc, s.name.name, SymbolKind.TypeParameter, s.span, s.name.span, doc.text.slice(s.type.span.start, s.type.span.end)));
        break;
      case 'Impl':
        out.push(
          sym(doc, `impl ${s.typeName.name}`, SymbolKind.Class, s.span, s.typeName.span, undefined,
            s.methods.map((m) => sym(doc, m.name.name, SymbolKind.Method, m.span, m.name.span, methodDetail(m), closureChildren(doc, m.value, types)))),
        );
        break;
      case 'Let': {
        // A `let` of a name the function already has updates it: only the first one is a declaration.
        if (seen.has(s.name.name)) break;
        seen.add(s.name.name);
        const isFn = s.value.kind === 'Closure';
        const type = types.get(s);
        out.push(
          sym(doc, s.name.name, isFn ? SymbolKind.Function : SymbolKind.Variable, s.span, s.name.span, type ? typeToString(type) : undefined, closureChildren(doc, s.value, types)),
        );
        break;
      }
      case 'Entry':
        out.push(sym(doc, 'turn { }', SymbolKind.Namespace, s.span, { start: s.span.start, end: s.span.start + 4 }, 'entry', outline(doc, s.body.body, seen, types)));
        break;
      case 'Block':
      case 'If':
      case 'While':
      case 'Try': {
        // Statements in nested blocks declare in the same function.
        const children: A.Node[] = [];
        forEachChild(s, (c) => void children.push(c));
        for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
        break;
      }
      default:
        // Expressions (closures are outlined under their `let`), names and types.
        break;
    }
  }
  return out;
}

function closureChildren(doc: TurnDocument, e: A.Expr, types: LetTypes): DocumentSymbol[] | undefined {
  if (e.kind !== 'Closure') return undefined;
  const children = outline(doc, e.body.body, new Set(e.params.map((p) => p.name.name)), types);
  return children.length ? children : undefined;
}

function methodDetail(m: A.LetStmt): string | undefined {
  if (m.value.kind !== 'Closure') return undefined;
  return `(${m.value.params.map((p) => p.name.name).join(', ')})`;
}

export function onDocumentSymbol(doc: TurnDocument, _params: DocumentSymbolParams): DocumentSymbol[] {
  return outline(doc, doc.analysis().program.body, new Set(), letTypes(doc));
}

/** Case-insensitive subsequence match, as editors filter symbol names. */
export function fuzzyMatch(query: string, name: string): boolean {
  const q = query.toLowerCase();
  const n = name.toLowerCase();
  let i = 0;
  for (const c of n) if (i < q.length && c === q[i]) i++;
  return i === q.length;
}

export function onWorkspaceSymbol(ws: Workspace, params: WorkspaceSymbolParams): SymbolInformation[] {
  const out: SymbolInformation[] = [];
  const add = (doc: TurnDocument, s: DocumentSymbol, container?: string) => {
    if (fuzzyMatch(params.query, s.name)) out.push({ name: s.name, kind: s.kind, location: { uri: doc.uri, range: s.selectionRange }, containerName: container });
    for (const c of s.children ?? []) add(doc, c, s.name);
  };
  for (const doc of ws.allDocuments()) {
    for (const s of onDocumentSymbol(doc, { textDocument: { uri: doc.uri } })) add(doc, s);
  }
  return out;
}
