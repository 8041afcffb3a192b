// A test that puts an image in a prompt records and replays by content hash: the cassette holds
// the image's label (its full SHA-256, MIME type and size), never its bytes; a replay with a
// different image misses the recording, since the request's fingerprint covers the hash.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { createHash } from 'node:crypto';
import { tempDir, turnAsync } from '../testing/helpers.js';
import { wireFake } from '../providers/wire-fake.js';
import { png } from './fixtures.js';

const REPLY = '{"value": {"colour": "red"}, "confidence": 0.8}';
const TEST_FILE = `let media = use "std/media";
struct Seen { colour: Str };
return {
    "sees": turn() {
        let img = media.image("chart.png");
        let s = infer Seen { ["Which colour fills this image?", img]; };
        call("assert_eq", s.colour, "red");
    },
};
`;

test('a recorded image prompt: the cassette holds the hash, not the bytes; the same image replays, another misses', async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'see_test.tn'), TEST_FILE);
  const red = png(8, 8, [255, 0, 0]);
  fs.writeFileSync(path.join(dir, 'chart.png'), red);
  const server = await wireFake(() => ({ body: { id: 'c1', object: 'chat.completion', model: 'gpt-test', choices: [{ index: 0, message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' }], usage: { prompt_tokens: 120, completion_tokens: 9 } } }));
  const model = `openai:gpt-test?stream=0&retries=0&base_url=${encodeURIComponent(server.url + '/v1')}`;
  try {
    const r = await turnAsync(['test', '--record', '--model', model, '--allow-read', dir], { cwd: dir, env: { OPENAI_API_KEY: 'sk-media-cassette-1' } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(server.received.length, 1);
    const parts = (server.received[0].json.messages as { role: string; content: { type: string; image_url?: { url: string } }[] }[])[0].content;
    assert.equal(parts[0].image_url?.url, `data:image/png;base64,${red.toString('base64')}`, 'the model got the bytes');
  } finally {
    await server.close();
  }
  const text = fs.readFileSync(path.join(dir, 'see_test.cassette.json'), 'utf8');
  const hash = createHash('sha256').update(red).digest('hex');
  assert.ok(text.includes(`<image image/png ${red.length} B sha256:${hash}>`), 'the cassette names the image by its hash');
  assert.ok(!text.includes(red.toString('base64').slice(0, 40)), 'the cassette holds no bytes of the image');

  const replay = await turnAsync(['test', '--allow-read', dir], { cwd: dir });
  assert.equal(replay.code, 0, replay.stdout + replay.stderr);
  assert.match(replay.stdout, /^1 passed, 0 failed$/m);

  fs.writeFileSync(path.join(dir, 'chart.png'), png(8, 8, [0, 0, 255])); // same size and type, other pixels
  const other = await turnAsync(['test', '--allow-read', dir], { cwd: dir });
  assert.notEqual(other.code, 0, 'a different image is not answered from the recording');
  assert.match(other.stdout, /stale recording: the program now sends a request the recording does not hold/);
  const blue = createHash('sha256').update(fs.readFileSync(path.join(dir, 'chart.png'))).digest('hex');
  assert.match(other.stdout, new RegExp(`-\\s+<image image/png ${red.length} B sha256:${hash}>`), 'the diff shows the recorded image');
  assert.match(other.stdout, new RegExp(`\\+\\s+<image image/png \\d+ B sha256:${blue}>`), 'and the one sent now');
  assert.match(other.stdout, /0 passed, 1 failed/);
});
