// Compiles a Turn type to JSON Schema 2020-12:
// - a struct is an object with `additionalProperties: false`, every field in `required` except a
//   `T?` one (optional = may be absent, and nullable: `anyOf [T, {"type": "null"}]`); its Turn
//   name is its `title`, which is also how a reply is turned back into a struct value (`fromReply`);
// - `A | B` is `anyOf` (a struct union discriminated by a literal-typed field has a `const` there);
//   a literal is `const`, a string enum `enum`; `Map<Str, T>` is `additionalProperties: T`;
// - a recursive struct goes to `$defs` at the root and is referenced by `$ref`;
// - `///` descriptions are `description`; checks are their JSON Schema keywords (checks.ts), and
//   `@check` predicates ride in `x-turn-checks`, run by the validator (validate.ts), never sent.
import type { FieldCheck, TypeExpr } from '../syntax/ast.js';
import { interpretCheck, PREDICATE_KEYWORD, type CheckBase, type PredicateCheck } from './checks.js';

export interface StructInfo {
  name: string;
  typeParams: string[];
  fields: { name: string; type: TypeExpr; description?: string; checks?: FieldCheck[] }[];
  description?: string;
}

export interface TypeEnv {
  struct(name: string): StructInfo | undefined;
  alias(name: string): TypeExpr | undefined;
}

export type JsonSchema = Record<string, unknown>;

export const SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * A function's parameters as one JSON Schema object (2020-12): each parameter a property, the ones
 * not optional required, nothing else admitted, the structs they name in `$defs`. What a model is
 * offered for a native tool call (compile/tool-signature.ts) and an MCP caller for a served closure
 * (mcp/serve/discover.ts).
 */
export function parametersSchema(properties: Record<string, unknown>, params: readonly { name: string; optional: boolean }[], defs: Record<string, unknown>): JsonSchema {
  return {
    $schema: SCHEMA_DIALECT,
    type: 'object',
    properties,
    required: params.filter((p) => !p.optional).map((p) => p.name),
    additionalProperties: false,
    ...(Object.keys(defs).length > 0 ? { $defs: defs } : {}),
  };
}

export class SchemaError extends Error {}

/** The schema of `t`, with `$schema` (and `$defs`, for recursive structs) at the root. Throws `SchemaError` for types a model can't produce. */
export function typeToSchema(t: TypeExpr, env: TypeEnv): JsonSchema {
  const c = new SchemaCompiler(env);
  const body = c.schemaOf(t, new Map(), []);
  const defs = c.defs.size > 0 ? { $defs: Object.fromEntries(c.defs) } : {};
  return { $schema: SCHEMA_DIALECT, ...body, ...defs };
}

const NULL_SCHEMA: JsonSchema = { type: 'null' };

/** `s` or null. */
export function nullable(s: JsonSchema): JsonSchema {
  if (s.type === 'null') return s;
  return { anyOf: [s, NULL_SCHEMA] };
}

class SchemaCompiler {
  /** recursive struct instances, by their key */
  readonly defs = new Map<string, JsonSchema>();
  /** instances met inside themselves: they go to `defs` */
  private readonly recursive = new Set<string>();

  constructor(private readonly env: TypeEnv) {}

  schemaOf(t: TypeExpr, subst: Map<string, TypeExpr>, stack: string[]): JsonSchema {
    switch (t.kind) {
      case 'EnumType':
        return { type: 'string', enum: [...t.values] };
      case 'LiteralType':
        return t.value === null ? { type: 'null' } : { type: literalType(t.value), const: t.value };
      case 'OptionalType':
        return nullable(this.schemaOf(t.inner, subst, stack));
      case 'UnionType':
        return this.union(t.members.map((m) => this.schemaOf(m, subst, stack)));
      case 'FunctionType':
        throw new SchemaError('a function type cannot be inferred');
      case 'NamedType':
        break;
    }
    const bound = subst.get(t.name);
    if (bound && t.args.length === 0) return this.schemaOf(bound, new Map(), stack);
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
        return t.args.length > 0 ? { type: 'array', items: this.schemaOf(t.args[0], subst, stack) } : { type: 'array' };
      case 'Map':
        return t.args.length > 1
          ? { type: 'object', additionalProperties: this.schemaOf(t.args[1], subst, stack) }
          : { type: 'object' };
      case 'Vec':
        return { type: 'array', items: { type: 'number' } };
      case 'Pid':
      case 'Identity':
        throw new SchemaError(`a ${t.name} cannot be inferred`);
    }
    const alias = this.env.alias(t.name);
    if (alias) {
      if (stack.includes('type ' + t.name)) throw new SchemaError(`type alias ${t.name} is recursive`);
      return this.schemaOf(alias, subst, [...stack, 'type ' + t.name]);
    }
    const s = this.env.struct(t.name);
    if (!s) throw new SchemaError(`unknown type ${t.name}`);
    const inner = new Map<string, TypeExpr>();
    s.typeParams.forEach((p, i) => {
      let arg = t.args[i] ?? { kind: 'NamedType', name: 'Any', args: [], span: t.span };
      // Arguments are written in the caller's substitution.
      if (arg.kind === 'NamedType' && arg.args.length === 0 && subst.has(arg.name)) arg = subst.get(arg.name)!;
      inner.set(p, arg);
    });
    const key = defKey(s.name, s.typeParams.map((p) => inner.get(p)!));
    const ref = { $ref: `#/$defs/${key}` };
    if (this.defs.has(key)) return ref;
    if (stack.includes(key)) {
      this.recursive.add(key);
      return ref;
    }
    const body = this.struct(s, inner, [...stack, key]);
    if (!this.recursive.has(key)) return body;
    this.defs.set(key, body);
    return ref;
  }

  private struct(s: StructInfo, subst: Map<string, TypeExpr>, stack: string[]): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    for (const f of s.fields) {
      const optional = f.type.kind === 'OptionalType';
      let value = this.schemaOf(f.type.kind === 'OptionalType' ? f.type.inner : f.type, subst, stack);
      value = this.withChecks(value, f.checks ?? [], `${s.name}.${f.name}`);
      let property = optional ? nullable(value) : value;
      if (f.description !== undefined) property = { ...property, description: f.description };
      properties[f.name] = property;
      if (!optional) required.push(f.name);
    }
    return {
      title: s.name,
      ...(s.description !== undefined ? { description: s.description } : {}),
      type: 'object',
      properties,
      required,
      additionalProperties: false,
    };
  }

  /** `value` with the field's checks: their keywords, and the predicates under `x-turn-checks`. */
  private withChecks(value: JsonSchema, checks: FieldCheck[], where: string): JsonSchema {
    if (checks.length === 0) return value;
    const out: JsonSchema = { ...value };
    const predicates: PredicateCheck[] = [];
    for (const c of checks) {
      const r = interpretCheck(c, baseOf(value));
      if (!r.ok) throw new SchemaError(`${where}: ${r.message}`);
      if ('predicate' in r) predicates.push(r.predicate);
      else Object.assign(out, r.keywords);
    }
    if (predicates.length > 0) out[PREDICATE_KEYWORD] = predicates;
    return out;
  }

  /** `anyOf` of the members, a nullable member making the whole union nullable once. */
  private union(members: JsonSchema[]): JsonSchema {
    const flat: JsonSchema[] = [];
    let hasNull = false;
    const add = (m: JsonSchema): void => {
      if (m.type === 'null') hasNull = true;
      else if (Array.isArray(m.anyOf) && Object.keys(m).length === 1) (m.anyOf as JsonSchema[]).forEach(add);
      else flat.push(m);
    };
    members.forEach(add);
    if (hasNull) flat.push(NULL_SCHEMA);
    // String literals only (after flattening): an enum, as for `"a" | "b"`.
    if (flat.length > 1 && flat.every((m) => m.type === 'string' && typeof m.const === 'string' && Object.keys(m).length === 2)) {
      return { type: 'string', enum: flat.map((m) => m.const) };
    }
    return flat.length === 1 ? flat[0] : { anyOf: flat };
  }
}

/** A `$defs` key for a struct instance: its name, with its type arguments for a generic one. */
function defKey(name: string, args: TypeExpr[]): string {
  if (args.length === 0) return name;
  return `${name}_${args.map(argText).join('_')}`.replace(/[^A-Za-z0-9_]/g, '_');
}

function argText(t: TypeExpr): string {
  switch (t.kind) {
    case 'NamedType':
      return t.args.length ? `${t.name}_${t.args.map(argText).join('_')}` : t.name;
    case 'OptionalType':
      return `${argText(t.inner)}_opt`;
    case 'UnionType':
      return t.members.map(argText).join('_or_');
    case 'LiteralType':
      return String(t.value);
    case 'EnumType':
      return t.values.join('_or_');
    case 'FunctionType':
      return 'fn';
  }
}

function literalType(v: string | number | boolean): string {
  return typeof v === 'string' ? 'string' : typeof v === 'number' ? 'number' : 'boolean';
}

function baseOf(s: JsonSchema): CheckBase | undefined {
  switch (s.type) {
    case 'number':
    case 'integer':
      return 'Num';
    case 'string':
      return 'Str';
    case 'array':
      return 'List';
  }
  return undefined;
}
