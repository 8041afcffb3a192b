// The host side of the panel's media thumbnails (docs/editor.md, *Images and documents in the
// panel*): the images and documents of the shown run's model requests, kept by hash as the run
// sends them (RunOptions.onMedia: the values themselves, whose bytes the VM holds anyway), and
// answered one at a time when the webview asks for one by its hash. An image crosses as base64 only
// when it is at most MAX_THUMBNAIL_BYTES; a PDF never crosses, only its description and pages.
import { pdfPages, type MediaVal } from '../../runtime/index.js';
import { DOCUMENT_MIMES, IMAGE_MIMES, MAX_THUMBNAIL_BYTES, type MediaItemView } from '../protocol/media.js';

/** At most this many items are kept per run (the oldest go first). */
export const MAX_KEPT_MEDIA = 256;

export class KeptMedia {
  private readonly items = new Map<string, MediaVal>();

  keep(media: readonly MediaVal[]): void {
    for (const m of media) {
      if (this.items.has(m.sha256)) continue;
      this.items.set(m.sha256, m);
      if (this.items.size > MAX_KEPT_MEDIA) this.items.delete(this.items.keys().next().value!);
    }
  }

  clear(): void {
    this.items.clear();
  }

  /** The item of hash `sha256` as the webview shows it, or why there is none. */
  item(sha256: string): { item: MediaItemView | null; message: string | null } {
    const m = this.items.get(sha256);
    if (!m) return { item: null, message: `sha256:${sha256.slice(0, 12)}…: not among the images and documents this panel's run sent` };
    return mediaItemView(m);
  }
}

export function mediaItemView(m: MediaVal): { item: MediaItemView | null; message: string | null } {
  const bytes = m.bytes();
  if (m.kind === 'document') {
    if (!(DOCUMENT_MIMES as readonly string[]).includes(m.mime)) return { item: null, message: `${m.mime}: not a document the panel shows` };
    return { item: { kind: 'document', mime: m.mime, size: m.size, sha256: m.sha256, pages: bytes ? pdfPages(bytes) : null, base64: null }, message: null };
  }
  if (!(IMAGE_MIMES as readonly string[]).includes(m.mime)) return { item: null, message: `${m.mime}: not an image the panel shows` };
  const small = bytes !== undefined && bytes.length <= MAX_THUMBNAIL_BYTES;
  return { item: { kind: 'image', mime: m.mime, size: m.size, sha256: m.sha256, pages: null, base64: small ? Buffer.from(bytes).toString('base64') : null }, message: null };
}
