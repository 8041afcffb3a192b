// Compiled schemas (Ajv, JSON Schema 2020-12, strict mode), each schema object compiled once, and
// the look-ups the validator and the reply conversion share: `$ref`s into the root's `$defs`, and
// a union member as a schema of its own. Patterns run on RE2 (../linear-regex.ts): a reply is
// outside data, and so may be the schema (an absorbed spec).
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import { LINEAR_AJV_OPTIONS } from '../linear-regex.js';
import { PREDICATE_KEYWORD } from './checks.js';

type AjvCtor = new (opts: Record<string, unknown>) => {
  compile(schema: object): ValidateFunction;
  addKeyword(keyword: string): unknown;
  errorsText(errors: unknown, opts?: Record<string, unknown>): string;
};
const Ajv2020 = (Ajv2020Module as unknown as { default?: AjvCtor }).default ?? Ajv2020Module;

let ajv: InstanceType<AjvCtor> | undefined;
const cache = new WeakMap<object, ValidateFunction>();

export function validatorFor(schema: object): ValidateFunction {
  let v = cache.get(schema);
  if (!v) {
    if (!ajv) {
      const made = new Ajv2020({ strict: true, allErrors: true, ...LINEAR_AJV_OPTIONS });
      // predicates are run after the schema passes (validate.ts), not by Ajv
      made.addKeyword(PREDICATE_KEYWORD);
      ajv = made;
    }
    v = ajv.compile(schema);
    cache.set(schema, v);
  }
  return v;
}

type Schema = Record<string, unknown>;

/** `node`, or what its `$ref` points to in `root`. */
export function resolve(root: Schema, node: Schema): Schema {
  let s = node;
  for (let i = 0; i < 100 && typeof s.$ref === 'string'; i++) {
    const target = atPointer(root, s.$ref);
    if (!target) break;
    s = target;
  }
  return s;
}

const withDefsCache = new WeakMap<object, Schema>();

/** A union member as a schema of its own: it keeps the root's `$defs` (cached per member). */
export function withDefs(root: Schema, member: Schema): Schema {
  if (!root.$defs) return member;
  let s = withDefsCache.get(member);
  if (!s) {
    s = { ...member, $defs: root.$defs };
    withDefsCache.set(member, s);
  }
  return s;
}

export function atPointer(root: Schema, ref: string): Schema | undefined {
  if (!ref.startsWith('#')) return undefined;
  let cur: unknown = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur && typeof cur === 'object' ? (cur as Schema) : undefined;
}

