// A model call's request in the journal as references to content-addressed blocks (issue 45).
//
// An agent loop whose context grows each step asks each model call with everything before it: had
// each intent journaled its whole request, the store would grow with the square of the steps. So
// each text of a request — a context entry (P0, P2, P1), a piece of the prompt — is stored once per
// run as a *block*: a journal entry of kind `block` whose key is `b<ordinal>` (ordinals count the
// run's distinct texts in the order they were first asked), whose payload is the text (as a JSON
// string, like any entry's payload) and whose inputHash is the text's SHA-256 (checked when it is read back). An intent then holds, per
// tier and for the prompt, the list of its blocks' ordinals as ranges: a context that grows by
// appending is one range per tier however long it is, so each call adds only its new blocks and a
// few numbers.
//
// The prompt is cut into blocks at content-defined boundaries (a rolling hash over its characters,
// as rsync and backup tools cut files), so a prompt that grows by appending keeps the blocks of
// what it had and adds only what is new. Context entries are one block each (they are immutable,
// and their size is bounded by the tiers' token budgets).
//
// Replay never reads a request (it checks the step's inputHash, computed from the whole request as
// before), so what a replay matches and what a recording's fingerprint is are unchanged; the blocks
// serve `turn inspect`, the Runs panel and the model budgets, which reassemble the request on demand.
// A request journaled before this (its `prompt` a string, no `blocks`) is read as it was.
import { sha256Hex } from '../hash.js';
import { journalKey, logicalKey } from './keys.js';
import type { JournalAppend, JournalEntry, RunStore } from '../store/types.js';

/** The entry kind of a block. */
export const BLOCK_KIND = 'block';

/** The two numberings of blocks: `b` context entries, `p` pieces of prompts. */
export type BlockSpace = 'b' | 'p';

/** The logical key of block `ordinal` of a numbering (`b12`, `p3`). */
export const blockStep = (space: BlockSpace, ordinal: number): string => `${space}${ordinal}`;

const BLOCK_KEY = /^([bp])([1-9]\d{0,9})$/;

/** The numbering and ordinal of a block's logical key, or null when it is not one. */
export function parseBlockKey(logical: string | null): { space: BlockSpace; ordinal: number } | null {
  const m = logical === null ? null : BLOCK_KEY.exec(logical);
  return m ? { space: m[1] as BlockSpace, ordinal: Number(m[2]) } : null;
}

/**
 * A list of ordinals as ranges: a number alone, `[from, to]` for a run of consecutive ones, and
 * `[n, -k]` for n repeated k times (a context that holds the same entry again and again).
 * `[1, 2, 3, 7, 7, 7]` is `[[1, 3], [7, -3]]`.
 */
export type Ranges = (number | [number, number])[];

export function toRanges(ordinals: readonly number[]): Ranges {
  const out: Ranges = [];
  let i = 0;
  while (i < ordinals.length) {
    let j = i;
    if (i + 1 < ordinals.length && ordinals[i + 1] === ordinals[i]) {
      while (j + 1 < ordinals.length && ordinals[j + 1] === ordinals[i]) j++;
      out.push([ordinals[i], -(j - i + 1)]);
    } else {
      while (j + 1 < ordinals.length && ordinals[j + 1] === ordinals[j] + 1) j++;
      out.push(j === i ? ordinals[i] : [ordinals[i], ordinals[j]]);
    }
    i = j + 1;
  }
  return out;
}

/** The references an intent holds: the prompt's pieces (`p` blocks) then its remainder, and each tier's entries (`b` blocks, one each). */
export interface RequestRefs {
  prompt: Ranges;
  rest: string;
  P0: Ranges;
  P2: Ranges;
  P1: Ranges;
}

/** What is cut into blocks: the prompt and the context tiers, in render order. */
export interface RequestTexts {
  prompt: string;
  P0: readonly string[];
  P2: readonly string[];
  P1: readonly string[];
}

// ---- content-defined chunking of the prompt

/**
 * No piece shorter than MIN_PIECE; about 200 characters on average in varied text; none longer than
 * MAX_PIECE, which bounds the inline remainder in repetitive text, where the rolling hash may find
 * no boundary for a long while.
 */
const MIN_PIECE = 64;
const MAX_PIECE = 1024;
const BOUNDARY_MASK = (1 << 7) - 1;

/** The gear table of the rolling hash: fixed pseudo-random words (xorshift32 from a fixed seed), the same in every Turn. */
const GEAR = (() => {
  const t = new Uint32Array(256);
  let x = 0x9e3779b9;
  for (let i = 0; i < 256; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    t[i] = x >>> 0;
  }
  return t;
})();

/**
 * `text` cut at content-defined boundaries: where the rolling hash of the last 32 characters has
 * its low bits zero (or a piece reached MAX_PIECE). A boundary depends only on the characters since
 * the previous one, so two texts that share a prefix share every piece of it but the last, the one
 * that did not end at a boundary (`ended` false). Never cuts a surrogate pair.
 */
export function pieces(text: string): { text: string; ended: boolean }[] {
  if (text.length === 0) return [];
  const out: { text: string; ended: boolean }[] = [];
  let start = 0;
  let h = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h = ((h << 1) + GEAR[(c ^ (c >>> 8)) & 0xff]) >>> 0;
    const len = i + 1 - start;
    if ((len >= MIN_PIECE && (h & BOUNDARY_MASK) === 0) || len >= MAX_PIECE) {
      if (c >= 0xd800 && c <= 0xdbff) continue; // a high surrogate: its pair stays with it
      out.push({ text: text.slice(start, i + 1), ended: true });
      start = i + 1;
      h = 0;
    }
  }
  if (start < text.length) out.push({ text: text.slice(start), ended: false });
  return out;
}

// ---- writing

/** Texts remembered as already stored, at most this many and this many characters (least recently asked dropped first). */
const KNOWN_TEXTS = 16_384;
const KNOWN_CHARS = 8 * 1024 * 1024;

const enc = new TextEncoder();

/** A block's payload: its text as a JSON string, like every other entry's payload (readers that show any entry decode it as JSON). */
export const blockPayload = (text: string): Uint8Array => enc.encode(JSON.stringify(text));

/**
 * One numbering of a run's blocks (`b`: context entries; `p`: pieces of prompts), on the writing
 * side: which texts are stored under which ordinal. The two are numbered apart so that a context
 * that grows by appending gets consecutive ordinals (one range), whatever the prompts add between
 * two of its entries. What it remembers is bounded (a run's memory must not grow with its steps):
 * a text it has forgotten, or one stored before a resume from a snapshot, is stored again under a
 * new ordinal — a few bytes more, never a wrong request.
 */
export class BlockNumbering {
  private last = 0;
  private readonly known = new Map<string, number>();
  private chars = 0;

  constructor(
    private readonly runId: string,
    readonly space: BlockSpace,
  ) {}

  /** A block found in the journal read at the start (or a resume): its ordinal is taken, its text known. */
  seen(ordinal: number, text: string | null): void {
    if (ordinal > this.last) this.last = ordinal;
    if (text !== null) this.remember(text, ordinal);
  }

  /** Ordinals up to `n` are taken (a snapshot's counter: the blocks before it were not read). */
  taken(n: number): void {
    if (n > this.last) this.last = n;
  }

  /** How many ordinals are taken (a snapshot records it). */
  get count(): number {
    return this.last;
  }

  /** The ordinal of `text`, appending (through `append`) its block when it is not stored yet. */
  ordinalOf(text: string, append: (entry: JournalAppend) => number): number {
    const known = this.known.get(text);
    if (known !== undefined) {
      // most recently asked last, so the oldest is the first dropped
      this.known.delete(text);
      this.known.set(text, known);
      return known;
    }
    const ordinal = this.last + 1;
    append({ kind: BLOCK_KIND, name: 'text', pid: -1, status: 'ok', inputHash: sha256Hex(text), idempotencyKey: journalKey(this.runId, blockStep(this.space, ordinal)), payload: blockPayload(text) });
    this.last = ordinal;
    this.remember(text, ordinal);
    return ordinal;
  }

  private remember(text: string, ordinal: number): void {
    if (text.length > KNOWN_CHARS / 4) return; // a huge text is not kept in memory; asked again, it is stored again
    if (this.known.delete(text)) this.chars -= text.length; // stored twice (once more after a resume): the later ordinal serves
    this.known.set(text, ordinal);
    this.chars += text.length;
    while (this.known.size > KNOWN_TEXTS || this.chars > KNOWN_CHARS) {
      const [oldest] = this.known.keys();
      this.chars -= oldest.length;
      this.known.delete(oldest);
    }
  }
}

/** The blocks of one run on the writing side: context entries and prompt pieces. */
export class BlockWriter {
  readonly entries: BlockNumbering;
  readonly pieces: BlockNumbering;
  constructor(runId: string) {
    this.entries = new BlockNumbering(runId, 'b');
    this.pieces = new BlockNumbering(runId, 'p');
  }

  /** A block entry read from the journal (its text only when it reads back as stored). */
  seen(logical: string, text: string | null): void {
    const b = parseBlockKey(logical);
    if (b) (b.space === 'b' ? this.entries : this.pieces).seen(b.ordinal, text);
  }

  /**
   * The references of `texts`: the prompt's pieces that end at a content-defined boundary as blocks,
   * its remainder (shorter than a piece can be) inline; each context entry as a block. Blocks not
   * stored yet are appended through `append`, before the intent that refers to them.
   */
  refs(texts: RequestTexts, append: (entry: JournalAppend) => number): RequestRefs {
    const cut = pieces(texts.prompt);
    const rest = cut.length > 0 && !cut[cut.length - 1].ended ? cut.pop()!.text : '';
    const prompt = toRanges(cut.map((p) => this.pieces.ordinalOf(p.text, append)));
    const tier = (list: readonly string[]) => toRanges(list.map((t) => this.entries.ordinalOf(t, append)));
    return { prompt, rest, P0: tier(texts.P0), P2: tier(texts.P2), P1: tier(texts.P1) };
  }
}

// ---- reading

/** The most blocks one request may reference, and the most characters it may reassemble to: a store is outside data. */
export const MAX_REQUEST_BLOCKS = 200_000;
export const MAX_REQUEST_CHARS = 64 * 1024 * 1024;

const dec = new TextDecoder('utf-8', { fatal: true });

/** A block's text from its entry, checked against the hash it was stored with; a reason when it is not one. */
export function blockText(e: JournalEntry | null | undefined): string | { damaged: string } {
  if (!e) return { damaged: 'the journal does not hold it' };
  if (e.kind !== BLOCK_KIND || e.status !== 'ok' || e.payload === null) return { damaged: `its entry (step ${e.seq}) is not a block` };
  let text: unknown;
  try {
    text = JSON.parse(dec.decode(e.payload));
  } catch {
    return { damaged: `its entry (step ${e.seq}) is not a JSON string` };
  }
  if (typeof text !== 'string') return { damaged: `its entry (step ${e.seq}) is not a JSON string` };
  if (e.inputHash !== sha256Hex(text)) return { damaged: `its text (step ${e.seq}) does not match the hash it was stored with` };
  return text;
}

/** Finds a block by its logical key (`b12`, `p3`). */
export type BlockLookup = (step: string) => JournalEntry | null | undefined;

/** Blocks from journal entries already read (a whole journal). */
export function blocksOfEntries(runId: string, entries: readonly JournalEntry[]): BlockLookup {
  const byStep = new Map<string, JournalEntry>();
  for (const e of entries) {
    if (e.kind !== BLOCK_KIND) continue;
    const step = logicalKey(runId, e.idempotencyKey);
    if (step !== null) byStep.set(step, e);
  }
  return (step) => byStep.get(step);
}

/** Blocks read from the store one by one, by their key (an indexed lookup): for a view of a journal's tail. */
export function blocksOfStore(store: RunStore, runId: string): BlockLookup {
  return (step) => store.findByIdempotencyKey(runId, journalKey(runId, step));
}

/** Why a journaled request could not be reassembled. */
export class RequestBlocksError extends Error {
  override name = 'RequestBlocksError';
}

function expand(ranges: unknown, what: string, budget: { blocks: number }): number[] {
  if (!Array.isArray(ranges)) throw new RequestBlocksError(`its ${what} references are not a list`);
  const out: number[] = [];
  const ordinal = (x: unknown): number => {
    if (typeof x !== 'number' || !Number.isSafeInteger(x) || x < 1) throw new RequestBlocksError(`its ${what} references hold ${JSON.stringify(x)}, not a block number`);
    return x;
  };
  const spend = (n: number) => {
    budget.blocks -= n;
    if (budget.blocks < 0) throw new RequestBlocksError(`it references more than ${MAX_REQUEST_BLOCKS} blocks`);
  };
  for (const r of ranges) {
    if (Array.isArray(r) && r.length === 2 && typeof r[1] === 'number' && r[1] < 0) {
      // [n, -k]: n, k times
      const n = ordinal(r[0]);
      const k = -r[1];
      if (!Number.isSafeInteger(k)) throw new RequestBlocksError(`its ${what} references hold the repeat count ${JSON.stringify(r[1])}`);
      spend(k);
      for (let i = 0; i < k; i++) out.push(n);
      continue;
    }
    const [from, to] = Array.isArray(r) && r.length === 2 ? [ordinal(r[0]), ordinal(r[1])] : [ordinal(r), ordinal(r)];
    if (to < from) throw new RequestBlocksError(`its ${what} references hold the empty range ${from}–${to}`);
    spend(to - from + 1);
    for (let n = from; n <= to; n++) out.push(n);
  }
  return out;
}

/**
 * A journaled intent's request as it was asked: a block-referencing request (`blocks`) becomes
 * `{ typeName, prompt, attempt, options?, grant?, context: { P0, P2, P1 } }`; any other (a tool's,
 * or a model call journaled before blocks) is returned as it is. Throws RequestBlocksError, saying
 * which block, when a block is missing or damaged or a reference is malformed.
 */
export function reassembleRequest(request: unknown, lookup: BlockLookup): unknown {
  if (request === null || typeof request !== 'object' || Array.isArray(request) || !('blocks' in request)) return request;
  const { blocks, ...rest } = request as { blocks: unknown } & Record<string, unknown>;
  if (blocks === null || typeof blocks !== 'object' || Array.isArray(blocks)) throw new RequestBlocksError('its block references are not an object');
  const refs = blocks as Record<string, unknown>;
  const budget = { blocks: MAX_REQUEST_BLOCKS };
  let chars = 0;
  const count = (t: string): string => {
    chars += t.length;
    if (chars > MAX_REQUEST_CHARS) throw new RequestBlocksError(`it reassembles to more than ${MAX_REQUEST_CHARS} characters`);
    return t;
  };
  const texts = (what: 'prompt' | 'P0' | 'P2' | 'P1'): string[] =>
    expand(refs[what], what, budget).map((n) => {
      const step = blockStep(what === 'prompt' ? 'p' : 'b', n);
      const t = blockText(lookup(step));
      if (typeof t !== 'string') throw new RequestBlocksError(`its ${what} refers to block ${step}, but ${t.damaged}`);
      return count(t);
    });
  if (refs.rest !== undefined && typeof refs.rest !== 'string') throw new RequestBlocksError('its prompt\'s remainder is not text');
  const prompt = texts('prompt').join('') + count(refs.rest ?? '');
  const context = { P0: texts('P0'), P2: texts('P2'), P1: texts('P1') };
  return { typeName: rest.typeName, prompt, ...rest, context };
}

/** The request of a journaled intent, reassembled; on a damaged store, the request as stored with the reason beside it. */
export function reassembledOrNote(request: unknown, lookup: BlockLookup): unknown {
  try {
    return reassembleRequest(request, lookup);
  } catch (e) {
    if (!(e instanceof RequestBlocksError)) throw e;
    return { ...(request as Record<string, unknown>), unreadable: `the request cannot be reassembled: ${e.message}` };
  }
}
