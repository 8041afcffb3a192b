// A cache of `parseSource` results on disk, for the CLI's `turn run` (issue 29, docs/performance.md,
// *Cold start, fourth pass*): a hello run spent about a fifth of its time over Node's own start in
// web-tree-sitter (compiling its WebAssembly and the grammar, the first parse) and the lowering; a run
// of a file that has not changed since the last run reads the lowered AST instead, and never loads
// the grammar.
//
// A parse is a pure function of the file's text, its path (kept in the SourceFile) and the code
// that parses and lowers it. So an entry holds the tag it was written under (the format, the Turn
// version, the semantics version and the build id of the bundle, which changes with any change to
// the grammar or the lowering), the path and the whole text, and is used only when all three equal
// those of this parse: a hash only names the file. One entry per source path (a changed file
// replaces its entry). The payload is checked by its length and an FNV-1a checksum before it is
// deserialized, and anything unreadable, truncated, damaged or from another build is ignored and
// replaced: a cache entry is never trusted over a parse.
//
// The folder is kept to `maxEntries` (a run of a file in a fresh temporary folder is a new path
// each time): each write (a miss, which has just parsed) lists the folder, and once it holds more
// than that the entries written or used longest ago are removed until a quarter of the room is free
// again, so reading every entry's time is rare. A hit on an entry older than a day renews its time,
// so an unchanged file that is run often stays.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import { writeFileAtomic } from '../fs-atomic.js';
import type { Diagnostic } from '../diagnostics.js';
import type { Program } from './ast.js';
import { parseSource, type ParseResult } from './parse.js';
import { SourceFile } from './source.js';

const MAGIC = 'turn-parse-cache 1';

export interface ParseCache {
  /** the folder of the entries */
  dir: string;
  /** what the entries must have been written under: the build, the Turn and semantics versions */
  tag: string;
  /** entries kept in the folder (default DEFAULT_MAX_ENTRIES) */
  maxEntries?: number;
}

export const DEFAULT_MAX_ENTRIES = 1000;
const RENEW_AFTER_MS = 24 * 3600 * 1000;
const ENTRY_NAME = /^[0-9a-f]{8}\.bin$/;

let active: ParseCache | undefined;

/** Makes `cachedParse` use `cache` (undefined: parse every time, the default). */
export function useParseCache(cache: ParseCache | undefined): void {
  active = cache;
}

/** FNV-1a, 32 bits, over bytes or a string's UTF-16 units. */
function fnv(data: Uint8Array | string): number {
  let h = 0x811c9dc5;
  if (typeof data === 'string') {
    for (let i = 0; i < data.length; i++) h = Math.imul(h ^ data.charCodeAt(i), 0x01000193);
  } else {
    for (let i = 0; i < data.length; i++) h = Math.imul(h ^ data[i], 0x01000193);
  }
  return h >>> 0;
}

/** The entry's file for the source at `filePath`. */
export function parseCacheFile(cache: ParseCache, filePath: string): string {
  return path.join(cache.dir, `${fnv(path.resolve(filePath)).toString(16).padStart(8, '0')}.bin`);
}

interface Entry {
  tag: string;
  path: string;
  text: string;
  program: Program;
  diagnostics: Diagnostic[];
}

/** The entry in `bytes` when it is whole and was written for this tag, path and text. */
function decode(bytes: Buffer, cache: ParseCache, filePath: string, text: string): Entry | undefined {
  const nl = bytes.indexOf(10);
  if (nl < 0) return undefined;
  const [magic, length, sum] = bytes.toString('latin1', 0, nl).split(' | ');
  const payload = bytes.subarray(nl + 1);
  if (magic !== MAGIC || Number(length) !== payload.length || Number(sum) !== fnv(payload)) return undefined;
  const entry = v8.deserialize(payload) as Entry;
  if (entry.tag !== cache.tag || entry.path !== filePath || entry.text !== text) return undefined;
  return entry;
}

function read(cache: ParseCache, filePath: string, text: string): ParseResult | undefined {
  try {
    const file = parseCacheFile(cache, filePath);
    const entry = decode(fs.readFileSync(file), cache, filePath, text);
    if (!entry) return undefined;
    renew(file);
    return { program: entry.program, diagnostics: entry.diagnostics, file: new SourceFile(filePath, text) };
  } catch {
    return undefined; // no entry, or one that does not deserialize
  }
}

/** The bytes of an entry: a header line (format, payload length, checksum), then the payload. */
export function encodeParseEntry(cache: ParseCache, filePath: string, text: string, result: Pick<ParseResult, 'program' | 'diagnostics'>): Buffer {
  const entry: Entry = { tag: cache.tag, path: filePath, text, program: result.program, diagnostics: result.diagnostics };
  const payload = v8.serialize(entry);
  return Buffer.concat([Buffer.from(`${MAGIC} | ${payload.length} | ${fnv(payload)}\n`, 'latin1'), payload]);
}

function write(cache: ParseCache, filePath: string, text: string, result: ParseResult): void {
  const file = parseCacheFile(cache, filePath);
  try {
    const bytes = encodeParseEntry(cache, filePath, text, result);
    fs.mkdirSync(cache.dir, { recursive: true });
    writeFileAtomic(file, bytes);
    prune(cache);
  } catch {
    // best-effort: a read-only or full folder only means the next run parses again
  }
}

/** A used entry's time is set to now once it is a day old: the pruning keeps what is in use. */
function renew(file: string): void {
  try {
    const now = Date.now();
    if (now - fs.statSync(file).mtimeMs > RENEW_AFTER_MS) fs.utimesSync(file, now / 1000, now / 1000);
  } catch {
    // best-effort, like every write of the cache
  }
}

/** Past `maxEntries`, removes the entries written or used longest ago, down to three quarters of it. */
export function prune(cache: ParseCache): void {
  const max = cache.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const names = fs.readdirSync(cache.dir).filter((n) => ENTRY_NAME.test(n));
  if (names.length <= max) return;
  const aged: { file: string; at: number }[] = [];
  for (const name of names) {
    const file = path.join(cache.dir, name);
    try {
      aged.push({ file, at: fs.statSync(file).mtimeMs });
    } catch {
      // removed by another run meanwhile
    }
  }
  aged.sort((a, b) => a.at - b.at);
  const keep = Math.floor((max * 3) / 4);
  for (const { file } of aged.slice(0, Math.max(0, aged.length - keep))) fs.rmSync(file, { force: true });
}

/** `parseSource`, through the cache set by `useParseCache` when there is one. */
export async function cachedParse(filePath: string, text: string): Promise<ParseResult> {
  const cache = active;
  if (!cache) return parseSource(filePath, text);
  const hit = read(cache, filePath, text);
  if (hit) return hit;
  const result = await parseSource(filePath, text);
  write(cache, filePath, text, result);
  return result;
}
