// Media in a context tier: sent while an entry holding its label is in a tier, not once it is
// evicted; text that only looks like a label attaches nothing; a budget counts the image's tokens.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { startRun } from '../../runtime/index.js';
import { mock, okJson, runWith } from '../infer/helpers.js';
import { png } from './fixtures.js';

const IMG = png(2, 2);
const HASH = createHash('sha256').update(IMG).digest('hex');
const MAKE = `let img = call("media_base64", "${IMG.toString('base64')}", "image/png", "image", null);\n`;

test('context.append(img) sends it with the next infer; context.system too; each once', async () => {
  const r = await runWith(`${MAKE}context.system(img);\ncontext.append(["again:", img]);\nlet a = infer Str { "What is it?"; };\nreturn 1;`, mock());
  okJson(r);
  assert.deepEqual(r.requests[0].media?.map((m) => m.sha256), [HASH]);
  assert.equal(r.requests[0].tiers.system[0], `<image image/png ${IMG.length} B sha256:${HASH}>`);
});

test('two media values of the same bytes are equal (content, not identity); other bytes are not', async () => {
  const other = png(3, 3, [0, 255, 0]).toString('base64');
  const r = await runWith(`${MAKE}let again = call("media_base64", "${IMG.toString('base64')}", "image/png", "image", null);\nlet green = call("media_base64", "${other}", "image/png", "image", null);\nreturn [img == again, img == green, img != green];`, mock());
  assert.deepEqual(okJson(r), [true, false, true]);
});

test('an evicted entry takes its image with it: it is no longer sent', async () => {
  const filler = 'word '.repeat(60);
  const r = await runWith(`${MAKE}context.append(img);\nlet a = infer Str { "first"; };\ncontext.append("${filler}");\ncontext.append("${filler}");\nlet b = infer Str { "second"; };\nreturn 1;`, mock(), { context: { working: 80, episodic: 80 } });
  okJson(r);
  assert.equal(r.requests[0].media?.length, 1, 'sent while its entry is in a tier');
  assert.ok(!r.requests[1].tiers.working.concat(r.requests[1].tiers.episodic).some((e) => e.includes(HASH)), 'the entry was dropped');
  assert.equal(r.requests[1].media, undefined, 'and the image with it');
});

test('attack: text that looks like a label (a model could write one) attaches nothing; only the value placed is sent', async () => {
  const other = png(3, 3, [0, 255, 0]);
  const forged = `<image image/png ${other.length} B sha256:${createHash('sha256').update(other).digest('hex')}>`;
  const r = await runWith(`${MAKE}context.append(img);\ncontext.append("${forged}");\nlet a = infer Str { ["look:", "${forged}"]; };\nreturn 1;`, mock());
  okJson(r);
  assert.deepEqual(r.requests[0].media?.map((m) => m.sha256), [HASH], 'the placed image only, not the one the text names');
  // a map shaped like a media value's JSON is a map, not a media value
  const m = await runWith(`${MAKE}let fake = {"media": "image", "mime": "image/png", "size": 73, "sha256": "${'0'.repeat(64)}"};\ncontext.append(fake);\nlet a = infer Str { [img, fake]; };\nreturn [call("type_of", fake), call("type_of", img)];`, mock());
  assert.deepEqual(okJson(m), ['Map', 'Media']);
  assert.deepEqual(m.requests[0].media?.map((x) => x.sha256), [HASH]);
});

test('--max-model-tokens counts an image by its estimate: a call that fits as text is refused with the image', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-media-budget-'));
  fs.writeFileSync(path.join(dir, 'big.png'), png(2000, 2000));
  const run = async (prompt: string) => {
    const file = path.join(dir, 'main.tn');
    fs.writeFileSync(file, `let media = use "std/media";\nlet img = media.image("big.png");\nlet s = infer Str { ${prompt}; };\nreturn 1;`);
    const r = await startRun({ file, cwd: dir, model: 'mock', fetchSchemas: false, env: { TURN_STORE_DIR: path.join(dir, '.store') }, authority: { allowRead: [dir], maxModelTokens: 1000 } });
    return r.start();
  };
  assert.equal((await run('"Describe it."')).kind, 'done', 'the text alone fits 1000 tokens');
  const withImage = await run('["Describe it:", img]');
  assert.equal(withImage.kind, 'failed');
  if (withImage.kind !== 'failed') return;
  const m = /the model token budget of 1000 cannot fit this call: its prompt is about (\d+) tokens/.exec(withImage.error.message);
  assert.ok(m, withImage.error.message);
  // 2000×2000: Anthropic's estimate (long side to 1568, then pixels / 750) is the largest, 3278
  assert.ok(Number(m[1]) >= 3278 && Number(m[1]) < 3278 + 400, m[1]);
});
