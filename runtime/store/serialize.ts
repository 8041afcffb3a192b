// A compact, deterministic binary encoding of Turn values and of VM snapshots (issue 5).
//
// Deterministic: the same value graph (same contents, same map insertion order, same sharing)
// always gives the same bytes, so `valueHash` can identify an effect's input across replays.
// Compact: a tag byte per value, LEB128 varints, zigzag integers, every string written once and
// then referred to by index (map keys, struct fields and type names cost a byte or two after
// their first use). Faithful: lists, maps, structs, closures and cells keep their identity —
// sharing and cycles come back as they were — and numbers keep -0, NaN and ±Infinity.
// Identity handles are written as their kind and name: the VM never holds a secret, and the
// encoding has no way to carry one. See docs/durability.md ("Snapshot format").
import { sha256, sha256Hex } from '../hash.js';
import type * as Zlib from 'node:zlib';
import { Cell, ClosureVal, IdentityVal, PidVal, StructVal, Uncertain, VecVal, type Value } from '../values/index.js';
import { readVarint, unzigzag } from './varint.js';

/** Bump when the byte format changes; a decoder refuses formats it does not know. */
export const VALUE_FORMAT = 1;
/**
 * Snapshots, by the format byte after the magic: 1, the stream below as it is; 2 (issue 17), the
 * same stream compressed with Brotli; 3 (issue 29), the stream with large maps as MAP_TEXT; 4, that
 * stream compressed with Brotli, written above COMPRESS_ABOVE bytes; 5 and 6, formats 3 and 4
 * followed by the SHA-256 of everything before it (a snapshot changed in place is refused as
 * damaged, never read as another state). This Turn writes 5 and 6 and reads all six; a Turn that
 * reads up to 4 refuses 5 and 6 as newer.
 */
export const SNAPSHOT_FORMAT = 6;
const SNAPSHOT_PLAIN_V1 = 1;
const SNAPSHOT_BROTLI_V1 = 2;
const SNAPSHOT_PLAIN = 3;
const SNAPSHOT_BROTLI = 4;
const SNAPSHOT_PLAIN_SUMMED = 5;
const SNAPSHOT_BROTLI_SUMMED = 6;
/** the checksum after a format 5 or 6 snapshot: a SHA-256 */
const CHECKSUM_BYTES = 32;
/**
 * Below this, a snapshot is stored as it is: writing the plain stream (and reading it back) costs
 * less than Brotli's compression and decompression of it, here up to about 2 MB (98 KB: 0.70 ms
 * against 1.10; 450 KB: 1.1 against 2.1; 1.9 MB: 7.6 against 7.6, see docs/performance.md), and the
 * stream is already smaller than the same state as JSON. Above it the bytes stored matter more.
 */
const COMPRESS_ABOVE = 1024 * 1024;
/** Brotli's quality for a snapshot: 2 compresses as fast as 1 here, a third smaller, and decompresses twice as fast. */
const SNAPSHOT_QUALITY = 2;
/** V8 makes a substring of this many characters or more a slice that keeps its parent alive; a shorter one is copied. */
const SLICE_FROM = 13;
/** In a snapshot, maps larger than this write their keys in full (Writer's `literalKeysAbove`). */
const SNAPSHOT_LITERAL_KEYS_ABOVE = 64;
/** a compressed snapshot may not expand past this (a corrupt or hostile body is refused, not inflated) */
const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

const VALUE_MAGIC = [0x54, 0x4e, 0x56]; // "TNV"
const SNAPSHOT_MAGIC = [0x54, 0x4e, 0x53]; // "TNS"

const enum Tag {
  NULL = 0,
  FALSE = 1,
  TRUE = 2,
  INT = 3, // zigzag varint, |n| <= 2^52
  F64 = 4, // 8 bytes little-endian
  STR = 5, // a string seen for the first time: varint UTF-8 length, bytes
  STR_REF = 6, // varint index of a string seen before
  LIST = 7, // varint count, items            (has identity)
  MAP = 8, // varint count, (key, value)*     (has identity)
  STRUCT = 9, // type, varint count, (field, value)*   (has identity)
  CLOSURE = 10, // varint proto, name, varint count, cells   (has identity)
  CELL = 11, // value                          (has identity)
  REF = 12, // varint id of an object with identity seen before (sharing, cycles)
  PID = 13, // zigzag varint
  VEC = 14, // varint count, f64*
  IDENTITY = 15, // kind, name — never a secret
  UNCERTAIN = 16, // f64 confidence, value
  STR16 = 17, // a string that is not well-formed UTF-16 (lone surrogates): varint units, u16*
  OBJ = 18, // plain JSON object (snapshot metadata only): varint count, (key, value)*
  ARR = 19, // plain JSON array (snapshot metadata only): varint count, items
  UNDEFINED = 20, // an unset stack slot
  STR_LIT = 21, // a string value written in full and not remembered: varint UTF-8 length, bytes
  // a large map in a snapshot (format 3 and 4): varint count, varint UTF-8 length, the text of its keys
  // and string values joined, then per entry its key's length in UTF-16 units and its value: a
  // string in the text as varint (units + 1), anything else as 0 then the value      (has identity)
  MAP_TEXT = 22,
}

/** A value stack slot: a Turn value or a boxed local captured by a closure. */
export type Slot = Value | Cell | undefined;

/** Plain data (the VM's own bookkeeping in a snapshot). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export class SerializeError extends Error {
  override name = 'SerializeError';
}

// ---------------------------------------------------------------------------------------------
// Writing

const hasWellFormed = typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === 'function';
function wellFormed(s: string): boolean {
  if (hasWellFormed) return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

class Writer {
  buf: Buffer;
  pos = 0;
  private strings = new Map<string, number>();
  private objects = new Map<object, number>();

  /**
   * @param literalKeysAbove a map with more entries than this writes its keys in full (STR_LIT), not
   *   remembered: a large map's keys are distinct, so the string table would only grow by each
   *   (a third of a 5,000-entry memory's encode). Snapshots set it; values (whose bytes are hashed
   *   into the journal, `valueHash`) keep every key remembered, so their bytes never change.
   */
  constructor(
    size = 4096,
    private readonly literalKeysAbove = Infinity,
  ) {
    this.buf = Buffer.allocUnsafe(size);
  }

  private grow(n: number): void {
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  byte(b: number): void {
    if (this.pos >= this.buf.length) this.grow(1);
    this.buf[this.pos++] = b;
  }

  varint(n: number): void {
    if (this.pos + 8 > this.buf.length) this.grow(8);
    const buf = this.buf;
    while (n >= 0x80) {
      buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    buf[this.pos++] = n;
  }

  zigzag(n: number): void {
    this.varint(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  f64(x: number): void {
    if (this.pos + 8 > this.buf.length) this.grow(8);
    this.buf.writeDoubleLE(x, this.pos);
    this.pos += 8;
  }

  /**
   * A string. Names (map keys, struct fields and types, closure names) are remembered and written
   * once; string values are written in full (`intern` false): they rarely repeat, and remembering
   * each costs more time than it saves bytes.
   */
  /** Writes a reference when `s` was written before (true); else remembers it for later (false). */
  private reference(s: string): boolean {
    const seen = this.strings.get(s);
    if (seen !== undefined) {
      this.byte(Tag.STR_REF);
      this.varint(seen);
      return true;
    }
    this.strings.set(s, this.strings.size);
    return false;
  }

  str(s: string, intern = true): void {
    if (intern && this.reference(s)) return;
    const tag = intern ? Tag.STR : Tag.STR_LIT;
    const n = s.length;
    // ASCII fast path: one byte per unit, no native call.
    if (n < 64) {
      if (this.pos + n + 2 > this.buf.length) this.grow(n + 2);
      const buf = this.buf;
      const start = this.pos;
      buf[start] = tag;
      buf[start + 1] = n;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[start + 2 + i] = c;
      }
      if (i === n) {
        this.pos = start + 2 + n;
        return;
      }
    }
    if (!wellFormed(s)) {
      // STR16 is always remembered (the reader adds each to its table), so a repeat is a reference:
      // writing it again would give the reader an entry the writer's table does not have
      if (!intern && this.reference(s)) return;
      this.byte(Tag.STR16);
      this.varint(n);
      if (this.pos + 2 * n > this.buf.length) this.grow(2 * n);
      for (let i = 0; i < n; i++) this.buf.writeUInt16LE(s.charCodeAt(i), this.pos + 2 * i);
      this.pos += 2 * n;
      return;
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.byte(tag);
    this.varint(len);
    if (this.pos + len > this.buf.length) this.grow(len);
    this.pos += this.buf.write(s, this.pos, len, 'utf8');
  }

  /** REF to `o` if it was written before; else registers it and returns false. */
  private ref(o: object): boolean {
    const id = this.objects.get(o);
    if (id !== undefined) {
      this.byte(Tag.REF);
      this.varint(id);
      return true;
    }
    this.objects.set(o, this.objects.size);
    return false;
  }

  /**
   * One value, depth first, with an explicit stack of the containers it is inside (no recursion, so
   * an 8,000-deep list is written like a flat one; docs/reliability.md). The bytes are those of the
   * recursive walk: a container's header, then its children in order, each name remembered as it
   * is first written.
   */
  value(root: Slot): void {
    const open: WriteFrame[] = [];
    let v: Slot | typeof NONE = root;
    for (;;) {
      if (v !== NONE) {
        const frame = this.head(v);
        if (frame) open.push(frame);
      }
      const top = open[open.length - 1];
      if (top === undefined) return;
      v = top.next(this);
      if (v === NONE) open.pop();
    }
  }

  /** Writes a scalar whole, or a container's header and returns what writes its children (null: nothing follows). */
  private head(v: Slot): WriteFrame | null {
    if (v === null) {
      this.byte(Tag.NULL);
      return null;
    }
    switch (typeof v) {
      case 'boolean':
        this.byte(v ? Tag.TRUE : Tag.FALSE);
        return null;
      case 'number':
        if (Number.isInteger(v) && v <= 2 ** 52 && v >= -(2 ** 52) && !Object.is(v, -0)) {
          this.byte(Tag.INT);
          this.zigzag(v);
        } else {
          this.byte(Tag.F64);
          this.f64(v);
        }
        return null;
      case 'string':
        this.str(v, false);
        return null;
      case 'undefined':
        this.byte(Tag.UNDEFINED);
        return null;
    }
    if (Array.isArray(v)) {
      if (this.ref(v)) return null;
      this.byte(Tag.LIST);
      this.varint(v.length);
      return new ItemsFrame(v);
    }
    if (v instanceof Map) {
      if (this.ref(v)) return null;
      if (v.size > this.literalKeysAbove) {
        const text = this.textMap(v);
        if (text) return text;
      }
      this.byte(Tag.MAP);
      this.varint(v.size);
      return new EntriesFrame(v.entries(), v.size <= this.literalKeysAbove);
    }
    if (v instanceof Uncertain) {
      this.byte(Tag.UNCERTAIN);
      this.f64(v.c);
      return new OneFrame(v.v);
    }
    if (v instanceof StructVal) {
      if (this.ref(v)) return null;
      this.byte(Tag.STRUCT);
      this.str(v.type);
      this.varint(v.fields.size);
      return new EntriesFrame(v.fields.entries(), true);
    }
    if (v instanceof ClosureVal) {
      if (this.ref(v)) return null;
      this.byte(Tag.CLOSURE);
      this.varint(v.proto);
      this.str(v.name);
      this.varint(v.cells.length);
      return new ItemsFrame(v.cells);
    }
    if (v instanceof Cell) {
      if (this.ref(v)) return null;
      this.byte(Tag.CELL);
      return new OneFrame(v.v);
    }
    if (v instanceof PidVal) {
      this.byte(Tag.PID);
      this.zigzag(v.id);
      return null;
    }
    if (v instanceof VecVal) {
      this.byte(Tag.VEC);
      this.varint(v.items.length);
      for (const x of v.items) this.f64(x);
      return null;
    }
    if (v instanceof IdentityVal) {
      this.byte(Tag.IDENTITY);
      this.str(v.kind);
      this.str(v.name);
      return null;
    }
    throw new SerializeError(`cannot serialize ${describe(v)}: not a Turn value`);
  }

  /**
   * A large map as MAP_TEXT: its keys and string values joined into one text, written with one
   * call, then their lengths. Per string that is a length, not a tag, a length and a copy loop, and
   * the reader decodes the text once. Only when the joined text is well-formed (UTF-8 then carries
   * every unit, so splitting it by lengths in units gives each string back); else null. Returns
   * what writes the entries' lengths and other values.
   */
  private textMap(m: Map<string, Value>): WriteFrame | null {
    let text = '';
    for (const [k, x] of m) text = typeof x === 'string' ? text + k + x : text + k;
    if (!wellFormed(text)) return null;
    const len = Buffer.byteLength(text, 'utf8');
    this.byte(Tag.MAP_TEXT);
    this.varint(m.size);
    this.varint(len);
    if (this.pos + len > this.buf.length) this.grow(len);
    this.pos += this.buf.write(text, this.pos, len, 'utf8');
    return new TextEntriesFrame(m.entries());
  }

  json(x: Json): void {
    if (x === null || typeof x !== 'object') {
      if (typeof x === 'number' || typeof x === 'string' || typeof x === 'boolean' || x === null) return this.value(x);
      throw new SerializeError(`cannot serialize ${describe(x)} in snapshot metadata`);
    }
    if (Array.isArray(x)) {
      this.byte(Tag.ARR);
      this.varint(x.length);
      for (const e of x) this.json(e);
      return;
    }
    if (Object.getPrototypeOf(x) !== Object.prototype && Object.getPrototypeOf(x) !== null) {
      throw new SerializeError(`cannot serialize ${describe(x)} in snapshot metadata: only plain objects, arrays and scalars`);
    }
    const keys = Object.keys(x);
    this.byte(Tag.OBJ);
    this.varint(keys.length);
    for (const k of keys) {
      this.str(k);
      this.json(x[k]);
    }
  }

  bytes(): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.pos);
  }
}

/** `WriteFrame.next`'s answer when its container has no child left. */
const NONE = Symbol('none');

/** A container Writer.value is inside: writes what precedes its next child (a key, a length) and returns the child, or NONE. */
interface WriteFrame {
  next(w: Writer): Slot | typeof NONE;
}

/** A list's items, a closure's cells. */
class ItemsFrame implements WriteFrame {
  private i = 0;
  constructor(private readonly items: readonly Slot[]) {}
  next(): Slot | typeof NONE {
    return this.i < this.items.length ? this.items[this.i++] : NONE;
  }
}

/** A map's or a struct's entries: each key (remembered when `intern`), then its value. */
class EntriesFrame implements WriteFrame {
  constructor(
    private readonly entries: Iterator<[string, Value]>,
    private readonly intern: boolean,
  ) {}
  next(w: Writer): Slot | typeof NONE {
    const e = this.entries.next();
    if (e.done) return NONE;
    w.str(e.value[0], this.intern);
    return e.value[1];
  }
}

/** A MAP_TEXT's entries after its text: the key's length, then the string value's length + 1, or 0 and the value. */
class TextEntriesFrame implements WriteFrame {
  constructor(private readonly entries: Iterator<[string, Value]>) {}
  next(w: Writer): Slot | typeof NONE {
    for (;;) {
      const e = this.entries.next();
      if (e.done) return NONE;
      const [k, x] = e.value;
      w.varint(k.length);
      if (typeof x !== 'string') {
        w.byte(0);
        return x;
      }
      w.varint(x.length + 1);
    }
  }
}

/** The one value of a cell or an uncertain value. */
class OneFrame implements WriteFrame {
  private given = false;
  constructor(private readonly child: Slot) {}
  next(): Slot | typeof NONE {
    if (this.given) return NONE;
    this.given = true;
    return this.child;
  }
}

function describe(v: unknown): string {
  if (v === null || typeof v !== 'object') return typeof v;
  return v.constructor?.name ?? 'object';
}

// ---------------------------------------------------------------------------------------------
// Reading

class Reader {
  pos = 0;
  private strings: string[] = [];
  private objects: object[] = [];
  private readonly buf: Buffer;
  /** The bytes as latin1 text, made on the first short string: one per byte, so ASCII text at [a, b) is its substring. */
  private text: string | undefined;

  constructor(
    bytes: Uint8Array,
    private readonly what: string,
  ) {
    this.buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  fail(msg: string): never {
    throw new SerializeError(`corrupt ${this.what}: ${msg} at byte ${this.pos}`);
  }

  need(n: number): void {
    if (this.pos + n > this.buf.length) this.fail(`truncated (${n} more bytes expected, ${this.buf.length - this.pos} left)`);
  }

  byte(): number {
    if (this.pos >= this.buf.length) this.fail('truncated');
    return this.buf[this.pos++];
  }

  varint(): number {
    const n = readVarint(this);
    return n < 0 ? this.fail('varint too long') : n;
  }

  zigzag(): number {
    return unzigzag(this.varint());
  }

  f64(): number {
    this.need(8);
    const x = this.buf.readDoubleLE(this.pos);
    this.pos += 8;
    return x;
  }

  /** A count, checked against the bytes left (each item takes at least `min` bytes). */
  count(min = 1): number {
    const n = this.varint();
    if (n * min > this.buf.length - this.pos) this.fail(`count ${n} larger than the data left`);
    return n;
  }

  private utf8(len: number): string {
    const start = this.pos;
    this.pos += len;
    if (len <= 32) {
      // short ASCII text (names, keys, small values): built here, without a call into the runtime's decoder
      const buf = this.buf;
      for (let i = start; i < start + len; i++) if (buf[i] >= 0x80) return buf.toString('utf8', start, start + len);
      return this.ascii(start, start + len);
    }
    return this.buf.toString('utf8', start, start + len);
  }

  strAfterTag(tag: number): string {
    if (tag === Tag.STR || tag === Tag.STR_LIT) {
      const len = this.count();
      const s = this.utf8(len);
      if (tag === Tag.STR) this.strings.push(s);
      return s;
    }
    if (tag === Tag.STR_REF) {
      const i = this.varint();
      if (i >= this.strings.length) this.fail(`string reference ${i} out of range`);
      return this.strings[i];
    }
    if (tag === Tag.STR16) {
      const n = this.count(2);
      let s = '';
      for (let i = 0; i < n; i++) s += String.fromCharCode(this.buf.readUInt16LE(this.pos + 2 * i));
      this.pos += 2 * n;
      this.strings.push(s);
      return s;
    }
    return this.fail(`expected a string, found tag ${tag}`);
  }

  str(): string {
    return this.strAfterTag(this.byte());
  }

  /**
   * The common case of a map's keys and values, read in place: a short ASCII string (STR or
   * STR_LIT, at most 32 bytes). Anything else returns undefined and the general path reads it.
   */
  shortAscii(): string | undefined {
    const buf = this.buf;
    const p = this.pos;
    if (p + 2 > buf.length) return undefined;
    const tag = buf[p];
    if (tag !== Tag.STR && tag !== Tag.STR_LIT) return undefined;
    const len = buf[p + 1];
    const start = p + 2;
    const end = start + len;
    if (len > 32 || end > buf.length) return undefined;
    for (let i = start; i < end; i++) if (buf[i] >= 0x80) return undefined;
    const s = this.ascii(start, end);
    this.pos = end;
    if (tag === Tag.STR) this.strings.push(s);
    return s;
  }

  /**
   * The ASCII bytes [start, end) as one flat string (a `+=` loop builds a rope that every Map lookup
   * then flattens). Below 13 characters, a substring of the body decoded once: V8 copies a substring
   * that short (a longer one would be a slice keeping the whole body alive), and it costs a fraction
   * of a `toString` call per string — a 5,000-entry memory has 10,000 of them.
   */
  private ascii(start: number, end: number): string {
    if (end - start >= SLICE_FROM) return this.buf.toString('latin1', start, end);
    this.text ??= this.buf.toString('latin1');
    return this.text.substring(start, end);
  }

  /**
   * One value, depth first, with an explicit stack of the containers being filled (no recursion:
   * an 8,000-deep list reads like a flat one). Objects are numbered as their headers are read, as
   * the writer numbered them, so references to them resolve.
   */
  value(): Slot {
    const open: ReadFrame[] = [];
    let v = this.head(open);
    for (;;) {
      if (v !== OPEN) {
        const top = open[open.length - 1];
        if (top === undefined) return v;
        top.put(v, this);
      }
      const top = open[open.length - 1];
      if (top.more(this)) {
        v = this.head(open);
      } else {
        open.pop();
        v = top.out;
      }
    }
  }

  /** Reads a scalar or a reference whole, or a container's header (pushing what reads its children: OPEN). */
  private head(open: ReadFrame[]): Slot | typeof OPEN {
    const tag = this.byte();
    switch (tag) {
      case Tag.NULL:
        return null;
      case Tag.FALSE:
        return false;
      case Tag.TRUE:
        return true;
      case Tag.INT:
        return this.zigzag();
      case Tag.F64:
        return this.f64();
      case Tag.STR:
      case Tag.STR_LIT:
      case Tag.STR_REF:
      case Tag.STR16:
        return this.strAfterTag(tag);
      case Tag.UNDEFINED:
        return undefined;
      case Tag.LIST: {
        const n = this.count();
        const out: Value[] = [];
        this.objects.push(out);
        open.push(new ListRead(out, n));
        return OPEN;
      }
      case Tag.MAP: {
        const n = this.count(2);
        const out = new Map<string, Value>();
        this.objects.push(out);
        open.push(new MapRead(out, n));
        return OPEN;
      }
      case Tag.MAP_TEXT:
        open.push(this.textMap());
        return OPEN;
      case Tag.STRUCT: {
        const id = this.objects.length;
        this.objects.push(null as unknown as object); // reserved until the type name is read
        const type = this.str();
        const fields = new Map<string, Value>();
        const out = new StructVal(type, fields);
        this.objects[id] = out;
        open.push(new MapRead(fields, this.count(2), out));
        return OPEN;
      }
      case Tag.CLOSURE: {
        const id = this.objects.length;
        this.objects.push(null as unknown as object);
        const proto = this.varint();
        const name = this.str();
        const cells: Cell[] = [];
        const out = new ClosureVal(proto, cells, name);
        this.objects[id] = out;
        open.push(new CellsRead(out, cells, this.count()));
        return OPEN;
      }
      case Tag.CELL: {
        const out = new Cell(null);
        this.objects.push(out);
        open.push(new CellRead(out));
        return OPEN;
      }
      case Tag.REF: {
        const id = this.varint();
        const o = this.objects[id];
        if (id >= this.objects.length || o === null) this.fail(`object reference ${id} out of range`);
        return o as Slot;
      }
      case Tag.PID:
        return new PidVal(this.zigzag());
      case Tag.VEC: {
        const n = this.count(8);
        const items = new Array<number>(n);
        for (let i = 0; i < n; i++) items[i] = this.f64();
        return new VecVal(items);
      }
      case Tag.IDENTITY: {
        const kind = this.str();
        return new IdentityVal(kind, this.str());
      }
      case Tag.UNCERTAIN:
        open.push(new UncertainRead(this.f64()));
        return OPEN;
    }
    return this.fail(`unknown tag ${tag}`);
  }

  /** A MAP_TEXT map's header and text (see Writer.textMap); its entries are read by the frame it returns. */
  private textMap(): ReadFrame {
    const n = this.count(2);
    const out = new Map<string, Value>();
    this.objects.push(out);
    const len = this.count();
    const start = this.pos;
    const text = this.buf.toString('utf8', start, start + len);
    this.pos += len;
    // ASCII text: a unit is a byte, so a piece of SLICE_FROM units or more is copied from the bytes, as
    // `ascii` does, instead of being a slice that keeps the whole text alive
    return new TextMapRead(out, n, text, text.length === len ? start : -1);
  }

  /** `units` of a MAP_TEXT's text from `at`; an ASCII text's (`base` ≥ 0: its start in the bytes) long pieces copied from the bytes. */
  piece(text: string, base: number, at: number, units: number): string {
    return units < SLICE_FROM || base < 0 ? text.substring(at, at + units) : this.buf.toString('latin1', base + at, base + at + units);
  }

  json(): Json {
    const tag = this.byte();
    if (tag === Tag.ARR) {
      const n = this.count();
      const out: Json[] = [];
      for (let i = 0; i < n; i++) out.push(this.json());
      return out;
    }
    if (tag === Tag.OBJ) {
      const n = this.count(2);
      const out: { [k: string]: Json } = {};
      for (let i = 0; i < n; i++) {
        const k = this.str();
        out[k] = this.json();
      }
      return out;
    }
    this.pos--;
    const v = this.value();
    if (v !== null && typeof v === 'object') this.fail('expected plain data, found a Turn value');
    if (v === undefined) this.fail('expected plain data, found an unset slot');
    return v;
  }

  header(magic: number[], format: number, newest = format): void {
    for (const m of magic) if (this.byte() !== m) this.fail('bad magic (not Turn data)');
    const f = this.byte();
    if (f !== format) this.fail(f > newest ? `format ${f} is newer than this Turn reads (up to ${newest}); use a newer Turn` : `format ${f}, this Turn reads format ${format}`);
  }

  end(): void {
    if (this.pos !== this.buf.length) this.fail(`${this.buf.length - this.pos} trailing bytes`);
  }
}

/** `Reader.head`'s answer when it opened a container whose children follow. */
const OPEN = Symbol('open');

/** A container Reader.value is filling: reads what precedes its next child (a key, a length), stores each child. */
interface ReadFrame {
  /** the container (complete once `more` says false) */
  readonly out: Slot;
  /** true when a child value follows (Reader.value reads it, then `put`s it) */
  more(r: Reader): boolean;
  put(child: Slot, r: Reader): void;
}

class ListRead implements ReadFrame {
  constructor(
    readonly out: Value[],
    private readonly n: number,
  ) {}
  more(): boolean {
    return this.out.length < this.n;
  }
  put(child: Slot): void {
    this.out.push(child as Value);
  }
}

/** A map's or a struct's entries (`out` is the struct when it is one); a short ASCII value is read in place. */
class MapRead implements ReadFrame {
  private i = 0;
  private key = '';
  readonly out: Slot;
  constructor(
    private readonly entries: Map<string, Value>,
    private readonly n: number,
    holder?: StructVal,
  ) {
    this.out = holder ?? entries;
  }
  more(r: Reader): boolean {
    while (this.i < this.n) {
      this.i++;
      const k = r.shortAscii() ?? r.str();
      const short = r.shortAscii();
      if (short !== undefined) {
        this.entries.set(k, short);
        continue;
      }
      this.key = k;
      return true;
    }
    return false;
  }
  put(child: Slot): void {
    this.entries.set(this.key, child as Value);
  }
}

/** A closure's cells: each must be a cell. */
class CellsRead implements ReadFrame {
  constructor(
    readonly out: ClosureVal,
    private readonly cells: Cell[],
    private readonly n: number,
  ) {}
  more(): boolean {
    return this.cells.length < this.n;
  }
  put(child: Slot, r: Reader): void {
    if (!(child instanceof Cell)) r.fail('a closure captures something that is not a cell');
    this.cells.push(child);
  }
}

class CellRead implements ReadFrame {
  private filled = false;
  constructor(readonly out: Cell) {}
  more(): boolean {
    return !this.filled;
  }
  put(child: Slot): void {
    this.out.v = child as Value;
    this.filled = true;
  }
}

/** An uncertain value: its confidence was read; the value follows. */
class UncertainRead implements ReadFrame {
  out: Slot = null;
  private filled = false;
  constructor(private readonly c: number) {}
  more(): boolean {
    return !this.filled;
  }
  put(child: Slot): void {
    this.out = new Uncertain(child as Value, this.c);
    this.filled = true;
  }
}

/** A MAP_TEXT's entries: each key and string value cut from the text; any other value read after a 0. */
class TextMapRead implements ReadFrame {
  private i = 0;
  private at = 0;
  private key = '';
  constructor(
    readonly out: Map<string, Value>,
    private readonly n: number,
    private readonly text: string,
    /** the text's start in the bytes when it is ASCII, else -1 */
    private readonly base: number,
  ) {}
  more(r: Reader): boolean {
    const text = this.text;
    while (this.i < this.n) {
      this.i++;
      const kn = r.varint();
      if (kn > text.length - this.at) r.fail(`map key of ${kn} units past the map's text`);
      const k = r.piece(text, this.base, this.at, kn);
      this.at += kn;
      const code = r.varint();
      if (code === 0) {
        this.key = k;
        return true;
      }
      const vn = code - 1;
      if (vn > text.length - this.at) r.fail(`map value of ${vn} units past the map's text`);
      this.out.set(k, r.piece(text, this.base, this.at, vn));
      this.at += vn;
    }
    if (this.at !== text.length) r.fail(`${text.length - this.at} units of the map's text unused`);
    return false;
  }
  put(child: Slot): void {
    this.out.set(this.key, child as Value);
  }
}

// ---------------------------------------------------------------------------------------------
// Values

/** One Turn value (a journal payload, a result) as bytes. */
export function encodeValue(v: Slot): Uint8Array {
  const w = new Writer(256);
  for (const m of VALUE_MAGIC) w.byte(m);
  w.byte(VALUE_FORMAT);
  w.value(v);
  return w.bytes();
}

export function decodeValue(bytes: Uint8Array): Slot {
  const r = new Reader(bytes, 'value');
  r.header(VALUE_MAGIC, VALUE_FORMAT);
  const v = r.value();
  r.end();
  return v;
}

/** SHA-256 (hex) of a value's encoding: the `inputHash` of a journal entry. */
export function valueHash(v: Slot): string {
  return sha256Hex(encodeValue(v));
}

// ---------------------------------------------------------------------------------------------
// Snapshots

/** A process's context tiers (runtime/context): entries in each tier, oldest first. */
export interface ContextSnapshot {
  limits: { working: number; episodic: number };
  system: string[];
  working: string[];
  episodic: string[];
  /** token counts per entry where known (-1: not counted yet), so loading never re-tokenizes */
  tokens?: { system: number[]; working: number[]; episodic: number[] };
}

/** One process. What is plain bookkeeping goes in `state`; what holds Turn values goes in the rest. */
export interface ProcessSnapshot {
  pid: number;
  /**
   * The VM's plain data for this process, its own layout: status, parent, linked, frames
   * (proto, ip, bp, ret, module), handlers, waiting, deadline, cancel, scopes, monitors, ...
   */
  state: Json;
  /** the value stack up to `sp`; cells included (captured locals are boxed) */
  stack: Slot[];
  memory: Map<string, Value>;
  mailbox: Value[];
  context: ContextSnapshot;
  /**
   * Every other value the process holds, by name: frame closures, the result, a failure value,
   * events, contexts saved by open invocations ... Sharing with the stack, memory and mailbox is
   * preserved: the whole snapshot is written with one object table.
   */
  values: Record<string, Slot>;
}

/** The whole VM at a safe point. */
export interface SnapshotData {
  /** the bundle the run runs (runs.bytecode_hash) */
  bytecodeHash: string;
  semanticsVersion: string;
  /** the last journal entry this snapshot reflects (0: none); replay continues after it */
  seq: number;
  /** the scheduler's plain data: ready queue order, next pid, clock, steps used, generator state ... */
  scheduler: Json;
  processes: ProcessSnapshot[];
}

function writeContext(w: Writer, c: ContextSnapshot): void {
  w.json(c as unknown as Json);
}

/** A snapshot as stored: format 5 (the stream) or, above COMPRESS_ABOVE bytes, 6 (compressed), each with its checksum. */
export function encodeSnapshot(s: SnapshotData): Uint8Array {
  const plain = encodePlainSnapshot(s);
  const head = SNAPSHOT_MAGIC.length + 1;
  let body = plain.subarray(head);
  let format = SNAPSHOT_PLAIN_SUMMED;
  if (plain.length > COMPRESS_ABOVE) {
    const zlib = loadZlib();
    body = zlib.brotliCompressSync(body, {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: SNAPSHOT_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: plain.length },
    });
    format = SNAPSHOT_BROTLI_SUMMED;
  }
  const out = new Uint8Array(head + body.length + CHECKSUM_BYTES);
  out.set(SNAPSHOT_MAGIC, 0);
  out[SNAPSHOT_MAGIC.length] = format;
  out.set(body, head);
  out.set(sha256(out.subarray(0, head + body.length)), head + body.length);
  return out;
}

/** The snapshot in format 3: the stream itself, without a checksum (benchmarks and tests of the reader). */
export function encodePlainSnapshot(s: SnapshotData): Uint8Array {
  const w = new Writer(64 * 1024, SNAPSHOT_LITERAL_KEYS_ABOVE);
  for (const m of SNAPSHOT_MAGIC) w.byte(m);
  w.byte(SNAPSHOT_PLAIN);
  w.str(s.bytecodeHash);
  w.str(s.semanticsVersion);
  w.varint(s.seq);
  w.json(s.scheduler);
  w.varint(s.processes.length);
  for (const p of s.processes) {
    w.zigzag(p.pid);
    w.json(p.state);
    writeContext(w, p.context);
    w.varint(p.stack.length);
    for (const x of p.stack) w.value(x);
    w.value(p.memory);
    w.value(p.mailbox);
    const names = Object.keys(p.values);
    w.varint(names.length);
    for (const k of names) {
      w.str(k);
      w.value(p.values[k]);
    }
  }
  return w.bytes();
}

export function decodeSnapshot(bytes: Uint8Array): SnapshotData {
  const head = SNAPSHOT_MAGIC.length;
  let format = bytes.length > head && SNAPSHOT_MAGIC.every((m, i) => bytes[i] === m) ? bytes[head] : -1;
  if (format === SNAPSHOT_PLAIN_SUMMED || format === SNAPSHOT_BROTLI_SUMMED) {
    // checked before anything is read: a changed byte must never decode as another state
    const end = bytes.length - CHECKSUM_BYTES;
    if (end < head + 1) throw new SerializeError(`corrupt snapshot: ${bytes.length} bytes, too short for its checksum`);
    if (!Buffer.from(sha256(bytes.subarray(0, end))).equals(bytes.subarray(end))) {
      throw new SerializeError('corrupt snapshot: its checksum does not match its bytes, which changed after it was written');
    }
    bytes = bytes.subarray(0, end);
    format = format === SNAPSHOT_PLAIN_SUMMED ? SNAPSHOT_PLAIN : SNAPSHOT_BROTLI;
    if (format === SNAPSHOT_PLAIN) return decodeSnapshotBody(new Reader(bytes.subarray(head + 1), 'snapshot body'));
  }
  if (format === SNAPSHOT_BROTLI || format === SNAPSHOT_BROTLI_V1) {
    let plain: Buffer;
    try {
      plain = loadZlib().brotliDecompressSync(bytes.subarray(head + 1), { maxOutputLength: MAX_SNAPSHOT_BYTES });
    } catch (e) {
      throw new SerializeError(`corrupt snapshot: its compressed body does not decompress (${e instanceof Error ? e.message : String(e)})`);
    }
    // read in place (no copy behind a plain header); positions in errors count from the body's start
    return decodeSnapshotBody(new Reader(plain, 'snapshot body'));
  }
  const r = new Reader(bytes, 'snapshot');
  // formats 1 and 3 differ only in the tags their stream may hold, and this reader reads both
  r.header(SNAPSHOT_MAGIC, format === SNAPSHOT_PLAIN_V1 ? SNAPSHOT_PLAIN_V1 : SNAPSHOT_PLAIN, SNAPSHOT_FORMAT);
  return decodeSnapshotBody(r);
}

/** The stream after the header (format 1's or 3's bytes, or 2's or 4's once decompressed). */
function decodeSnapshotBody(r: Reader): SnapshotData {
  const bytecodeHash = r.str();
  const semanticsVersion = r.str();
  const seq = r.varint();
  const scheduler = r.json();
  const n = r.count();
  const processes: ProcessSnapshot[] = [];
  for (let i = 0; i < n; i++) {
    const pid = r.zigzag();
    const state = r.json();
    const context = r.json() as unknown as ContextSnapshot;
    if (!context || typeof context !== 'object' || !Array.isArray(context.system)) r.fail('bad context');
    const depth = r.count();
    const stack: Slot[] = new Array(depth);
    for (let j = 0; j < depth; j++) stack[j] = r.value();
    const memory = r.value();
    if (!(memory instanceof Map)) r.fail('process memory is not a map');
    const mailbox = r.value();
    if (!Array.isArray(mailbox)) r.fail('process mailbox is not a list');
    const values: Record<string, Slot> = {};
    const k = r.count();
    for (let j = 0; j < k; j++) {
      const name = r.str();
      values[name] = r.value();
    }
    processes.push({ pid, state, stack, memory, mailbox, context, values });
  }
  r.end();
  return { bytecodeHash, semanticsVersion, seq, scheduler, processes };
}

let zlibModule: typeof Zlib | undefined;
/** node:zlib, required by the first compressed snapshot (it is not in Node's start-up snapshot). */
function loadZlib(): typeof Zlib {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (zlibModule ??= require('node:zlib') as typeof Zlib);
}
