// The type of a media value comes from its first bytes, never from what a caller or a file name
// says: a declared type (a file's extension, a `mime` option, the MIME type given with base64
// data) is only checked against what the bytes are, and a mismatch is refused.

export type MediaKind = 'image' | 'document';

export interface Sniffed {
  mime: string;
  kind: MediaKind;
}

/** The formats a media value may hold: what every provider that takes media takes. */
export const MEDIA_TYPES: readonly Sniffed[] = [
  { mime: 'image/png', kind: 'image' },
  { mime: 'image/jpeg', kind: 'image' },
  { mime: 'image/gif', kind: 'image' },
  { mime: 'image/webp', kind: 'image' },
  { mime: 'application/pdf', kind: 'document' },
];

const EXTENSIONS: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
};

const startsWith = (b: Uint8Array, sig: readonly number[], at = 0): boolean => b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
const ascii = (s: string): number[] => [...s].map((c) => c.charCodeAt(0));

/** The format of `bytes` by its magic number, or undefined for none of MEDIA_TYPES. */
export function sniff(bytes: Uint8Array): Sniffed | undefined {
  let mime: string | undefined;
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) mime = 'image/png';
  else if (startsWith(bytes, [0xff, 0xd8, 0xff])) mime = 'image/jpeg';
  else if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) mime = 'image/gif';
  else if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) mime = 'image/webp';
  else if (startsWith(bytes, ascii('%PDF-'))) mime = 'application/pdf';
  return MEDIA_TYPES.find((t) => t.mime === mime);
}

/** The MIME type a file name's extension declares (undefined for an extension that declares none of ours). */
export function mimeOfName(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  if (dot < 0 || dot < name.lastIndexOf('/')) return undefined;
  const ext = name.slice(dot + 1).toLowerCase();
  return Object.hasOwn(EXTENSIONS, ext) ? EXTENSIONS[ext] : undefined;
}

/** `image/jpg` is what people write for `image/jpeg`; parameters (`; charset=…`) and case do not count. */
export function normalMime(mime: string): string {
  const m = mime.split(';')[0].trim().toLowerCase();
  return m === 'image/jpg' ? 'image/jpeg' : m;
}
