// The compact encoding of settled journal entries (issue 45, schema version 2).
//
// An entry journaled with its outcome at once (`ok` / `error`: a clock reading, a timer check, a
// scheduler choice, a request block...) is never updated again, so it need not be an SQLite row of
// its own. Such entries are packed, in seq order, into chunks: one BLOB holding up to
// CHUNK_MAX_ENTRIES entries, written as one row of `journal_chunks` when the group commit (or the
// single append) commits. Appending costs a few bytes written into a buffer; reading back decodes a
// chunk with no per-entry SQL row, no per-entry JSON and no per-entry string decoding (each chunk
// keeps a table of the distinct strings it holds: kinds, names, input hashes).
//
// The layout of a chunk (all integers are unsigned LEB128 varints unless said otherwise):
//   magic 0x4A ('J'), format version (one byte, CHUNK_FORMAT), entry count, first seq
//   per entry:
//     seq delta        seq − the previous entry's seq (the first: seq − first seq)
//     flags            one byte: 1 = error (else ok), 2 = idempotent, 4 = the key is run-relative
//     kind, name       a string reference (below)
//     pid              zigzag varint (−1: the scheduler)
//     inputHash, key   string references, 0 for null; a run-relative key is stored without its
//                      `turn:<run>:` prefix (flag 4), which every key the VM makes carries
//     created at       zigzag varint, milliseconds since the previous entry's (the first: since 0);
//                      completed at = created at (a settled entry is recorded with its outcome)
//     payload          0 for null, else byte length + 1, then the bytes
//   a string reference: 0 = null, 1 = a new string (byte length, UTF-8 bytes; it joins the chunk's
//   table), k ≥ 2 = the table's string k − 2.
//
// A chunk is bounded (entries, bytes, string lengths) on both sides: the decoder trusts nothing in
// it, and a truncated or damaged chunk, or one of a newer format, is a ChunkError naming what is
// wrong; the store turns it into a StoreError ('corrupt' or 'schema') naming the file and the run.
import type { JournalEntry } from './types.js';
import { readVarint, unzigzag } from './varint.js';

export const CHUNK_MAGIC = 0x4a;
/** The chunk format this code writes and reads; a chunk of a higher version is refused. */
export const CHUNK_FORMAT = 1;
/** A chunk is written once it holds this many entries (or CHUNK_MAX_BYTES), even inside a group. */
export const CHUNK_MAX_ENTRIES = 512;
export const CHUNK_MAX_BYTES = 256 * 1024;
/** What a decoder accepts: never more entries than this in one chunk. */
const DECODE_MAX_ENTRIES = 1 << 20;

const FLAG_ERROR = 1;
const FLAG_IDEMPOTENT = 2;
const FLAG_RUN_KEY = 4;

/** What is wrong with a chunk: 'corrupt' (damaged or truncated) or 'newer' (a format this code does not know). */
export class ChunkError extends Error {
  override name = 'ChunkError';
  constructor(
    readonly kind: 'corrupt' | 'newer',
    message: string,
  ) {
    super(message);
  }
}

/** One settled entry as the chunk encoder takes it. */
export interface SettledEntry {
  seq: number;
  kind: string;
  name: string;
  pid: number;
  inputHash: string | null;
  status: 'ok' | 'error';
  idempotencyKey: string | null;
  idempotent: boolean;
  payload: Uint8Array | null;
  createdAt: number;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Builds one chunk, entry by entry. */
export class ChunkBuilder {
  private buf = new Uint8Array(1024);
  private len = 0;
  private readonly strings = new Map<string, number>();
  private prevSeq: number;
  private prevTime = 0;
  count = 0;
  readonly firstSeq: number;
  lastSeq: number;

  constructor(
    firstSeq: number,
    /** the `turn:<run>:` prefix that run-relative keys carry */
    private readonly keyPrefix: string,
  ) {
    this.firstSeq = firstSeq;
    this.lastSeq = firstSeq;
    this.prevSeq = firstSeq;
  }

  get bytes(): number {
    return this.len;
  }

  get full(): boolean {
    return this.count >= CHUNK_MAX_ENTRIES || this.len >= CHUNK_MAX_BYTES;
  }

  add(e: SettledEntry): void {
    if (e.seq < this.prevSeq || (this.count > 0 && e.seq === this.prevSeq)) throw new Error(`journal chunk: seq ${e.seq} out of order`);
    this.varint(e.seq - this.prevSeq);
    this.prevSeq = this.lastSeq = e.seq;
    let key = e.idempotencyKey;
    let flags = (e.status === 'error' ? FLAG_ERROR : 0) | (e.idempotent ? FLAG_IDEMPOTENT : 0);
    if (key !== null && key.startsWith(this.keyPrefix)) {
      key = key.slice(this.keyPrefix.length);
      flags |= FLAG_RUN_KEY;
    }
    this.byte(flags);
    this.string(e.kind);
    this.string(e.name);
    this.zigzag(e.pid);
    this.string(e.inputHash);
    this.string(key);
    this.zigzag(e.createdAt - this.prevTime);
    this.prevTime = e.createdAt;
    if (e.payload === null) this.varint(0);
    else {
      this.varint(e.payload.length + 1);
      this.room(e.payload.length);
      this.buf.set(e.payload, this.len);
      this.len += e.payload.length;
    }
    this.count++;
  }

  /** The chunk's bytes: its header, then the entries. */
  finish(): Uint8Array {
    const head = new ChunkBuilder(0, '');
    head.byte(CHUNK_MAGIC);
    head.byte(CHUNK_FORMAT);
    head.varint(this.count);
    head.varint(this.firstSeq);
    const out = new Uint8Array(head.len + this.len);
    out.set(head.buf.subarray(0, head.len), 0);
    out.set(this.buf.subarray(0, this.len), head.len);
    return out;
  }

  private room(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  private byte(b: number): void {
    this.room(1);
    this.buf[this.len++] = b;
  }

  /** An unsigned integer up to 2^53, 7 bits a byte (arithmetic, not bit operators: they stop at 2^32). */
  private varint(n: number): void {
    this.room(8);
    while (n >= 0x80) {
      this.buf[this.len++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.len++] = n;
  }

  private zigzag(n: number): void {
    this.varint(n >= 0 ? n * 2 : -n * 2 - 1);
  }

  private string(s: string | null): void {
    if (s === null) return this.varint(0);
    const known = this.strings.get(s);
    if (known !== undefined) return this.varint(known + 2);
    this.strings.set(s, this.strings.size);
    this.varint(1);
    const bytes = utf8.encode(s);
    this.varint(bytes.length);
    this.room(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }
}

/** Reads a chunk's header only: its format, entry count and first seq. */
export function chunkHeader(bytes: Uint8Array): { count: number; firstSeq: number } {
  const r = new Reader(bytes);
  r.header();
  return { count: r.count, firstSeq: r.firstSeq };
}

/**
 * The entries of a chunk of run `runId`, in seq order, those with seq >= fromSeq. Throws ChunkError
 * for a damaged, truncated or newer chunk. Payloads are views into `bytes` (no copy).
 */
export function decodeChunk(bytes: Uint8Array, runId: string, fromSeq = 1): JournalEntry[] {
  const r = new Reader(bytes);
  r.header();
  const keyPrefix = `turn:${runId}:`;
  const strings: string[] = [];
  const str = (): string | null => {
    const ref = r.varint();
    if (ref === 0) return null;
    if (ref === 1) {
      const n = r.varint();
      const s = r.text(n);
      strings.push(s);
      return s;
    }
    if (ref - 2 >= strings.length) throw r.corrupt(`a string reference (${ref - 2}) beyond its table (${strings.length})`);
    return strings[ref - 2];
  };
  const out: JournalEntry[] = [];
  let seq = r.firstSeq;
  let time = 0;
  for (let i = 0; i < r.count; i++) {
    const delta = r.varint();
    if (i > 0 && delta === 0) throw r.corrupt('two entries with the same seq');
    seq += delta;
    const flags = r.byte();
    if (flags > 7) throw r.corrupt(`unknown entry flags ${flags}`);
    const kind = str();
    const name = str();
    if (kind === null || name === null) throw r.corrupt('an entry without a kind or a name');
    const pid = r.zigzag();
    const inputHash = str();
    let key = str();
    if (key !== null && flags & FLAG_RUN_KEY) key = keyPrefix + key;
    time += r.zigzag();
    const size = r.varint();
    const payload = size === 0 ? null : r.take(size - 1);
    if (seq < fromSeq) continue;
    out.push({
      runId,
      seq,
      kind,
      name,
      pid,
      inputHash,
      status: flags & FLAG_ERROR ? 'error' : 'ok',
      idempotencyKey: key,
      idempotent: (flags & FLAG_IDEMPOTENT) !== 0,
      request: null,
      payload,
      createdAt: time,
      completedAt: time,
    });
  }
  if (r.pos !== bytes.length) throw r.corrupt(`${bytes.length - r.pos} bytes after its last entry`);
  return out;
}

class Reader {
  pos = 0;
  count = 0;
  firstSeq = 0;
  constructor(private readonly b: Uint8Array) {}

  header(): void {
    if (this.b.length < 2 || this.b[0] !== CHUNK_MAGIC) throw this.corrupt('it does not start as a journal chunk');
    const format = this.b[1];
    if (format > CHUNK_FORMAT) {
      throw new ChunkError('newer', `it has format ${format}, newer than this Turn reads (${CHUNK_FORMAT}); it was written by a newer Turn`);
    }
    if (format < 1) throw this.corrupt(`format ${format}`);
    this.pos = 2;
    this.count = this.varint();
    this.firstSeq = this.varint();
    if (this.count < 1 || this.count > DECODE_MAX_ENTRIES) throw this.corrupt(`it says it holds ${this.count} entries`);
    if (this.firstSeq < 1) throw this.corrupt(`its first seq is ${this.firstSeq}`);
  }

  corrupt(what: string): ChunkError {
    return new ChunkError('corrupt', `${what} (at byte ${this.pos} of ${this.b.length})`);
  }

  byte(): number {
    if (this.pos >= this.b.length) throw this.corrupt('it is truncated');
    return this.b[this.pos++];
  }

  varint(): number {
    const n = readVarint(this);
    if (n < 0) throw this.corrupt('an integer longer than 8 bytes');
    return n;
  }

  zigzag(): number {
    return unzigzag(this.varint());
  }

  take(n: number): Uint8Array {
    if (n > this.b.length - this.pos) throw this.corrupt(`it is truncated: a field of ${n} bytes runs past its end`);
    const out = this.b.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  text(n: number): string {
    const bytes = this.take(n);
    try {
      return fromUtf8.decode(bytes);
    } catch {
      throw this.corrupt('a string that is not UTF-8');
    }
  }
}
