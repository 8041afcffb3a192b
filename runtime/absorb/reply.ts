// Replies of absorbed operations are validated before the program sees them. At compile time the
// generated module gets, per operation, the JSON Schema (2020-12) of its declared result type —
// written in the wire's property names, with the absorbed checks as keywords — and one `$defs`
// document for the structs those schemas name. At run time the module passes the decoded reply to
// the pure tool `json_schema_issues` (registered in runtime/effects/tools.ts), which validates it
// with the validator `infer` uses (runtime/infer/validate.ts) and returns the violations; the
// module turns the first into a `ReplyError` (docs/language.md, "Absorbing API schemas").
//
// A reply may carry properties the spec does not list (APIs add fields; the schemas here never say
// `additionalProperties: false`). Everything else the type says is enforced: required fields, types,
// literals, unions, list items, map values, checks.
import type { StaticType } from '../check/types.js';
import { issues } from '../infer/validate.js';
import { packJson, unpackJson } from './packed.js';
import type { AbsorbedStruct, FieldCheck } from './types.js';

export type JsonSchema = Record<string, unknown>;

const KEYWORD: Record<FieldCheck['keyword'], string> = {
  minimum: 'minimum',
  maximum: 'maximum',
  exclusive_minimum: 'exclusiveMinimum',
  exclusive_maximum: 'exclusiveMaximum',
  multiple_of: 'multipleOf',
  min_length: 'minLength',
  max_length: 'maxLength',
  pattern: 'pattern',
  min_items: 'minItems',
  max_items: 'maxItems',
};

/** How the schemas name structs: an absorbed struct name → its `$defs` key, or undefined (then it is not checked). */
export type DefName = (absorbedName: string) => string | undefined;

/** The schema of a value of type `t`; `{}` accepts anything. Struct references are `#/$defs/NAME`. */
export function typeSchema(t: StaticType, defName: DefName, used: Set<string>, depth = 0): JsonSchema {
  if (depth > 64) return {};
  switch (t.kind) {
    case 'Num':
      return { type: 'number' };
    case 'Str':
      return { type: 'string' };
    case 'Bool':
      return { type: 'boolean' };
    case 'Null':
      return { type: 'null' };
    case 'List': {
      const items = typeSchema(t.element, defName, used, depth + 1);
      return Object.keys(items).length === 0 ? { type: 'array' } : { type: 'array', items };
    }
    case 'Map': {
      const value = t.value ? typeSchema(t.value, defName, used, depth + 1) : {};
      return Object.keys(value).length === 0 ? { type: 'object' } : { type: 'object', additionalProperties: value };
    }
    case 'Struct': {
      const def = defName(t.name);
      if (def === undefined) return {};
      used.add(t.name);
      return { $ref: `#/$defs/${def}` };
    }
    case 'Enum':
      return { type: 'string', enum: [...new Set(t.values)] };
    case 'Literal':
      return { const: t.value };
    case 'Optional':
      return nullable(typeSchema(t.inner, defName, used, depth + 1));
    case 'Union': {
      const members = t.members.map((m) => typeSchema(m, defName, used, depth + 1));
      return members.some((m) => Object.keys(m).length === 0) ? {} : { anyOf: members };
    }
    default:
      return {}; // Any, Void (no content), and what a reply cannot be
  }
}

function nullable(s: JsonSchema): JsonSchema {
  return Object.keys(s).length === 0 ? s : { anyOf: [s, { type: 'null' }] };
}

/** `schema` with the check keywords added to its non-null part. */
function withChecks(schema: JsonSchema, checks: readonly FieldCheck[] | undefined): JsonSchema {
  if (!checks || checks.length === 0 || Object.keys(schema).length === 0) return schema;
  const keywords = Object.fromEntries(checks.map((c) => [KEYWORD[c.keyword], c.value]));
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (anyOf && anyOf.length === 2 && (anyOf[1]).type === 'null') return { anyOf: [{ ...anyOf[0], ...keywords }, anyOf[1]] };
  return { ...schema, ...keywords };
}

/** The schema of one absorbed struct, in its wire names, titled by its Turn name (how a failure names a union's members). */
function structSchema(s: AbsorbedStruct, title: string, defName: DefName, used: Set<string>): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const f of s.fields) {
    const t = typeSchema(f.type, defName, used);
    properties[f.wireName] = withChecks(f.optional ? nullable(t) : t, f.checks);
    if (!f.optional) required.push(f.wireName);
  }
  return { title, type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * `$defs` for every struct the schemas in `used` name, transitively (keyed by `defName`), as one
 * document: `{"$defs": {...}}`.
 */
export function replyDefs(structs: readonly AbsorbedStruct[], defName: DefName, used: Set<string>): JsonSchema {
  const byName = new Map<string, AbsorbedStruct>();
  for (const s of structs) if (!byName.has(s.name)) byName.set(s.name, s);
  const defs: Record<string, JsonSchema> = {};
  const done = new Set<string>();
  for (let pending = [...used]; pending.length > 0; pending = [...used].filter((n) => !done.has(n))) {
    for (const name of pending) {
      done.add(name);
      const s = byName.get(name);
      const def = defName(name);
      if (s && def !== undefined) defs[def] = structSchema(s, def, defName, used);
    }
  }
  return { $defs: defs };
}

// ---- run time: the `json_schema_issues` tool

/** Compiled schemas by their `$defs` document's text, then by the root schema's text (both constants of a generated module). */
const compiled = new Map<string, Map<string, object>>();
const MAX_DOCUMENTS = 64;

function schemaObject(schemaText: string, defsText: string): object {
  let byRoot = compiled.get(defsText);
  if (!byRoot) {
    if (compiled.size >= MAX_DOCUMENTS) compiled.delete(compiled.keys().next().value!);
    byRoot = new Map();
    compiled.set(defsText, byRoot);
  }
  let schema = byRoot.get(schemaText);
  if (!schema) {
    const root = parseObject(schemaText, 'schema');
    const defs = defsText === '' ? {} : parseObject(defsText, 'defs');
    schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...root, ...defs };
    byRoot.set(schemaText, schema);
  }
  return schema;
}

/** How a generated module writes a schema: packed JSON text (packed.ts). */
export function encodedSchema(schema: JsonSchema): string {
  return packJson(JSON.stringify(schema));
}

function parseObject(text: string, what: string): JsonSchema {
  let v: unknown;
  try {
    v = JSON.parse(unpackJson(text));
  } catch (e) {
    throw new Error(`json_schema_issues: the ${what} is not JSON: ${(e as Error).message}`);
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error(`json_schema_issues: the ${what} must be a JSON object`);
  return v as JsonSchema;
}

/**
 * `json_schema_issues(value, schema, defs?)` → a list of `{"pointer", "message"}`, empty when
 * `value` conforms. `schema` is JSON Schema 2020-12 as JSON text (or `base64:` and the base64 of
 * it); `defs`, when given, is an object written the same way whose keys (`$defs`) are added to it.
 */
export function jsonSchemaIssues(value: unknown, schema: unknown, defs?: unknown): { pointer: string; message: string }[] {
  if (typeof schema !== 'string') throw new Error('json_schema_issues: the schema must be a Str (JSON text)');
  if (defs !== undefined && defs !== null && typeof defs !== 'string') throw new Error('json_schema_issues: the defs must be a Str (JSON text) or null');
  let found;
  try {
    found = issues(schemaObject(schema, typeof defs === 'string' ? defs : ''), value);
  } catch (e) {
    throw new Error(`json_schema_issues: ${(e as Error).message}`);
  }
  return (found ?? []).map((i) => ({ pointer: i.path || '/', message: i.message }));
}
