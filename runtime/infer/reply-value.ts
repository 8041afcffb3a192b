// A validated JSON value turned into Turn values, guided by its schema: an object whose schema has
// a `title` becomes a struct of that name (fields in declaration order, an absent optional field
// `null`), other objects become maps, arrays become lists; under a union (`anyOf`) the member
// the value conforms to decides, so a decision reply is a struct of the right member.
import { StructVal, type Value } from '../values/index.js';
import { resolve, validatorFor, withDefs } from './compiled.js';

type Schema = Record<string, unknown>;

/** `value` as Turn values; `root` is the schema `$ref`s resolve in (by default `schema` itself). */
export function fromReply(value: unknown, schema: unknown, root?: unknown): Value {
  const r = (root && typeof root === 'object' ? root : schema && typeof schema === 'object' ? schema : {}) as Schema;
  return convert(value, (schema && typeof schema === 'object' ? schema : {}) as Schema, r, 0);
}

function convert(value: unknown, node: Schema, root: Schema, depth: number): Value {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') return value;
  let s = depth > 1000 ? {} : resolve(root, node);
  if (Array.isArray(s.anyOf)) {
    const member = (s.anyOf as Schema[]).find((m) => validatorFor(withDefs(root, m))(value));
    s = member ? resolve(root, member) : {};
  }
  if (Array.isArray(value)) return value.map((x) => convert(x, (s.items ?? {}) as Schema, root, depth + 1));
  if (typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const props = (s.properties ?? {}) as Record<string, Schema>;
    if (typeof s.title === 'string' && s.properties) {
      const fields = new Map<string, Value>();
      for (const k of Object.keys(props)) fields.set(k, convert(obj[k], props[k], root, depth + 1));
      return new StructVal(s.title, fields);
    }
    const extra = (typeof s.additionalProperties === 'object' ? s.additionalProperties : {}) as Schema;
    const m = new Map<string, Value>();
    for (const [k, x] of Object.entries(obj)) m.set(k, convert(x, props[k] ?? extra, root, depth + 1));
    return m;
  }
  return null;
}
