// textDocument/hover: the type of a name; for `infer T`, the JSON Schema the model will receive.
// Providers are tried in order, so absorbed schema operations (the authority issue) can add theirs.
import { MarkupKind } from 'vscode-languageserver';
import type { Hover, HoverParams } from 'vscode-languageserver';
import { describeSymbol, moduleRefAt, refAt, typeToString, type SymbolDef } from '../runtime/index.js';
import { importedType, memberSignature, moduleShapeOf, wordAt } from './modules.js';
import { typeToSchema, SchemaError, PREDICATE_KEYWORD, CHECK_DOCS, INFER_OPTION_NAMES, inferOptionHelp, type TypeEnv } from '../runtime/index.js';
import type { Ast as A } from '../runtime/index.js';
import { walk } from '../runtime/index.js';
import type { Analysis, TurnDocument } from './document.js';
import { spanToRange } from './diagnostics.js';

export type HoverProvider = (doc: TurnDocument, analysis: Analysis, offset: number) => Hover | undefined;

const code = (lang: string, text: string) => '```' + lang + '\n' + text + '\n```';

/** The type environment `infer` compiles against: the file's structs and aliases (first declaration wins). */
export function schemaEnv(program: A.Program): TypeEnv {
  const structs = new Map<string, A.StructDecl>();
  const aliases = new Map<string, A.TypeAliasDecl>();
  for (const s of program.body) {
    if (s.kind === 'Struct' && !structs.has(s.name.name) && !aliases.has(s.name.name)) structs.set(s.name.name, s);
    if (s.kind === 'TypeAlias' && !structs.has(s.name.name) && !aliases.has(s.name.name)) aliases.set(s.name.name, s);
  }
  return {
    struct(name) {
      const s = structs.get(name);
      return (
        s && {
          name,
          typeParams: s.typeParams.map((p) => p.name),
          fields: s.fields.map((f) => ({ name: f.name.name, type: f.type, description: f.description, checks: f.checks })),
          description: s.description,
        }
      );
    },
    alias: (name) => aliases.get(name)?.type,
  };
}

/** The `infer` expression whose keyword or type is under `offset` (not its options, not its prompt block). */
export function inferAt(program: A.Program, offset: number): A.InferExpr | undefined {
  let found: A.InferExpr | undefined;
  walk(program, (n) => {
    if (n.kind === 'Infer' && n.span.start <= offset && offset < n.body.span.start && !(n.options ?? []).some((o) => o.span.start <= offset && offset < o.span.end)) found = n;
  });
  return found;
}

/** On an option's name in `infer T with { ... }`: what it does and what it takes. */
export const inferOptionHover: HoverProvider = (_doc, analysis, offset) => {
  let found: A.InferOption | undefined;
  walk(analysis.program, (n) => {
    if (n.kind === 'Infer') for (const o of n.options ?? []) if (o.name.span.start <= offset && offset < o.name.span.end) found = o;
  });
  if (!found) return undefined;
  const name = found.name.name;
  const help = inferOptionHelp(name);
  const value = help
    ? `(infer option) \`${name}\`: ${help.expectation}\n\n${help.doc}`
    : `\`${name}\` is not an infer option; the options are ${INFER_OPTION_NAMES.map((n) => `\`${n}\``).join(', ')}`;
  return { contents: { kind: MarkupKind.Markdown, value }, range: spanToRange(analysis.file, found.name.span.start, found.name.span.end) };
};

export const inferSchemaHover: HoverProvider = (doc, analysis, offset) => {
  const infer = inferAt(analysis.program, offset);
  if (!infer) return undefined;
  const typeText = doc.text.slice(infer.type.span.start, infer.type.span.end);
  let body: string;
  try {
    const who = infer.person ? 'A person answers through a form generated from this JSON Schema for' : 'The model receives this JSON Schema for';
    body = `${who} \`${typeText}\`; ${infer.person ? 'an answer' : 'a reply'} binds only if it conforms.\n\n` + code('json', JSON.stringify(typeToSchema(infer.type, schemaEnv(analysis.program)), showPredicates, 2));
  } catch (e) {
    if (!(e instanceof SchemaError)) throw e;
    body = `\`${infer.person ? 'ask' : 'infer'} ${typeText}\`: no schema (${e.message}).`;
  }
  return { contents: { kind: MarkupKind.Markdown, value: body }, range: spanToRange(analysis.file, infer.span.start, infer.body.span.start) };
};

/** A schema's `@check` predicates shown by name (their code is the program's, not the model's). */
function showPredicates(key: string, value: unknown): unknown {
  return key === PREDICATE_KEYWORD && Array.isArray(value) ? value.map((c: { name: string }) => `@check("${c.name}")`) : value;
}

/**
 * What a struct's or a field's declaration says beyond its type: its `///` description, and for a
 * field each check with what it means. Empty when it says nothing.
 */
export function declarationDocs(text: string, declared: SymbolDef['decl']): string {
  const decl = declared && 'kind' in declared && (declared.kind === 'Struct' || declared.kind === 'FieldDecl') ? declared : undefined;
  if (!decl) return '';
  const parts: string[] = [];
  if (decl.description) parts.push(decl.description);
  if (decl.kind === 'FieldDecl' && decl.checks.length > 0) {
    parts.push(
      'Checks (enforced where a value enters, shown to the model):\n' +
        decl.checks.map((c) => `- \`${text.slice(c.span.start, c.span.end).replace(/\s+/g, ' ')}\`${CHECK_DOCS[c.name.name] ? ': ' + CHECK_DOCS[c.name.name].replace(/^`[^`]*`: /, '') : ''}`).join('\n'),
    );
  }
  return parts.join('\n\n');
}

/** `//` comment lines right above a declaration. */
export function docComment(text: string, declStart: number): string {
  const lines = text.slice(0, declStart).split('\n');
  lines.pop(); // the declaration's own line, up to the declaration
  const out: string[] = [];
  while (lines.length > 0 && /^\s*\/\//.test(lines[lines.length - 1])) out.unshift(lines.pop()!.replace(/^\s*\/\/\s?/, ''));
  return out.join('\n');
}

function symbolMarkdown(doc: TurnDocument, def: SymbolDef): string {
  let signature = describeSymbol(def);
  if ((def.kind === 'struct' || def.kind === 'typeAlias') && def.decl) signature = doc.text.slice(def.decl.span.start, def.decl.span.end);
  const declared = declarationDocs(doc.text, def.decl);
  const comment = declared || (def.kind === 'parameter' || def.kind === 'self' ? '' : docComment(doc.text, def.span.start));
  return code('turn', signature) + (comment ? '\n\n' + comment : '');
}

export const symbolHover: HoverProvider = (doc, analysis, offset) => {
  const ref = refAt(analysis.index, offset);
  if (!ref) return undefined;
  return { contents: { kind: MarkupKind.Markdown, value: symbolMarkdown(doc, ref.symbol) }, range: spanToRange(analysis.file, ref.span.start, ref.span.end) };
};

/** On `money.fmt`: the member's signature, from the module's exports (modules.ts). */
export const moduleMemberHover: HoverProvider = (_doc, analysis, offset) => {
  const ref = moduleRefAt(analysis.index, offset);
  const member = ref && moduleShapeOf(analysis, ref.use)?.members.get(ref.member);
  if (!ref || !member) return undefined;
  return { contents: { kind: MarkupKind.Markdown, value: code('turn', `(module ${ref.use.path.value}) ${memberSignature(ref.member, member)}`) }, range: spanToRange(analysis.file, ref.span.start, ref.span.end) };
};

/** On a struct or alias name that comes from a module: its declaration, and which file declares it. */
export const importedTypeHover: HoverProvider = (doc, analysis, offset) => {
  const w = wordAt(doc.text, offset);
  const t = w && refAt(analysis.index, offset) === undefined ? importedType(doc, w.word) : undefined;
  if (!w || !t) return undefined;
  const info = analysis.index.structs.get(w.word);
  const shape =
    t.decl.kind === 'Struct' && info
      ? `struct ${w.word} { ${[...info.fields].map(([f, ft]) => `${f}: ${typeToString(ft)}`).join(', ')} }`
      : `type ${w.word}`;
  const value = code('turn', shape) + `\n\nfrom ${t.file}` + (t.decl.kind === 'Struct' && t.decl.description ? `\n\n${t.decl.description}` : '');
  return { contents: { kind: MarkupKind.Markdown, value }, range: spanToRange(analysis.file, w.start, w.start + w.word.length) };
};

export const DEFAULT_HOVER_PROVIDERS: readonly HoverProvider[] = [inferOptionHover, inferSchemaHover, moduleMemberHover, symbolHover, importedTypeHover];

export function onHover(doc: TurnDocument, params: HoverParams, providers: readonly HoverProvider[] = DEFAULT_HOVER_PROVIDERS): Hover | null {
  const analysis = doc.analysis();
  const offset = doc.offsetAt(params.position);
  for (const p of providers) {
    const h = p(doc, analysis, offset);
    if (h) return h;
  }
  return null;
}
