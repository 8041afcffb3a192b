// `turn test --record` / `--update` never lose a recording (issue 25): a test cut short by its
// time limit while it waits on a slow model keeps its committed recording (before, it was replaced
// by `"exchanges": []`), the message names the call it was waiting on, and a plain `turn test`
// afterwards still replays. A whole live run does replace it.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, after } from 'node:test';
import { slowServer, type SlowServer } from '../providers/slow-server.js';
import { tempDir, turnAsync } from './helpers.js';

const servers: SlowServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const TEST_FILE = 'struct Answer { n: Num };\nreturn {\n    "asks": turn() {\n        let a = infer Answer { "How many legs has a cat?"; };\n        call("assert_eq", a.n, 4);\n    },\n};\n';

async function recordOnce(dir: string): Promise<string> {
  const good = await slowServer(() => ({ stream: '{"value": {"n": 4}, "confidence": 0.8}' }));
  servers.push(good);
  const r = await turnAsync(['test', '--record', '--model', `openai:m?base_url=${encodeURIComponent(good.url)}&retries=0`], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  const file = path.join(dir, 'ask_test.cassette.json');
  const text = fs.readFileSync(file, 'utf8');
  assert.equal((JSON.parse(text) as { tests: Record<string, { exchanges: unknown[] }> }).tests.asks.exchanges.length, 1);
  return text;
}

test('--record against a model slower than the test time limit keeps the recording, says which call it waited on, and replay still passes', async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'ask_test.tn'), TEST_FILE);
  const before = await recordOnce(dir);
  // a model that streams slowly (the test's limit of 1 s comes first)
  const slow = await slowServer(() => ({ stream: '{"value": {"n": 4}, "confidence": 0.8}', piece: 1, everyMs: 200 }));
  servers.push(slow);
  const r = await turnAsync(['test', '--record', '--max-time', '1', '--model', `openai:m?base_url=${encodeURIComponent(slow.url)}&retries=0`], { cwd: dir });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /the test did not finish within its limits: time budget of 1 s exhausted.*; it was waiting on infer Answer at ask_test\.tn:4:\d+ \(asked [\d.]+ s before, \d+ tokens? streamed\)/);
  assert.match(r.stdout, /kept the earlier recording \(1 exchange\): it did not finish within its limits/);
  assert.equal(fs.readFileSync(path.join(dir, 'ask_test.cassette.json'), 'utf8'), before, 'the recording is untouched');
  const replay = await turnAsync(['test'], { cwd: dir });
  assert.equal(replay.code, 0, replay.stdout + replay.stderr);
  assert.match(replay.stdout, /^1 passed, 0 failed$/m);
});

test('--update and --record do not replace a recording with one whose model call failed, nor with an empty one', async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'ask_test.tn'), TEST_FILE);
  const before = await recordOnce(dir);
  const down = await slowServer(() => ({ hang: true }));
  servers.push(down);
  const r = await turnAsync(['test', '--record', '--model', `openai:m?base_url=${encodeURIComponent(down.url)}&retries=0&first_byte_timeout_ms=300`], { cwd: dir });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /kept the earlier recording \(1 exchange\): a model call failed \(infer Answer: .*first_byte_timeout_ms/);
  assert.equal(fs.readFileSync(path.join(dir, 'ask_test.cassette.json'), 'utf8'), before);
  // the test no longer asks the model: its empty run does not replace the recording either
  fs.writeFileSync(path.join(dir, 'ask_test.tn'), 'return {\n    "asks": turn() {\n        call("assert_eq", 4, 4);\n    },\n};\n');
  const empty = await turnAsync(['test', '--record'], { cwd: dir });
  assert.match(empty.stdout, /kept the earlier recording \(1 exchange\): it made no model exchange, and the recording has some/);
  assert.equal(fs.readFileSync(path.join(dir, 'ask_test.cassette.json'), 'utf8'), before);
  assert.deepEqual(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp')), [], 'no temporary file is left');
});
