// `turn record RUN --store DIR`: a durable run's journal becomes a test's recording, which replays
// the run's model replies offline; and `turn test --record` against a real (fake, local) OpenAI-
// compatible server stores its replies, which then replay with the server gone.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { fakeServer, openaiCompletion } from '../providers/fake-server.js';
import { copyExample, tempDir, turnAsync } from './helpers.js';

test('a stored run becomes a test in one command, and replays its recorded replies', async () => {
  const dir = tempDir();
  copyExample('triage_agent', dir);
  fs.rmSync(path.join(dir, 'triage_agent_test.tn'));
  fs.rmSync(path.join(dir, 'triage_agent_test.cassette.json'));
  const run = await turnAsync(['run', 'triage_agent.tn', '--model', 'script:triage_agent.replies.json', '--store', 'st'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const id = /run (\S+) \(store/.exec(run.stderr)![1];
  const r = await turnAsync(['record', id, '--store', 'st'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`wrote triage_agent_test\\.tn with test "run ${id}"`));
  assert.match(r.stdout, /recorded 3 model exchanges/);
  const cassette = JSON.parse(fs.readFileSync(path.join(dir, 'triage_agent_test.cassette.json'), 'utf8')) as { tests: Record<string, { model: string; exchanges: unknown[] }> };
  assert.equal(cassette.tests[`run ${id}`].model, 'script:triage_agent.replies.json');
  // replayed: no model is given, and the mock would not give these replies
  const t = await turnAsync(['test'], { cwd: dir });
  assert.equal(t.code, 0, t.stdout + t.stderr);
  assert.match(t.stdout, /^1 passed, 0 failed$/m);

  // a second recording joins the same file as a new test
  const again = await turnAsync(['record', id, '--store', 'st', '--name', 'the same run'], { cwd: dir });
  assert.match(again.stdout, /added test "the same run" to triage_agent_test\.tn/);
  const source = fs.readFileSync(path.join(dir, 'triage_agent.tn'), 'utf8');
  fs.writeFileSync(path.join(dir, 'triage_agent.tn'), source.replace('Be precise and brief.', 'Be brief.'));
  // the journal keeps the context only as a hash: the diff says so, the prompt being the same
  const stale = await turnAsync(['test', '--filter', 'the same run'], { cwd: dir });
  assert.equal(stale.code, 1);
  assert.match(stale.stdout, /stale recording: the program now sends a request the recording does not hold \(infer Triage at triage_agent\.tn:22:19\)/);
  assert.match(stale.stdout, /the prompt is the same: the context, schema or feedback differ/);

  const missing = await turnAsync(['record', 'nope', '--store', 'st'], { cwd: dir });
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^turn: no run nope in the store /m);
});

test('--record stores a live model\'s replies; the recording then replays with the server gone', async () => {
  const dir = tempDir();
  fs.writeFileSync(
    path.join(dir, 'ask_test.tn'),
    'struct Answer { n: Num };\nreturn {\n    "asks": turn() {\n        context.system("Count.");\n        let a = infer Answer { "How many legs has a cat?"; };\n        call("assert_eq", a.n, 4);\n        call("assert", confidence a > 0.5);\n    },\n};\n',
  );
  const server = await fakeServer(() => ({ status: 200, body: openaiCompletion('{"value": {"n": 4}, "confidence": 0.8}', { usage: [30, 9] }) }));
  let model: string;
  try {
    model = `openai:gpt-test?base_url=${encodeURIComponent(server.url)}&retries=0`;
    const r = await turnAsync(['test', '--record', '--model', model], { cwd: dir, env: { OPENAI_API_KEY: 'sk-test' } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(server.received.length, 1);
  } finally {
    await server.close();
  }
  const cassette = JSON.parse(fs.readFileSync(path.join(dir, 'ask_test.cassette.json'), 'utf8')) as {
    tests: { asks: { model: string; exchanges: { request: { system: string[]; prompt: string }; reply: { text: string; usage: unknown } }[] } };
  };
  const x = cassette.tests.asks.exchanges[0];
  assert.deepEqual(x.request.system, ['Count.']);
  assert.equal(x.request.prompt, 'How many legs has a cat?');
  assert.equal(x.reply.text, '{"value": {"n": 4}, "confidence": 0.8}');
  assert.deepEqual(x.reply.usage, { input: 30, output: 9 });
  assert.ok(!JSON.stringify(cassette).includes('sk-test'));
  const replay = await turnAsync(['test', '--model', model], { cwd: dir });
  assert.equal(replay.code, 0, replay.stdout + replay.stderr);
});
