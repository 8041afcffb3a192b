// A closure as a tool a model may call (`infer T with { tools: [f] }`, issue 42): its parameters'
// declared types as one JSON Schema object (the mapping `infer` uses, runtime/infer/schema.ts) and
// its description, the `///` comment above it. Made from the source on first use, so a program that
// offers no tool pays nothing and the bytecode (and its hash) is what it was.
import type { Closure } from '../syntax/ast.js';
import type { SourceFile } from '../syntax/source.js';
import { docCommentBefore } from '../syntax/doc-comment.js';
import { typeToSchema, parametersSchema, SchemaError, type JsonSchema, type TypeEnv } from '../infer/schema.js';

export interface ToolParam {
  name: string;
  /** the parameter's schema inside `parameters` (its `$ref`s point into `parameters.$defs`) */
  schema: JsonSchema;
  /** declared `T?`: the model may leave it out (the closure gets null) */
  optional: boolean;
}

export type ToolSignature =
  | { ok: true; parameters: JsonSchema; description?: string; params: ToolParam[] }
  | { ok: false; message: string };

/** The name of the parameter an absorbed module's functions end with (compile/index.ts ARGUMENTS_GIVEN): not the model's to give. */
const ARGUMENTS_GIVEN = 'arguments_given';

export function toolSignature(c: Closure, env: TypeEnv, file: SourceFile): ToolSignature {
  const defs: Record<string, unknown> = {};
  const properties: Record<string, JsonSchema> = {};
  const params: ToolParam[] = [];
  for (const p of c.params) {
    const name = p.name.name;
    if (name === ARGUMENTS_GIVEN) continue;
    let schema: JsonSchema = {};
    if (p.type) {
      try {
        const { $schema: _dialect, $defs, ...body } = typeToSchema(p.type, env);
        Object.assign(defs, $defs as Record<string, unknown> | undefined);
        schema = body;
      } catch (e) {
        if (e instanceof SchemaError) return { ok: false, message: `the parameter \`${name}\` cannot be described to a model: ${e.message}` };
        throw e;
      }
    }
    properties[name] = schema;
    params.push({ name, schema, optional: p.type?.kind === 'OptionalType' });
  }
  const parameters = parametersSchema(properties, params, defs);
  const description = docCommentBefore(file.text, c.span.start);
  return { ok: true, parameters, params, ...(description ? { description } : {}) };
}

