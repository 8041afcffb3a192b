// textDocument/completion. A list of providers, tried in order: the first that recognises the
// cursor's context answers (even with an empty list); the last one offers everything that can start
// an expression or statement. Later features plug in by adding a provider in front, e.g. members of
// a std module after `fs.` or absorbed schema types after `infer` (the authority issue).
import { CompletionItemKind, InsertTextFormat, MarkupKind } from 'vscode-languageserver';
import type { CompletionItem, CompletionList, CompletionParams } from 'vscode-languageserver';
import { membersOf, visibleNames, type SymbolDef, type SymbolIndex } from '../runtime/index.js';
import { BUILTIN_TYPE_NAMES, CHECK_DOCS, CHECK_NAMES, INFER_OPTION_NAMES, inferOptionHelp, typeToString } from '../runtime/index.js';
import { declarationDocs } from './hover.js';
import { memberSignature } from './modules.js';
import { cursorContext, typeBeforeDot, type CursorContext } from './context.js';
import type { TurnDocument } from './document.js';

/** Answers for a context it recognises, else undefined so that the next provider is asked. */
export type CompletionProvider = (ctx: CursorContext) => CompletionItem[] | undefined;

export const KEYWORDS = [
  'turn', 'let', 'struct', 'impl', 'type', 'use', 'grant', 'infer', 'confidence', 'suspend', 'spawn', 'spawn_link',
  'spawn_each', 'gather', 'send', 'receive', 'context', 'remember', 'recall', 'call', 'return', 'if', 'else', 'while',
  'try', 'catch', 'throw', 'and', 'or', 'true', 'false', 'null', 'vec', 'map', 'filter', 'invoke', 'scope', 'task', 'detach',
];

/** Identity kinds offered after `identity::` until the authority issue supplies the real list. */
import { IDENTITY_KINDS } from '../runtime/index.js';
import type { Ast as A } from '../runtime/index.js';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { stdDirectory } from '../runtime/index.js';
import { walk } from '../runtime/index.js';
export { IDENTITY_KINDS };
import { SCHEMA_PROTOCOLS } from '../runtime/index.js';
import { SCOPE_POLICIES } from '../runtime/index.js';
/** Offered after `schema::` (the protocols the absorber supports) and after `scope`. */
export { SCHEMA_PROTOCOLS, SCOPE_POLICIES };

const SNIPPETS: { label: string; body: string; detail: string }[] = [
  { label: 'let', body: 'let ${1:name} = ${0};', detail: 'let binding' },
  { label: 'if', body: 'if ${1:condition} {\n\t$0\n}', detail: 'if statement' },
  { label: 'ifelse', body: 'if ${1:condition} {\n\t$2\n} else {\n\t$0\n}', detail: 'if / else' },
  { label: 'while', body: 'while ${1:condition} {\n\t$0\n}', detail: 'while loop' },
  { label: 'try', body: 'try {\n\t$1\n} catch (${2:e}) {\n\t$0\n}', detail: 'try / catch' },
  { label: 'turn', body: 'turn(${1}) {\n\t$0\n}', detail: 'closure' },
  { label: 'struct', body: 'struct ${1:Name} {\n\t${2:field}: ${3:Str}\n};', detail: 'struct declaration' },
  { label: 'impl', body: 'impl ${1:Name} {\n\tlet ${2:method} = turn() {\n\t\t$0\n\t};\n}', detail: 'methods of a struct' },
  { label: 'infer', body: 'infer ${1:Type} {\n\t"${0:prompt}";\n}', detail: 'ask the model for a typed value' },
  { label: 'spawn', body: 'spawn turn() {\n\t$0\n}', detail: 'start an actor' },
  { label: 'scope', body: 'scope ${1|wait_all,fail_fast,first_success|} {\n\ttask turn() {\n\t\t$0\n\t};\n}', detail: 'scoped tasks' },
  { label: 'entry', body: 'turn {\n\t$0\n}', detail: 'program entry block' },
];

const kindOf: Record<SymbolDef['kind'], CompletionItemKind> = {
  variable: CompletionItemKind.Variable,
  function: CompletionItemKind.Function,
  parameter: CompletionItemKind.Variable,
  struct: CompletionItemKind.Struct,
  field: CompletionItemKind.Field,
  method: CompletionItemKind.Method,
  typeAlias: CompletionItemKind.TypeParameter,
  self: CompletionItemKind.Variable,
};

function symbolItem(def: SymbolDef, sortText: string): CompletionItem {
  return { label: def.name, kind: kindOf[def.kind], detail: typeToString(def.type), sortText: sortText + def.name };
}

function plain(labels: readonly string[], kind: CompletionItemKind, detail?: string): CompletionItem[] {
  return labels.map((label) => ({ label, kind, detail }));
}

function typeItems(index: SymbolIndex, forInfer: boolean): CompletionItem[] {
  const builtins = forInfer ? ['Num', 'Str', 'Bool', 'List', 'Map', 'Any'] : [...BUILTIN_TYPE_NAMES];
  const items: CompletionItem[] = [];
  for (const def of index.types.values()) {
    items.push({ label: def.name, kind: def.kind === 'struct' ? CompletionItemKind.Struct : CompletionItemKind.TypeParameter, detail: def.kind === 'struct' ? 'struct' : 'type alias', sortText: '0' + def.name });
  }
  for (const b of builtins) items.push({ label: b, kind: CompletionItemKind.TypeParameter, detail: 'built-in type', sortText: '1' + b });
  return items;
}

// ------------------------------------------------------------------------------------------ providers

export const commentOrString: CompletionProvider = (ctx) => (ctx.inCommentOrString ? [] : undefined);

export const identityKinds: CompletionProvider = (ctx) =>
  /\bidentity\s*::\s*$/.test(ctx.before) ? plain(IDENTITY_KINDS, CompletionItemKind.EnumMember, 'identity kind') : undefined;

export const schemaProtocols: CompletionProvider = (ctx) =>
  /\bschema\s*::\s*$/.test(ctx.before) ? plain(SCHEMA_PROTOCOLS, CompletionItemKind.Module, 'schema protocol') : undefined;

export const contextOperations: CompletionProvider = (ctx) =>
  /\bcontext\s*\.\s*$/.test(ctx.before) ? plain(['append', 'system'], CompletionItemKind.Method, 'context tier') : undefined;

export const scopePolicies: CompletionProvider = (ctx) =>
  /\bscope\s+$/.test(ctx.before) ? plain(SCOPE_POLICIES, CompletionItemKind.EnumMember, 'failure policy') : undefined;

/** After `expr.`: the fields and methods of the expression's struct type. */
export const members: CompletionProvider = (ctx) => {
  if (!/\.\s*$/.test(ctx.before) || /\.\.\s*$/.test(ctx.before)) return undefined;
  const dot = ctx.lastSignificant;
  const index = ctx.analysis.index;
  const moduleName = /([A-Za-z_]\w*)\.\s*$/.exec(ctx.before)?.[1];
  const std = moduleName ? stdModuleBoundTo(ctx.analysis.program, moduleName) : undefined;
  if (std) return stdExports(std).map((name) => ({ label: name, kind: CompletionItemKind.Function, detail: `std/${std}` }));
  const written = typeBeforeDot(index, ctx.doc.text, dot);
  const t = written?.kind === 'Optional' ? written.inner : written;
  // a module of the program: what it exports, with each closure's parameters
  if (t?.kind === 'Map' && t.module) {
    return [...t.module.members].map(([name, m]) => ({
      label: name,
      kind: m.type.kind === 'Closure' ? CompletionItemKind.Function : CompletionItemKind.Field,
      detail: `${t.module!.spec}: ${memberSignature(name, m)}`,
    }));
  }
  // a union of structs: the members' fields, each saying which members have it
  const structs = t?.kind === 'Struct' ? [t.name] : t?.kind === 'Union' && t.members.every((m) => m.kind === 'Struct') ? t.members.map((m) => (m as { name: string }).name) : [];
  const items = new Map<string, CompletionItem>();
  for (const name of structs) {
    // a struct of another file (a module's): its fields as the analyzer knows them
    if (!index.types.has(name)) {
      for (const [field, ft] of index.structs.get(name)?.fields ?? []) {
        if (!items.has(field)) items.set(field, { label: field, kind: CompletionItemKind.Field, detail: `${name}.${field}: ${typeToString(ft)}`, sortText: '0' + field });
      }
      for (const [method, sig] of index.structs.get(name)?.methods ?? []) {
        const params = sig.params.map((p) => (p.type ? `${p.name}: ${typeToString(p.type)}` : p.name)).join(', ');
        if (!items.has(method)) items.set(method, { label: method, kind: CompletionItemKind.Method, detail: `${name}.${method}(${params})${sig.result ? ' -> ' + typeToString(sig.result) : ''}`, sortText: '1' + method });
      }
      continue;
    }
    for (const def of membersOf(index, name)) {
      const docs = declarationDocs(ctx.doc.text, def.decl);
      const seen = items.get(def.name);
      if (seen) {
        seen.detail = `${seen.detail} | ${def.container}.${def.name}`;
        continue;
      }
      items.set(def.name, {
        ...symbolItem(def, def.kind === 'field' ? '0' : '1'),
        detail: `${def.container}.${def.name}: ${typeToString(def.type)}`,
        ...(docs ? { documentation: { kind: MarkupKind.Markdown, value: docs } } : {}),
      });
    }
  }
  return [...items.values()];
};

/** After `@` behind a struct field's type: the checks, each with what it means. */
export const fieldChecks: CompletionProvider = (ctx) => {
  if (!/@$/.test(ctx.before)) return undefined;
  return CHECK_NAMES.map((name) => ({
    label: name,
    kind: CompletionItemKind.Function,
    detail: 'check',
    documentation: { kind: MarkupKind.Markdown, value: CHECK_DOCS[name] },
  }));
};

/** `let name = use "std/x";` anywhere in the file: x. */
function stdModuleBoundTo(program: A.Program, name: string): string | undefined {
  let found: string | undefined;
  walk(program, (n) => {
    if (n.kind === 'Let' && n.name.name === name && n.value.kind === 'Use' && n.value.path.value.startsWith('std/')) found = n.value.path.value.slice(4);
  });
  return found;
}

const stdExportCache = new Map<string, string[]>();

/** The keys of the map a standard module returns (its last top-level `return { ... }`). */
function stdExports(module: string): string[] {
  let names = stdExportCache.get(module);
  if (!names) {
    const file = path.join(stdDirectory(), `${module}.tn`);
    const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
    const ret = text.lastIndexOf('\nreturn {');
    names = ret < 0 ? [] : topLevelKeys(text, text.indexOf('{', ret));
    stdExportCache.set(module, names);
  }
  return names;
}

/** The keys at depth 1 of the map literal opening at `open` (strings and nested braces skipped). */
function topLevelKeys(text: string, open: number): string[] {
  const keys: string[] = [];
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (depth === 1 && /^\s*:/.test(text.slice(j + 1, j + 8))) keys.push(text.slice(i + 1, j));
      i = j;
    } else if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') {
      if (--depth === 0) break;
    }
  }
  return keys;
}

/** After `infer`: the types a model can be asked for, structs first. */
export const inferTypes: CompletionProvider = (ctx) => (/\binfer\s+$/.test(ctx.before) ? typeItems(ctx.analysis.index, true) : undefined);

/** Where a type is written: after `let x:`, a parameter's `:`, `->`, `type X =`, inside `<...>`, or a struct field's `:`. */
export const typePositions: CompletionProvider = (ctx) => {
  const b = ctx.before;
  const inStructDecl = /\bstruct\s+[_\p{ID_Start}][_\p{ID_Continue}]*\s*(<[^>]*>)?\s*\{[^}]*$/u.test(ctx.doc.text.slice(Math.max(0, ctx.wordStart - 2000), ctx.wordStart));
  const isType =
    /->\s*$/.test(b) ||
    /\blet\s+[_\p{ID_Start}][_\p{ID_Continue}]*\s*:\s*$/u.test(b) ||
    /\bturn\s*\([^()]*:\s*$/.test(b) ||
    /\btype\s+[_\p{ID_Start}][_\p{ID_Continue}]*\s*=\s*$/u.test(b) ||
    /\b[A-Z][_\p{ID_Continue}]*\s*<[^<>()]*$/u.test(b) ||
    (inStructDecl && /(^|[{,])\s*[_\p{ID_Start}][_\p{ID_Continue}]*\s*:\s*$/u.test(b));
  return isType ? typeItems(ctx.analysis.index, false) : undefined;
};

/** Anything that can start a statement or expression: names in scope, structs, keywords, snippets. */
export const general: CompletionProvider = (ctx) => {
  const index = ctx.analysis.index;
  const items: CompletionItem[] = visibleNames(index, ctx.offset).map((d) => symbolItem(d, '0'));
  for (const def of index.types.values()) {
    if (def.kind === 'struct') items.push({ label: def.name, kind: CompletionItemKind.Struct, detail: 'struct', sortText: '1' + def.name });
  }
  items.push(...KEYWORDS.map((k) => ({ label: k, kind: CompletionItemKind.Keyword, sortText: '2' + k })));
  items.push(
    ...SNIPPETS.map((s) => ({
      label: s.label,
      kind: CompletionItemKind.Snippet,
      detail: s.detail,
      insertText: s.body,
      insertTextFormat: InsertTextFormat.Snippet,
      sortText: '3' + s.label,
    })),
  );
  return items;
};

/** An option's name is due: right after `infer T with {`, or after a `,` among its options. */
const OPTION_NAME_DUE = /\binfer\b[^;{}]*\bwith\s*\{(?:[^{};]*,)?\s*$/;

/** In `infer T with { ... }` where an option's name goes: the options, each with what it does. */
export const inferOptions: CompletionProvider = (ctx) => {
  const head = ctx.doc.text.slice(Math.max(0, ctx.wordStart - 4000), ctx.wordStart).replace(/\/\*[\s\S]*?\*\//g, '');
  if (!OPTION_NAME_DUE.test(head)) return undefined;
  return INFER_OPTION_NAMES.map((name) => {
    const help = inferOptionHelp(name)!;
    return { label: name, kind: CompletionItemKind.Property, detail: `infer option: ${help.expectation}`, documentation: { kind: MarkupKind.Markdown, value: help.doc } };
  });
};

export const DEFAULT_PROVIDERS: readonly CompletionProvider[] = [
  commentOrString,
  inferOptions,
  identityKinds,
  schemaProtocols,
  contextOperations,
  scopePolicies,
  fieldChecks,
  members,
  inferTypes,
  typePositions,
  general,
];

export function onCompletion(doc: TurnDocument, params: CompletionParams, providers: readonly CompletionProvider[] = DEFAULT_PROVIDERS): CompletionList {
  const ctx = cursorContext(doc, doc.offsetAt(params.position));
  for (const provider of providers) {
    const items = provider(ctx);
    if (items) return { isIncomplete: false, items };
  }
  return { isIncomplete: false, items: [] };
}
