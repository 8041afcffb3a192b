// How a generated module writes a large constant (a reply schema, its name table): JSON text as
// base64 (a Turn string of JSON is mostly escapes, slow to parse), and when it is large, gzipped
// first — GitHub's schema gives 278 operations whose reply schemas are 8 MB of base64 and much the
// same text, which would make the module too large to load (4 MiB). Reading one back is bounded: a
// constant that inflates past MAX_UNPACKED is refused, never a memory blow-up.
import type * as Zlib from 'node:zlib';

let zlibModule: typeof Zlib | undefined;
/** node:zlib, required on first use: it is not in Node's start-up snapshot, and most runs absorb no packed module. */
function zlib(): typeof Zlib {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (zlibModule ??= require('node:zlib') as typeof Zlib);
}

const BASE64 = 'base64:';
const GZIP64 = 'gzip64:';
/** JSON shorter than this is only base64'd (small constants stay readable in a diff of the module). */
const GZIP_FROM = 2048;
const MAX_UNPACKED = 64 * 1024 * 1024;

export function packJson(json: string): string {
  if (json.length < GZIP_FROM) return BASE64 + Buffer.from(json, 'utf8').toString('base64');
  return GZIP64 + zlib().gzipSync(Buffer.from(json, 'utf8'), { level: 9 }).toString('base64');
}

/** The JSON text of a packed constant (or `text` itself when it is not packed). Throws a plain Error when it cannot be read. */
export function unpackJson(text: string): string {
  if (text.startsWith(BASE64)) return Buffer.from(text.slice(BASE64.length), 'base64').toString('utf8');
  if (!text.startsWith(GZIP64)) return text;
  try {
    return zlib().gunzipSync(Buffer.from(text.slice(GZIP64.length), 'base64'), { maxOutputLength: MAX_UNPACKED }).toString('utf8');
  } catch (e) {
    throw new Error(`a packed constant cannot be read (${(e as Error).message})`);
  }
}
