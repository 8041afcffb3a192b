// JSON Schema (as used by OpenAPI 3.0/3.1, JSON Schema files and MCP tool inputs) → Turn types.
// Object schemas with properties become structs; a `$ref` to one becomes `Struct(name)` (so
// recursive schemas are recursive structs); non-required or nullable → optional (`T?`); `enum` and
// `const` → literal types (string literals an enum); `oneOf`/`anyOf` → unions (discriminated
// through OpenAPI's `discriminator`); arrays `List<T>`; `additionalProperties: T` → `Map<Str, T>`;
// free-form objects `Map`; validation keywords (`minimum`, `maxLength`, `pattern`, ...) → checks;
// what Turn cannot express (a non-object recursive schema, an object literal) becomes `Any`.
import { BUILTIN_TYPE_NAMES, type StaticType } from '../check/types.js';
import { patternProblem, quotePattern } from '../linear-regex.js';
import { pointerOf, pointerSegments, type SpecDoc } from './source.js';
import type { AbsorbedField, AbsorbedStruct, FieldCheck, SpecDiagnostic } from './types.js';

const ANY: StaticType = { kind: 'Any' };

/** Every keyword of the grammar (test/absorb/generated.test.ts compares them with grammar/src/grammar.json). */
export const TURN_KEYWORDS = new Set(
  `turn let struct impl type use use_wasm grant infer confidence suspend spawn spawn_link spawn_each gather send receive context append system remember recall call return if else while try catch throw and or true false null vec map filter detach identity invoke schema scope task`.split(
    ' ',
  ),
);

export const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Whether `s` holds an unpaired UTF-16 surrogate, which no Turn string (and no UTF-8 file) can hold. */
export function hasUnpairedSurrogate(s: string): boolean {
  UNPAIRED_SURROGATE.lastIndex = 0;
  return UNPAIRED_SURROGATE.test(s);
}

/** Longer names are cut (the wire name is kept whole). */
const MAX_NAME_LENGTH = 64;
/**
 * Schemas nested deeper than this (through properties, items, combinators and refs) are typed Any,
 * with one warning: deep or cyclic documents (a recursive YAML alias) cannot exhaust the stack.
 */
const MAX_SCHEMA_DEPTH = 64;

function words(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
}

/** A struct name: PascalCase, starting with a letter, not a built-in type name. */
export function structName(s: string): string {
  let n = words(s)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('')
    .slice(0, MAX_NAME_LENGTH);
  if (n === '') n = 'Schema';
  if (!/^[A-Za-z]/.test(n)) n = 'T' + n;
  if (BUILTIN_TYPE_NAMES.has(n) || TURN_KEYWORDS.has(n)) n += '_';
  return n;
}

/** A field, parameter or callable name: the original when it is a valid identifier, else snake_case. */
export function identifier(s: string): string {
  let n = (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? s : words(s).map((w) => w.toLowerCase()).join('_')).slice(0, MAX_NAME_LENGTH);
  if (n === '') n = '_';
  if (/^[0-9]/.test(n)) n = '_' + n;
  if (TURN_KEYWORDS.has(n)) n += '_';
  return n;
}

/** A fresh set of taken operation names: `client` is the generated module's own export. */
export function operationNames(): Set<string> {
  return new Set(['client']);
}

export function uniqueName(base: string, taken: Set<string>): string {
  let n = base;
  for (let i = 2; taken.has(n); i++) n = `${base}${i}`;
  taken.add(n);
  return n;
}

export interface TypeWithOptional {
  type: StaticType;
  optional: boolean;
  /** Validation keywords of the schema, as Turn check annotations (on a field). */
  checks?: FieldCheck[];
}

type Schema = Record<string, unknown>;

function isObj(x: unknown): x is Schema {
  return !!x && typeof x === 'object' && !Array.isArray(x);
}

export class SchemaConverter {
  readonly structs: AbsorbedStruct[] = [];
  readonly structNames = new Set<string>();
  private readonly byPointer = new Map<string, string>();
  private readonly inlineStack: string[] = [];
  private depth = 0;
  private reportedTooDeep = false;

  constructor(
    readonly root: unknown,
    readonly doc: SpecDoc,
    readonly file: string,
    readonly diagnostics: SpecDiagnostic[],
    /** Prefix of pointers whose schemas are valid `$ref` struct targets, e.g. `#/components/schemas/`. */
    private readonly namedPrefixes: string[] = [],
  ) {}

  diag(severity: 'error' | 'warning', message: string, pointer: string): void {
    const lc = this.doc.locate(pointer);
    this.diagnostics.push({ severity, message, file: this.file, pointer, line: lc?.line, column: lc?.column });
  }

  /** The value at a local pointer, or undefined. */
  resolvePointer(pointer: string): unknown {
    let cur: unknown = this.root;
    for (const seg of pointerSegments(pointer)) {
      if (Array.isArray(cur)) cur = cur[Number(seg)];
      else if (isObj(cur) && Object.hasOwn(cur, seg)) cur = cur[seg];
      else return undefined;
    }
    return cur;
  }

  /** Follows `$ref`s (local ones: external ones were bundled in by refs.ts) until a schema that is not a reference. Reports bad refs at `at`. */
  deref(schema: unknown, at: string): { schema: unknown; pointer: string } | undefined {
    const seen = new Set<string>();
    let cur = schema;
    let ptr = at;
    while (isObj(cur) && typeof cur.$ref === 'string') {
      const ref = cur.$ref;
      if (!ref.startsWith('#')) {
        this.diag('warning', `the external $ref "${ref}" was not resolved; its type is Any`, ptr + '/$ref');
        return undefined;
      }
      if (seen.has(ref)) {
        this.diag('warning', `$ref cycle through "${ref}"`, ptr + '/$ref');
        return undefined;
      }
      seen.add(ref);
      const target = this.resolvePointer(ref);
      if (target === undefined) {
        this.diag('error', `unknown $ref "${ref}"`, ptr + '/$ref');
        return undefined;
      }
      cur = target;
      ptr = ref;
    }
    return { schema: cur, pointer: ptr };
  }

  private isStructLike(s: unknown): s is Schema {
    if (!isObj(s)) return false;
    const t = s.type;
    const objectType = t === 'object' || t === undefined || (Array.isArray(t) && t.includes('object'));
    return objectType && (isObj(s.properties) || (Array.isArray(s.allOf) && this.primitiveAllOf(s, '#') === undefined));
  }

  /** Declares and converts a named schema (a component/definition) as a struct when it is object-like. */
  declareNamed(pointer: string, name: string): string | undefined {
    if (this.byPointer.has(pointer)) return this.byPointer.get(pointer);
    const s = this.resolvePointer(pointer);
    if (!this.isStructLike(s)) return undefined;
    return this.makeStruct(s, pointer, name);
  }

  private makeStruct(s: Schema, pointer: string, hint: string): string {
    // a named component is named by its key; any other object schema by its title when it has one
    const named = this.namedPrefixes.some((p) => pointer.startsWith(p) && !pointer.slice(p.length).includes('/'));
    const name = uniqueName(structName(typeof s.title === 'string' && !named ? s.title : hint), this.structNames);
    this.byPointer.set(pointer, name);
    const struct: AbsorbedStruct = { name, fields: [], origin: pointer };
    if (typeof s.description === 'string') struct.doc = s.description;
    this.structs.push(struct);
    const { properties, required } = this.collectProperties(s, pointer, new Set());
    const taken = new Set<string>();
    for (const [key, { schema, pointer: pp }] of properties) {
      const t = this.typeOf(schema, pp, name + structName(key));
      const f: AbsorbedField = {
        name: uniqueName(identifier(key), taken),
        wireName: key,
        type: t.type,
        optional: t.optional || !required.has(key),
        ...(t.optional ? { nullable: true } : {}),
        ...(t.optional && required.has(key) ? { requiredNullable: true } : {}),
      };
      const access = accessOf(schema, isObj(schema) && typeof schema.$ref === 'string' && schema.$ref.startsWith('#') ? this.resolvePointer(schema.$ref) : undefined);
      // (OpenAPI gives a struct with either a request form: directions.ts)
      if (access) f.access = access;
      const given = defaultOf(schema);
      if (given !== undefined) f.default = given;
      if (t.checks) f.checks = t.checks;
      const d = isObj(schema) && typeof schema.description === 'string' ? schema.description : undefined;
      if (d) f.doc = d;
      struct.fields.push(f);
    }
    return name;
  }

  /** Properties of an object schema, merging `allOf` members (refs followed). */
  private collectProperties(s: Schema, pointer: string, seen: Set<string>, depth = 0): { properties: Map<string, { schema: unknown; pointer: string }>; required: Set<string> } {
    const properties = new Map<string, { schema: unknown; pointer: string }>();
    const required = new Set<string>();
    if (seen.has(pointer) || this.tooDeep(this.depth + depth, pointer)) return { properties, required };
    seen.add(pointer);
    if (Array.isArray(s.allOf)) {
      s.allOf.forEach((member, i) => {
        const d = this.deref(member, `${pointer}/allOf/${i}`);
        if (!d || !isObj(d.schema)) return;
        const inner = this.collectProperties(d.schema, d.pointer, seen, depth + 1);
        for (const [k, v] of inner.properties) properties.set(k, v);
        for (const r of inner.required) required.add(r);
      });
    }
    if (isObj(s.properties)) {
      for (const [k, v] of Object.entries(s.properties)) properties.set(k, { schema: v, pointer: `${pointer}/properties/${pointerOf([k]).slice(2)}` });
    } else if (s.properties !== undefined) {
      this.diag('error', '"properties" must be an object', pointer + '/properties');
    }
    if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') required.add(r);
    return { properties, required };
  }

  /** Whether `depth` levels are too many: reports it (once) at `pointer`. */
  private tooDeep(depth: number, pointer: string): boolean {
    if (depth < MAX_SCHEMA_DEPTH) return false;
    if (!this.reportedTooDeep) {
      this.reportedTooDeep = true;
      this.diag('warning', `the schema is nested more than ${MAX_SCHEMA_DEPTH} levels deep here: deeper parts are typed Any`, pointer);
    }
    return true;
  }

  /** The Turn type of a schema; `hint` names a struct made for an inline object. */
  typeOf(schema: unknown, pointer: string, hint: string): TypeWithOptional {
    if (this.tooDeep(this.depth, pointer)) return { type: ANY, optional: false };
    this.depth++;
    try {
      return this.typeOfSchema(schema, pointer, hint);
    } finally {
      this.depth--;
    }
  }

  private typeOfSchema(schema: unknown, pointer: string, hint: string): TypeWithOptional {
    if (schema === true || schema === undefined) return { type: ANY, optional: false };
    if (!isObj(schema)) {
      if (schema !== false) this.diag('error', 'a schema must be an object', pointer);
      return { type: ANY, optional: false };
    }
    if (typeof schema.$ref === 'string') return this.typeOfRef(schema, pointer, hint);
    // an `allOf` of primitive schemas (a string with a format and a pattern, say) is that primitive with every member's checks
    const shape = this.primitiveAllOf(schema, pointer) ?? schema;
    const t = this.typeOfShape(shape, pointer, hint);
    const checks = checksOf(shape, t.type, (message) => this.warnOnce(message, pointer));
    return checks.length > 0 ? { ...t, checks } : t;
  }

  private typeOfRef(schema: Schema, pointer: string, hint: string): TypeWithOptional {
    const ref = schema.$ref as string;
    const d = this.deref(schema, pointer);
    if (!d) return { type: ANY, optional: false };
    // nullable beside the $ref (OpenAPI 3.1 allows siblings) or in the schema it names (GitHub's `nullable-simple-user`)
    const nullable = schema.nullable === true || (isObj(d.schema) && (d.schema.nullable === true || (Array.isArray(d.schema.type) && d.schema.type.includes('null'))));
    if (ref.startsWith('#') && this.byPointer.has(ref)) return { type: { kind: 'Struct', name: this.byPointer.get(ref)! }, optional: nullable };
    if (this.isStructLike(d.schema)) {
      const segs = pointerSegments(d.pointer);
      const name = this.byPointer.get(d.pointer) ?? this.makeStruct(d.schema, d.pointer, segs[segs.length - 1] ?? hint);
      return { type: { kind: 'Struct', name }, optional: nullable };
    }
    if (this.inlineStack.includes(d.pointer)) {
      this.diag('warning', `recursive schema ${d.pointer} is typed Any`, pointer);
      return { type: ANY, optional: false };
    }
    this.inlineStack.push(d.pointer);
    try {
      const segs = pointerSegments(d.pointer);
      const t = this.typeOf(d.schema, d.pointer, structName(segs[segs.length - 1] ?? hint));
      return nullable ? { ...t, optional: true } : t;
    } finally {
      this.inlineStack.pop();
    }
  }

  /**
   * `allOf` members merged into one schema when they are all primitive (no properties, items or
   * alternatives, and one of them says string, integer, number or boolean); else undefined.
   */
  private primitiveAllOf(schema: Schema, pointer: string): Schema | undefined {
    if (!Array.isArray(schema.allOf) || isObj(schema.properties) || schema.allOf.length === 0) return undefined;
    const members: Schema[] = [];
    for (let i = 0; i < schema.allOf.length && i < 64; i++) {
      const d = this.deref(schema.allOf[i], `${pointer}/allOf/${i}`);
      if (!d || !isObj(d.schema)) return undefined;
      const m = d.schema;
      if (isObj(m.properties) || m.allOf !== undefined || m.oneOf !== undefined || m.anyOf !== undefined || m.items !== undefined || m.type === 'object' || m.type === 'array') return undefined;
      members.push(m);
    }
    if (!members.some((m) => typeof m.type === 'string' && ['string', 'integer', 'number', 'boolean'].includes(m.type))) return undefined;
    const { allOf: _members, ...rest } = schema;
    return Object.assign({}, ...members, rest) as Schema;
  }

  /** The type of a schema that is not a `$ref` (its checks are added by the caller). */
  private typeOfShape(schema: Schema, pointer: string, hint: string): TypeWithOptional {
    let optional = schema.nullable === true;
    let types: string[] | undefined;
    if (typeof schema.type === 'string') types = [schema.type];
    else if (Array.isArray(schema.type)) types = schema.type.filter((t): t is string => typeof t === 'string');
    else if (schema.type !== undefined) this.diag('error', '"type" must be a string or a list of strings', pointer + '/type');
    if (types?.includes('null')) {
      optional = true;
      types = types.filter((t) => t !== 'null');
    }
    if (Array.isArray(schema.enum)) {
      const values = schema.enum.filter((v) => v !== null);
      if (values.length < schema.enum.length) optional = true;
      return { type: literalsType(values), optional };
    }
    if (Object.hasOwn(schema, 'const')) {
      if (schema.const === null) return { type: { kind: 'Null' }, optional: true };
      return { type: literalsType([schema.const]), optional };
    }
    for (const key of ['oneOf', 'anyOf'] as const) {
      const alts = schema[key];
      if (!Array.isArray(alts)) continue;
      const t = this.unionOf(schema, alts, `${pointer}/${key}`, hint);
      return { type: t.type, optional: optional || t.optional };
    }
    if (Array.isArray(schema.allOf) && !isObj(schema.properties) && schema.allOf.length === 1) {
      const t = this.typeOf(schema.allOf[0], `${pointer}/allOf/0`, hint);
      return { ...t, optional: optional || t.optional };
    }
    if (types && types.length > 1) {
      // `type: [string, number]`: a union of the primitive types named (objects and arrays make it Any)
      const members = types.map((t) => PRIMITIVE[t]);
      if (members.every((m) => m !== undefined)) return { type: unionType(members), optional };
      return { type: ANY, optional };
    }
    const t = types?.[0] ?? (isObj(schema.properties) || Array.isArray(schema.allOf) ? 'object' : isObj(schema.items) ? 'array' : isObj(schema.additionalProperties) ? 'object' : undefined);
    switch (t) {
      case 'string':
      case 'integer':
      case 'number':
      case 'boolean':
        return { type: PRIMITIVE[t], optional };
      case 'null':
        return { type: { kind: 'Null' }, optional: true };
      case 'array': {
        if (schema.items === undefined || schema.items === true) return { type: { kind: 'List', element: ANY }, optional };
        const e = this.typeOf(schema.items, pointer + '/items', hint.endsWith('Item') ? hint : hint + 'Item');
        return { type: { kind: 'List', element: withOptional(e) }, optional };
      }
      case 'object': {
        if (this.isStructLike(schema)) {
          const name = this.byPointer.get(pointer) ?? this.makeStruct(schema, pointer, hint);
          return { type: { kind: 'Struct', name }, optional };
        }
        const extra = (schema as Schema).additionalProperties; // (isStructLike narrowed it away)
        if (isObj(extra) && Object.keys(extra).length > 0) {
          // `additionalProperties: T` without properties: a map from names to T
          const v = this.typeOf(extra, pointer + '/additionalProperties', hint.endsWith('Value') ? hint : hint + 'Value');
          const value = withOptional(v);
          return { type: value.kind === 'Any' ? { kind: 'Map' } : { kind: 'Map', value }, optional };
        }
        return { type: { kind: 'Map' }, optional };
      }
      case undefined:
        return { type: ANY, optional };
      default:
        this.diag('error', `unknown schema type "${t}"`, pointer + '/type');
        return { type: ANY, optional };
    }
  }

  /**
   * `oneOf`/`anyOf`: the union of its members' types (a `null` member makes it optional; string
   * literals merge into one enum). With an OpenAPI `discriminator`, each member struct's
   * discriminating property becomes the literal that selects it, so the union is discriminated.
   */
  private unionOf(schema: Schema, alts: unknown[], pointer: string, hint: string): TypeWithOptional {
    let optional = false;
    const members: StaticType[] = [];
    alts.forEach((a, i) => {
      if (isObj(a) && (a.type === 'null' || (Object.hasOwn(a, 'const') && a.const === null))) {
        optional = true;
        return;
      }
      const t = this.typeOf(a, `${pointer}/${i}`, alts.length > 1 ? `${hint}${i + 1}` : hint);
      if (t.optional) optional = true;
      members.push(t.type);
    });
    if (members.length === 0) return { type: { kind: 'Null' }, optional: true };
    const type = unionType(members);
    if (isObj(schema.discriminator) && typeof schema.discriminator.propertyName === 'string') this.discriminate(schema.discriminator, alts, pointer);
    return { type, optional };
  }

  /**
   * Sets each member struct's discriminator property to the value(s) naming it: the `mapping` keys
   * that point to it (a `#/...` reference or a bare schema name), else its component name (OpenAPI's
   * implicit mapping). Encoding fills the property in when a value leaves it out (wire.ts).
   */
  private discriminate(discriminator: Schema, alts: unknown[], pointer: string): void {
    const property = discriminator.propertyName as string;
    const mapping = isObj(discriminator.mapping) ? discriminator.mapping : {};
    const valuesOf = new Map<string, string[]>();
    for (const [value, ref] of Object.entries(mapping)) {
      if (typeof ref !== 'string') continue;
      const target = ref.startsWith('#') ? ref : `#/components/schemas/${ref}`;
      valuesOf.set(target, [...(valuesOf.get(target) ?? []), value]);
    }
    alts.forEach((a) => {
      if (!isObj(a) || typeof a.$ref !== 'string' || !a.$ref.startsWith('#')) return;
      const name = this.byPointer.get(a.$ref);
      const struct = name ? this.structs.find((s) => s.name === name) : undefined;
      const field = struct?.fields.find((f) => f.wireName === property);
      if (!field) return;
      const segs = pointerSegments(a.$ref);
      const values = valuesOf.get(a.$ref) ?? [segs[segs.length - 1]];
      const allowed = field.type.kind === 'Str' || field.type.kind === 'Any' || (field.type.kind === 'Literal' && values.length === 1 && field.type.value === values[0]) || (field.type.kind === 'Enum' && values.every((v) => (field.type as { values: string[] }).values.includes(v)));
      if (!allowed) {
        this.diag('warning', `discriminator "${property}": ${struct!.name}.${field.name} cannot be ${values.map((v) => `"${v}"`).join(' or ')}`, pointer);
        return;
      }
      field.type = values.length === 1 ? { kind: 'Literal', value: values[0] } : { kind: 'Enum', values };
      field.discriminator = true;
      delete field.checks;
    });
  }

  private readonly warned = new Set<string>();
  /** A warning reported once per message (a large spec repeats the same unusable keyword). */
  private warnOnce(message: string, pointer: string): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.diag('warning', message, pointer);
  }
}

/** OpenAPI's `readOnly`/`writeOnly` of a property, beside its `$ref` (3.1) or in the schema it names. */
function accessOf(written: unknown, resolved: unknown): AbsorbedField['access'] {
  for (const s of [written, resolved]) {
    if (!isObj(s)) continue;
    if (s.readOnly === true) return 'readOnly';
    if (s.writeOnly === true) return 'writeOnly';
  }
  return undefined;
}

const PRIMITIVE: Record<string, StaticType> = { string: { kind: 'Str' }, integer: { kind: 'Num' }, number: { kind: 'Num' }, boolean: { kind: 'Bool' } };

/** `T?` when the converted type may be null, else `T` (for positions with no optional flag: list items, map values, union members). */
export function withOptional(t: TypeWithOptional): StaticType {
  if (!t.optional || t.type.kind === 'Any' || t.type.kind === 'Optional' || t.type.kind === 'Null') return t.type;
  return { kind: 'Optional', inner: t.type };
}

const sameType = (a: StaticType, b: StaticType): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The union of `members`: flattened, deduplicated; string literals merge into one enum; a single member is itself; Any absorbs all. */
export function unionType(members: StaticType[]): StaticType {
  const flat: StaticType[] = [];
  const strings: string[] = [];
  const add = (m: StaticType): void => {
    if (m.kind === 'Union') m.members.forEach(add);
    else if (m.kind === 'Enum') strings.push(...m.values);
    else if (m.kind === 'Literal' && typeof m.value === 'string') strings.push(m.value);
    else if (!flat.some((f) => sameType(f, m))) flat.push(m);
  };
  members.forEach(add);
  if (flat.some((m) => m.kind === 'Any' || m.kind === 'Optional' || m.kind === 'Null' || m.kind === 'Void')) return ANY;
  const distinct = [...new Set(strings)];
  // a string literal next to Str adds nothing
  if (distinct.length > 0 && !flat.some((m) => m.kind === 'Str')) flat.unshift(distinct.length === 1 ? { kind: 'Literal', value: distinct[0] } : { kind: 'Enum', values: distinct });
  // two list or two map types: one list (map) of the union of their elements would be a lie; keep them
  if (flat.length === 0) return { kind: 'Str' };
  return flat.length === 1 ? flat[0] : { kind: 'Union', members: flat };
}

/** The type of `enum`/`const` values (nulls removed): string literals are an enum, others literal unions. */
function literalsType(values: unknown[]): StaticType {
  if (values.length === 0) return ANY;
  const members: StaticType[] = [];
  for (const v of values) {
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) members.push({ kind: 'Literal', value: v });
    else return ANY; // an object or array literal: Turn has no literal type for it
  }
  if (members.every((m) => m.kind === 'Literal' && typeof m.value === 'boolean') && new Set(values).size === 2) return { kind: 'Bool' };
  return unionType(members);
}

/** A schema's `default` as JSON text (at most 200 characters), when it has one. */
export function defaultOf(schema: unknown): string | undefined {
  if (!isObj(schema) || !Object.hasOwn(schema, 'default')) return undefined;
  try {
    return JSON.stringify(schema.default)?.slice(0, 200);
  } catch {
    return undefined; // a cyclic value (a YAML alias): no default shown
  }
}

/** The check annotations a schema's validation keywords give, for a value of type `t` (the keywords that do not apply to it are dropped). */
export function checksOf(schema: Schema, t: StaticType, warn: (message: string) => void): FieldCheck[] {
  const inner = t.kind === 'Optional' ? t.inner : t;
  const out: FieldCheck[] = [];
  const num = (k: string) => (typeof schema[k] === 'number' && Number.isFinite(schema[k]) ? (schema[k]) : undefined);
  const count = (k: string) => {
    const n = num(k);
    return n !== undefined && Number.isInteger(n) && n >= 0 ? n : undefined;
  };
  if (inner.kind === 'Num') {
    const min = num('minimum');
    const max = num('maximum');
    // OpenAPI 3.0: `exclusiveMinimum: true` makes `minimum` exclusive; 3.1 (JSON Schema): a number
    if (min !== undefined) out.push({ keyword: schema.exclusiveMinimum === true ? 'exclusive_minimum' : 'minimum', value: min });
    if (num('exclusiveMinimum') !== undefined) out.push({ keyword: 'exclusive_minimum', value: num('exclusiveMinimum')! });
    if (max !== undefined) out.push({ keyword: schema.exclusiveMaximum === true ? 'exclusive_maximum' : 'maximum', value: max });
    if (num('exclusiveMaximum') !== undefined) out.push({ keyword: 'exclusive_maximum', value: num('exclusiveMaximum')! });
    const m = num('multipleOf');
    if (m !== undefined && m > 0) out.push({ keyword: 'multiple_of', value: m });
  } else if (inner.kind === 'Str') {
    if (count('minLength') !== undefined) out.push({ keyword: 'min_length', value: count('minLength')! });
    if (count('maxLength') !== undefined) out.push({ keyword: 'max_length', value: count('maxLength')! });
    if (typeof schema.pattern === 'string') {
      const trouble = patternTrouble(schema.pattern);
      if (trouble === undefined) out.push({ keyword: 'pattern', value: schema.pattern });
      else warn(`${trouble}; it is not checked`);
    }
  } else if (inner.kind === 'List') {
    if (count('minItems') !== undefined) out.push({ keyword: 'min_items', value: count('minItems')! });
    if (count('maxItems') !== undefined) out.push({ keyword: 'max_items', value: count('maxItems')! });
  }
  return out;
}

/** Why a `pattern` cannot be checked by the validator's engine (RE2, ../linear-regex.ts), or undefined when it can. */
function patternTrouble(p: string): string | undefined {
  if (hasUnpairedSurrogate(p)) return `the pattern ${quotePattern(p)} has an unpaired surrogate`;
  return patternProblem(p);
}
