// A validated JSON value turned into Turn values, guided by its schema: an object whose schema has
// a `title` becomes a struct of that name (fields in declaration order, an absent optional field
// `null`), other objects become maps, arrays become lists; under a union (`anyOf`) the member
// the value conforms to decides, so a decision reply is a struct of the right member.
// Iterative: the driver refuses replies nested more than MAX_JSON_DEPTH levels, but a value
// journaled before it did (or by an older version) must still replay without exhausting the stack.
import { StructVal, type Value } from '../values/index.js';
import { resolve, validatorFor, withDefs } from './compiled.js';

type Schema = Record<string, unknown>;

/** Past this depth the schema no longer guides the conversion (values stay maps and lists). */
const SCHEMA_GUIDED_DEPTH = 1000;

/** `value` as Turn values; `root` is the schema `$ref`s resolve in (by default `schema` itself). */
export function fromReply(value: unknown, schema: unknown, root?: unknown): Value {
  const r = (root && typeof root === 'object' ? root : schema && typeof schema === 'object' ? schema : {}) as Schema;
  // [JSON container, its resolved schema, the empty Turn container to fill, depth]
  const pending: [object, Schema, Value, number][] = [];
  const start = (v: unknown, node: Schema, depth: number): Value => {
    if (v === null || v === undefined) return null;
    if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v !== 'object') return null;
    const s = depth > SCHEMA_GUIDED_DEPTH ? {} : memberFor(v, resolve(r, node), r);
    const out: Value = Array.isArray(v) ? [] : typeof s.title === 'string' && s.properties ? new StructVal(s.title, new Map()) : new Map<string, Value>();
    pending.push([v, s, out, depth]);
    return out;
  };
  const result = start(value, (schema && typeof schema === 'object' ? schema : {}) as Schema, 0);
  while (pending.length > 0) {
    const [v, s, out, depth] = pending.pop()!;
    if (Array.isArray(v)) {
      for (const x of v) (out as Value[]).push(start(x, (s.items ?? {}) as Schema, depth + 1));
      continue;
    }
    const obj = v as Record<string, unknown>;
    const props = (s.properties ?? {}) as Record<string, Schema>;
    if (out instanceof StructVal) {
      for (const k of Object.keys(props)) out.fields.set(k, start(obj[k], props[k], depth + 1));
      continue;
    }
    const extra = (typeof s.additionalProperties === 'object' ? s.additionalProperties : {}) as Schema;
    for (const [k, x] of Object.entries(obj)) (out as Map<string, Value>).set(k, start(x, props[k] ?? extra, depth + 1));
  }
  return result;
}

/** Under a union, the member schema `value` conforms to (none: no guidance). */
function memberFor(value: unknown, s: Schema, root: Schema): Schema {
  if (!Array.isArray(s.anyOf)) return s;
  const member = (s.anyOf as Schema[]).find((m) => validatorFor(withDefs(root, m))(value));
  return member ? resolve(root, member) : {};
}
