// The types a stored run's model replies were asked in, as JSON Schemas (issue 44, what-if as a
// typed edit): the journal records an infer's type name, not its schema, so the schema comes from
// the bytecode the run started with (the store keeps its sources): each INFER's descriptor holds
// its type's name and schema. The editor's what-if form is generated from it, and a fork's edited
// value is checked against it before the fork is made.
import type { JsonSchema } from '../infer/schema.js';
import type { RunStore } from '../store/types.js';
import { compileStored, getRun } from './runs.js';

/**
 * Type name → schema, for every `infer T` of run `runId`'s program (the bundle it started with).
 * Empty when the store no longer has the bundle. Throws ResumeRefused when its sources no longer
 * compile with this Turn, StoreError when the store fails.
 */
export async function inferSchemas(store: RunStore, runId: string): Promise<Record<string, JsonSchema>> {
  const run = getRun(store, runId);
  const bytes = store.getBundle(run.bytecodeHash);
  if (!bytes) return {};
  const bundle = await compileStored(bytes, `run ${runId}`);
  const out: Record<string, JsonSchema> = {};
  for (const f of bundle.functions) {
    for (const c of f.consts) {
      if (typeof c !== 'object' || c === null) continue;
      const d = c as { typeName?: unknown; schema?: unknown };
      if (typeof d.typeName === 'string' && typeof d.schema === 'object' && d.schema !== null && !(d.typeName in out)) out[d.typeName] = d.schema as JsonSchema;
    }
  }
  return out;
}
