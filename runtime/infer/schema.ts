// Compiles a Turn type to JSON Schema 2020-12: every struct field required,
// `additionalProperties: false`, nested structs, `List<T>`, enums of string literals.
// A struct schema carries its Turn name as `title`, which is also how a reply is turned
// back into a struct value (see `fromReply`).
import type { TypeExpr } from '../syntax/ast.js';

export interface StructInfo {
  name: string;
  typeParams: string[];
  fields: { name: string; type: TypeExpr }[];
}

export interface TypeEnv {
  struct(name: string): StructInfo | undefined;
  alias(name: string): TypeExpr | undefined;
}

export type JsonSchema = Record<string, unknown>;

export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export class SchemaError extends Error {}

/** The schema of `t`, with `$schema` at the root. Throws `SchemaError` for types a model can't produce. */
export function typeToSchema(t: TypeExpr, env: TypeEnv): JsonSchema {
  return { $schema: SCHEMA_DIALECT, ...schemaOf(t, env, new Map(), []) };
}

function schemaOf(t: TypeExpr, env: TypeEnv, subst: Map<string, TypeExpr>, stack: string[]): JsonSchema {
  if (t.kind === 'EnumType') return { type: 'string', enum: [...t.values] };
  if (t.kind === 'FunctionType') throw new SchemaError('a function type cannot be inferred');
  const bound = subst.get(t.name);
  if (bound && t.args.length === 0) return schemaOf(bound, env, new Map(), stack);
  switch (t.name) {
    case 'Num':
      return { type: 'number' };
    case 'Str':
      return { type: 'string' };
    case 'Bool':
      return { type: 'boolean' };
    case 'Any':
      return {};
    case 'Void':
      return { type: 'null' };
    case 'List':
      return t.args.length > 0 ? { type: 'array', items: schemaOf(t.args[0], env, subst, stack) } : { type: 'array' };
    case 'Map':
      return t.args.length > 1
        ? { type: 'object', additionalProperties: schemaOf(t.args[1], env, subst, stack) }
        : { type: 'object' };
    case 'Vec':
      return { type: 'array', items: { type: 'number' } };
    case 'Pid':
    case 'Identity':
      throw new SchemaError(`a ${t.name} cannot be inferred`);
  }
  const alias = env.alias(t.name);
  if (alias) {
    if (stack.includes('type ' + t.name)) throw new SchemaError(`type alias ${t.name} is recursive`);
    return schemaOf(alias, env, subst, [...stack, 'type ' + t.name]);
  }
  const s = env.struct(t.name);
  if (!s) throw new SchemaError(`unknown type ${t.name}`);
  if (stack.includes(s.name)) throw new SchemaError(`struct ${s.name} is recursive and cannot be inferred yet`);
  const inner = new Map<string, TypeExpr>();
  s.typeParams.forEach((p, i) => {
    const arg = t.args[i];
    inner.set(p, arg ?? { kind: 'NamedType', name: 'Any', args: [], span: t.span });
  });
  // Arguments are written in the caller's substitution.
  for (const [k, v] of inner) if (v.kind === 'NamedType' && subst.has(v.name) && v.args.length === 0) inner.set(k, subst.get(v.name)!);
  const properties: Record<string, unknown> = {};
  for (const f of s.fields) properties[f.name] = schemaOf(f.type, env, inner, [...stack, s.name]);
  return {
    title: s.name,
    type: 'object',
    properties,
    required: s.fields.map((f) => f.name),
    additionalProperties: false,
  };
}
