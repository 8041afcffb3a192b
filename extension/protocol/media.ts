// The run panel's media messages (docs/editor.md, *Images and documents in the panel*): an image or
// a PDF placed in an infer's prompt is written into the prompt's text as its label (`<image
// image/png 73 B sha256:…64 hex>`, runtime/values MediaVal.promptLabel); the webview asks for the
// item by its hash (`media`, webview → host) only when it shows that attempt, and the host answers
// with the item — an image's bytes as base64 when it is small enough to show, else its description
// only — or why not. Bytes never ride in the run's updates. No `vscode` import and no DOM.

/** The types a thumbnail may be drawn for (what runtime/media/sniff.ts recognises). */
export const IMAGE_MIMES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export const DOCUMENT_MIMES = ['application/pdf'] as const;

/** An image above this many bytes shows as a placeholder (its size and hash), not a thumbnail. */
export const MAX_THUMBNAIL_BYTES = 1024 * 1024;

export interface MediaItemView {
  kind: 'image' | 'document';
  mime: string;
  size: number;
  sha256: string;
  /** a PDF's pages, when counted */
  pages: number | null;
  /** an image's bytes, base64, when it is at most MAX_THUMBNAIL_BYTES; else null */
  base64: string | null;
}

export interface MediaRequest {
  type: 'media';
  v: 1;
  sha256: string;
}

export interface MediaReply {
  type: 'media';
  v: 1;
  sha256: string;
  item: MediaItemView | null;
  message: string | null;
}

export const isSha256 = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);

/** Base64 text of at most `bytes` decoded bytes: only the alphabet, padded (checked without a regular expression over the whole text). */
export function isBase64Of(v: unknown, bytes: number): v is string {
  if (typeof v !== 'string' || v.length % 4 !== 0 || v.length > Math.ceil(bytes / 3) * 4) return false;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    const alpha = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47;
    if (!alpha && !(c === 61 && i >= v.length - 2)) return false;
  }
  return true;
}

export function isMediaItem(v: unknown): v is MediaItemView {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const m = v as Record<string, unknown>;
  if (!Number.isSafeInteger(m.size) || (m.size as number) < 0 || !isSha256(m.sha256)) return false;
  if (m.kind === 'image') return (IMAGE_MIMES as readonly unknown[]).includes(m.mime) && m.pages === null && (m.base64 === null || (isBase64Of(m.base64, MAX_THUMBNAIL_BYTES) && (m.size as number) <= MAX_THUMBNAIL_BYTES));
  if (m.kind === 'document') return (DOCUMENT_MIMES as readonly unknown[]).includes(m.mime) && m.base64 === null && (m.pages === null || (Number.isSafeInteger(m.pages) && (m.pages as number) >= 0));
  return false;
}

export function isMediaRequest(m: Record<string, unknown>): boolean {
  return isSha256(m.sha256);
}

export function isMediaReply(m: Record<string, unknown>): boolean {
  if (!isSha256(m.sha256)) return false;
  if (m.item === null) return typeof m.message === 'string' && m.message.length <= 4096;
  return isMediaItem(m.item) && (m.item).sha256 === m.sha256 && m.message === null;
}
