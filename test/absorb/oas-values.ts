// Values for the OpenAPI corpus tier (oas-corpus.tier.ts): a value of a JSON schema as the spec
// describes it, from its own `const`, `enum`, `example`, `default` and `format`, with every optional
// property (`all`) or none (`none`). readOnly properties are never made for a request.
import { JSONSchemaFaker } from 'json-schema-faker';

type Obj = Record<string, unknown>;

// a string matching a `pattern` comes from json-schema-faker (Prism's own generator, installed with
// it), on a seeded generator: the same values every run
let seed = 20_261_207;
JSONSchemaFaker.option({ random: () => (seed = (seed * 16_807) % 2_147_483_647) / 2_147_483_647 });

function matches(pattern: string, s: string): boolean {
  try {
    return new RegExp(pattern, 'u').test(s);
  } catch {
    return true;
  }
}
const isObj = (x: unknown): x is Obj => !!x && typeof x === 'object' && !Array.isArray(x);

export type Variant = 'all' | 'none';

/** `#/a/b` resolved in `root` (JSON pointer). */
export function resolvePointer(root: unknown, ref: string): unknown {
  let cur: unknown = root;
  for (const raw of ref.replace(/^#\/?/, '').split('/').filter((s) => s !== '')) {
    const seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    cur = isObj(cur) ? cur[seg] : Array.isArray(cur) ? cur[Number(seg)] : undefined;
  }
  return cur;
}

export function deref(root: unknown, s: unknown): unknown {
  for (let i = 0; i < 32 && isObj(s) && typeof s.$ref === 'string' && s.$ref.startsWith('#'); i++) s = resolvePointer(root, s.$ref);
  return s;
}

const FORMATS: Record<string, string> = {
  'date-time': '2024-01-02T03:04:05Z',
  date: '2024-01-02',
  time: '03:04:05Z',
  email: 'someone@example.com',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
  uri: 'https://example.com/a',
  url: 'https://example.com/a',
  'uri-reference': '/a',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  byte: 'dGVzdA==',
  binary: 'file content',
  password: 'secret',
  duration: 'P1D',
  'json-pointer': '/a/b',
  'relative-json-pointer': '0/a',
  regex: '^a+$',
  'uri-template': 'https://example.com/{id}',
  iri: 'https://example.com/a',
  'iri-reference': '/a',
  'idn-email': 'someone@example.com',
  'idn-hostname': 'example.com',
};

/** An `allOf`'s members merged into one schema (properties, required, and the first type/format/enum). */
function mergeAllOf(root: unknown, s: Obj, depth: number): Obj {
  const out: Obj = { ...s };
  delete out.allOf;
  const properties: Obj = isObj(s.properties) ? { ...s.properties } : {};
  const required = new Set<string>(Array.isArray(s.required) ? (s.required as string[]) : []);
  for (const m of s.allOf as unknown[]) {
    let member = deref(root, m);
    if (!isObj(member)) continue;
    if (Array.isArray(member.allOf) && depth < 16) member = mergeAllOf(root, member, depth + 1);
    const mm = member as Obj;
    if (isObj(mm.properties)) Object.assign(properties, mm.properties);
    if (Array.isArray(mm.required)) for (const r of mm.required) required.add(String(r));
    for (const k of ['type', 'format', 'enum', 'const', 'example', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'items', 'additionalProperties', 'oneOf', 'anyOf', 'discriminator']) {
      if (out[k] === undefined && mm[k] !== undefined) out[k] = mm[k];
    }
  }
  if (Object.keys(properties).length > 0) out.properties = properties;
  if (required.size > 0) out.required = [...required];
  return out;
}

/** Whether a oneOf member only adds constraints (`required`, ...) to the object schema around it: no type, properties, composition or reference. */
function constraintOnly(root: unknown, member: unknown): boolean {
  if (isObj(member) && typeof member.$ref === 'string') return false;
  const m = deref(root, member);
  return isObj(m) && m.type === undefined && m.properties === undefined && m.oneOf === undefined && m.anyOf === undefined && m.allOf === undefined && m.enum === undefined && m.const === undefined;
}

/** The object schema `o` (without its alternatives) with the member's `required` added. */
function withRequirements(o: Obj, member: Obj): Obj {
  const { oneOf: _one, anyOf: _any, discriminator: _d, ...rest } = o;
  const required = [...(Array.isArray(o.required) ? (o.required as string[]) : []), ...(Array.isArray(member.required) ? (member.required as string[]) : [])];
  return { ...rest, required: [...new Set(required)] };
}

/** Leaves out of `v` a property another member requires and `pick` does not, so that member refuses it (oneOf needs exactly one). */
function withoutOthersRequirements(root: unknown, v: Obj, pick: Obj, alts: unknown[]): void {
  const mine = new Set(Array.isArray(pick.required) ? (pick.required as string[]) : []);
  for (const a of alts) {
    const m = deref(root, a);
    const theirs = isObj(m) && Array.isArray(m.required) ? (m.required as string[]) : [];
    const missing = theirs.find((k) => !mine.has(k));
    if (missing !== undefined) delete v[missing];
  }
}

/** A value the property schema `p` refuses (its type's opposite), or undefined when it accepts anything. */
function refused(root: unknown, p: unknown): unknown {
  const s = deref(root, p);
  if (!isObj(s)) return undefined;
  if (Object.hasOwn(s, 'const') || Array.isArray(s.enum)) return { refused: true }; // no literal is an object
  const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  if (types.length === 0) return undefined;
  if (!types.includes('number') && !types.includes('integer')) return 7;
  if (!types.includes('string')) return 'refused';
  if (!types.includes('boolean')) return true;
  return undefined;
}

/**
 * Makes `v`, a value of the oneOf member `pick`, match no other member: an open object schema
 * accepts any object that has its required properties, so a value of one member often matches
 * several (and `oneOf` then refuses it). For each other member `v` would still match, a property
 * that member types and `pick` does not is set to a value that member refuses (`pick` accepts it:
 * it is open). A member with no such property accepts every value of `pick`: then there is none.
 */
function exclusive(root: unknown, v: Obj, pick: unknown, alts: unknown[], discriminator: string | undefined): void {
  const merged = (x: unknown): Obj | undefined => {
    const d = deref(root, x);
    return isObj(d) ? (Array.isArray(d.allOf) ? mergeAllOf(root, d, 0) : d) : undefined;
  };
  const mine = merged(pick);
  if (!mine || mine.additionalProperties === false) return;
  const own = isObj(mine.properties) ? mine.properties : {};
  for (const other of alts) {
    if (other === pick) continue;
    const m = merged(other);
    if (!m || (m.type !== undefined && m.type !== 'object') || !isObj(m.properties)) continue;
    const required = Array.isArray(m.required) ? (m.required as string[]) : [];
    if (required.some((r) => !Object.hasOwn(v, r))) continue; // it already refuses v
    for (const [k, ps] of Object.entries(m.properties)) {
      if (k === discriminator || Object.hasOwn(own, k)) continue;
      const bad = refused(root, ps);
      if (bad !== undefined) {
        v[k] = bad;
        break;
      }
    }
  }
}

/** How many oneOf choices are tried with every optional property; the next ones leave out the nested optional ones. */
export const CHOICES = 4;

/** A value of `schema`; undefined when the schema admits nothing we can make. */
export function valueOf(root: unknown, schema: unknown, variant: Variant, depth = 0, choice = 0): unknown {
  let s = deref(root, schema);
  if (!isObj(s) || depth > 24) return 'sample';
  // deep in a recursive schema only what is required is made (else the value would never end)
  if (depth > 4) variant = 'none';
  if (Array.isArray(s.allOf)) s = mergeAllOf(root, s, 0);
  const o = s as Obj;
  if (Object.hasOwn(o, 'const')) return o.const;
  if (Array.isArray(o.enum)) {
    const v = o.enum.find((x) => x !== null);
    if (v !== undefined) return v;
  }
  const alts = Array.isArray(o.oneOf) ? o.oneOf : Array.isArray(o.anyOf) ? o.anyOf : undefined;
  if (alts && alts.length > 0) {
    const disc = isObj(o.discriminator) && typeof o.discriminator.propertyName === 'string' ? o.discriminator : undefined;
    const mapping = disc && isObj(disc.mapping) ? Object.entries(disc.mapping) : [];
    // `choice` picks another member (the caller tries several until one validates)
    const members = alts.filter((a) => (deref(root, a) as Obj)?.type !== 'null');
    const entry = mapping.length > 0 ? mapping[choice % mapping.length] : undefined;
    // a mapping value is a reference or a bare schema name (OpenAPI 3.0/3.1)
    const target = entry ? (String(entry[1]).startsWith('#') ? String(entry[1]) : `#/components/schemas/${String(entry[1])}`) : undefined;
    let pick = target ? { $ref: target } : members.length > 0 ? members[choice % members.length] : alts[0];
    const constraint = constraintOnly(root, pick) && isObj(o.properties);
    // a member that only constrains the object around it (`oneOf: [{required: [a]}, {required: [b]}]`
    // beside `properties`): the object with the member's requirements added
    if (constraint) pick = withRequirements(o, deref(root, pick) as Obj);
    const v = valueOf(root, pick, variant, depth + 1, choice);
    if (constraint && isObj(v)) withoutOthersRequirements(root, v, pick as Obj, alts);
    if (disc && isObj(v)) {
      const name = entry ? entry[0] : typeof (pick as Obj).$ref === 'string' ? String((pick as Obj).$ref).split('/').pop()! : undefined;
      if (name !== undefined) v[disc.propertyName as string] = name;
    }
    if (Array.isArray(o.oneOf) && isObj(v) && !constraint) exclusive(root, v, pick, alts, disc?.propertyName as string | undefined);
    if (v !== undefined) return v;
  }
  const types = Array.isArray(o.type) ? (o.type as string[]) : typeof o.type === 'string' ? [o.type] : [];
  const type = types.find((t) => t !== 'null') ?? (isObj(o.properties) ? 'object' : o.items !== undefined ? 'array' : types[0] ?? 'string');
  const example = o.example !== undefined ? o.example : Array.isArray(o.examples) ? o.examples[0] : o.default;
  const pattern = typeof o.pattern === 'string' ? o.pattern : undefined;
  if (example !== undefined && example !== null && type !== 'object' && type !== 'array' && (pattern === undefined || typeof example !== 'string' || matches(pattern, example))) return example;
  switch (type) {
    case 'object': {
      const out: Obj = {};
      const required = new Set(Array.isArray(o.required) ? (o.required as string[]) : []);
      if (isObj(o.properties)) {
        for (const [k, p] of Object.entries(o.properties)) {
          const ps = deref(root, p);
          if (isObj(ps) && ps.readOnly === true) continue;
          if (!required.has(k) && (variant === 'none' || (choice >= CHOICES && depth > 0))) continue;
          const v = valueOf(root, p, variant, depth + 1, choice);
          if (v !== undefined) out[k] = v;
        }
      }
      // a required property the schema does not list (an open object allows it): of `additionalProperties`, or any value
      for (const k of required) if (!Object.hasOwn(out, k)) out[k] = isObj(o.additionalProperties) ? valueOf(root, o.additionalProperties, variant, depth + 1, choice) : 'sample';
      if (example !== undefined && isObj(example) && Object.keys(out).length === 0 && !isObj(o.properties)) return example;
      return out;
    }
    case 'array': {
      // two items (one would be read back as a single value by a form or a delimited parameter)
      const n = Math.min(Math.max(2, typeof o.minItems === 'number' ? o.minItems : 2), typeof o.maxItems === 'number' ? Math.max(o.maxItems, 0) : 2);
      if (isObj(o.items) || o.items === undefined) {
        const items = deref(root, o.items ?? {});
        const choices = isObj(items) && Array.isArray(items.enum) ? items.enum.filter((x) => x !== null) : undefined;
        const made = Array.from({ length: n }, (_, i) => (choices && choices.length > 0 ? choices[i % choices.length] : valueOf(root, o.items ?? {}, variant, depth + 1, choice)));
        if (o.uniqueItems !== true) return made;
        return made.filter((x, i) => made.findIndex((y) => JSON.stringify(y) === JSON.stringify(x)) === i);
      }
      return [];
    }
    case 'integer':
    case 'number': {
      const min = typeof o.minimum === 'number' ? o.minimum : typeof o.exclusiveMinimum === 'number' ? o.exclusiveMinimum + 1 : 1;
      const max = typeof o.maximum === 'number' ? o.maximum : undefined;
      let v = max !== undefined && min > max ? max : min;
      if (typeof o.multipleOf === 'number' && o.multipleOf > 0) v = Math.ceil(v / o.multipleOf) * o.multipleOf;
      return v;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    default: {
      const f = typeof o.format === 'string' ? FORMATS[o.format] : undefined;
      if (pattern !== undefined && (f === undefined || !matches(pattern, f))) {
        const made = JSONSchemaFaker.generate({ type: 'string', pattern, ...(typeof o.minLength === 'number' ? { minLength: o.minLength } : {}), ...(typeof o.maxLength === 'number' ? { maxLength: o.maxLength } : {}) });
        if (typeof made === 'string') return made;
      }
      let v = f ?? 'sample';
      if (typeof o.maxLength === 'number' && v.length > o.maxLength) v = v.slice(0, o.maxLength);
      if (typeof o.minLength === 'number' && v.length < o.minLength) v = v.padEnd(o.minLength, 'x');
      return v;
    }
  }
}

/** A check of a value against a schema of the document (ajv): the errors, or [] when it validates. */
export type Validate = (schema: unknown, value: unknown) => string[];

/**
 * A value of `schema` that validates, trying the oneOf/anyOf members in turn (and then leaving
 * out nested optional properties); when none does, the first, with why it does not (the proof a
 * listed failure cites: e.g. every candidate matches several oneOf members).
 */
export function validValue(root: unknown, schema: unknown, variant: Variant, validate: Validate): { value: unknown; errors: string[] } {
  let first: { value: unknown; errors: string[] } | undefined;
  for (let choice = 0; choice < 2 * CHOICES; choice++) {
    const value = valueOf(root, schema, variant, 0, choice);
    const errors = validate(schema, value);
    if (errors.length === 0) return { value, errors };
    first ??= { value, errors };
  }
  return first!;
}
