// textDocument/codeAction: quick fixes for the diagnostics the client sends back.
//  - unknown field / method with a close match: "Change to `x`" (the analyzer's did-you-mean);
//  - undefined name with a close match among the names in scope: "Change to `x`";
//  - missing fields in a struct literal: "Add missing fields";
//  - an undefined name that is a standard module (`fs`, `net`...): add its `use`;
//  - a statement that would leak an identity handle: remove it;
//  - a closure that appends to `context`, called again in the same process: `invoke` the call.
import { CodeActionKind } from 'vscode-languageserver';
import type { CodeAction, CodeActionParams, Diagnostic as LspDiagnostic } from 'vscode-languageserver';
import { membersOf, visibleNames } from '../runtime/index.js';
import type { Ast as A } from '../runtime/index.js';
import { walk } from '../runtime/index.js';
import { rangeToSpan, type TurnDocument } from './document.js';
import { spanToRange } from './diagnostics.js';
import { editDistance } from '../runtime/index.js';
import { stdDirectory } from '../runtime/index.js';
import * as fs from 'node:fs';

export type QuickFix = (doc: TurnDocument, diagnostic: LspDiagnostic) => CodeAction[];

function replace(doc: TurnDocument, diagnostic: LspDiagnostic, title: string, newText: string, preferred = true): CodeAction {
  return {
    title,
    kind: CodeActionKind.QuickFix,
    diagnostics: [diagnostic],
    isPreferred: preferred,
    edit: { changes: { [doc.uri]: [{ range: diagnostic.range, newText }] } },
  };
}

export const didYouMean: QuickFix = (doc, d) => {
  if (d.code !== 'unknown-field' && d.code !== 'unknown-method') return [];
  const m = /\(did you mean `([^`]+)`\?\)/.exec(messageText(d));
  if (m) return [replace(doc, d, `Change to \`${m[1]}\``, m[1])];
  // No close match in the message: offer the struct's members that are near enough.
  const span = rangeToSpan(doc.file, d.range);
  const name = doc.text.slice(span.start, span.end);
  const { index, program } = doc.analysis();
  let structName: string | undefined;
  walk(program, (n) => {
    if ((n.kind === 'Member' || n.kind === 'MethodCall') && n.name.span.start === span.start) {
      const t = index.exprTypes.get(n.target);
      if (t?.kind === 'Struct') structName = t.name;
    } else if (n.kind === 'StructLit' && n.fields.some((f) => f.name.span.start === span.start)) structName = n.name.name;
  });
  if (!structName) return [];
  const wanted = d.code === 'unknown-method' ? 'method' : 'field';
  return membersOf(index, structName)
    .filter((def) => def.kind === wanted)
    .map((def) => ({ name: def.name, distance: editDistance(name, def.name) }))
    .filter((c) => c.distance <= Math.max(2, Math.floor(name.length / 2)))
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, 3)
    .map((c, i) => replace(doc, d, `Change to \`${c.name}\``, c.name, i === 0));
};

export const similarName: QuickFix = (doc, d) => {
  if (d.code !== 'undefined-name') return [];
  const span = rangeToSpan(doc.file, d.range);
  const name = doc.text.slice(span.start, span.end);
  const candidates = visibleNames(doc.analysis().index, span.start)
    .map((def) => ({ name: def.name, distance: editDistance(name, def.name) }))
    .filter((c) => c.name !== name && c.distance <= Math.max(1, Math.floor(name.length / 3)))
    .sort((a, b) => a.distance - b.distance || a.name.localeCompare(b.name))
    .slice(0, 3);
  return candidates.map((c, i) => replace(doc, d, `Change to \`${c.name}\``, c.name, i === 0));
};

export const addMissingFields: QuickFix = (doc, d) => {
  if (d.code !== 'missing-field') return [];
  const span = rangeToSpan(doc.file, d.range);
  const { program } = doc.analysis();
  let lit: A.StructLit | undefined;
  walk(program, (n) => {
    if (n.kind === 'StructLit' && n.span.start === span.start && n.span.end === span.end) lit = n;
  });
  const names = [...messageText(d).matchAll(/`([^`]+)`/g)].map((m) => m[1]);
  if (!lit || names.length === 0) return [];
  const close = lit.span.end - 1; // the `}`
  let before = close;
  while (before > lit.span.start && /\s/.test(doc.text[before - 1])) before--;
  const needsComma = doc.text[before - 1] !== '{' && doc.text[before - 1] !== ',';
  const insert = (needsComma ? ', ' : ' ') + names.map((n) => `${n}: null`).join(', ') + (doc.text[before - 1] === '{' ? ' ' : '');
  const at = spanToRange(doc.file, before, before);
  return [
    {
      title: `Add missing ${names.length === 1 ? 'field' : 'fields'} ${names.map((n) => '`' + n + '`').join(', ')}`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [d],
      edit: { changes: { [doc.uri]: [{ range: at, newText: insert }] } },
    },
  ];
};

/** `fs.read(...)` with no `fs` in scope: `let fs = use "std/fs";` before the first statement. */
export const addStdUse: QuickFix = (doc, d) => {
  if (d.code !== 'undefined-name') return [];
  const span = rangeToSpan(doc.file, d.range);
  const name = doc.text.slice(span.start, span.end);
  if (!standardModules().includes(name)) return [];
  const first = doc.analysis().program.body[0];
  const at = first ? doc.file.utf16Position(first.span.start) : { line: 0, character: 0 };
  const position = { line: at.line, character: 0 };
  return [
    {
      title: `Add \`let ${name} = use "std/${name}";\``,
      kind: CodeActionKind.QuickFix,
      diagnostics: [d],
      isPreferred: true,
      edit: { changes: { [doc.uri]: [{ range: { start: position, end: position }, newText: `let ${name} = use "std/${name}";\n` }] } },
    },
  ];
};

/** A statement that prints, concatenates, sends or serializes a handle: remove it, whole lines. */
export const removeIdentityLeak: QuickFix = (doc, d) => {
  if (d.code !== 'identity-leak') return [];
  const span = rangeToSpan(doc.file, d.range);
  let stmt: A.Stmt | undefined;
  walk(doc.analysis().program, (n) => {
    if ((n.kind === 'ExprStmt' || n.kind === 'Let') && n.span.start <= span.start && span.end <= n.span.end) {
      if (!stmt || n.span.end - n.span.start < stmt.span.end - stmt.span.start) stmt = n;
    }
  });
  if (!stmt) return [];
  const start = doc.file.utf16Position(stmt.span.start);
  const end = doc.file.utf16Position(stmt.span.end);
  const before = doc.text.slice(doc.file.offsetAt(start.line, 0), stmt.span.start);
  const after = doc.text.slice(stmt.span.end, doc.file.offsetAt(end.line + 1, 0));
  // A statement alone on its lines goes with its lines; one sharing a line goes alone.
  const range =
    before.trim() === '' && after.trim() === ''
      ? { start: { line: start.line, character: 0 }, end: end.line + 1 < doc.file.lineCount ? { line: end.line + 1, character: 0 } : end }
      : { start, end };
  return [
    {
      title: 'Remove the statement that would leak a credential handle',
      kind: CodeActionKind.QuickFix,
      diagnostics: [d],
      isPreferred: true,
      edit: { changes: { [doc.uri]: [{ range, newText: '' }] } },
    },
  ];
};

let stdNames: string[] | undefined;

/** The standard modules shipped with the runtime (runtime/std/*.tn). */
function standardModules(): string[] {
  stdNames ??= fs.readdirSync(stdDirectory()).filter((f) => f.endsWith('.tn')).map((f) => f.slice(0, -3));
  return stdNames;
}

/** The command the schema quick fix runs: the server fetches the document's URL specs again. */
export const FETCH_SCHEMAS_COMMAND = 'turn.fetchSchemas';

/** A URL spec that is not cached, or could not be fetched or refreshed: offer to fetch it now. */
export const fetchSchema: QuickFix = (doc, d) => {
  if (d.code !== 'schema' || !/is not cached|could not (fetch|refresh)/.test(messageText(d))) return [];
  return [
    {
      title: 'Fetch the schema and refresh its cache',
      kind: CodeActionKind.QuickFix,
      diagnostics: [d],
      isPreferred: true,
      command: { title: 'Fetch the schema', command: FETCH_SCHEMAS_COMMAND, arguments: [doc.uri] },
    },
  ];
};

/** `f(x)` → `invoke f(x)`: the call runs on a snapshot of the context and leaves nothing in it (runtime/check/context-closures.ts). */
export const invokeContextClosure: QuickFix = (doc, d) => {
  if (d.code !== 'closure-context') return [];
  const span = rangeToSpan(doc.file, d.range);
  const call = doc.text.slice(span.start, span.end);
  return [replace(doc, d, `Use \`invoke ${call.length > 40 ? call.slice(0, 40) + '…' : call}\`: a context of its own`, `invoke ${call}`)];
};

export const QUICK_FIXES: QuickFix[] = [didYouMean, similarName, addMissingFields, addStdUse, removeIdentityLeak, fetchSchema, invokeContextClosure];

export function onCodeAction(doc: TurnDocument, params: CodeActionParams, fixes: readonly QuickFix[] = QUICK_FIXES): CodeAction[] {
  if (params.context.only && !params.context.only.some((k) => k === CodeActionKind.QuickFix || k === 'quickfix' || CodeActionKind.QuickFix.startsWith(k))) return [];
  const out: CodeAction[] = [];
  for (const d of params.context.diagnostics) {
    if (d.source !== undefined && d.source !== 'turn') continue;
    for (const fix of fixes) out.push(...fix(doc, d));
  }
  return out;
}

function messageText(d: LspDiagnostic): string {
  return typeof d.message === 'string' ? d.message : d.message.value;
}
