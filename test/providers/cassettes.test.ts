// `turn test --record` against each new provider's wire (a local fake in the vendor's format) stores
// the replies in the test's cassette; the recording then replays with the server gone. The
// cassette holds the request as rendered and the reply, never a credential.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { tempDir, turnAsync } from '../testing/helpers.js';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import { wireFake, type Answer } from './wire-fake.js';

const codec = new EventStreamCodec(toUtf8, fromUtf8);
const event = (type: string, payload: unknown) =>
  codec.encode({ headers: { ':message-type': { type: 'string', value: 'event' }, ':event-type': { type: 'string', value: type } }, body: fromUtf8(JSON.stringify(payload)) });

const REPLY = '{"value": {"n": 4}, "confidence": 0.8}';
const TEST_FILE = 'struct Answer { n: Num };\nreturn {\n    "asks": turn() {\n        context.system("Count.");\n        let a = infer Answer { "How many legs has a cat?"; };\n        call("assert_eq", a.n, 4);\n    },\n};\n';

interface Case {
  name: string;
  spec: (url: string) => string;
  env: Record<string, string>;
  answer: Answer;
  path: RegExp;
}

const CASES: Case[] = [
  {
    name: 'openai responses',
    spec: (url) => `openai:gpt-test?api=responses&stream=0&base_url=${encodeURIComponent(url + '/v1')}&retries=0`,
    env: { OPENAI_API_KEY: 'sk-cassette-secret-1' },
    answer: { body: { id: 'resp_1', object: 'response', status: 'completed', model: 'gpt-test', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: REPLY }] }], usage: { input_tokens: 30, output_tokens: 9 } } },
    path: /^\/v1\/responses$/,
  },
  {
    name: 'azure',
    spec: (url) => `azure:prod-4o?endpoint=${encodeURIComponent(url)}&api_version=2024-10-21&stream=0&retries=0&logprobs=0`,
    env: { AZURE_OPENAI_API_KEY: 'azure-cassette-secret-2' },
    answer: { body: { id: 'c1', object: 'chat.completion', model: 'gpt-4o', choices: [{ index: 0, message: { role: 'assistant', content: REPLY }, finish_reason: 'stop' }], usage: { prompt_tokens: 30, completion_tokens: 9 } } },
    path: /^\/openai\/deployments\/prod-4o\/chat\/completions\?api-version=2024-10-21$/,
  },
  {
    name: 'gemini',
    spec: (url) => `gemini:gemini-test?base_url=${encodeURIComponent(url)}&stream=0&retries=0`,
    env: { GEMINI_API_KEY: 'AIza-cassette-secret-3' },
    answer: { body: { candidates: [{ content: { role: 'model', parts: [{ text: REPLY }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 30, candidatesTokenCount: 9 } } },
    path: /^\/v1beta\/models\/gemini-test:generateContent$/,
  },
  {
    name: 'bedrock',
    spec: (url) => `bedrock:amazon.nova-pro-v1:0?region=us-east-1&base_url=${encodeURIComponent(url)}&stream=0&retries=0`,
    env: { AWS_ACCESS_KEY_ID: 'AKIACASSETTE0004', AWS_SECRET_ACCESS_KEY: 'cassette/secret/key/4', AWS_SESSION_TOKEN: 'cassette-session-token-4' },
    answer: { body: { output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 't', name: 'turn_reply', input: JSON.parse(REPLY) } }] } }, stopReason: 'tool_use', usage: { inputTokens: 30, outputTokens: 9, totalTokens: 39 } } },
    path: /^\/model\/amazon\.nova-pro-v1%3A0\/converse$/,
  },
  {
    // streamed: the built CLI reads AWS's binary event stream
    name: 'bedrock (ConverseStream)',
    spec: (url) => `bedrock:amazon.nova-pro-v1:0?region=us-east-1&base_url=${encodeURIComponent(url)}&retries=0`,
    env: { AWS_ACCESS_KEY_ID: 'AKIACASSETTE0005', AWS_SECRET_ACCESS_KEY: 'cassette/secret/key/5' },
    answer: {
      headers: { 'content-type': 'application/vnd.amazon.eventstream' },
      pieces: [
        event('messageStart', { role: 'assistant' }),
        event('contentBlockStart', { contentBlockIndex: 0, start: { toolUse: { toolUseId: 't', name: 'turn_reply' } } }),
        event('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: REPLY.slice(0, 12) } } }),
        event('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: REPLY.slice(12) } } }),
        event('messageStop', { stopReason: 'tool_use' }),
        event('metadata', { usage: { inputTokens: 30, outputTokens: 9 } }),
      ],
    },
    path: /^\/model\/amazon\.nova-pro-v1%3A0\/converse-stream$/,
  },
];

for (const c of CASES) {
  test(`${c.name}: turn test --record stores the reply; the recording replays with the server gone`, async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, 'ask_test.tn'), TEST_FILE);
    const server = await wireFake(() => c.answer);
    let model: string;
    try {
      model = c.spec(server.url);
      const r = await turnAsync(['test', '--record', '--model', model], { cwd: dir, env: c.env });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal(server.received.length, 1);
      assert.match(server.received[0].url, c.path);
    } finally {
      await server.close();
    }
    const text = fs.readFileSync(path.join(dir, 'ask_test.cassette.json'), 'utf8');
    const cassette = JSON.parse(text) as { tests: { asks: { exchanges: { request: { prompt: string }; reply: { text: string; usage: unknown } }[] } } };
    const x = cassette.tests.asks.exchanges[0];
    assert.equal(x.request.prompt, 'How many legs has a cat?');
    assert.deepEqual(JSON.parse(x.reply.text), JSON.parse(REPLY));
    assert.deepEqual(x.reply.usage, { input: 30, output: 9 });
    for (const secret of Object.values(c.env)) assert.ok(!text.includes(secret), 'no credential in the cassette');
    const replay = await turnAsync(['test', '--model', model], { cwd: dir });
    assert.equal(replay.code, 0, replay.stdout + replay.stderr);
    assert.match(replay.stdout, /^1 passed, 0 failed$/m);
  });
}

test('bedrock: a secret key and session token under names of the spec\'s own are redacted when the model repeats them', async () => {
  const dir = tempDir();
  const secret = 'my/own/bedrock+secret/key/77';
  const token = 'my-own-bedrock-session-token-77';
  fs.writeFileSync(path.join(dir, 'echo.tn'), 'struct Note { text: Str };\nlet n = infer Note { "Say something."; };\ncall("echo", n.text);\n');
  const echo = { value: { text: `secret ${secret} token ${token}` }, confidence: 0.9 };
  const server = await wireFake(() => ({ body: { output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 't', name: 'turn_reply', input: echo } }] } }, stopReason: 'tool_use' } }));
  try {
    const model = `bedrock:amazon.nova-pro-v1:0?region=us-east-1&base_url=${encodeURIComponent(server.url)}&stream=0&access_key_env=MY_BEDROCK_ID&secret_key_env=MY_BEDROCK_SECRET&session_token_env=MY_BEDROCK_TOKEN`;
    const r = await turnAsync(['run', 'echo.tn', '--model', model, '--trace-file', 'trace.jsonl'], { cwd: dir, env: { MY_BEDROCK_ID: 'AKIAOWNNAMES0077', MY_BEDROCK_SECRET: secret, MY_BEDROCK_TOKEN: token } });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(server.received.length, 1);
    assert.equal(server.received[0].headers['x-amz-security-token'], token, 'the token was sent');
    const trace = fs.readFileSync(path.join(dir, 'trace.jsonl'), 'utf8');
    for (const text of [r.stdout, r.stderr, trace]) {
      assert.ok(!text.includes(secret), 'the secret key is redacted');
      assert.ok(!text.includes(token), 'the session token is redacted');
    }
    assert.match(r.stdout, /secret .+ token /);
  } finally {
    await server.close();
  }
});
