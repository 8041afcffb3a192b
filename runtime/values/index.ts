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
    /**
     * The fields a literal wrote as null (`Pet { tag: null }`), as opposed to the `T?` fields it left
     * out, which are null too: an absorbed API sends the first as null and leaves the second out
     * (runtime/absorb/wire.ts). Undefined when there are none; not kept by a stored run.
     */
    public readonly writtenNull?: ReadonlySet<string>,
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

/**
 * An image or a document (std/media). Made only by the host (runtime/media/load.ts), after it read
 * the bytes under the run's grants, bounded them and sniffed their type: a program cannot build
 * one, so no shape of data is ever taken for one. It shows as its label — kind, MIME type, size and
 * content hash — in output, traces, prompts and the journal; its bytes are in a private field that
 * neither JSON nor a journal sees (a value restored from a journal has none: see `bytes`).
 */
export class MediaVal {
  readonly #bytes: Uint8Array | undefined;
  constructor(
    public readonly kind: 'image' | 'document',
    public readonly mime: string,
    public readonly size: number,
    /** SHA-256 of the bytes, hex */
    public readonly sha256: string,
    bytes?: Uint8Array,
  ) {
    this.#bytes = bytes;
  }

  /** The bytes, or undefined when the value was restored without them. */
  bytes(): Uint8Array | undefined {
    return this.#bytes;
  }

  /** `<image image/png 12.3 KB sha256:0123456789ab…>`: what output and traces show. */
  toString(): string {
    return `<${this.kind} ${this.mime} ${sizeText(this.size)} sha256:${this.sha256.slice(0, 12)}…>`;
  }

  /**
   * The label a prompt carries where the value was placed: the full hash, so that a request's
   * fingerprint (cassettes, the journal's input hash) changes when the content does.
   */
  promptLabel(): string {
    return `<${this.kind} ${this.mime} ${sizeText(this.size)} sha256:${this.sha256}>`;
  }

  /** What JSON (a journal's payload, a trace) holds: the description, never the bytes. */
  toJSON(): { media: string; mime: string; size: number; sha256: string } {
    return { media: this.kind, mime: this.mime, size: this.size, sha256: this.sha256 };
  }
}

/** `512 B`, `12.3 KB`, `4.0 MB` (1 KB = 1024 bytes). */
export function sizeText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
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
  | MediaVal
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
  if (v instanceof MediaVal) return 'Media';
  if (v instanceof Uncertain) return typeName(v.v);
  return 'Unknown';
}

function quote(s: string): string {
  return JSON.stringify(s);
}

// Depth (docs/reliability.md): a program can build a value as deep as its memory allows (a list
// inside a list, 200,000 times), so the walks over values below — rendering, equality, the deep
// copy between processes, containing an identity, conversion from JSON — are iterative, and the
// conversion to JSON, which JSON.stringify finishes recursively, refuses values nested more than
// MAX_JSON_DEPTH levels with a Turn error instead.

/** Deeper values cannot be converted to JSON (`--json`, `json_stringify`, a run's stored result). */
export const MAX_JSON_DEPTH = 1000;

/** Whether a JSON value has containers nested more than `max` levels. Iterative: a model reply's value
 * (infer/driver.ts) and an MCP server's reply (mcp/reply.ts) are measured before they are used. */
export function nestedDeeperThan(value: unknown, max: number): boolean {
  const work: [unknown, number][] = [[value, 1]];
  while (work.length > 0) {
    const [v, depth] = work.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === 'object') work.push([x, depth + 1]);
  }
  return false;
}

/** How much of a value a message shows (`uncaught error: ...`); the rest is cut to `…`. */
export const MESSAGE_VALUE_LENGTH = 1000;

/** Text between the parts of a container, on `render`'s work list. */
class Literal {
  constructor(readonly text: string) {}
}

/** The text of a value that holds no other value, or undefined for a container. */
function renderAtom(v: Value, nested: boolean): string | undefined {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'string':
      return nested ? quote(v) : v;
    case 'number':
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
  }
  if (Array.isArray(v) || v instanceof Map || v instanceof Uncertain) return undefined;
  if (v instanceof StructVal) return v.fields.size === 0 ? v.type + ' {}' : undefined;
  if (v instanceof ClosureVal) return `<closure ${v.name}>`;
  if (v instanceof PidVal) return `<pid ${v.id}>`;
  if (v instanceof VecVal) return 'vec [' + v.items.map(String).join(', ') + ']';
  if (v instanceof IdentityVal) return `<identity ${v.kind}>`;
  return String(v);
}

/**
 * How `call("echo", v)` prints a value: strings raw at top level, quoted inside containers.
 * With `maxLength`, text past that many characters is cut and ends with `…` (for messages).
 */
export function render(v: Value, nested = false, maxLength = Infinity): string {
  while (v instanceof Uncertain) v = v.v;
  const atom = renderAtom(v, nested);
  if (atom !== undefined) return atom.length > maxLength ? atom.slice(0, maxLength) + '…' : atom;
  const parts: string[] = [];
  let length = 0;
  const pending: (Value | Literal)[] = [v];
  while (pending.length > 0 && length <= maxLength) {
    const x = pending.pop()!;
    if (x instanceof Literal) {
      parts.push(x.text);
      length += x.text.length;
      continue;
    }
    if (x instanceof Uncertain) {
      pending.push(x.v);
      continue;
    }
    const text = renderAtom(x, true);
    if (text !== undefined) {
      parts.push(text);
      length += text.length;
      continue;
    }
    // A container: its closing text first, then its elements last to first, so they pop in order.
    if (Array.isArray(x)) {
      pending.push(new Literal(']'));
      for (let i = x.length - 1; i >= 0; i--) {
        pending.push(x[i]);
        if (i > 0) pending.push(new Literal(', '));
      }
      pending.push(new Literal('['));
    } else {
      const struct = x instanceof StructVal ? x : undefined;
      const entries = [...(struct ? struct.fields : (x as Map<string, Value>))];
      pending.push(new Literal(struct ? ' }' : '}'));
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, item] = entries[i];
        pending.push(item, new Literal((i > 0 ? ', ' : '') + (struct ? k : quote(k)) + ': '));
      }
      pending.push(new Literal(struct ? struct.type + ' { ' : '{'));
    }
  }
  const text = parts.join('');
  return text.length > maxLength ? text.slice(0, maxLength) + '…' : text;
}

/** Structural equality (closures by identity, pids by id). Ignores confidence. Iterative. */
export function equals(a: Value, b: Value): boolean {
  const pending: Value[] = [a, b]; // pairs still to compare
  while (pending.length > 0) {
    const y = pending.pop()!;
    const x = pending.pop()!;
    if (!shallowEquals(x, y, pending)) return false;
  }
  return true;
}

/** Whether `a` and `b` can be equal; the pairs of their elements still to compare go on `pending`. */
function shallowEquals(a: Value, b: Value, pending: Value[]): boolean {
  if (a instanceof Uncertain) a = a.v;
  if (b instanceof Uncertain) b = b.v;
  if (a instanceof IdentityVal && b instanceof IdentityVal) throw new VMError(HANDLES_COMPARED);
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (a instanceof MediaVal) return b instanceof MediaVal && a.sha256 === b.sha256 && a.mime === b.mime; // equal content
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) pending.push(a[i], b[i]);
    return true;
  }
  if (a instanceof Map || a instanceof StructVal) {
    let x: Map<string, Value>;
    let y: Map<string, Value>;
    if (a instanceof Map) {
      if (!(b instanceof Map)) return false;
      x = a;
      y = b;
    } else {
      if (!(b instanceof StructVal) || a.type !== b.type) return false;
      x = a.fields;
      y = b.fields;
    }
    if (x.size !== y.size) return false;
    for (const [k, item] of x) {
      if (!y.has(k)) return false;
      pending.push(item, y.get(k)!);
    }
    return true;
  }
  if (a instanceof PidVal) return b instanceof PidVal && a.id === b.id;
  if (a instanceof VecVal) {
    if (!(b instanceof VecVal) || a.items.length !== b.items.length) return false;
    return a.items.every((x, i) => x === b.items[i]);
  }
  return false;
}

/**
 * Two identity handles are never compared (docs/authority.md, "Identities and the vault"): a
 * handle is the authority to use a secret, not a value, so `==` on two of them, or a structure
 * holding them, is a Turn error rather than a Bool.
 */
export const HANDLES_COMPARED =
  'identity handles cannot be compared: a handle is the authority to use a secret, not a value (compare the names you grant instead)';

/** Whether `v` holds an identity handle anywhere (closures' cells aside). Iterative. */
export function containsIdentity(v: Value): boolean {
  if (v === null || typeof v !== 'object') return false; // a number, a string: most messages
  const pending: Value[] = [v];
  while (pending.length > 0) {
    const x = pending.pop()!;
    if (x instanceof IdentityVal) return true;
    if (x instanceof Uncertain) pending.push(x.v);
    else if (Array.isArray(x)) for (const item of x) pending.push(item);
    else if (x instanceof Map) for (const item of x.values()) pending.push(item);
    else if (x instanceof StructVal) for (const item of x.fields.values()) pending.push(item);
  }
  return false;
}

/**
 * A deep copy for crossing a process boundary (spawn snapshots, messages, exit signals):
 * processes share nothing mutable. Shared cells stay shared within the copy. Iterative: each
 * container is made empty when first met (and remembered in `memo`) and filled from a work list.
 */
export function isolate(v: Value, memo: Map<object, unknown> = new Map()): Value {
  const fill: [Value, Value][] = []; // [original, its empty copy]
  const copy = (x: Value): Value => {
    if (x === null || typeof x !== 'object') return x;
    const seen = memo.get(x);
    if (seen !== undefined) return seen as Value;
    let out: Value;
    if (Array.isArray(x)) out = [];
    else if (x instanceof Map) out = new Map<string, Value>();
    else if (x instanceof StructVal) out = new StructVal(x.type, new Map(), x.writtenNull);
    else if (x instanceof ClosureVal) out = new ClosureVal(x.proto, [], x.name);
    else if (x instanceof Uncertain) return new Uncertain(copy(x.v), x.c);
    else if (x instanceof VecVal) return new VecVal(x.items.slice());
    else return x; // PidVal, IdentityVal: immutable
    memo.set(x, out);
    fill.push([x, out]);
    return out;
  };
  const root = copy(v);
  while (fill.length > 0) {
    const [from, to] = fill.pop()!;
    if (Array.isArray(from)) {
      for (const x of from) (to as Value[]).push(copy(x));
    } else if (from instanceof Map) {
      for (const [k, x] of from) (to as Map<string, Value>).set(k, copy(x));
    } else if (from instanceof StructVal) {
      for (const [k, x] of from.fields) (to as StructVal).fields.set(k, copy(x));
    } else if (from instanceof ClosureVal) {
      for (const c of from.cells) {
        let cell = memo.get(c) as Cell | undefined;
        if (!cell) {
          cell = new Cell(null);
          memo.set(c, cell);
          cell.v = copy(c.v);
        }
        (to as ClosureVal).cells.push(cell);
      }
    }
  }
  return root;
}

/**
 * A Turn value as a plain JS tree: lists become arrays, maps and structs objects (a `__proto__` key
 * is data, defined rather than assigned, as with Object.fromEntries), confidence is dropped, and every
 * other value is what `leaf` makes of it. Iterative; a value nested more than MAX_JSON_DEPTH levels is
 * a VMError (JSON.stringify would overflow). One walk for `--json` (toJson) and host tools' arguments.
 */
export function plainTree(v: Value, leaf: (x: Value) => unknown): unknown {
  const fill: [Value, unknown, number][] = []; // [Turn container, its empty plain copy, depth]
  const convert = (x: Value, depth: number): unknown => {
    while (x instanceof Uncertain) x = x.v;
    if (Array.isArray(x) || x instanceof Map || x instanceof StructVal) {
      if (depth > MAX_JSON_DEPTH) throw new VMError(`a value nested more than ${MAX_JSON_DEPTH} levels deep cannot be converted to JSON`);
      const out = Array.isArray(x) ? [] : {};
      fill.push([x, out, depth]);
      return out;
    }
    return leaf(x);
  };
  const root = convert(v, 1);
  while (fill.length > 0) {
    const [x, out, depth] = fill.pop()!;
    if (Array.isArray(x)) {
      for (const item of x) (out as unknown[]).push(convert(item, depth + 1));
    } else {
      for (const [k, item] of x instanceof StructVal ? x.fields : (x as Map<string, Value>)) {
        Object.defineProperty(out, k, { value: convert(item, depth + 1), enumerable: true, writable: true, configurable: true });
      }
    }
  }
  return root;
}

/** The program's result as JSON (for `--json`). Identity handles never reveal a secret. */
export function toJson(v: Value): unknown {
  return plainTree(v, (x) => {
    if (x === null || typeof x !== 'object') return typeof x === 'number' && !Number.isFinite(x) ? null : x;
    if (x instanceof VecVal) return x.items.slice();
    if (x instanceof PidVal) return { pid: x.id };
    return render(x);
  });
}

/** A JSON-like JS value (e.g. `json_parse`) as a Turn value: objects become maps. Iterative. */
export function fromPlain(x: unknown): Value {
  const fill: [unknown, Value][] = []; // [plain container, its empty Turn copy]
  const convert = (p: unknown): Value => {
    if (p === null || p === undefined) return null;
    if (typeof p === 'number' || typeof p === 'string' || typeof p === 'boolean') return p;
    if (typeof p !== 'object') return null;
    if (p instanceof MediaVal) return p; // only a host tool, in process, returns one (never parsed data)
    const out: Value = Array.isArray(p) ? [] : new Map<string, Value>();
    fill.push([p, out]);
    return out;
  };
  const root = convert(x);
  while (fill.length > 0) {
    const [p, out] = fill.pop()!;
    if (Array.isArray(p)) {
      for (const item of p) (out as Value[]).push(convert(item));
    } else {
      for (const [k, item] of Object.entries(p as Record<string, unknown>)) (out as Map<string, Value>).set(k, convert(item));
    }
  }
  return root;
}
