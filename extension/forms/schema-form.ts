// A typed form's model, from a JSON Schema (no DOM, no `vscode`: the webview draws it, tests run it
// in plain Node). The schemas are the ones Turn makes for its types (runtime/infer/schema.ts: a
// struct is an object with `additionalProperties: false`, a `T?` field is optional and nullable as
// `anyOf [T, null]`, `$defs`/`$ref` for recursive structs), an absorbed API's types, and an MCP
// elicitation's restricted schema (a flat object of strings, numbers, booleans and enums).
//
// `formModel` reads a schema into a tree of FormNodes (what each input is); `checkValue` is the
// webview's validator (messages at the field as a person types: JSON Pointer → message). It covers
// the keywords a form can get wrong — types, required and unknown fields, enums and consts, lengths,
// bounds, unions — and leaves `pattern`, `format` and `@check` predicates to the host, which
// validates every answer again with the runtime's validator before acting (forms/check.ts): the
// webview is never trusted. A schema deeper or wider than the bounds is a JSON box with a note.

export type JsonSchema = Record<string, unknown>;
export type Scalar = string | number | boolean | null;

export interface FormField {
  name: string;
  /** absent from `required`: the form may leave it out (a toggle) */
  optional: boolean;
  description?: string;
  node: FormNode;
}

export type FormNode =
  | { kind: 'object'; title?: string; description?: string; fields: FormField[] }
  | { kind: 'string'; minLength?: number; maxLength?: number; multiline: boolean }
  | { kind: 'number' | 'integer'; minimum?: number; maximum?: number }
  | { kind: 'boolean' }
  | { kind: 'null' }
  | { kind: 'enum'; values: Scalar[] }
  | { kind: 'const'; value: Scalar }
  /** `anyOf [T, null]`: a value of T, or null (a toggle) */
  | { kind: 'nullable'; inner: FormNode }
  | { kind: 'list'; item: FormNode; minItems?: number; maxItems?: number }
  /** `anyOf` of several shapes: a choice of which, then its form */
  | { kind: 'union'; variants: { label: string; node: FormNode }[] }
  /** any JSON (no schema, `Any`, a map, or a schema beyond the bounds): a JSON box, with why */
  | { kind: 'json'; note?: string; empty?: [] | Record<string, never> };

export interface FormLimits {
  /** nesting of objects, lists and unions before a JSON box */
  depth: number;
  /** inputs in the whole form before the form is one JSON box */
  inputs: number;
}

export const FORM_LIMITS: FormLimits = { depth: 8, inputs: 200 };

/** The form of `schema` (a root schema: `$ref`s point into its `$defs`). */
export function formModel(schema: unknown, limits: FormLimits = FORM_LIMITS): FormNode {
  const root = isObj(schema) ? schema : {};
  const budget = { inputs: limits.inputs };
  const node = build(root, root, 0, limits, budget, []);
  if (budget.inputs < 0) return { kind: 'json', note: `this type has more than ${limits.inputs} fields: edit it as JSON` };
  return node;
}

function build(s: JsonSchema, root: JsonSchema, depth: number, limits: FormLimits, budget: { inputs: number }, refs: string[]): FormNode {
  if (depth > limits.depth) return { kind: 'json', note: `nested deeper than ${limits.depth} levels: edit this part as JSON` };
  budget.inputs--;
  if (typeof s.$ref === 'string') {
    const target = resolveRef(root, s.$ref);
    // a recursive type's form would be infinite: its second visit is a JSON box
    if (!target || refs.includes(s.$ref)) return { kind: 'json', note: target ? 'a recursive type: edit this part as JSON' : `unknown reference ${s.$ref}` };
    return build(target, root, depth, limits, budget, [...refs, s.$ref]);
  }
  if (Array.isArray(s.enum) && s.enum.length > 0 && s.enum.every(isScalar)) return { kind: 'enum', values: s.enum };
  if ('const' in s && isScalar(s.const)) return { kind: 'const', value: s.const };
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) return union(((s.anyOf ?? s.oneOf) as unknown[]).filter(isObj), root, depth, limits, budget, refs);
  const type = typeOf(s);
  switch (type) {
    case 'string':
      return { kind: 'string', ...num('minLength', s.minLength), ...num('maxLength', s.maxLength), multiline: !(typeof s.maxLength === 'number' && s.maxLength <= 80) && s.format === undefined && s.pattern === undefined };
    case 'number':
    case 'integer':
      return { kind: type, ...num('minimum', s.minimum), ...num('maximum', s.maximum) };
    case 'boolean':
      return { kind: 'boolean' };
    case 'null':
      return { kind: 'null' };
    case 'array': {
      if (!isObj(s.items)) return { kind: 'json', note: 'a list of any values', empty: [] };
      return { kind: 'list', item: build(s.items, root, depth + 1, limits, budget, refs), ...num('minItems', s.minItems), ...num('maxItems', s.maxItems) };
    }
    case 'object': {
      if (!isObj(s.properties) || Object.keys(s.properties).length === 0) return { kind: 'json', note: 'a map: edit it as JSON', empty: {} };
      const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
      const fields: FormField[] = [];
      for (const [name, p] of Object.entries(s.properties)) {
        if (!isObj(p)) continue;
        let node = build(p, root, depth + 1, limits, budget, refs);
        // a Turn `T?` field is both optional and nullable: one toggle (leave it out) covers both
        if (!required.has(name) && node.kind === 'nullable') node = node.inner;
        fields.push({ name, optional: !required.has(name), ...(typeof p.description === 'string' ? { description: p.description } : {}), node });
      }
      return { kind: 'object', ...(typeof s.title === 'string' ? { title: s.title } : {}), ...(typeof s.description === 'string' ? { description: s.description } : {}), fields };
    }
    default:
      return { kind: 'json' };
  }
}

function union(members: JsonSchema[], root: JsonSchema, depth: number, limits: FormLimits, budget: { inputs: number }, refs: string[]): FormNode {
  const nonNull = members.filter((m) => m.type !== 'null');
  const hasNull = nonNull.length < members.length;
  let inner: FormNode;
  if (nonNull.length === 0) inner = { kind: 'null' };
  else if (nonNull.length === 1) inner = build(nonNull[0], root, depth, limits, budget, refs);
  else if (nonNull.every((m) => 'const' in m && isScalar(m.const))) inner = { kind: 'enum', values: nonNull.map((m) => m.const as Scalar) };
  else {
    const variants = nonNull.map((m, i) => {
      const node = build(m, root, depth + 1, limits, budget, refs);
      return { label: variantLabel(m, node, root, i), node };
    });
    inner = { kind: 'union', variants };
  }
  return hasNull ? { kind: 'nullable', inner } : inner;
}

function variantLabel(m: JsonSchema, node: FormNode, root: JsonSchema, i: number): string {
  const target = typeof m.$ref === 'string' ? resolveRef(root, m.$ref) : m;
  if (target && typeof target.title === 'string') return target.title;
  if (node.kind === 'object') {
    // a union discriminated by a literal field (`kind: "a"`) is named by it
    const tag = node.fields.find((f) => f.node.kind === 'const');
    if (tag && tag.node.kind === 'const') return `${tag.name}: ${JSON.stringify(tag.node.value)}`;
  }
  return node.kind === 'json' ? `option ${i + 1}` : node.kind;
}

/** The value a fresh form holds: each field's zero, optional fields left out. */
export function emptyValue(node: FormNode): unknown {
  switch (node.kind) {
    case 'object':
      return Object.fromEntries(node.fields.filter((f) => !f.optional).map((f) => [f.name, emptyValue(f.node)]));
    case 'string':
      return '';
    case 'number':
    case 'integer':
      return node.minimum !== undefined && node.minimum > 0 ? node.minimum : 0;
    case 'boolean':
      return false;
    case 'enum':
      return node.values[0];
    case 'const':
      return node.value;
    case 'list':
      return Array.from({ length: node.minItems ?? 0 }, () => emptyValue(node.item));
    case 'union':
      return emptyValue(node.variants[0].node);
    case 'json':
      return node.empty ?? null;
    case 'null':
    case 'nullable':
      return null;
  }
}

/** Whether `value` has the shape of `node` (not a full check): how a union's current variant is found. */
export function fits(node: FormNode, value: unknown): boolean {
  switch (node.kind) {
    case 'object':
      return isObj(value) && node.fields.every((f) => f.optional || f.name in value) && node.fields.filter((f) => f.node.kind === 'const').every((f) => fits(f.node, value[f.name]));
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    case 'enum':
      return node.values.some((v) => v === value);
    case 'const':
      return value === node.value;
    case 'nullable':
      return value === null || fits(node.inner, value);
    case 'list':
      return Array.isArray(value);
    case 'union':
      return node.variants.some((v) => fits(v.node, value));
    case 'json':
      return true;
  }
}

/** The index of the union variant `value` is (the first that fits; 0 when none does). */
export function variantOf(node: Extract<FormNode, { kind: 'union' }>, value: unknown): number {
  const i = node.variants.findIndex((v) => fits(v.node, value));
  return i < 0 ? 0 : i;
}

// ------------------------------------------------------------------------- the webview's validator

export interface FormIssue {
  /** JSON Pointer of the field ('' for the whole value) */
  path: string;
  message: string;
}

const MAX_ISSUES = 50;
const MAX_CHECK_DEPTH = 64;

/**
 * Every way `value` fails `schema` that a form can show at a field, with its JSON Pointer; `[]` when
 * none. Not the authority: the host validates again with the runtime's validator (forms/check.ts).
 */
export function checkValue(schema: unknown, value: unknown): FormIssue[] {
  const root = isObj(schema) ? schema : {};
  const out: FormIssue[] = [];
  check(root, root, value, '', out, 0);
  return out.slice(0, MAX_ISSUES);
}

function check(s: JsonSchema, root: JsonSchema, v: unknown, path: string, out: FormIssue[], depth: number): void {
  if (out.length >= MAX_ISSUES) return;
  if (depth > MAX_CHECK_DEPTH) return void out.push({ path, message: 'nested too deep' });
  if (typeof s.$ref === 'string') {
    const target = resolveRef(root, s.$ref);
    if (target) check(target, root, v, path, out, depth + 1);
    return;
  }
  const members = Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : null;
  if (members) {
    const objs = members.filter(isObj);
    const tries = objs.map((m) => {
      const found: FormIssue[] = [];
      check(m, root, v, path, found, depth + 1);
      return found;
    });
    if (tries.some((t) => t.length === 0)) return;
    // the member the value was meant to be: the one it fits in shape, else the one with the fewest faults
    const shaped = objs.findIndex((m) => fits(build(m, root, 0, FORM_LIMITS, { inputs: FORM_LIMITS.inputs }, []), v));
    const best = shaped >= 0 ? tries[shaped] : tries.reduce((a, b) => (b.length < a.length ? b : a), tries[0] ?? []);
    if (best.length > 0 && (shaped >= 0 || objs.length === 1)) out.push(...best);
    else out.push({ path, message: `must be one of: ${objs.map((m, i) => variantLabel(m, build(m, root, 0, FORM_LIMITS, { inputs: FORM_LIMITS.inputs }, []), root, i)).join(', ')}` });
    return;
  }
  if (Array.isArray(s.enum) && !s.enum.some((e) => same(e, v))) return void out.push({ path, message: `must be one of ${s.enum.map((e) => JSON.stringify(e)).join(', ')}` });
  if ('const' in s && !same(s.const, v)) return void out.push({ path, message: `must be ${JSON.stringify(s.const)}` });
  const type = typeOf(s);
  if (type !== undefined && !hasType(type, v)) return void out.push({ path, message: `must be ${article(type)}${v === undefined ? '' : `, not ${describe(v)}`}` });
  if (typeof v === 'string') {
    const n = [...v].length;
    if (typeof s.minLength === 'number' && n < s.minLength) out.push({ path, message: s.minLength === 1 ? 'must not be empty' : `must have at least ${s.minLength} characters` });
    if (typeof s.maxLength === 'number' && n > s.maxLength) out.push({ path, message: `must have at most ${s.maxLength} characters` });
  }
  if (typeof v === 'number') {
    if (typeof s.minimum === 'number' && v < s.minimum) out.push({ path, message: `must be ≥ ${s.minimum}` });
    if (typeof s.maximum === 'number' && v > s.maximum) out.push({ path, message: `must be ≤ ${s.maximum}` });
    if (typeof s.exclusiveMinimum === 'number' && v <= s.exclusiveMinimum) out.push({ path, message: `must be > ${s.exclusiveMinimum}` });
    if (typeof s.exclusiveMaximum === 'number' && v >= s.exclusiveMaximum) out.push({ path, message: `must be < ${s.exclusiveMaximum}` });
  }
  if (Array.isArray(v)) {
    if (typeof s.minItems === 'number' && v.length < s.minItems) out.push({ path, message: `must have at least ${s.minItems} items` });
    if (typeof s.maxItems === 'number' && v.length > s.maxItems) out.push({ path, message: `must have at most ${s.maxItems} items` });
    if (isObj(s.items)) v.forEach((item, i) => check(s.items as JsonSchema, root, item, `${path}/${i}`, out, depth + 1));
  }
  if (isObj(v) && !Array.isArray(v)) {
    const props = isObj(s.properties) ? s.properties : {};
    for (const r of Array.isArray(s.required) ? s.required : []) {
      if (typeof r === 'string' && !(r in v)) out.push({ path: `${path}/${escape(r)}`, message: 'is required' });
    }
    for (const [k, item] of Object.entries(v)) {
      const p = props[k];
      if (isObj(p)) check(p, root, item, `${path}/${escape(k)}`, out, depth + 1);
      else if (s.additionalProperties === false) out.push({ path: `${path}/${escape(k)}`, message: `is not a field of ${typeof s.title === 'string' ? s.title : 'this type'}` });
      else if (isObj(s.additionalProperties)) check(s.additionalProperties, root, item, `${path}/${escape(k)}`, out, depth + 1);
    }
  }
}

// ------------------------------------------------------------------------------- what changed

export interface FieldChange {
  /** JSON Pointer of the changed field ('' when the whole value is another kind of value) */
  path: string;
  /** JSON text; null: the field was not there */
  before: string | null;
  after: string | null;
}

const MAX_CHANGES = 20;

/** The fields that differ between two values, leaf by leaf (at most 20; the whole value when the kinds differ). */
export function changedFields(before: unknown, after: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  diff(before, after, '', out, 0);
  return out.slice(0, MAX_CHANGES);
}

function diff(a: unknown, b: unknown, path: string, out: FieldChange[], depth: number): void {
  if (out.length >= MAX_CHANGES || same(a, b)) return;
  const bothObjects = isObj(a) && isObj(b) && !Array.isArray(a) && !Array.isArray(b);
  if (depth < MAX_CHECK_DEPTH && bothObjects) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const p = `${path}/${escape(k)}`;
      if (!(k in a)) out.push({ path: p, before: null, after: JSON.stringify(b[k]) });
      else if (!(k in b)) out.push({ path: p, before: JSON.stringify(a[k]), after: null });
      else diff(a[k], b[k], p, out, depth + 1);
    }
    return;
  }
  if (depth < MAX_CHECK_DEPTH && Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((x, i) => diff(x, b[i], `${path}/${i}`, out, depth + 1));
    return;
  }
  out.push({ path, before: JSON.stringify(a) ?? null, after: JSON.stringify(b) ?? null });
}

/** A change as the banner says it: `verdict: "spam" → "ham"`, `tags/2: (absent) → "x"`. */
export function changeText(c: FieldChange): string {
  const where = c.path === '' ? 'the value' : c.path.slice(1).split('/').map(unescape).join('.');
  return `${where}: ${c.before ?? '(absent)'} → ${c.after ?? '(absent)'}`;
}

// ------------------------------------------------------------------------------- pointers

/** The value at JSON Pointer `path` in `value` (undefined when absent). */
export function getAt(value: unknown, path: string): unknown {
  let cur = value;
  for (const part of parts(path)) {
    if (Array.isArray(cur)) cur = cur[Number(part)];
    else if (isObj(cur)) cur = Object.hasOwn(cur, part) ? cur[part] : undefined;
    else return undefined;
  }
  return cur;
}

/** `value` with the field at `path` set to `next` (undefined: removed; a list's row is spliced out); copies along the path. */
export function setAt(value: unknown, path: string, next: unknown): unknown {
  const ps = parts(path);
  if (ps.length === 0) return next;
  const [head, ...rest] = ps;
  const tail = rest.map((r) => `/${escape(r)}`).join('');
  if (Array.isArray(value)) {
    const i = Number(head);
    const copy = [...value];
    if (rest.length === 0 && next === undefined) copy.splice(i, 1);
    else copy[i] = setAt(copy[i], tail, next);
    return copy;
  }
  const obj: Record<string, unknown> = isObj(value) ? { ...value } : {};
  if (rest.length === 0 && next === undefined) delete obj[head];
  else obj[head] = setAt(obj[head], tail, next);
  return obj;
}

export const pointer = (base: string, key: string | number): string => `${base}/${escape(String(key))}`;

function parts(path: string): string[] {
  return path === '' ? [] : path.slice(1).split('/').map(unescape);
}
const escape = (k: string): string => k.replaceAll('~', '~0').replaceAll('/', '~1');
const unescape = (k: string): string => k.replaceAll('~1', '/').replaceAll('~0', '~');

// ------------------------------------------------------------------------------- small helpers

function isObj(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isScalar(v: unknown): v is Scalar {
  return v === null || ['string', 'number', 'boolean'].includes(typeof v);
}

function num<K extends string>(key: K, v: unknown): Partial<Record<K, number>> {
  return typeof v === 'number' && Number.isFinite(v) ? ({ [key]: v } as Record<K, number>) : {};
}

/** A schema's one type (`type: ["string", "null"]` is read as its first non-null one). */
function typeOf(s: JsonSchema): string | undefined {
  if (typeof s.type === 'string') return s.type;
  if (Array.isArray(s.type)) return s.type.find((t) => t !== 'null') as string | undefined;
  if (isObj(s.properties)) return 'object';
  if (isObj(s.items)) return 'array';
  return undefined;
}

function resolveRef(root: JsonSchema, ref: string): JsonSchema | null {
  if (!ref.startsWith('#/')) return null;
  const target = getAt(root, ref.slice(1));
  return isObj(target) ? target : null;
}

function hasType(type: string, v: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return Number.isInteger(v);
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null;
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isObj(v);
    default:
      return true;
  }
}

function article(type: string): string {
  return { string: 'text', number: 'a number', integer: 'a whole number', boolean: 'true or false', null: 'null', array: 'a list', object: 'an object' }[type] ?? type;
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'string') return `text ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  if (typeof v === 'object') return 'an object';
  return String(v);
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
