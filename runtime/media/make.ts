// Making a media value from bytes the host holds: bounded in bytes, typed by its magic number,
// checked against what the caller declared (runtime/media/sniff.ts). Every refusal says what was
// expected and what the bytes are; the VM locates it at the program's call (file:line).
import { sha256Hex } from '../hash.js';
import { MediaVal, sizeText } from '../values/index.js';
import { normalMime, sniff, type MediaKind, MEDIA_TYPES } from './sniff.js';

/** The most bytes of one media value unless the program says otherwise (`max_bytes`). */
export const DEFAULT_MEDIA_BYTES = 5 * 1024 * 1024;
/** The most `max_bytes` may raise it to: above every provider's own per-file limit. */
export const MAX_MEDIA_BYTES = 32 * 1024 * 1024;

export class MediaError extends Error {}

export interface MediaOptions {
  /** the most bytes accepted (default DEFAULT_MEDIA_BYTES) */
  maxBytes: number;
  /** what the caller asked for: `image` (media.image) or `document` (media.file takes either) */
  kind?: MediaKind;
  /** the MIME type the caller, the file name or the server declared, and who declared it */
  declared?: { mime: string; by: string };
}

/** Reads the `{"max_bytes": N, "mime": "..."}` options map of a std/media function. */
export function mediaOptions(tool: string, o: unknown): { maxBytes: number; mime?: string } {
  if (o === null || o === undefined) return { maxBytes: DEFAULT_MEDIA_BYTES };
  if (typeof o !== 'object' || Array.isArray(o)) throw new MediaError(`${tool}: options must be a map like {"max_bytes": 1048576, "mime": "image/png"}`);
  const m = o as Record<string, unknown>;
  for (const k of Object.keys(m)) {
    if (k !== 'max_bytes' && k !== 'mime') throw new MediaError(`${tool}: unknown option "${k}" (it takes max_bytes and mime)`);
  }
  let maxBytes = DEFAULT_MEDIA_BYTES;
  if (m.max_bytes !== undefined && m.max_bytes !== null) {
    const n = m.max_bytes;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > MAX_MEDIA_BYTES) throw new MediaError(`${tool}: max_bytes must be a whole number from 1 to ${MAX_MEDIA_BYTES}`);
    maxBytes = n;
  }
  if (m.mime !== undefined && m.mime !== null && typeof m.mime !== 'string') throw new MediaError(`${tool}: mime must be a Str`);
  return typeof m.mime === 'string' ? { maxBytes, mime: m.mime } : { maxBytes };
}

/** A media value of `bytes`, or a MediaError saying why not. `what` names the source in messages. */
export function makeMedia(bytes: Uint8Array, what: string, o: MediaOptions): MediaVal {
  if (bytes.length > o.maxBytes) throw new MediaError(`${what} is ${sizeText(bytes.length)}, more than the limit of ${o.maxBytes} bytes (raise it with the max_bytes option)`);
  if (bytes.length === 0) throw new MediaError(`${what} is empty`);
  const found = sniff(bytes);
  if (!found) {
    const known = MEDIA_TYPES.map((t) => t.mime).join(', ');
    throw new MediaError(`${what} is not an image or document Turn can send: its first bytes are none of ${known}`);
  }
  if (o.declared) {
    const declared = normalMime(o.declared.mime);
    if (declared !== found.mime) throw new MediaError(`${what} is declared ${declared} (by ${o.declared.by}) but its bytes are ${found.mime}; refused`);
  }
  if (o.kind === 'image' && found.kind !== 'image') throw new MediaError(`${what} is ${found.mime}, not an image: use media.file for a document`);
  const sha256 = sha256Hex(bytes);
  return new MediaVal(found.kind, found.mime, bytes.length, sha256, Uint8Array.from(bytes));
}
