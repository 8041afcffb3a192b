// Checks a GGUF model file's header before node-llama-cpp loads it. llama.cpp trusts the counts a
// header claims: a crafted file saying it holds 2^62 tensors made it allocate for minutes, up to
// 4 GB, deaf to SIGTERM (the load runs in native code). Here every count and length is held
// against the bytes the file really has, reading the header a window at a time (memory stays at
// the window), before anything is allocated for it.
//
// The format (github.com/ggml-org/ggml, docs/gguf.md), all little-endian:
//   "GGUF", version u32 (2 or 3), tensor count u64, metadata count u64,
//   metadata: key (string), value type u32, value        string: length u64, then its bytes
//   tensor infos: name (string), dimensions u32 (1 to 4), each dimension u64, type u32, offset u64
import * as fs from 'node:fs';

/** The most bytes the metadata and tensor infos may take: real models' are a few MB (a 256k-token vocabulary is ~6 MB). */
export const GGUF_MAX_HEADER_BYTES = 256 * 1024 * 1024;
/** GGML_MAX_DIMS: a tensor has at most 4 dimensions. */
const MAX_DIMS = 4;
/** The smallest a tensor info can be: a name's length, its dimension count, one dimension, type, offset. */
const MIN_TENSOR_INFO = 8 + 4 + 8 + 4 + 8;
/** The smallest a metadata pair can be: a key's length, a value type, a one-byte value. */
const MIN_KV = 8 + 4 + 1;
/** Bytes of each fixed-size value type, by type number (8 string and 9 array are walked). */
const SCALAR_BYTES: Record<number, number> = { 0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8 };
const STRING = 8;
const ARRAY = 9;
/** How much of the file is read at a time. */
const WINDOW = 1024 * 1024;

/** A file that is not a GGUF model llama.cpp can load safely: the message says what is wrong and where. */
export class GgufError extends Error {
  override name = 'GgufError';
}

export interface GgufHeader {
  version: number;
  tensors: number;
  metadata: number;
  /** bytes of the header (the tensor data is aligned after it) */
  headerBytes: number;
}

/** Reads a file forward through a window of WINDOW bytes: the header can be walked without holding it. */
class Cursor {
  private readonly buf: Buffer;
  private start = 0; // file offset of buf[0]
  private end = 0; // file offset just past the bytes in buf
  pos = 0;

  constructor(
    private readonly fd: number,
    readonly size: number,
    private readonly file: string,
  ) {
    // a u64 is the longest read, so a window never needs fewer than 8 bytes
    this.buf = Buffer.alloc(Math.max(8, Math.min(WINDOW, size)));
  }

  fail(what: string): never {
    throw new GgufError(`${this.file} is not a valid GGUF model: ${what} (at byte ${this.pos.toLocaleString('en-US')} of ${this.size.toLocaleString('en-US')})`);
  }

  /** Makes bytes [pos, pos + n) readable in the window (n <= 8). */
  private need(n: number, what: string): number {
    if (this.pos + n > this.size) this.fail(`the file ends inside ${what}`);
    if (this.pos + n > GGUF_MAX_HEADER_BYTES) this.fail(`the header is over ${GGUF_MAX_HEADER_BYTES / (1024 * 1024)} MiB`);
    if (this.pos < this.start || this.pos + n > this.end) {
      this.start = this.pos;
      this.end = this.pos + fs.readSync(this.fd, this.buf, 0, this.buf.length, this.pos);
      if (this.pos + n > this.end) this.fail(`the file ends inside ${what}`);
    }
    const at = this.pos - this.start;
    this.pos += n;
    return at;
  }

  u32(what: string): number {
    return this.buf.readUInt32LE(this.need(4, what));
  }

  /** A u64 as a number when it is below 2^53; larger is refused (no real count or length is). */
  u64(what: string): number {
    const v = this.buf.readBigUInt64LE(this.need(8, what));
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(`${what} is ${v}, more than any file holds`);
    return Number(v);
  }

  /** Moves past `n` bytes that must be in the file. */
  skip(n: number, what: string): void {
    if (n > this.size - this.pos) this.fail(`${what} claims ${n.toLocaleString('en-US')} bytes, more than the ${(this.size - this.pos).toLocaleString('en-US')} left in the file`);
    if (this.pos + n > GGUF_MAX_HEADER_BYTES) this.fail(`the header is over ${GGUF_MAX_HEADER_BYTES / (1024 * 1024)} MiB (${what} ends at byte ${(this.pos + n).toLocaleString('en-US')})`);
    this.pos += n;
  }

  string(what: string): void {
    this.skip(this.u64(`the length of ${what}`), what);
  }

  /** Refuses `count` items of at least `each` bytes when the rest of the file cannot hold them. */
  fits(count: number, each: number, what: string): void {
    if (count * each > this.size - this.pos) this.fail(`${what} claims ${count.toLocaleString('en-US')} items, more than the ${(this.size - this.pos).toLocaleString('en-US')} bytes left in the file can hold`);
  }
}

function value(c: Cursor, type: number, what: string, inArray: boolean): void {
  const scalar = SCALAR_BYTES[type];
  if (scalar !== undefined) return c.skip(scalar, what);
  if (type === STRING) return c.string(what);
  if (type === ARRAY && !inArray) {
    const itemType = c.u32(`the item type of ${what}`);
    const count = c.u64(`the length of ${what}`);
    const each = SCALAR_BYTES[itemType];
    if (each !== undefined) return c.skip(count * each, what);
    if (itemType !== STRING) c.fail(`${what} is an array of type ${itemType}, which GGUF arrays cannot hold`);
    c.fits(count, 8, what);
    for (let i = 0; i < count; i++) c.string(`item ${i} of ${what}`);
    return;
  }
  c.fail(`${what} has the value type ${type}, which GGUF does not have${type === ARRAY ? ' inside an array' : ''}`);
}

/** Checks the GGUF header of `file` against the file's size; throws GgufError, with what and where, when it cannot be loaded safely. */
export function checkGgufHeader(file: string): GgufHeader {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    throw new GgufError(`cannot open the model ${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new GgufError(`the model ${file} is not a file`);
    const c = new Cursor(fd, stat.size, file);
    const magic = c.u32('the magic number');
    if (magic !== 0x46554747) c.fail('it does not start with "GGUF"');
    const version = c.u32('the version');
    if (version !== 2 && version !== 3) c.fail(`GGUF version ${version} is not supported (2 and 3 are)`);
    const tensors = c.u64('the tensor count');
    const metadata = c.u64('the metadata count');
    c.fits(metadata, MIN_KV, 'the metadata count');
    c.fits(tensors, MIN_TENSOR_INFO, 'the tensor count');
    for (let i = 0; i < metadata; i++) {
      c.string(`the key of metadata ${i}`);
      value(c, c.u32(`the value type of metadata ${i}`), `the value of metadata ${i}`, false);
    }
    c.fits(tensors, MIN_TENSOR_INFO, 'the tensor count');
    for (let i = 0; i < tensors; i++) {
      c.string(`the name of tensor ${i}`);
      const dims = c.u32(`the dimension count of tensor ${i}`);
      if (dims < 1 || dims > MAX_DIMS) c.fail(`tensor ${i} has ${dims} dimensions (1 to ${MAX_DIMS})`);
      for (let d = 0; d < dims; d++) c.u64(`dimension ${d} of tensor ${i}`);
      c.u32(`the type of tensor ${i}`);
      const offset = c.u64(`the data offset of tensor ${i}`);
      if (offset > stat.size) c.fail(`tensor ${i}'s data starts at byte ${offset.toLocaleString('en-US')}, past the end of the file`);
    }
    return { version, tensors, metadata, headerBytes: c.pos };
  } finally {
    fs.closeSync(fd);
  }
}
