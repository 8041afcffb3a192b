// The names on the wire. An absorbed property, field or argument whose spec name is not a valid
// Turn name (`type`, `first-name`) is declared under a Turn name (`type_`, `first_name`); what goes
// to the server and what comes back is in the spec's names. The generated module (module.ts) holds
// one name table for the API — per struct, its fields as [Turn name, wire name, shape, flags,
// literal?] — and, per operation, the shape of its parameters, body and result. At run time it
// calls the VM tools `wire_encode`, `wire_arguments` and `wire_decode` (registered in
// runtime/vm/tools.ts), which walk a value along its shape: nested at any depth, in lists, maps and
// union members; iteratively, and refusing a value nested deeper than MAX_JSON_DEPTH with an error.
//
// Absent is not null. A `T?` field a struct literal leaves out is null in the struct and left out
// of the request (so the server's default applies), unless the spec requires the property (then it
// is sent, as null); a field the literal writes `null` is sent as null where the spec allows null
// (StructVal.writtenNull). A map says which keys it has: a key present with null is written null.
// An operation's arguments are encoded by `wire_arguments`, which knows which ones the call gave
// (FunctionProto.required).
import type { StaticType } from '../check/types.js';
import { MAX_JSON_DEPTH, StructVal, Uncertain, VMError, type Value } from '../values/index.js';
import { packJson, unpackJson } from './packed.js';

/**
 * How a value of a declared type is laid out, as far as names go: `0` nothing to rename or leave
 * out below it; a struct's table key; `["L", s]` a list of s; `["M", s]` a map of s; `["U", s...]`
 * a union.
 */
export type Shape = 0 | string | ['L', Shape] | ['M', Shape] | ['U', ...Shape[]];

/** Flags of a field or parameter: the spec requires it; the spec allows null for it. */
export const REQUIRED = 1;
export const NULLABLE = 2;
/**
 * OpenAPI `readOnly`: never sent (a request form lists its reply struct's read-only properties with
 * it, so a map that carries one, at any depth, loses it too); `writeOnly`: never read from a reply
 * (a server that sends one does not hand the program a value to send back). runtime/absorb/directions.ts.
 */
export const READ_ONLY = 4;
export const WRITE_ONLY = 8;

/**
 * An OpenAPI `discriminator` property: its values (the 5th element, a literal or a list of them)
 * name the struct among a union's members, and encoding fills in the first when a value leaves it out.
 */
export const DISCRIMINATOR = 16;

type Literal = string | number | boolean;
/** [Turn name, wire name, shape, flags, the literal it always holds (a `const`, or a discriminator's values)?] */
export type FieldEntry = [string, string, Shape, number] | [string, string, Shape, number, Literal | Literal[]];

/** Whether `v` is a value the 5th element of a field entry allows. */
const holds = (allowed: Literal | Literal[], v: Value): boolean => (Array.isArray(allowed) ? allowed.includes(v as Literal) : v === allowed);

/** Per struct (by its declared name), its fields. */
export type NameTable = Record<string, FieldEntry[]>;

/** A parameter of an operation: [wire name, shape, flags]. */
export type ParamEntry = [string, Shape, number];

// ---- compile time: what module.ts writes

/** The shape of a value of type `t`, whose struct names are already the module's declared ones. */
export function shapeOf(t: StaticType, inTable: (struct: string) => boolean, depth = 0): Shape {
  if (depth > 64) return 0;
  switch (t.kind) {
    case 'Struct':
      return inTable(t.name) ? t.name : 0;
    case 'List': {
      const e = shapeOf(t.element, inTable, depth + 1);
      return e === 0 ? 0 : ['L', e];
    }
    case 'Map': {
      const v = t.value ? shapeOf(t.value, inTable, depth + 1) : 0;
      return v === 0 ? 0 : ['M', v];
    }
    case 'Optional':
      return shapeOf(t.inner, inTable, depth + 1);
    case 'Union': {
      const members = t.members.map((m) => shapeOf(m, inTable, depth + 1));
      return members.every((m) => m === 0) ? 0 : ['U', ...members];
    }
    default:
      return 0;
  }
}

/** How a generated module writes its name table: packed JSON text (packed.ts). */
export function encodedTable(table: NameTable): string {
  return packJson(JSON.stringify(table));
}

// ---- run time

/** Parsed tables, shapes and parameter lists by kind and text (constants of generated modules), a bounded cache. */
const parsed = new Map<string, unknown>();
const MAX_PARSED = 256;

function parseText<T>(text: Value, what: string, check: (v: unknown) => boolean): T {
  if (typeof text !== 'string') throw new VMError(`the ${what} must be a Str (JSON text)`);
  const key = `${what}\n${text}`;
  const hit = parsed.get(key);
  if (hit !== undefined) return hit as T;
  let v: unknown;
  try {
    v = JSON.parse(unpackJson(text));
  } catch (e) {
    throw new VMError(`the ${what} is not JSON: ${(e as Error).message}`);
  }
  if (!check(v)) throw new VMError(`the ${what} is not a name ${what === 'name table' ? 'table' : 'shape'}`);
  if (parsed.size >= MAX_PARSED) parsed.delete(parsed.keys().next().value!);
  parsed.set(key, v);
  return v as T;
}

const isTable = (v: unknown): boolean => !!v && typeof v === 'object' && !Array.isArray(v) && Object.values(v).every(Array.isArray);
const isShape = (v: unknown): boolean => v === 0 || typeof v === 'string' || Array.isArray(v);
const isParams = (v: unknown): boolean => Array.isArray(v) && v.every((p) => Array.isArray(p) && typeof p[0] === 'string' && typeof p[2] === 'number');

const unwrapped = (v: Value): Value => (v instanceof Uncertain ? v.v : v);

/** The entries of a struct or map value, or undefined for anything else. */
function entriesOf(v: Value): Map<string, Value> | undefined {
  return v instanceof StructVal ? v.fields : v instanceof Map ? v : undefined;
}

/** Which member of a union a value is: the one of its struct type, else whose literals it holds, else whose required fields it has, else the first struct. */
function member(members: Shape[], v: Value, table: NameTable, byWire: boolean): Shape {
  const fields = entriesOf(v);
  if (!fields) return members.find((m) => typeof m !== 'string') ?? 0;
  const structs = members.filter((m): m is string => typeof m === 'string' && Object.hasOwn(table, m));
  if (v instanceof StructVal && structs.includes(v.type)) return v.type;
  const key = (f: FieldEntry) => (byWire ? f[1] : f[0]);
  const literal = structs.find((m) => {
    const lits = table[m].filter((f) => f.length === 5);
    return lits.length > 0 && lits.every((f) => holds(f[4], unwrapped(fields.get(key(f)) ?? null)));
  });
  if (literal) return literal;
  // a discriminator that names no member: the first member the value completes (the reply's
  // validation has already said why it is none, runtime/infer/validate.ts)
  const complete = structs.find((m) => table[m].every((f) => !(f[3] & REQUIRED) || fields.has(key(f))));
  return complete ?? structs[0] ?? members.find((m) => m !== 0) ?? 0;
}

interface Walk {
  table: NameTable;
  /** true: from Turn names to wire names; false: back */
  encode: boolean;
  alloc: (containers: number) => void;
}

/** `v` laid out along `shape`, renamed one way or the other. Iterative. */
function walk(root: Value, rootShape: Shape, w: Walk): Value {
  const out: { v: Value } = { v: null };
  const pending: { v: Value; shape: Shape; depth: number; put: (x: Value) => void }[] = [{ v: root, shape: rootShape, depth: 1, put: (x) => (out.v = x) }];
  while (pending.length > 0) {
    const { v: raw, shape: s, depth, put } = pending.pop()!;
    const v = unwrapped(raw);
    let shape = s;
    if (Array.isArray(shape) && shape[0] === 'U') shape = member(shape.slice(1), v, w.table, !w.encode);
    if (shape === 0 || v === null || typeof v !== 'object') {
      put(raw);
      continue;
    }
    if (depth > MAX_JSON_DEPTH) throw new VMError(`a value nested more than ${MAX_JSON_DEPTH} levels deep cannot be sent or read`);
    if (Array.isArray(shape) && shape[0] === 'L') {
      if (!Array.isArray(v)) {
        put(raw);
        continue;
      }
      const list: Value[] = new Array<Value>(v.length).fill(null);
      w.alloc(v.length);
      put(list);
      const element = shape[1];
      v.forEach((x, i) => pending.push({ v: x, shape: element, depth: depth + 1, put: (y) => (list[i] = y) }));
      continue;
    }
    const fields = entriesOf(v);
    if (!fields) {
      put(raw);
      continue;
    }
    const map = new Map<string, Value>();
    w.alloc(fields.size);
    put(map);
    if (Array.isArray(shape) && shape[0] === 'M') {
      const value = shape[1];
      for (const [k, x] of fields) {
        map.set(k, null);
        pending.push({ v: x, shape: value, depth: depth + 1, put: (y) => map.set(k, y) });
      }
      continue;
    }
    const entries = typeof shape === 'string' && Object.hasOwn(w.table, shape) ? w.table[shape] : [];
    const known = new Set<string>();
    for (const [turn, wire, inner, flags, literal] of entries) {
      const from = w.encode ? turn : wire;
      const to = w.encode ? wire : turn;
      known.add(from);
      if (flags & (w.encode ? READ_ONLY : WRITE_ONLY)) {
        known.add(wire); // not sent / not read, under either name
        continue;
      }
      // a map written with the wire's names is understood too
      const key = fields.has(from) ? from : w.encode && fields.has(wire) ? wire : undefined;
      if (w.encode && flags & DISCRIMINATOR && literal !== undefined && unwrapped(key === undefined ? null : fields.get(key)!) === null) {
        // the member's discriminator value, which the value left out: the server needs it to know the member
        known.add(wire);
        map.set(to, Array.isArray(literal) ? literal[0] : literal);
        continue;
      }
      if (key === undefined) continue; // absent: left out
      known.add(key);
      const x = fields.get(key)!;
      if (w.encode && unwrapped(x) === null) {
        // a struct literal fills a `T?` field it left out with null (StructVal.writtenNull tells them
        // from the ones it wrote null); a map has the keys it was given
        const written = v instanceof StructVal ? !!v.writtenNull?.has(key) : true;
        const send = flags & REQUIRED || (written && flags & NULLABLE);
        if (send) map.set(to, null);
        continue;
      }
      map.set(to, null); // keeps the order; replaced below
      pending.push({ v: x, shape: inner, depth: depth + 1, put: (y) => map.set(to, y) });
    }
    // properties the spec does not list (APIs add fields; a map may carry more) are kept as they are
    for (const [k, x] of fields) if (!known.has(k) && !map.has(k)) map.set(k, x);
  }
  return out.v;
}

/** `wire_encode(value, shape, table)`: a value to send, in the wire's names. */
export function wireEncode(value: Value, shape: Value, table: Value, alloc: (n: number) => void): Value {
  const s = parseText<Shape>(shape, 'shape', isShape);
  const t = parseText<NameTable>(table, 'name table', isTable);
  return walk(value, s, { table: t, encode: true, alloc });
}

/** `wire_decode(value, shape, table)`: a reply, in Turn's names. */
export function wireDecode(value: Value, shape: Value, table: Value, alloc: (n: number) => void): Value {
  const s = parseText<Shape>(shape, 'shape', isShape);
  const t = parseText<NameTable>(table, 'name table', isTable);
  return walk(value, s, { table: t, encode: false, alloc });
}

/**
 * `wire_arguments(values, given, params, table)`: an operation's arguments as the map to send —
 * under their wire names, those the call left out (`given[i]` false) absent, a `null` sent only
 * where the spec allows it (else left out, as a query parameter cannot be null).
 */
export function wireArguments(values: Value, given: Value, params: Value, table: Value, alloc: (n: number) => void): Value {
  const ps = parseText<ParamEntry[]>(params, 'parameter list', isParams);
  const t = parseText<NameTable>(table, 'name table', isTable);
  const vs = unwrapped(values);
  const gs = unwrapped(given);
  if (!Array.isArray(vs) || vs.length !== ps.length) throw new VMError(`the arguments must be a List of ${ps.length}`);
  if (!Array.isArray(gs) || gs.length !== ps.length) throw new VMError(`which arguments were given must be a List of ${ps.length} Bool`);
  const out = new Map<string, Value>();
  alloc(ps.length);
  ps.forEach(([wire, shape, flags], i) => {
    if (gs[i] !== true) return;
    if (unwrapped(vs[i]) === null) {
      if (flags & (NULLABLE | REQUIRED)) out.set(wire, null);
      return;
    }
    out.set(wire, walk(vs[i], shape, { table: t, encode: true, alloc }));
  });
  return out;
}
