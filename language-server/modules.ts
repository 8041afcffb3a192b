// Programs of many files in the editor: before a document is checked, the modules it uses (open
// documents first, else the files on disk) are checked as `turn check` checks them
// (runtime/check/modules.ts), so its calls into them are typed and a cycle or a broken module is
// shown at its `use`. The document remembers which files it was checked against, so that a change
// to one of them (an edit in another open document, or a file changed on disk) re-checks it.
import * as path from 'node:path';
import { checkParsed, ModuleGraph, readSourceText, typedModuleUses, typeToString, type CheckedModule, type ExportedType, type ModuleMember, type ModuleShape, type ModuleSource } from '../runtime/index.js';
import type { Ast, SourceFile } from '../runtime/index.js';
import { walk } from '../runtime/index.js';
import type { Analysis, TurnDocument } from './document.js';
import type { Workspace } from './workspace.js';

/** How a file is named in messages: relative to the workspace folder that holds it, else to `near`'s folder. */
function shownFrom(ws: Workspace, near: string): (file: string) => string {
  return (file) => {
    const root = ws.roots.find((r) => file.startsWith(r + path.sep));
    return path.relative(root ?? path.dirname(near), file) || path.basename(file);
  };
}

/** Why the workspace could not read `file`: the runtime's message (not text, too large, ...). */
function unreadable(file: string): string {
  try {
    readSourceText(file);
  } catch (e) {
    if (e instanceof Error) return e.message;
  }
  return `${file}: cannot be read`;
}

type CheckKey = (readonly [string, unknown, string | undefined])[];

/**
 * Modules checked for earlier publishes, by workspace and path: a module is checked again only when
 * its text or what its own modules export changed (each publish re-checks the whole module graph
 * otherwise: 250 ms for 190 small modules).
 */
const moduleChecks = new WeakMap<Workspace, Map<string, { file: SourceFile; key: CheckKey; checked: CheckedModule }>>();

function sameKey(a: CheckKey, b: CheckKey): boolean {
  return a.length === b.length && a.every((x, i) => x[0] === b[i][0] && x[1] === b[i][1] && x[2] === b[i][2]);
}

/** The workspace's documents as the module graph reads them. */
function workspaceSource(ws: Workspace): ModuleSource {
  let checks = moduleChecks.get(ws);
  if (!checks) moduleChecks.set(ws, (checks = new Map()));
  return {
    async read(file) {
      const doc = ws.byPath(file);
      if (!doc) return { ok: false, message: unreadable(file) };
      if (doc.tooLarge) return { ok: false, message: `${file}: too large to analyse in the editor` };
      const a = doc.analysis();
      return { ok: true, file: a.file, program: a.program, syntax: a.syntax };
    },
    async check(file, parsed, context): Promise<CheckedModule> {
      // the same text (the same SourceFile) against the same module context: the same result
      const key = [...context.modules].map(([p, m]) => [p, m.exports, m.problem] as const);
      const cached = checks.get(file);
      if (cached && cached.file === parsed.file && sameKey(cached.key, key)) return cached.checked;
      const result = checkParsed(file, parsed.file, parsed.program, parsed.syntax, undefined, context);
      const checked = { exports: result.exports, result, file: result.file };
      checks.set(file, { file: parsed.file, key, checked });
      return checked;
    },
    uses: (file, program) => typedModuleUses(file, program),
  };
}

/**
 * Checks the modules `doc` uses (and theirs) and hands the result to the document, whose next
 * analysis types its `use`s by it.
 */
export async function prepareModules(ws: Workspace, doc: TurnDocument): Promise<void> {
  if (doc.tooLarge) return;
  const graph = new ModuleGraph(workspaceSource(ws), shownFrom(ws, doc.path));
  const context = await graph.contextFor(doc.path, doc.analysis().program);
  doc.setModules(context, new Set(graph.checked.keys()));
}

/** The open documents (other than `changed` itself) whose last check read the file at `changed`. */
export function dependentsOf(ws: Workspace, changed: string): TurnDocument[] {
  return ws.openDocuments().filter((d) => d.path !== changed && d.modulePaths.has(changed));
}

/** A module member's signature as the hover shows it: `fmt(m: Money) -> Str`, or `unit: Str`. */
export function memberSignature(name: string, member: ModuleMember): string {
  if (member.sig) {
    const params = member.sig.params.map((p) => (p.type ? `${p.name}: ${typeToString(p.type)}` : p.name)).join(', ');
    return `${name}(${params})${member.sig.result ? ' -> ' + typeToString(member.sig.result) : ''}`;
  }
  return `${name}: ${typeToString(member.type)}`;
}

/** The module shape a `use` was typed with in the document's last analysis. */
export function moduleShapeOf(analysis: Analysis, use: Ast.UseExpr): ModuleShape | undefined {
  const t = analysis.index.exprTypes.get(use);
  return t?.kind === 'Map' ? t.module : undefined;
}

/** The type a document takes from its modules under this name (a struct or alias of another file). */
export function importedType(doc: TurnDocument, name: string): ExportedType | undefined {
  if (doc.analysis().index.types.has(name)) return undefined; // its own declaration wins
  for (const m of doc.modules?.modules.values() ?? []) {
    const t = m.exports?.types.find((x) => x.decl.name.name === name);
    if (t) return t;
  }
  return undefined;
}

const WORD = /[_\p{ID_Continue}]/u;

/** The identifier around `offset` in `text`, with where it starts. */
export function wordAt(text: string, offset: number): { word: string; start: number } | undefined {
  let start = offset;
  let end = offset;
  while (start > 0 && WORD.test(text[start - 1])) start--;
  while (end < text.length && WORD.test(text[end])) end++;
  return end > start ? { word: text.slice(start, end), start } : undefined;
}

/** Whether `doc` was checked against the module at `file`, or uses it directly. */
export function usesModule(doc: TurnDocument, file: string): boolean {
  if (doc.modulePaths.has(file)) return true;
  for (const target of doc.analysis().uses.values()) if (target === file) return true;
  return false;
}

/**
 * Where a file names the type `name` it takes from a module: struct literals, written types and
 * `impl`s. None when the file declares a type of that name itself (its own wins).
 */
export function typeNameSpans(program: Ast.Program, name: string): Ast.Span[] {
  if (program.body.some((s) => (s.kind === 'Struct' || s.kind === 'TypeAlias') && s.name.name === name)) return [];
  const out: Ast.Span[] = [];
  walk(program, (n) => {
    if (n.kind === 'StructLit' && n.name.name === name) out.push(n.name.span);
    else if (n.kind === 'NamedType' && n.name === name) out.push({ start: n.span.start, end: n.span.start + name.length });
    else if (n.kind === 'Impl' && n.typeName.name === name) out.push(n.typeName.span);
  });
  return out;
}
