// `use schema::<protocol>("source")` at compile time: absorbs the spec (runtime/absorb), writes the
// generated Turn module into the schema cache (`.turn/schemas/` in the working directory, or
// TURN_SCHEMA_DIR), and hands back what the checker needs: where the module is, its struct
// declarations (so the importing file can name absorbed types), and the spec's diagnostics.
import * as fs from 'node:fs';
import { sha256Hex } from '../hash.js';
import * as path from 'node:path';
import type { ApiShape } from './types.js';
import type { Diagnostic } from '../diagnostics.js';
import type { Expr, Program, StructDecl, UseSchemaExpr } from '../syntax/ast.js';
import { parseSource } from '../syntax/parse.js';
import { walk } from '../syntax/walk.js';

export interface AbsorbedSchemas {
  /** by `schemaKey`: the generated module, or the spec's problems */
  specs: Map<string, { module?: string; problems: { severity: 'error' | 'warning'; message: string }[] }>;
  /** struct declarations of every absorbed spec, visible to the importing file */
  structs: StructDecl[];
  /** by `schemaKey`: the typed operations of each absorbed spec, for the checker */
  apis: Map<string, ApiShape>;
}

/** Identifies a `use schema` by what it absorbs, so results survive edits elsewhere in the file. */
export function schemaKey(node: UseSchemaExpr): string {
  const launch = node.source.kind === 'Map' ? literalValue(node.source) : undefined;
  return `${node.protocol.name}\u0000${node.source.kind === 'String' ? node.source.value : launch !== undefined ? JSON.stringify(launch) : ''}`;
}

/**
 * A literal made of strings, numbers, lists and maps as plain JSON (an MCP launch map:
 * `{"command": "node", "args": ["server.js"], "max_reply_bytes": 67108864}`), or undefined when it holds anything else.
 */
export function literalValue(e: Expr): unknown {
  switch (e.kind) {
    case 'String':
    case 'Number':
      return e.value;
    case 'List': {
      const items = e.items.map(literalValue);
      return items.some((i) => i === undefined) ? undefined : items;
    }
    case 'Map': {
      const out: Record<string, unknown> = {};
      for (const entry of e.entries) {
        const v = literalValue(entry.value);
        if (v === undefined) return undefined;
        out[entry.key] = v;
      }
      return out;
    }
    default:
      return undefined;
  }
}

export function schemaCacheDir(): string {
  return process.env.TURN_SCHEMA_DIR ?? path.join(process.cwd(), '.turn', 'schemas');
}

export function useSchemaNodes(program: Program): UseSchemaExpr[] {
  const nodes: UseSchemaExpr[] = [];
  walk(program, (n) => {
    if (n.kind === 'UseSchema') nodes.push(n);
  });
  return nodes;
}

export interface SchemaFetching {
  /** fetch URL specs that are not cached yet (the CLI does; the editor asks first, by a quick fix) */
  fetch?: boolean;
  /** fetch them again even when cached (`--refresh-schemas`, the editor's quick fix) */
  refresh?: boolean;
  /**
   * stdio MCP servers (`use schema::mcp({"command": ...})`) whose command may be launched to list
   * their tools: `--allow-run`'s commands, or true (the editor's quick fix, a person's request)
   */
  launch?: boolean | readonly string[];
  /** variables a listed stdio server's `pass_env` may name (`--allow-env`) */
  allowEnv?: readonly string[];
}

export async function absorbSchemas(filePath: string, program: Program, options: SchemaFetching = {}): Promise<AbsorbedSchemas> {
  const result: AbsorbedSchemas = { specs: new Map(), structs: [], apis: new Map() };
  const nodes = useSchemaNodes(program);
  if (nodes.length === 0) return result;
  // loaded on first use: the absorbers (GraphQL, YAML, $ref bundling) are a third of the CLI bundle
  // and their initialisation was a fifth of an empty run's start-up (issue 29)
  const { absorbSchema } = await import('../absorb/index.js');
  const { absorbedApi, absorbedModuleSource } = await import('../absorb/module.js');
  for (const node of nodes) {
    const key = schemaKey(node);
    if (result.specs.has(key)) continue;
    const entry: { module?: string; problems: { severity: 'error' | 'warning'; message: string }[] } = { problems: [] };
    result.specs.set(key, entry);
    const launch = node.protocol.name === 'mcp' && node.source.kind === 'Map' ? literalValue(node.source) : undefined;
    if (node.source.kind !== 'String' && launch === undefined) {
      const mcp = node.protocol.name === 'mcp' ? ' (for an MCP server: its URL, or a launch map of literals {"command": "...", "args": [...]})' : '';
      entry.problems.push({ severity: 'error', message: `a schema source must be a string literal${mcp}: specs are absorbed when the program is compiled` });
      continue;
    }
    const sourceText = node.source.kind === 'String' ? node.source.value : JSON.stringify(launch);
    const cacheDir = schemaCacheDir();
    const absorbed = await absorbSchema(node.protocol.name, node.source.kind === 'String' ? node.source.value : (launch as Record<string, unknown>), path.dirname(path.resolve(filePath)), {
      cacheDir: path.join(cacheDir, 'specs'),
      refresh: options.refresh,
      fetch: options.fetch || options.refresh ? (url, init) => globalThis.fetch(url, init) : undefined,
      mcp: { contact: !!(options.fetch || options.refresh), launch: options.launch ?? false, ...(options.allowEnv ? { allowEnv: options.allowEnv } : {}) },
    });
    for (const d of absorbed.diagnostics) {
      const where = d.line !== undefined ? `${d.file}:${d.line}:${d.column ?? 1}` : d.file;
      const pointer = d.pointer ? ` (${d.pointer})` : '';
      entry.problems.push({ severity: d.severity, message: `${where}${pointer}: ${d.message}` });
    }
    if (absorbed.diagnostics.some((d) => d.severity === 'error')) continue;
    // The generated module is correct by construction (runtime/absorb/module.ts); the parse below
    // is a guard that turns a generator bug into a diagnostic instead of a failing `use`.
    const source = absorbedModuleSource(absorbed, node.protocol.name, sourceText);
    const file = path.join(cacheDir, `${sha256Hex(source).slice(0, 16)}.tn`);
    try {
      fs.mkdirSync(cacheDir, { recursive: true });
      const ignore = path.join(path.dirname(cacheDir), '.gitignore');
      if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '*\n');
      if (!fs.existsSync(file)) fs.writeFileSync(file, source);
    } catch (e) {
      entry.problems.push({ severity: 'error', message: `cannot write the module generated from ${sourceText} to ${cacheDir}: ${(e as Error).message} (set TURN_SCHEMA_DIR to a writable folder)` });
      continue;
    }
    const generated = await parseSource(file, source);
    if (generated.diagnostics.length > 0) {
      entry.problems.push({ severity: 'error', message: `internal error: the module generated from ${sourceText} does not parse: ${generated.diagnostics[0].message}` });
      continue;
    }
    entry.module = file;
    for (const s of generated.program.body) if (s.kind === 'Struct') result.structs.push(s);
    result.apis.set(key, absorbedApi(absorbed, sourceText));
  }
  return result;
}

/** Maps absorbed specs onto this program's `use schema` nodes: their modules and their diagnostics. */
export function bindSchemas(program: Program, schemas: AbsorbedSchemas | undefined, nodes?: readonly UseSchemaExpr[]): { uses: Map<UseSchemaExpr, string>; diagnostics: Diagnostic[] } {
  const uses = new Map<UseSchemaExpr, string>();
  const diagnostics: Diagnostic[] = [];
  if (!schemas || schemas.specs.size === 0) return { uses, diagnostics }; // nothing to bind: skip the walk
  for (const node of nodes ?? useSchemaNodes(program)) {
    const spec = schemas?.specs.get(schemaKey(node));
    if (!spec) continue;
    if (spec.module) uses.set(node, spec.module);
    for (const p of spec.problems) diagnostics.push({ severity: p.severity, message: p.message, span: node.source.span, code: 'schema' });
  }
  return { uses, diagnostics };
}

