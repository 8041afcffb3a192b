// The pieces under std/media: the sniffer (magic bytes, never the name), the size reader of each
// image format, and the token estimates against the worked examples the providers publish.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sniff, mimeOfName } from '../../runtime/media/sniff.js';
import { imageSize, mediaTokens, mediaTokensAtMost, pdfPages } from '../../runtime/media/tokens.js';
import { makeMedia } from '../../runtime/media/make.js';
import { MediaVal } from '../../runtime/values/index.js';
import { gif, jpeg, pdf, png, webp } from './fixtures.js';

const image = (bytes: Buffer) => makeMedia(bytes, 'test', { maxBytes: 1 << 20 });

test('sniff: each format by its magic bytes; anything else is none of them; names only declare', () => {
  assert.equal(sniff(png(1, 1))?.mime, 'image/png');
  assert.equal(sniff(jpeg(1, 1))?.mime, 'image/jpeg');
  assert.equal(sniff(gif(1, 1))?.mime, 'image/gif');
  assert.equal(sniff(webp(1, 1))?.mime, 'image/webp');
  assert.deepEqual(sniff(pdf()), { mime: 'application/pdf', kind: 'document' });
  assert.equal(sniff(Buffer.from('RIFF....WAVEfmt ')), undefined, 'a RIFF that is not WebP');
  assert.equal(sniff(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')), undefined);
  assert.equal(sniff(Buffer.from([0x89, 0x50])), undefined, 'a truncated signature');
  assert.equal(mimeOfName('a/b.JPG'), 'image/jpeg');
  assert.equal(mimeOfName('a.d/readme'), undefined);
});

test('image sizes: PNG, GIF, JPEG (past an APP0 segment), WebP', () => {
  assert.deepEqual(imageSize(png(640, 480)), { width: 640, height: 480 });
  assert.deepEqual(imageSize(gif(31, 17)), { width: 31, height: 17 });
  assert.deepEqual(imageSize(jpeg(1920, 1080)), { width: 1920, height: 1080 });
  assert.deepEqual(imageSize(webp(300, 200)), { width: 300, height: 200 });
  // a hostile JPEG whose segment length is 0 ends the walk instead of looping
  assert.equal(imageSize(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x00, 0, 0, 0, 0, 0, 0, 0, 0])), undefined);
});

test('estimates: OpenAI tiles, Anthropic pixels/750, Gemini 258 per tile — the providers\' own worked examples', () => {
  // OpenAI: 1024×1024 at detail high → 765; 2048×4096 → 1105
  assert.equal(mediaTokens(image(png(1024, 1024)), 'openai'), 765);
  assert.equal(mediaTokens(image(gif(2048, 4096)), 'openai'), 1105);
  // Anthropic: 1000×1000 → about 1334; 200×200 → about 54
  assert.equal(mediaTokens(image(gif(1000, 1000)), 'anthropic'), 1334);
  assert.equal(mediaTokens(image(gif(200, 200)), 'anthropic'), 54);
  // Gemini: within 384×384 → 258; larger → 258 per 768×768 tile
  assert.equal(mediaTokens(image(gif(300, 300)), 'gemini'), 258);
  assert.equal(mediaTokens(image(gif(1000, 1000)), 'gemini'), 1032);
  // a PDF: per page, its /Type /Page objects (not /Pages)
  assert.equal(pdfPages(pdf(3)), 3);
  assert.equal(mediaTokens(image(pdf(3)), 'anthropic'), 4500);
  assert.equal(mediaTokens(image(pdf(3)), 'gemini'), 774);
  // a budget before the call counts the largest estimate
  assert.equal(mediaTokensAtMost([image(gif(1000, 1000))]), 1334);
  // a value restored without its bytes is estimated as a 1024×1024 image
  assert.equal(mediaTokens(new MediaVal('image', 'image/png', 10, 'ab'.repeat(32)), 'openai'), 765);
});
