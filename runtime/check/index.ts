// `checkSource`: everything the compiler front end knows about one file — syntax and semantic
// diagnostics, the AST, and where each `use` points. `turn check`, `turn run` and the language
// server all call this, so they report the same diagnostics for the same text.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Program, UseExpr, UseSchemaExpr } from '../syntax/ast.js';
import type { Diagnostic } from '../diagnostics.js';
import { cachedParse } from '../syntax/parse-cache.js';
import type { SourceFile } from '../syntax/source.js';
import { walk } from '../syntax/walk.js';
import { analyze } from './analyze.js';
import { contextClosureWarnings } from './context-closures.js';
import { absorbSchemas, bindSchemas, type AbsorbedSchemas, type SchemaFetching } from './schemas.js';

export interface CheckResult {
  file: SourceFile;
  program: Program;
  diagnostics: Diagnostic[];
  /** Resolved absolute path of each `use "..."` whose file exists, and of each absorbed schema's generated module. */
  uses: Map<UseExpr | UseSchemaExpr, string>;
  /** The program's `use schema` expressions, in source order. */
  schemaUses: UseSchemaExpr[];
}

export async function checkSource(filePath: string, text: string, schemaFetching: SchemaFetching = {}): Promise<CheckResult> {
  const { program, diagnostics, file } = await cachedParse(filePath, text);
  const schemas = await absorbSchemas(filePath, program, schemaFetching);
  return checkParsed(filePath, file, program, diagnostics, schemas);
}

/**
 * The part of `checkSource` after parsing, for callers that already hold a lowered program (the
 * language server re-parses incrementally): analysis, `use` resolution, diagnostics in file order.
 */
export function checkParsed(filePath: string, file: SourceFile, program: Program, syntax: Diagnostic[], schemas?: AbsorbedSchemas): CheckResult {
  const semantic = syntax.some((d) => d.code === 'nesting') ? [] : [...analyze(program, undefined, schemas?.structs, schemas?.apis).diagnostics, ...contextClosureWarnings(program)];
  // One walk finds both kinds of `use`.
  const modules: UseExpr[] = [];
  const schemaUses: UseSchemaExpr[] = [];
  walk(program, (node) => {
    if (node.kind === 'Use') modules.push(node);
    else if (node.kind === 'UseSchema') schemaUses.push(node);
  });
  const bound = bindSchemas(program, schemas, schemaUses);
  const uses = new Map<UseExpr | UseSchemaExpr, string>(bound.uses);
  const useDiagnostics: Diagnostic[] = [];
  for (const node of modules) {
    const resolved = resolveModule(filePath, node.path.value);
    if (resolved.ok) uses.set(node, resolved.path);
    else useDiagnostics.push({ severity: 'error', message: resolved.message, span: node.path.span, code: 'unknown-module' });
  }
  const all = [...syntax, ...semantic, ...useDiagnostics, ...bound.diagnostics].sort((a, b) => a.span.start - b.span.start);
  return { file, program, diagnostics: all, uses, schemaUses };
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

/** `use "x"` resolves relative to the importing file; `.tn` may be left off. */
export function resolveModule(fromFile: string, spec: string): ModuleResolution {
  if (spec.startsWith('std/')) {
    const file = path.join(stdDirectory(), spec.slice(4) + '.tn');
    if (/^std\/[a-z_]+$/.test(spec) && fs.existsSync(file)) return { ok: true, path: file };
    return { ok: false, message: `the standard module \`${spec}\` is not available in this version of Turn yet` };
  }
  if (spec === '') return { ok: false, message: '`use` needs a module path' };
  const base = path.resolve(path.dirname(path.resolve(fromFile)), spec);
  // only Turn sources are modules: a `use` of any other file (a secrets file, a key) would show
  // its text in a syntax error
  for (const candidate of base.endsWith('.tn') ? [base] : [base + '.tn']) {
    try {
      if (fs.statSync(candidate).isFile()) return { ok: true, path: candidate };
    } catch {
      // not there
    }
  }
  if (!base.endsWith('.tn') && fs.existsSync(base)) return { ok: false, message: `\`${spec}\` is not a Turn module: \`use\` loads only .tn files` };
  return { ok: false, message: `cannot find module \`${spec}\` (looked for ${base}${path.extname(base) ? '' : ' and ' + base + '.tn'})` };
}
