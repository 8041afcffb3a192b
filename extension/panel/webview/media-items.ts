// What the panel shows for the images and documents of an infer's prompt (docs/editor.md, *Images
// and documents in the panel*), without a DOM so it is tested in Node: the media labels a prompt's
// text holds (found by a linear scan, never a backtracking pattern over the prompt), and for an item
// the host sent, what to draw — an image small enough as a `data:` URL, a larger one as a
// placeholder with its size and hash, a PDF as an icon with its pages, size and hash.
import { IMAGE_MIMES, type MediaItemView } from '../../protocol/media.js';

export interface MediaLabel {
  kind: 'image' | 'document';
  mime: string;
  /** as the label writes it: `73 B`, `12.3 KB` */
  size: string;
  sha256: string;
}

/** At most this many labels are read from one attempt's prompt. */
export const MAX_LABELS = 32;
const LONGEST_LABEL = 160;

/** The media labels in `text`, each hash once, in order (`<image image/png 73 B sha256:…>`). */
export function mediaLabels(text: string): MediaLabel[] {
  const out: MediaLabel[] = [];
  const seen = new Set<string>();
  let at = 0;
  // the next '>' is looked up again only once passed: a prompt of many '<' is still read in one pass
  let end = -1;
  while (out.length < MAX_LABELS) {
    const start = text.indexOf('<', at);
    if (start < 0) break;
    at = start + 1;
    if (end < start) end = text.indexOf('>', start);
    if (end < 0) break;
    if (end - start > LONGEST_LABEL) continue;
    const parsed = parseLabel(text.slice(start + 1, end));
    if (parsed && !seen.has(parsed.sha256)) {
      seen.add(parsed.sha256);
      out.push(parsed);
    }
  }
  return out;
}

function parseLabel(inner: string): MediaLabel | null {
  const words = inner.split(' ');
  if (words.length !== 5) return null;
  const [kind, mime, n, unit, hash] = words;
  if (kind !== 'image' && kind !== 'document') return null;
  if (!/^[a-z]+\/[a-z0-9.+-]+$/.test(mime) || !/^\d+(\.\d)?$/.test(n) || !['B', 'KB', 'MB'].includes(unit)) return null;
  if (!hash.startsWith('sha256:') || !/^[0-9a-f]{64}$/.test(hash.slice(7))) return null;
  return { kind, mime, size: `${n} ${unit}`, sha256: hash.slice(7) };
}

/** `512 B`, `12.3 KB`, `4.0 MB`, as the runtime writes sizes. */
export function sizeText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

export type MediaShown =
  | { kind: 'thumbnail'; src: string; alt: string }
  | { kind: 'placeholder'; text: string }
  | { kind: 'document'; text: string };

/** What to draw for an item the host sent. */
export function mediaShown(item: MediaItemView): MediaShown {
  const hash = `sha256:${item.sha256.slice(0, 12)}…`;
  if (item.kind === 'document') {
    return { kind: 'document', text: `PDF${item.pages !== null ? `, ${item.pages} page${item.pages === 1 ? '' : 's'}` : ''}, ${sizeText(item.size)}, ${hash}` };
  }
  if (item.base64 !== null && (IMAGE_MIMES as readonly string[]).includes(item.mime)) {
    return { kind: 'thumbnail', src: `data:${item.mime};base64,${item.base64}`, alt: `${item.mime} ${sizeText(item.size)} ${hash}` };
  }
  return { kind: 'placeholder', text: `${item.mime} ${sizeText(item.size)} ${hash} (too large to show here)` };
}
