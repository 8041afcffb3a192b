// A durable run journals a media value's hash, not its bytes; its resume reads the file again under
// the grant and sends the model the same bytes — or stops, if the file's content changed.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import { tempDir, turnAsync } from '../testing/helpers.js';
import { wireFake } from '../providers/wire-fake.js';
import { png } from './fixtures.js';

const PROGRAM = `let media = use "std/media";
let img = media.image("chart.png");
context.append(img);
suspend;
return infer Str { "What colour is the chart?"; };
`;
const REPLY = { id: 'c1', object: 'chat.completion', model: 'gpt-test', choices: [{ index: 0, message: { role: 'assistant', content: '{"value": "red", "confidence": 0.9}' }, finish_reason: 'stop' }], usage: { prompt_tokens: 90, completion_tokens: 9 } };

async function suspended(dir: string, model: string) {
  fs.writeFileSync(path.join(dir, 'main.tn'), PROGRAM);
  const r = await turnAsync(['run', 'main.tn', '--store', 'st', '--allow-read', dir, '--model', model], { cwd: dir, env: { OPENAI_API_KEY: 'sk-media-durable' } });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const id = /suspended: (\S+)/.exec(r.stdout + r.stderr)?.[1];
  assert.ok(id, r.stdout + r.stderr);
  return id;
}

test('a resumed run reads the image again and sends the model the bytes it journaled; the journal holds no bytes', async () => {
  const dir = tempDir();
  const red = png(6, 6, [255, 0, 0]);
  fs.writeFileSync(path.join(dir, 'chart.png'), red);
  const server = await wireFake(() => ({ body: REPLY }));
  try {
    const model = `openai:gpt-test?stream=0&retries=0&base_url=${encodeURIComponent(server.url + '/v1')}`;
    const id = await suspended(dir, model);
    const r = await turnAsync(['resume', id, '--store', 'st', '--allow-read', dir, '--model', model], { cwd: dir, env: { OPENAI_API_KEY: 'sk-media-durable' } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(server.received.length, 1);
    const parts = (server.received[0].json.messages as { content: { type: string; image_url?: { url: string }; text?: string }[] }[])[0].content;
    assert.equal(parts[0].image_url?.url, `data:image/png;base64,${red.toString('base64')}`, 'the resumed run sent the image');
    assert.ok(parts[1].text?.includes(`sha256:${createHash('sha256').update(red).digest('hex')}>`));
    const store = fs.readdirSync(path.join(dir, 'st')).map((f) => fs.readFileSync(path.join(dir, 'st', f)));
    for (const bytes of store) {
      assert.ok(!bytes.includes(red.subarray(16, 40)), 'no bytes of the image in the store');
      assert.ok(!bytes.includes(Buffer.from(red.toString('base64').slice(8, 48))), 'nor their base64');
    }
  } finally {
    await server.close();
  }
});

test('attack: an image changed between suspend and resume stops the run; the model gets nothing', async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'chart.png'), png(6, 6, [255, 0, 0]));
  const server = await wireFake(() => ({ body: REPLY }));
  try {
    const model = `openai:gpt-test?stream=0&retries=0&base_url=${encodeURIComponent(server.url + '/v1')}`;
    const id = await suspended(dir, model);
    fs.writeFileSync(path.join(dir, 'chart.png'), png(6, 6, [0, 0, 255]));
    const r = await turnAsync(['resume', id, '--store', 'st', '--allow-read', dir, '--model', model], { cwd: dir, env: { OPENAI_API_KEY: 'sk-media-durable' } });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /step 1: the media changed since the run journaled it \(sha256 [0-9a-f]{12}… then, [0-9a-f]{12}… now\)/);
    assert.equal(server.received.length, 0, 'nothing was sent');
  } finally {
    await server.close();
  }
});
