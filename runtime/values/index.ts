// Runtime values of the Turn VM. Ordinary values are plain JavaScript values (numbers, strings,
// booleans, null, arrays for lists, `Map`s for maps); everything else is a small data class whose
// fields are plain data, so a process can be serialized later. Closures reference their function
// prototype by id, never by a JavaScript function.

/** A boxed variable captured by a closure (clox-style upvalue). */
export class Cell {
  constructor(public v: Value) {}
}

export class ClosureVal {
  constructor(
    /** index into `Bundle.functions` */
    public readonly proto: number,
    public readonly cells: Cell[],
    public readonly name: string,
  ) {}
}

export class StructVal {
  constructor(
    public readonly type: string,
    public readonly fields: Map<string, Value>,
  ) {}
}

export class PidVal {
  constructor(public readonly id: number) {}
}

export class VecVal {
  constructor(public readonly items: number[]) {}
}

/** An opaque identity handle; its secret never lives in the VM. */
export class IdentityVal {
  constructor(
    public readonly kind: string,
    public readonly name: string,
  ) {}
}

/** A value derived from inference, with confidence < 1. Never nested. */
export class Uncertain {
  constructor(
    public readonly v: Value,
    public readonly c: number,
  ) {}
}

export type Value =
  | null
  | boolean
  | number
  | string
  | Value[]
  | Map<string, Value>
  | StructVal
  | ClosureVal
  | PidVal
  | VecVal
  | IdentityVal
  | Uncertain;

/** A runtime error raised by the VM itself (type errors, bad index, arity...). Catchable in Turn. */
export class VMError extends Error {}

/** Wraps `v` with confidence `c` (plain when c >= 1). */
export function withConfidence(v: Value, c: number): Value {
  if (v instanceof Uncertain) {
    c = Math.min(c, v.c);
    v = v.v;
  }
  return c >= 1 ? v : new Uncertain(v, c);
}

export function unwrap(v: Value): Value {
  return v instanceof Uncertain ? v.v : v;
}

export function confidenceOf(v: Value): number {
  return v instanceof Uncertain ? v.c : 1;
}

/** Turn v1 truthiness: false, null, 0, "", [] and {} are falsy. */
export function truthy(v: Value): boolean {
  if (v === true) return true;
  if (v === false || v === null) return false;
  if (typeof v === 'number') return v !== 0 && !Number.isNaN(v);
  if (typeof v === 'string') return v.length > 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (v instanceof Uncertain) return truthy(v.v);
  return true;
}

export function typeName(v: Value): string {
  if (v === null) return 'Null';
  switch (typeof v) {
    case 'number':
      return 'Num';
    case 'string':
      return 'Str';
    case 'boolean':
      return 'Bool';
  }
  if (Array.isArray(v)) return 'List';
  if (v instanceof Map) return 'Map';
  if (v instanceof StructVal) return v.type;
  if (v instanceof ClosureVal) return 'Closure';
  if (v instanceof PidVal) return 'Pid';
  if (v instanceof VecVal) return 'Vec';
  if (v instanceof IdentityVal) return 'Identity';
  if (v instanceof Uncertain) return typeName(v.v);
  return 'Unknown';
}

function quote(s: string): string {
  return JSON.stringify(s);
}

/** How `call("echo", v)` prints a value: strings raw at top level, quoted inside containers. */
export function render(v: Value, nested = false): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return nested ? quote(v) : v;
    case 'number':
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (Array.isArray(v)) return '[' + v.map((x) => render(x, true)).join(', ') + ']';
  if (v instanceof Map) {
    const parts: string[] = [];
    for (const [k, x] of v) parts.push(quote(k) + ': ' + render(x, true));
    return '{' + parts.join(', ') + '}';
  }
  if (v instanceof StructVal) {
    if (v.fields.size === 0) return v.type + ' {}';
    const parts: string[] = [];
    for (const [k, x] of v.fields) parts.push(k + ': ' + render(x, true));
    return v.type + ' { ' + parts.join(', ') + ' }';
  }
  if (v instanceof ClosureVal) return `<closure ${v.name}>`;
  if (v instanceof PidVal) return `<pid ${v.id}>`;
  if (v instanceof VecVal) return 'vec [' + v.items.map(String).join(', ') + ']';
  if (v instanceof IdentityVal) return `<identity ${v.kind}>`;
  if (v instanceof Uncertain) return render(v.v, nested);
  return String(v);
}

/** Structural equality (closures by identity, pids by id). Ignores confidence. */
export function equals(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a instanceof Uncertain) a = a.v;
  if (b instanceof Uncertain) b = b.v;
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equals(a[i], b[i])) return false;
    return true;
  }
  if (a instanceof Map) {
    if (!(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, x] of a) {
      if (!b.has(k) || !equals(x, b.get(k)!)) return false;
    }
    return true;
  }
  if (a instanceof StructVal) {
    if (!(b instanceof StructVal) || a.type !== b.type || a.fields.size !== b.fields.size) return false;
    for (const [k, x] of a.fields) {
      if (!b.fields.has(k) || !equals(x, b.fields.get(k)!)) return false;
    }
    return true;
  }
  if (a instanceof PidVal) return b instanceof PidVal && a.id === b.id;
  if (a instanceof VecVal) {
    if (!(b instanceof VecVal) || a.items.length !== b.items.length) return false;
    return a.items.every((x, i) => x === b.items[i]);
  }
  if (a instanceof IdentityVal) return b instanceof IdentityVal && a.kind === b.kind && a.name === b.name;
  return false;
}

/**
 * A deep copy for crossing a process boundary (spawn snapshots, messages, exit signals):
 * processes share nothing mutable. Shared cells stay shared within the copy.
 */
export function isolate(v: Value, memo: Map<object, unknown> = new Map()): Value {
  if (v === null || typeof v !== 'object') return v;
  const seen = memo.get(v);
  if (seen !== undefined) return seen as Value;
  if (Array.isArray(v)) {
    const out: Value[] = [];
    memo.set(v, out);
    for (const x of v) out.push(isolate(x, memo));
    return out;
  }
  if (v instanceof Map) {
    const out = new Map<string, Value>();
    memo.set(v, out);
    for (const [k, x] of v) out.set(k, isolate(x, memo));
    return out;
  }
  if (v instanceof StructVal) {
    const fields = new Map<string, Value>();
    const out = new StructVal(v.type, fields);
    memo.set(v, out);
    for (const [k, x] of v.fields) fields.set(k, isolate(x, memo));
    return out;
  }
  if (v instanceof ClosureVal) {
    const cells: Cell[] = [];
    const out = new ClosureVal(v.proto, cells, v.name);
    memo.set(v, out);
    for (const c of v.cells) {
      let copy = memo.get(c) as Cell | undefined;
      if (!copy) {
        copy = new Cell(null);
        memo.set(c, copy);
        copy.v = isolate(c.v, memo);
      }
      cells.push(copy);
    }
    return out;
  }
  if (v instanceof Uncertain) return new Uncertain(isolate(v.v, memo), v.c);
  if (v instanceof VecVal) return new VecVal(v.items.slice());
  return v; // PidVal, IdentityVal: immutable
}

/** The program's result as JSON (for `--json`). Identity handles never reveal a secret. */
export function toJson(v: Value): unknown {
  if (v === null || typeof v !== 'object') return typeof v === 'number' && !Number.isFinite(v) ? null : v;
  if (Array.isArray(v)) return v.map(toJson);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) o[k] = toJson(x);
    return o;
  }
  if (v instanceof StructVal) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v.fields) o[k] = toJson(x);
    return o;
  }
  if (v instanceof Uncertain) return toJson(v.v);
  if (v instanceof VecVal) return v.items.slice();
  if (v instanceof PidVal) return { pid: v.id };
  return render(v);
}

/** A JSON-like JS value (e.g. `json_parse`) as a Turn value: objects become maps. */
export function fromPlain(x: unknown): Value {
  if (x === null || x === undefined) return null;
  if (typeof x === 'number' || typeof x === 'string' || typeof x === 'boolean') return x;
  if (Array.isArray(x)) return x.map(fromPlain);
  if (typeof x === 'object') {
    const m = new Map<string, Value>();
    for (const [k, v] of Object.entries(x as Record<string, unknown>)) m.set(k, fromPlain(v));
    return m;
  }
  return null;
}
