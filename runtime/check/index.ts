// `checkSource`: everything the compiler front end knows about one file — syntax and semantic
// diagnostics, the AST, and where each `use` points. `turn check`, `turn run` and the language
// server all call this, so they report the same diagnostics for the same text.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LetStmt, Program, UseExpr, UseSchemaExpr } from '../syntax/ast.js';
import type { Diagnostic } from '../diagnostics.js';
import { cachedParse } from '../syntax/parse-cache.js';
import type { SourceFile } from '../syntax/source.js';
import { walk } from '../syntax/walk.js';
import { analyze } from './analyze.js';
import { contextClosureWarnings } from './context-closures.js';
import { absorbSchemas, bindSchemas, type AbsorbedSchemas, type SchemaFetching } from './schemas.js';
import { isPathSpec, projectCandidates, projectOf } from './project.js';
import { exportCollector, exportedTypes, importModules, type ImportedModules, type ModuleContext, type ModuleExports } from './modules.js';
import { ANY } from './types.js';

export interface CheckResult {
  file: SourceFile;
  program: Program;
  diagnostics: Diagnostic[];
  /** Resolved absolute path of each `use "..."` whose file exists, and of each absorbed schema's generated module. */
  uses: Map<UseExpr | UseSchemaExpr, string>;
  /** The program's `use schema` expressions, in source order. */
  schemaUses: UseSchemaExpr[];
  /** What this file gives a file that uses it: its value's type and its types (modules.ts). */
  exports: ModuleExports;
  /** What this file takes from its modules (the symbol index is built with the same). */
  imports: Pick<ImportedModules, 'types' | 'values'>;
}

/**
 * Checks one file. With `modules` (what `loadProgram` and the language server give), a `use` of a
 * module is typed by what the module exports; without, it is Any (the file alone).
 */
export async function checkSource(filePath: string, text: string, schemaFetching: SchemaFetching = {}, modules?: ModuleContext): Promise<CheckResult> {
  const { program, diagnostics, file } = await cachedParse(filePath, text);
  const schemas = await absorbSchemas(filePath, program, schemaFetching);
  return checkParsed(filePath, file, program, diagnostics, schemas, modules);
}

/**
 * The part of `checkSource` after parsing, for callers that already hold a lowered program (the
 * language server re-parses incrementally): analysis, `use` resolution, diagnostics in file order.
 * `context`: what the file's modules export (modules.ts); without it, each `use` is Any.
 */
export function checkParsed(filePath: string, file: SourceFile, program: Program, syntax: Diagnostic[], schemas?: AbsorbedSchemas, context?: ModuleContext): CheckResult {
  // one walk finds what the passes below look for (each used to walk the whole program itself)
  const { modules, schemaUses, lets } = collectNodes(program);
  const moduleUses = resolveUses(filePath, program, modules);
  const imported = importModules(program, moduleUses.resolved, context);
  const collector = exportCollector(program);
  const analyzed = !syntax.some((d) => d.code === 'nesting');
  const semantic = analyzed ? [...analyze(program, collector.observer, [...(schemas?.structs ?? []), ...imported.types], schemas?.apis, imported.values).diagnostics, ...contextClosureWarnings(program, lets)] : [];
  const exports: ModuleExports = { value: analyzed ? collector.value() : ANY, types: exportedTypes(filePath, program, context) };
  const bound = bindSchemas(program, schemas, schemaUses);
  const uses = new Map<UseExpr | UseSchemaExpr, string>(bound.uses);
  const useDiagnostics: Diagnostic[] = [];
  for (const node of modules) {
    const resolved = moduleUses.resolved.get(node);
    if (resolved) uses.set(node, resolved);
    else useDiagnostics.push({ severity: 'error', message: moduleUses.failed.get(node) ?? 'cannot find module', span: node.path.span, code: 'unknown-module' });
  }
  const all = [...syntax, ...semantic, ...useDiagnostics, ...imported.diagnostics, ...bound.diagnostics].sort((a, b) => a.span.start - b.span.start);
  return { file, program, diagnostics: all, uses, schemaUses, exports, imports: { types: imported.types, values: imported.values } };
}

/**
 * The modules of `program` the checker types: each resolved `use "..."` but the standard modules,
 * whose functions keep Turn v1's single-map form (`net.get({"url": u, ...})`) and stay untyped.
 */
export function typedModuleUses(filePath: string, program: Program): Map<UseExpr, string> {
  const std = stdDirectory() + path.sep;
  const out = new Map<UseExpr, string>();
  for (const [node, target] of resolveUses(filePath, program).resolved) if (!target.startsWith(std)) out.set(node, target);
  return out;
}

/** The program's `use` and `use schema` expressions and its `let` statements, in source order, found in one walk. */
export function collectNodes(program: Program): { modules: UseExpr[]; schemaUses: UseSchemaExpr[]; lets: LetStmt[] } {
  const modules: UseExpr[] = [];
  const schemaUses: UseSchemaExpr[] = [];
  const lets: LetStmt[] = [];
  walk(program, (node) => {
    if (node.kind === 'Let') lets.push(node);
    else if (node.kind === 'Use') modules.push(node);
    else if (node.kind === 'UseSchema') schemaUses.push(node);
  });
  return { modules, schemaUses, lets };
}

/** Where each `use "..."` of `program` leads, or why it leads nowhere (`nodes`: its `use`s, when already found). */
export function resolveUses(filePath: string, program: Program, nodes: readonly UseExpr[] = collectNodes(program).modules): { resolved: Map<UseExpr, string>; failed: Map<UseExpr, string> } {
  const resolved = new Map<UseExpr, string>();
  const failed = new Map<UseExpr, string>();
  for (const node of nodes) {
    const r = resolveModule(filePath, node.path.value);
    if (r.ok) resolved.set(node, r.path);
    else failed.set(node, r.message);
  }
  return { resolved, failed };
}

export type ModuleResolution = { ok: true; path: string } | { ok: false; message: string };

let stdDir: string | undefined;

/** runtime/std, which holds the standard modules written in Turn (found from source or from dist/). */
export function stdDirectory(): string {
  if (stdDir) return stdDir;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'runtime', 'std');
    if (fs.existsSync(candidate)) return (stdDir = candidate);
    if (path.dirname(dir) === dir) throw new Error(`cannot find runtime/std above ${__dirname}`);
  }
}

/**
 * `use "x"` resolves relative to the importing file; `.tn` may be left off. A bare name (`use
 * "money"`, `use "lib/money"`) not found beside the file is looked up in the project's turn.json
 * `paths`, then in the project folder (project.ts).
 */
export function resolveModule(fromFile: string, spec: string): ModuleResolution {
  if (spec.startsWith('std/')) {
    const file = path.join(stdDirectory(), spec.slice(4) + '.tn');
    if (/^std\/[a-z_]+$/.test(spec) && fs.existsSync(file)) return { ok: true, path: file };
    return { ok: false, message: `the standard module \`${spec}\` is not available in this version of Turn yet` };
  }
  if (spec === '') return { ok: false, message: '`use` needs a module path' };
  const base = path.resolve(path.dirname(path.resolve(fromFile)), spec);
  const bases = [base];
  if (!isPathSpec(spec)) {
    const found = turnSource(base);
    if (found) return { ok: true, path: found };
    const lookup = projectOf(fromFile);
    if (!lookup.ok) return { ok: false, message: `cannot resolve module \`${spec}\`: ${lookup.message}` };
    if (lookup.project) bases.push(...projectCandidates(lookup.project, spec).filter((b) => b !== base));
  }
  for (const b of bases) {
    const found = turnSource(b);
    if (found) return { ok: true, path: found };
  }
  if (!base.endsWith('.tn') && fs.existsSync(base)) return { ok: false, message: `\`${spec}\` is not a Turn module: \`use\` loads only .tn files` };
  const looked = bases.map((b) => (b.endsWith('.tn') ? b : b + '.tn')).join(', ');
  return { ok: false, message: `cannot find module \`${spec}\` (looked for ${looked})` };
}

/**
 * The Turn source at `base` (or `base.tn`), if it is a file. Only Turn sources are modules: a `use`
 * of any other file (a secrets file, a key) would show its text in a syntax error.
 */
function turnSource(base: string): string | undefined {
  const candidate = base.endsWith('.tn') ? base : base + '.tn';
  try {
    if (fs.statSync(candidate).isFile()) return candidate;
  } catch {
    // not there
  }
  return undefined;
}
