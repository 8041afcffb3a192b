// The largest schema OpenAI's strict structured output accepts for a full one. Strict mode decodes
// under the schema, but takes only a subset of JSON Schema: every object closed
// (`additionalProperties: false`) with every property required, no `anyOf` at the root, no open
// `{}`, and only some keywords. The downgrade keeps the meaning where it can — an optional property
// becomes a required nullable one (`anyOf [T, {"type": "null"}]`), a `const` a one-value `enum` —
// and drops what strict mode refuses (`minLength`, `maxLength`, ...). The provider gets
// the downgraded schema; the reply is still validated against the full one (driver.ts), so a
// dropped check is enforced by the re-ask instead. A type strict mode cannot state at all (`Any`,
// a free or typed `Map`) leaves `ok: false`, and the provider sends the full schema without strict.
import type { JsonSchema } from './schema.js';

/** The keywords strict mode accepts (the others are dropped). */
const STRICT_KEYWORDS = new Set([
  'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'anyOf', '$ref', '$defs', 'title', 'description',
  'pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems',
]);

export type StrictSchema =
  | { ok: true; schema: JsonSchema; /** keywords dropped, each once, sorted */ dropped: string[] }
  | { ok: false; reason: string };

class Inexpressible extends Error {}

/**
 * `schema` (a root schema, e.g. the `infer` envelope of prompt.ts `wireSchema`) as OpenAI strict
 * mode accepts it. A root that is not an object is wrapped as `{"value": root}` (the caller unwraps).
 */
export function strictSchema(schema: JsonSchema): StrictSchema {
  const dropped = new Set<string>();
  try {
    const { $defs, $schema: _dialect, ...rest } = schema;
    let root = convert(rest, dropped, '');
    if (root.type !== 'object') {
      root = { type: 'object', properties: { value: root }, required: ['value'], additionalProperties: false };
    }
    if ($defs && typeof $defs === 'object') {
      root.$defs = Object.fromEntries(Object.entries($defs as Record<string, JsonSchema>).map(([k, d]) => [k, convert(d, dropped, `/$defs/${k}`)]));
    }
    return { ok: true, schema: root, dropped: [...dropped].sort() };
  } catch (e) {
    if (e instanceof Inexpressible) return { ok: false, reason: e.message };
    throw e;
  }
}

function convert(s: JsonSchema, dropped: Set<string>, at: string): JsonSchema {
  if (typeof s.$ref === 'string') {
    for (const k of Object.keys(s)) if (k !== '$ref') dropped.add(k);
    return { $ref: s.$ref };
  }
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'const') out.enum = [v];
    else if (STRICT_KEYWORDS.has(k)) out[k] = v;
    else dropped.add(k);
  }
  if (Array.isArray(out.anyOf)) {
    out.anyOf = (out.anyOf as JsonSchema[]).map((m, i) => convert(m, dropped, `${at}/anyOf/${i}`));
    return out;
  }
  if (out.type === undefined && out.enum === undefined) throw new Inexpressible(`${at || '/'}: a value of any type`);
  if (out.type === 'array') {
    if (!out.items || typeof out.items !== 'object') throw new Inexpressible(`${at || '/'}: a list of values of any type`);
    out.items = convert(out.items as JsonSchema, dropped, `${at}/items`);
  }
  if (out.type === 'object') {
    if (!out.properties || (out.additionalProperties !== undefined && out.additionalProperties !== false)) {
      throw new Inexpressible(`${at || '/'}: a map (strict mode takes only objects with fixed properties)`);
    }
    const required = new Set(Array.isArray(out.required) ? (out.required as string[]) : []);
    const props: Record<string, JsonSchema> = {};
    for (const [k, p] of Object.entries(out.properties as Record<string, JsonSchema>)) {
      const converted = convert(p, dropped, `${at}/properties/${k}`);
      props[k] = required.has(k) || acceptsNull(converted) ? converted : { anyOf: [converted, { type: 'null' }] };
    }
    out.properties = props;
    out.required = Object.keys(props);
    out.additionalProperties = false;
  }
  return out;
}

function acceptsNull(s: JsonSchema): boolean {
  return s.type === 'null' || (Array.isArray(s.type) && s.type.includes('null')) || (Array.isArray(s.anyOf) && (s.anyOf as JsonSchema[]).some(acceptsNull));
}
