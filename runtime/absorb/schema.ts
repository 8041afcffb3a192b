// JSON Schema (as used by OpenAPI 3.0/3.1, JSON Schema files and MCP tool inputs) → Turn types.
// Object schemas with properties become structs; a `$ref` to one becomes `Struct(name)` (so
// cycles are fine); enums of strings become `Enum`; arrays `List<T>`; free-form objects `Map`;
// what Turn cannot express (oneOf of different shapes, numeric enums...) becomes `Any`.
import { BUILTIN_TYPE_NAMES, type StaticType } from '../check/types.js';
import { pointerOf, pointerSegments, type SpecDoc } from './source.js';
import type { AbsorbedField, AbsorbedStruct, SpecDiagnostic } from './types.js';

const ANY: StaticType = { kind: 'Any' };

/** Every keyword of the grammar (test/absorb/generated.test.ts compares them with grammar/src/grammar.json). */
export const TURN_KEYWORDS = new Set(
  `turn let struct impl type use use_wasm grant infer confidence suspend spawn spawn_link spawn_each gather send receive context append system remember recall call return if else while try catch throw and or true false null vec map filter detach identity invoke schema scope task`.split(
    ' ',
  ),
);

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
    return objectType && (isObj(s.properties) || Array.isArray(s.allOf));
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
      };
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
    if (typeof schema.$ref === 'string') {
      const ref = schema.$ref;
      if (ref.startsWith('#') && this.byPointer.has(ref)) return { type: { kind: 'Struct', name: this.byPointer.get(ref)! }, optional: schema.nullable === true };
      const d = this.deref(schema, pointer);
      if (!d) return { type: ANY, optional: false };
      if (this.isStructLike(d.schema)) {
        const segs = pointerSegments(d.pointer);
        const name = this.byPointer.get(d.pointer) ?? this.makeStruct(d.schema, d.pointer, segs[segs.length - 1] ?? hint);
        return { type: { kind: 'Struct', name }, optional: schema.nullable === true };
      }
      if (this.inlineStack.includes(d.pointer)) {
        this.diag('warning', `recursive schema ${d.pointer} is typed Any`, pointer);
        return { type: ANY, optional: false };
      }
      this.inlineStack.push(d.pointer);
      try {
        const segs = pointerSegments(d.pointer);
        return this.typeOf(d.schema, d.pointer, structName(segs[segs.length - 1] ?? hint));
      } finally {
        this.inlineStack.pop();
      }
    }
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
      if (values.length > 0 && values.every((v) => typeof v === 'string')) return { type: { kind: 'Enum', values }, optional };
      if (values.length > 0 && values.every((v) => typeof v === 'number')) return { type: { kind: 'Num' }, optional };
      if (values.length > 0 && values.every((v) => typeof v === 'boolean')) return { type: { kind: 'Bool' }, optional };
      return { type: ANY, optional };
    }
    if (typeof schema.const === 'string') return { type: { kind: 'Enum', values: [schema.const] }, optional };
    for (const key of ['oneOf', 'anyOf'] as const) {
      const alts = schema[key];
      if (!Array.isArray(alts)) continue;
      const nonNull = alts.filter((a) => !(isObj(a) && a.type === 'null'));
      if (nonNull.length < alts.length) optional = true;
      if (nonNull.length === 1) {
        const t = this.typeOf(nonNull[0], `${pointer}/${key}/${alts.indexOf(nonNull[0])}`, hint);
        return { type: t.type, optional: optional || t.optional };
      }
      const converted = nonNull.map((a) => this.typeOf(a, `${pointer}/${key}/${alts.indexOf(a)}`, hint).type);
      if (converted.length > 0 && converted.every((t) => t.kind === 'Enum')) {
        return { type: { kind: 'Enum', values: [...new Set(converted.flatMap((t) => (t.kind === 'Enum' ? t.values : [])))] }, optional };
      }
      if (converted.length > 0 && converted.every((t) => t.kind === converted[0].kind && t.kind !== 'Struct' && t.kind !== 'List')) return { type: converted[0], optional };
      return { type: ANY, optional };
    }
    if (Array.isArray(schema.allOf) && !isObj(schema.properties) && schema.allOf.length === 1) {
      const t = this.typeOf(schema.allOf[0], `${pointer}/allOf/0`, hint);
      return { type: t.type, optional: optional || t.optional };
    }
    if (types && types.length > 1) return { type: ANY, optional };
    const t = types?.[0] ?? (isObj(schema.properties) || Array.isArray(schema.allOf) ? 'object' : isObj(schema.items) ? 'array' : undefined);
    switch (t) {
      case 'string':
        return { type: { kind: 'Str' }, optional };
      case 'integer':
      case 'number':
        return { type: { kind: 'Num' }, optional };
      case 'boolean':
        return { type: { kind: 'Bool' }, optional };
      case 'null':
        return { type: { kind: 'Null' }, optional: true };
      case 'array': {
        if (schema.items === undefined) return { type: { kind: 'List', element: ANY }, optional };
        const e = this.typeOf(schema.items, pointer + '/items', hint.endsWith('Item') ? hint : hint + 'Item');
        return { type: { kind: 'List', element: e.type }, optional };
      }
      case 'object': {
        if (this.isStructLike(schema)) {
          const name = this.byPointer.get(pointer) ?? this.makeStruct(schema, pointer, hint);
          return { type: { kind: 'Struct', name }, optional };
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
}
