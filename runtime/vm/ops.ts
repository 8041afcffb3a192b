// Slow paths of the VM's operators: everything that is not number-op-number. Uncertain operands
// propagate confidence: arithmetic and concatenation multiply, comparisons take the minimum.
import type { StructDesc } from '../compile/bundle.js';
import { Cmp, Op } from '../compile/opcodes.js';
import {
  IdentityVal, StructVal, Uncertain, VecVal, VMError, confidenceOf, equals, render, typeName, unwrap, withConfidence,
  type Value,
} from '../values/index.js';

function concatPart(v: Value): string {
  if (v instanceof IdentityVal) throw new VMError('an identity handle cannot be concatenated');
  return render(v);
}

export function binarySlow(op: number, a: Value, b: Value): Value {
  if (a instanceof Uncertain || b instanceof Uncertain) {
    const ca = confidenceOf(a);
    const cb = confidenceOf(b);
    const r = binarySlow(op, unwrap(a), unwrap(b));
    const multiply = op === Op.ADD || op === Op.SUB || op === Op.MUL || op === Op.DIV || op === Op.SIM;
    return withConfidence(r, multiply ? ca * cb : Math.min(ca, cb));
  }
  switch (op) {
    case Op.ADD:
      if (typeof a === 'number' && typeof b === 'number') return a + b;
      if (typeof a === 'string' || typeof b === 'string') return concatPart(a) + concatPart(b);
      if (Array.isArray(a) && Array.isArray(b)) return a.concat(b);
      break;
    case Op.SUB:
      if (typeof a === 'number' && typeof b === 'number') return a - b;
      break;
    case Op.MUL:
      if (typeof a === 'number' && typeof b === 'number') return a * b;
      break;
    case Op.DIV:
      if (typeof a === 'number' && typeof b === 'number') {
        if (b === 0) throw new VMError('division by zero');
        return a / b;
      }
      break;
    case Op.EQ:
    case Op.NE:
      if ((a instanceof IdentityVal) !== (b instanceof IdentityVal)) {
        throw new VMError(`an identity handle cannot be compared with a ${typeName(a instanceof IdentityVal ? b : a)}`);
      }
      return op === Op.EQ ? equals(a, b) : !equals(a, b);
    case Op.LT:
    case Op.GT:
    case Op.LE:
    case Op.GE:
      if ((typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string')) {
        return op === Op.LT ? a < b : op === Op.GT ? a > b : op === Op.LE ? a <= b : a >= b;
      }
      throw new VMError(`cannot compare ${typeName(a)} and ${typeName(b)}`);
    case Op.SIM:
      return cosine(a, b);
  }
  const sym = op === Op.ADD ? '+' : op === Op.SUB ? '-' : op === Op.MUL ? '*' : op === Op.DIV ? '/' : '~>';
  throw new VMError(`cannot apply ${sym} to ${typeName(a)} and ${typeName(b)}`);
}

function numbers(v: Value): number[] | null {
  if (v instanceof VecVal) return v.items;
  if (Array.isArray(v) && v.every((x) => typeof x === 'number')) return v;
  return null;
}

export function cosine(a: Value, b: Value): number {
  const x = numbers(a);
  const y = numbers(b);
  if (!x || !y) throw new VMError(`~> needs two vectors, got ${typeName(a)} and ${typeName(b)}`);
  if (x.length !== y.length) throw new VMError(`~> needs vectors of the same length (${x.length} and ${y.length})`);
  let dot = 0, nx = 0, ny = 0;
  for (let i = 0; i < x.length; i++) {
    dot += x[i] * y[i];
    nx += x[i] * x[i];
    ny += y[i] * y[i];
  }
  if (nx === 0 || ny === 0) return 0;
  return dot / Math.sqrt(nx * ny);
}

export function indexSlow(t: Value, i: Value): Value {
  if (t instanceof Uncertain || i instanceof Uncertain) {
    return withConfidence(indexSlow(unwrap(t), unwrap(i)), Math.min(confidenceOf(t), confidenceOf(i)));
  }
  if (Array.isArray(t) || typeof t === 'string' || t instanceof VecVal) {
    if (typeof i !== 'number') throw new VMError(`a ${typeName(t)} index must be a Num, got ${typeName(i)}`);
    const len = t instanceof VecVal ? t.items.length : t.length;
    if (!Number.isInteger(i)) throw new VMError(`index ${i} is not a whole number`);
    if (i < 0 || i >= len) throw new VMError(`index ${i} out of range (length ${len})`);
    if (t instanceof VecVal) return t.items[i];
    if (typeof t === 'string') return t[i];
    return t[i];
  }
  if (t instanceof Map) {
    if (typeof i !== 'string') throw new VMError(`a Map key must be a Str, got ${typeName(i)}`);
    const v = t.get(i);
    return v === undefined ? null : v;
  }
  if (t instanceof StructVal) {
    if (typeof i !== 'string') throw new VMError(`a struct field name must be a Str, got ${typeName(i)}`);
    return getField(t, i);
  }
  throw new VMError(`cannot index ${typeName(t)}`);
}

export function getField(t: Value, name: string): Value {
  if (t instanceof StructVal) {
    const v = t.fields.get(name);
    if (v === undefined) throw new VMError(`${t.type} has no field ${name}`);
    return v;
  }
  if (t instanceof Map) {
    const v = t.get(name);
    return v === undefined ? null : v;
  }
  if (t instanceof Uncertain) return withConfidence(getField(t.v, name), t.c);
  throw new VMError(`cannot read field ${name} of ${typeName(t)}`);
}

/** A `remember`/`recall`/map key: a Str, or a Num as its text. */
export function keyString(v: Value, what: string): string {
  v = unwrap(v);
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  throw new VMError(`${what} key must be a Str, got ${typeName(v)}`);
}

/** The comparison opcode a fused compare-and-jump's `Cmp` operand stands for. */
export function cmpOp(cmp: number): number {
  return cmp === Cmp.LT ? Op.LT : cmp === Cmp.LE ? Op.LE : cmp === Cmp.GT ? Op.GT : Op.GE;
}

export function makeStruct(desc: StructDesc, stack: Value[], base: number, n: number): StructVal {
  const given = new Map<string, Value>();
  for (let i = 0; i < n; i++) given.set(desc.names[i], stack[base + i]);
  let spread: Map<string, Value> | null = null;
  let spreadNulls: { has(k: string): boolean } | undefined;
  if (desc.spread) {
    const s = unwrap(stack[base + n]);
    if (s instanceof StructVal) {
      spread = s.fields;
      spreadNulls = s.writtenNull;
    } else if (s instanceof Map) spread = spreadNulls = s; // a map's keys are written: a null one was written null
    else throw new VMError(`cannot spread a ${typeName(s)} into ${desc.type}`);
  }
  const fields = new Map<string, Value>();
  if (desc.order) {
    for (const name of desc.names) {
      if (!desc.order.includes(name)) throw new VMError(`${desc.type} has no field ${name}`);
    }
    for (const name of desc.order) {
      if (given.has(name)) fields.set(name, given.get(name)!);
      else if (spread && spread.has(name)) fields.set(name, spread.get(name)!);
      else throw new VMError(`${desc.type} literal is missing field ${name}`);
    }
  } else {
    if (spread) for (const [k, v] of spread) fields.set(k, v);
    for (const [k, v] of given) fields.set(k, v);
  }
  return new StructVal(desc.type, fields, writtenNull(fields, given, desc.filled, spreadNulls));
}

/** The fields of a new struct written as null: given null by the literal (not filled in by the compiler), or by the spread base. */
function writtenNull(fields: Map<string, Value>, given: Map<string, Value>, filled: string[] | undefined, spread: { has(k: string): boolean } | undefined): ReadonlySet<string> | undefined {
  let out: Set<string> | undefined;
  for (const [k, v] of fields) {
    if (unwrap(v) !== null) continue;
    const written = given.has(k) ? !filled?.includes(k) : !!spread?.has(k);
    if (written) (out ??= new Set()).add(k);
  }
  return out;
}
