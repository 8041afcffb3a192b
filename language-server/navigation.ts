// Go to definition, find references, rename (with prepare-rename), within a file and across the
// files `use` connects: `let lib = use "./lib.tn"; lib.add(1, 2)` leads to `add` in lib.tn, and the
// references of lib.tn's exported `add` include `lib.add` in every workspace file that uses lib.tn.
import { ResponseError, ErrorCodes } from 'vscode-languageserver';
import type {
  DefinitionParams,
  Location,
  PrepareRenameParams,
  Range,
  ReferenceParams,
  RenameParams,
  TextEdit,
  WorkspaceEdit,
} from 'vscode-languageserver';
import { moduleRefAt, refAt, referencesOf, type SymbolDef } from '../runtime/index.js';
import type { Ast as A } from '../runtime/index.js';
import { spanToRange } from './diagnostics.js';
import type { TurnDocument } from './document.js';
import type { Workspace } from './workspace.js';
import { KEYWORDS } from './completion.js';
import { importedType, typeNameSpans, usesModule, wordAt } from './modules.js';

export type Target = { doc: TurnDocument; symbol: SymbolDef } | { doc: TurnDocument; span: A.Span };

function location(doc: TurnDocument, span: A.Span): Location {
  return { uri: doc.uri, range: spanToRange(doc.file, span.start, span.end) };
}

/** The value a module file yields: its top-level `return`'s expression. */
function moduleValue(doc: TurnDocument): A.Expr | undefined {
  const body = doc.analysis().program.body;
  for (let i = body.length - 1; i >= 0; i--) {
    const s = body[i];
    if (s.kind === 'Return') return s.value;
  }
  return undefined;
}

/** What `member` of a module refers to in the module file: the exported binding, else the map entry. */
export function moduleMember(moduleDoc: TurnDocument, member: string): Target | undefined {
  const value = moduleValue(moduleDoc);
  const { index } = moduleDoc.analysis();
  let entryValue: A.Expr | undefined;
  let entrySpan: A.Span | undefined;
  if (value?.kind === 'Map') {
    const entry = value.entries.find((e) => e.key === member);
    entryValue = entry?.value;
    entrySpan = entry?.span;
  } else if (value?.kind === 'StructLit') {
    const field = value.fields.find((f) => f.name.name === member);
    entryValue = field?.value;
    entrySpan = field?.name.span;
  }
  if (entryValue?.kind === 'Identifier') {
    const ref = refAt(index, entryValue.span.start);
    if (ref) return { doc: moduleDoc, symbol: ref.symbol };
  }
  return entrySpan ? { doc: moduleDoc, span: entrySpan } : undefined;
}

/** The names under which a module exports `symbol` (keys of its returned map whose value is that name). */
function exportNames(doc: TurnDocument, symbol: SymbolDef): string[] {
  const value = moduleValue(doc);
  const { index } = doc.analysis();
  const out: string[] = [];
  const entries = value?.kind === 'Map' ? value.entries.map((e) => ({ key: e.key, value: e.value })) : value?.kind === 'StructLit' ? value.fields.map((f) => ({ key: f.name.name, value: f.value })) : [];
  for (const e of entries) {
    if (e.value.kind === 'Identifier' && refAt(index, e.value.span.start)?.symbol === symbol) out.push(e.key);
  }
  return out;
}

/** What the name (or `use` path) under `offset` refers to. */
export function resolveTarget(ws: Workspace, doc: TurnDocument, offset: number): Target | undefined {
  const analysis = doc.analysis();
  const modRef = moduleRefAt(analysis.index, offset);
  if (modRef) {
    const modulePath = analysis.uses.get(modRef.use);
    const moduleDoc = modulePath ? ws.byPath(modulePath) : undefined;
    return moduleDoc ? moduleMember(moduleDoc, modRef.member) : undefined;
  }
  const ref = refAt(analysis.index, offset);
  if (ref) return { doc, symbol: ref.symbol };
  // a struct or alias of a module, named in this file: its declaration there
  const w = wordAt(doc.text, offset);
  const imported = w && importedType(doc, w.word);
  const declaring = imported && ws.byPath(imported.file);
  if (imported && declaring) {
    const there = refAt(declaring.analysis().index, imported.decl.name.span.start);
    return there?.symbol.kind === 'struct' || there?.symbol.kind === 'typeAlias' ? { doc: declaring, symbol: there.symbol } : { doc: declaring, span: imported.decl.name.span };
  }
  for (const [use, modulePath] of analysis.uses) {
    const target = use.kind === 'Use' ? use.path.span : use.source.span;
    if (target.start <= offset && offset <= target.end) {
      const moduleDoc = ws.byPath(modulePath);
      if (moduleDoc) return { doc: moduleDoc, span: { start: 0, end: 0 } };
    }
  }
  return undefined;
}

export function onDefinition(ws: Workspace, doc: TurnDocument, params: DefinitionParams): Location | null {
  const target = resolveTarget(ws, doc, doc.offsetAt(params.position));
  if (!target) return null;
  return location(target.doc, 'symbol' in target ? target.symbol.nameSpan : target.span);
}

interface Occurrence {
  doc: TurnDocument;
  span: A.Span;
  role: 'definition' | 'write' | 'read' | 'module';
}

/** Every occurrence of the target: in its own file, and as `lib.name` in files that use its file. */
function occurrences(ws: Workspace, target: { doc: TurnDocument; symbol: SymbolDef }): Occurrence[] {
  const out: Occurrence[] = referencesOf(target.doc.analysis().index, target.symbol).map((r) => ({ doc: target.doc, span: r.span, role: r.role }));
  if (target.symbol.scope && target.symbol.scope.owner.kind !== 'Program') return out;
  if (target.symbol.kind === 'struct' || target.symbol.kind === 'typeAlias') {
    // a type's name is its identity across the program: the files that use its module name it too
    for (const other of ws.allDocuments()) {
      if (other.path === target.doc.path || !usesModule(other, target.doc.path)) continue;
      for (const span of typeNameSpans(other.analysis().program, target.symbol.name)) out.push({ doc: other, span, role: 'read' });
    }
    return out;
  }
  const names = exportNames(target.doc, target.symbol);
  if (names.length === 0) return out;
  for (const other of ws.allDocuments()) {
    const a = other.analysis();
    for (const m of a.index.moduleRefs) {
      if (names.includes(m.member) && a.uses.get(m.use) === target.doc.path) out.push({ doc: other, span: m.span, role: 'module' });
    }
  }
  return out;
}

export function onReferences(ws: Workspace, doc: TurnDocument, params: ReferenceParams): Location[] {
  const target = resolveTarget(ws, doc, doc.offsetAt(params.position));
  if (!target) return [];
  if (!('symbol' in target)) return [location(target.doc, target.span)];
  return occurrences(ws, target)
    .filter((o) => params.context.includeDeclaration || o.role !== 'definition')
    .map((o) => location(o.doc, o.span));
}

const IDENTIFIER = /^[_\p{ID_Start}][_\p{ID_Continue}]*$/u;

export function onPrepareRename(ws: Workspace, doc: TurnDocument, params: PrepareRenameParams): { range: Range; placeholder: string } | null {
  const offset = doc.offsetAt(params.position);
  const analysis = doc.analysis();
  if (moduleRefAt(analysis.index, offset)) {
    throw new ResponseError(ErrorCodes.InvalidRequest, 'a module member is named by its module: rename it in the module file');
  }
  const ref = refAt(analysis.index, offset);
  if (!ref) {
    // a struct or alias of a module: renamed in its module and in every file that names it
    const w = wordAt(doc.text, offset);
    if (!w || !importedType(doc, w.word)) return null;
    return { range: spanToRange(analysis.file, w.start, w.start + w.word.length), placeholder: w.word };
  }
  if (ref.symbol.kind === 'self') throw new ResponseError(ErrorCodes.InvalidRequest, '`self` cannot be renamed');
  return { range: spanToRange(analysis.file, ref.span.start, ref.span.end), placeholder: doc.text.slice(ref.span.start, ref.span.end) };
}

export function onRename(ws: Workspace, doc: TurnDocument, params: RenameParams): WorkspaceEdit | null {
  const newName = params.newName;
  if (!IDENTIFIER.test(newName) || KEYWORDS.includes(newName)) {
    throw new ResponseError(ErrorCodes.InvalidParams, `\`${newName}\` is not a valid name`);
  }
  const offset = doc.offsetAt(params.position);
  if (moduleRefAt(doc.analysis().index, offset)) return null;
  const target = resolveTarget(ws, doc, offset);
  if (!target || !('symbol' in target) || target.symbol.kind === 'self') return null;
  const changes: Record<string, TextEdit[]> = {};
  // Module members (`lib.add`) keep their exported key: only the module's own name changes.
  for (const o of occurrences(ws, target)) {
    if (o.role === 'module') continue;
    (changes[o.doc.uri] ??= []).push({ range: spanToRange(o.doc.file, o.span.start, o.span.end), newText: newName });
  }
  return { changes };
}
