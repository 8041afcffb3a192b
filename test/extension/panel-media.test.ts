// The run panel's images and documents (docs/editor.md, *Images and documents in the panel*): the
// media labels found in a prompt's text (webview/media-items.ts, no DOM), what a tile draws for an
// item, the request/answer messages by hash with hostile answers dropped (protocol/media.ts), the
// host's items (panel/media.ts: bytes only for a small image), the content security policy that
// lets exactly data: images in, and a run handing its prompt's media to the panel (RunOptions.onMedia).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { mediaLabels, mediaShown, MAX_LABELS } from '../../extension/panel/webview/media-items.js';
import { isHostMessage, isWebviewMessage } from '../../extension/protocol/panel.js';
import { MAX_THUMBNAIL_BYTES, type MediaItemView } from '../../extension/protocol/media.js';
import { KeptMedia, MAX_KEPT_MEDIA, mediaItemView } from '../../extension/panel/media.js';
import { panelHtml } from '../../extension/panel/html.js';
import { makeMedia } from '../../runtime/media/make.js';
import { startRun } from '../../runtime/run/index.js';
import type { MediaVal } from '../../runtime/values/index.js';
import type { RunEvent } from '../../runtime/events/index.js';
import { pdf, png } from '../media/fixtures.js';

const image = (bytes: Uint8Array): MediaVal => makeMedia(bytes, 'test', { maxBytes: 32 * 1024 * 1024 });

describe('media labels in a prompt', () => {
  test('each label the runtime writes is found once, with its kind, type, size and full hash', () => {
    const a = image(png(2, 2));
    const d = image(pdf(2));
    const text = `Describe:\n${a.promptLabel()}\nand ${d.promptLabel()} then ${a.promptLabel()} again`;
    assert.deepEqual(mediaLabels(text), [
      { kind: 'image', mime: 'image/png', size: `${a.size} B`, sha256: a.sha256 },
      { kind: 'document', mime: 'application/pdf', size: `${d.size} B`, sha256: d.sha256 },
    ]);
  });

  test('text that only looks like a label is not one; a hostile prompt is read in one pass and bounded', () => {
    const h = 'a'.repeat(64);
    assert.deepEqual(mediaLabels(`<image image/png 3 B sha256:${h.slice(1)}> <video video/mp4 3 B sha256:${h}> <image image/png 3 B sha256:${h.toUpperCase()}> <image image/png 3 B md5:${h}>`), []);
    assert.deepEqual(mediaLabels('<'.repeat(200_000) + '>'), []);
    const many = Array.from({ length: 100 }, (_, i) => `<image image/png 3 B sha256:${i.toString(16).padStart(64, '0')}>`).join(' ');
    assert.equal(mediaLabels(many).length, MAX_LABELS);
  });
});

describe('what a tile draws', () => {
  const sha256 = 'b'.repeat(64);
  test('a small image as a data: URL, a large one as a placeholder with size and hash, a PDF as an icon with its pages', () => {
    const small: MediaItemView = { kind: 'image', mime: 'image/png', size: 3, sha256, pages: null, base64: 'AAAA' };
    assert.deepEqual(mediaShown(small), { kind: 'thumbnail', src: 'data:image/png;base64,AAAA', alt: 'image/png 3 B sha256:bbbbbbbbbbbb…' });
    assert.deepEqual(mediaShown({ ...small, size: 3 * 1024 * 1024, base64: null }), { kind: 'placeholder', text: 'image/png 3.0 MB sha256:bbbbbbbbbbbb… (too large to show here)' });
    assert.deepEqual(mediaShown({ kind: 'document', mime: 'application/pdf', size: 2048, sha256, pages: 2, base64: null }), { kind: 'document', text: 'PDF, 2 pages, 2.0 KB, sha256:bbbbbbbbbbbb…' });
  });
});

describe('the messages for a media item', () => {
  const sha256 = 'c'.repeat(64);
  const item: MediaItemView = { kind: 'image', mime: 'image/png', size: 3, sha256, pages: null, base64: 'AAAA' };
  test('the webview asks by a full hash only', () => {
    assert.equal(isWebviewMessage({ type: 'media', v: 1, sha256 }), true);
    for (const bad of ['c'.repeat(63), 'C'.repeat(64), `${'c'.repeat(62)}/.`, 7]) assert.equal(isWebviewMessage({ type: 'media', v: 1, sha256: bad }), false, String(bad));
  });

  test('an answer that could carry more than a small image of a known type is dropped', () => {
    const ok = { type: 'media', v: 1, sha256, item, message: null };
    assert.equal(isHostMessage(ok), true);
    assert.equal(isHostMessage({ ...ok, item: null, message: 'not sent by this run' }), true);
    const bad: [string, unknown][] = [
      ['another hash', { ...item, sha256: 'd'.repeat(64) }],
      ['an SVG (it can hold script)', { ...item, mime: 'image/svg+xml' }],
      ['a quote in the base64 (breaking out of the URL)', { ...item, base64: 'AA"A' }],
      ['base64 of more than the bound', { ...item, size: MAX_THUMBNAIL_BYTES, base64: 'A'.repeat(Math.ceil(MAX_THUMBNAIL_BYTES / 3) * 4 + 4) }],
      ['bytes of an image above the bound', { ...item, size: MAX_THUMBNAIL_BYTES + 1 }],
      ['a document with bytes', { kind: 'document', mime: 'application/pdf', size: 3, sha256, pages: 1, base64: 'AAAA' }],
      ['a document of another type', { kind: 'document', mime: 'text/html', size: 3, sha256, pages: 1, base64: null }],
    ];
    for (const [what, bodge] of bad) assert.equal(isHostMessage({ ...ok, item: bodge }), false, what);
  });
});

describe('the host\'s items', () => {
  test('a small image crosses as its bytes; a large one and a PDF as their description only', () => {
    const small = image(png(4, 4));
    const view = mediaItemView(small).item!;
    assert.equal(view.kind, 'image');
    assert.deepEqual(Buffer.from(view.base64!, 'base64'), Buffer.from(small.bytes()!));
    assert.ok(isHostMessage({ type: 'media', v: 1, sha256: small.sha256, item: view, message: null }));
    const large = image(Buffer.concat([png(4, 4), Buffer.alloc(MAX_THUMBNAIL_BYTES)]));
    assert.deepEqual({ ...mediaItemView(large).item!, sha256: '' }, { kind: 'image', mime: 'image/png', size: large.size, sha256: '', pages: null, base64: null });
    const doc = mediaItemView(image(pdf(3))).item!;
    assert.deepEqual({ kind: doc.kind, pages: doc.pages, base64: doc.base64 }, { kind: 'document', pages: 3, base64: null });
  });

  test('only what the run sent is answered, and at most MAX_KEPT_MEDIA items are kept', () => {
    const kept = new KeptMedia();
    const first = image(png(1, 1));
    kept.keep([first]);
    assert.equal(kept.item(first.sha256).item!.sha256, first.sha256);
    assert.match(kept.item('e'.repeat(64)).message!, /not among the images and documents this panel's run sent/);
    kept.keep(Array.from({ length: MAX_KEPT_MEDIA }, (_, i) => image(png(1, 1, [i % 256, Math.floor(i / 256), 7]))));
    assert.equal(kept.item(first.sha256).item, null, 'the oldest went first');
  });

  test('the panel\'s CSP lets images in only as data: URLs', () => {
    const csp = /content="([^"]+)"/.exec(panelHtml('vscode-resource:', 'vscode-resource:/panel.js', 'vscode-resource:/panel.css', 'N'))![1];
    const img = csp.split('; ').filter((d) => d.startsWith('img-src'));
    assert.deepEqual(img, ['img-src data:']);
  });
});

test('a run hands its prompt\'s media to the panel, bytes included, and the prompt\'s label names it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-panel-media-'));
  const bytes = png(3, 3);
  fs.writeFileSync(path.join(dir, 'see.tn'), `let media = use "std/media";\nlet img = media.base64("${bytes.toString('base64')}", "image/png");\nlet s = infer Str { ["Describe:", img]; };\nreturn s;\n`);
  const kept = new KeptMedia();
  const events: RunEvent[] = [];
  const run = await startRun({ file: path.join(dir, 'see.tn'), cwd: dir, model: 'mock', onMedia: (m) => kept.keep(m), onEvent: (e) => events.push(e) });
  assert.equal((await run.start()).kind, 'done');
  const request = events.find((e): e is Extract<RunEvent, { kind: 'infer.request' }> => e.kind === 'infer.request')!;
  const [label] = mediaLabels(request.prompt.task);
  assert.equal(label.mime, 'image/png');
  const { item } = kept.item(label.sha256);
  assert.deepEqual(Buffer.from(item!.base64!, 'base64'), bytes);
});
