// `use schema::<protocol>("source")` at compile time: absorbs the spec (runtime/absorb), writes the
// generated Turn module into the schema cache (`.turn/schemas/` in the working directory, or
// TURN_SCHEMA_DIR), and hands back what the checker needs: where the module is, its struct
// declarations (so the importing file can name absorbed types), and the spec's diagnostics.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { absorbSchema } from '../absorb/index.js';
import { absorbedModuleSource } from '../absorb/module.js';
import type { Diagnostic } from '../diagnostics.js';
import type { Program, StructDecl, UseSchemaExpr } from '../syntax/ast.js';
import { parseSource } from '../syntax/parse.js';
import { walk } from '../syntax/walk.js';

export interface AbsorbedSchemas {
  /** the generated module of each `use schema` that absorbed cleanly */
  uses: Map<UseSchemaExpr, string>;
  /** struct declarations of every absorbed spec, visible to the importing file */
  structs: StructDecl[];
  diagnostics: Diagnostic[];
}

export function schemaCacheDir(): string {
  return process.env.TURN_SCHEMA_DIR ?? path.join(process.cwd(), '.turn', 'schemas');
}

export async function absorbSchemas(filePath: string, program: Program, options: { refresh?: boolean } = {}): Promise<AbsorbedSchemas> {
  const result: AbsorbedSchemas = { uses: new Map(), structs: [], diagnostics: [] };
  const nodes: UseSchemaExpr[] = [];
  walk(program, (n) => {
    if (n.kind === 'UseSchema') nodes.push(n);
  });
  for (const node of nodes) {
    const report = (message: string) => result.diagnostics.push({ severity: 'error', message, span: node.source.span, code: 'schema' });
    if (node.source.kind !== 'String') {
      report('a schema source must be a string literal: specs are absorbed when the program is compiled');
      continue;
    }
    const cacheDir = schemaCacheDir();
    const absorbed = await absorbSchema(node.protocol.name, node.source.value, path.dirname(path.resolve(filePath)), {
      cacheDir: path.join(cacheDir, 'specs'),
      refresh: options.refresh,
    });
    const errors = absorbed.diagnostics.filter((d) => d.severity === 'error');
    for (const d of absorbed.diagnostics) {
      const where = d.line !== undefined ? `${d.file}:${d.line}:${d.column ?? 1}` : d.file;
      const pointer = d.pointer ? ` (${d.pointer})` : '';
      result.diagnostics.push({ severity: d.severity, message: `${where}${pointer}: ${d.message}`, span: node.source.span, code: 'schema' });
    }
    if (errors.length > 0) continue;
    const source = absorbedModuleSource(absorbed, node.protocol.name, node.source.value);
    const file = path.join(cacheDir, `${createHash('sha256').update(source).digest('hex').slice(0, 16)}.tn`);
    fs.mkdirSync(cacheDir, { recursive: true });
    const ignore = path.join(path.dirname(cacheDir), '.gitignore');
    if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '*\n');
    if (!fs.existsSync(file)) fs.writeFileSync(file, source);
    const generated = await parseSource(file, source);
    if (generated.diagnostics.length > 0) {
      report(`internal error: the module generated from ${node.source.value} does not parse: ${generated.diagnostics[0].message}`);
      continue;
    }
    result.uses.set(node, file);
    for (const s of generated.program.body) if (s.kind === 'Struct') result.structs.push(s);
  }
  return result;
}
