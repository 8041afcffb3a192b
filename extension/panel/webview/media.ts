/// <reference lib="dom" />
// The images and documents of a shown attempt's prompt (docs/editor.md, *Images and documents in the
// panel*): a strip under the prompt with one tile per media label the prompt's text holds. Each tile
// asks the host for its item by hash when it is made — an attempt is drawn only when its inference is
// opened, so bytes cross only for what is shown — and the answer is kept for every later showing.
import { PROTOCOL_VERSION } from '../../protocol/panel.js';
import type { MediaReply } from '../../protocol/media.js';
import { post } from './api.js';
import { h } from './dom.js';
import { mediaLabels, mediaShown, type MediaLabel } from './media-items.js';

const answers = new Map<string, MediaReply>();
const waiting = new Map<string, Set<HTMLElement>>();

/** The strip of the media labels in `texts` (a prompt's tiers and task), or null when there are none. */
export function mediaStrip(texts: readonly string[]): HTMLElement | null {
  const labels = mediaLabels(texts.join('\n'));
  if (labels.length === 0) return null;
  return h('div', { class: 'media-strip' }, h('h5', {}, 'images and documents sent with the prompt'), ...labels.map(tile));
}

function tile(label: MediaLabel): HTMLElement {
  const el = h('figure', { class: `media-tile ${label.kind}` }, h('figcaption', { class: 'muted' }, `${label.kind} ${label.mime} ${label.size} sha256:${label.sha256.slice(0, 12)}…`));
  const known = answers.get(label.sha256);
  if (known) {
    show(el, known);
    return el;
  }
  let set = waiting.get(label.sha256);
  if (!set) {
    set = new Set();
    waiting.set(label.sha256, set);
    post({ type: 'media', v: PROTOCOL_VERSION, sha256: label.sha256 });
  }
  set.add(el);
  return el;
}

/** The host's answer: kept, and drawn in every tile that waits for it. */
export function receiveMedia(m: MediaReply): void {
  // a refusal is not kept: the run may send the item later (a later attempt, a resumed run)
  if (m.item) answers.set(m.sha256, m);
  for (const el of waiting.get(m.sha256) ?? []) show(el, m);
  waiting.delete(m.sha256);
}

function show(el: HTMLElement, m: MediaReply): void {
  if (!m.item) {
    el.replaceChildren(h('figcaption', { class: 'muted' }, m.message ?? 'not available'));
    return;
  }
  const shown = mediaShown(m.item);
  if (shown.kind === 'thumbnail') {
    el.replaceChildren(h('img', { class: 'thumbnail', src: shown.src, alt: shown.alt, title: shown.alt }), h('figcaption', { class: 'muted' }, shown.alt));
  } else if (shown.kind === 'document') {
    el.replaceChildren(h('div', { class: 'document-icon', 'aria-hidden': 'true' }, 'PDF'), h('figcaption', {}, shown.text));
  } else {
    el.replaceChildren(h('div', { class: 'media-placeholder' }, shown.text));
  }
}
