// Azure OpenAI (`azure:DEPLOYMENT`) against a local fake, side by side with the official `openai`
// SDK's AzureOpenAI client: the same URL (deployment path, api-version query), the same body for
// the same structured call, the key in `api-key` or an Entra token as a bearer; Azure's documented
// replies (its content-filter results, its streamed first chunk without choices, its errors) are
// read by both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AzureOpenAI } from 'openai';
import { createModel } from '../../runtime/run/model.js';
import { strictSchema } from '../../runtime/infer/provider-schema.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import { providerKeys } from '../../runtime/providers/index.js';
import type { InferRequest } from '../../runtime/infer/types.js';
import { MAX_JSON_DEPTH } from '../../runtime/values/index.js';
import { okJson, runWith } from '../infer/helpers.js';
import { fakesForFile, sse, type WireFake } from './wire-fake.js';

const KEY = 'azure-key-3f9d1c7a';
const TOKEN = 'eyJ0eXAiOiJKV1Qi.entra-token-77a1';
process.env.TURN_TEST_AZURE_KEY = KEY;
process.env.TURN_TEST_AZURE_TOKEN = TOKEN;
const VERSION = '2024-10-21';

const PROGRAM = `
struct Review { ok: Bool, score: Num, tags: List<Str> };
context.system("You review code.");
let v = infer Review { "Review the change."; };
return [v, confidence v];
`;
const CATCHING = `
struct Review { ok: Bool, score: Num, tags: List<Str> };
try { return infer Review { "Review the change."; }; } catch (e) { return e.message; }
`;
const GOOD = { ok: true, score: 0.5, tags: ['perf'] };
const TEXT = JSON.stringify({ value: GOOD, confidence: 0.7 });

const fake = fakesForFile();

const spec = (f: WireFake, more = '') => `azure:gpt4o-prod?endpoint=${f.url}&api_version=${VERSION}&api_key_env=TURN_TEST_AZURE_KEY&logprobs=0${more}`;

/** Azure's documented chat completion, with its content-filter results. */
function completion(content: string) {
  const filters = { hate: { filtered: false, severity: 'safe' }, self_harm: { filtered: false, severity: 'safe' }, sexual: { filtered: false, severity: 'safe' }, violence: { filtered: false, severity: 'safe' } };
  return {
    id: 'chatcmpl-azure',
    object: 'chat.completion',
    created: 1727000000,
    model: 'gpt-4o-2024-08-06',
    prompt_filter_results: [{ prompt_index: 0, content_filter_results: filters }],
    choices: [{ index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', content, refusal: null }, content_filter_results: filters }],
    usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52, prompt_tokens_details: { cached_tokens: 0 } },
    system_fingerprint: 'fp_azure',
  };
}

/** Azure's stream: a first chunk with no choices (the prompt's filter results), then deltas, usage, [DONE]. */
function chunks(content: string): string {
  const events: [undefined, unknown][] = [[undefined, { id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] }]];
  for (let i = 0; i < content.length; i += 6) {
    events.push([undefined, { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: { content: content.slice(i, i + 6) }, finish_reason: null, content_filter_results: {} }] }]);
  }
  events.push([undefined, { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }]);
  events.push([undefined, { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [], usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 } }]);
  events.push([undefined, '[DONE]']);
  return sse(events);
}

function sdkParams(q: InferRequest) {
  const { system, turns } = chatTurns(q);
  const strict = strictSchema(q.wireSchema);
  assert.ok(strict.ok);
  return {
    model: 'gpt4o-prod',
    messages: [{ role: 'system' as const, content: system }, ...turns],
    response_format: { type: 'json_schema' as const, json_schema: { name: `turn_${q.typeName}`, strict: true, schema: strict.schema } },
    max_completion_tokens: q.maxTokens,
  };
}

test('azure: the deployment URL, api-version, api-key header and body are the SDK\'s; both read the completion', async () => {
  const f = await fake(() => ({ body: completion(TEXT) }));
  const model = createModel(spec(f, '&stream=0'));
  const r = await runWith(PROGRAM, (q, io) => model.infer(q, io));
  assert.deepEqual(okJson(r), [GOOD, 0.7]);
  const sdk = new AzureOpenAI({ endpoint: f.url, apiKey: KEY, apiVersion: VERSION, deployment: 'gpt4o-prod', maxRetries: 0 });
  const theirs = await sdk.chat.completions.create(sdkParams(r.requests[0]));
  assert.equal(theirs.choices[0].message.content, TEXT);

  const [a, b] = f.received;
  assert.equal(a.url, `/openai/deployments/gpt4o-prod/chat/completions?api-version=${VERSION}`);
  assert.equal(a.url, b.url);
  assert.deepEqual(a.json, b.json, 'the same body, field for field');
  assert.equal(a.headers['api-key'], KEY);
  assert.equal(a.headers['api-key'], b.headers['api-key']);
  assert.equal(a.headers.authorization, undefined, 'the key goes only in api-key');
  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.deepEqual(reply.usage, { inputTokens: 40, outputTokens: 12, cachedTokens: 0 });
  assert.ok(!JSON.stringify(r.events).includes(KEY));
});

test('azure: an Entra ID token goes as a bearer, as the SDK\'s token provider sends it; the stream (first chunk without choices) is read by both', async () => {
  const f = await fake(() => ({ pieces: [chunks(TEXT)] }));
  const setup = createModel(spec(f, '&auth=entra&api_key_env=TURN_TEST_AZURE_TOKEN'));
  const r = await runWith(PROGRAM, (q, io) => setup.infer(q, io));
  assert.deepEqual(okJson(r), [GOOD, 0.7]);
  assert.equal(r.events.filter((e) => e.kind === 'infer.delta').map((e) => e.delta).join(''), TEXT);
  const sdk = new AzureOpenAI({ endpoint: f.url, azureADTokenProvider: async () => TOKEN, apiVersion: VERSION, deployment: 'gpt4o-prod', maxRetries: 0 });
  const stream = await sdk.chat.completions.create({ ...sdkParams(r.requests[0]), stream: true, stream_options: { include_usage: true } });
  let text = '';
  for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
  assert.equal(text, TEXT);
  const [a, b] = f.received;
  assert.equal(a.headers.authorization, `Bearer ${TOKEN}`);
  assert.equal(a.headers.authorization, b.headers.authorization);
  assert.equal(a.headers['api-key'], undefined);
  assert.deepEqual(a.json, b.json);
  assert.equal(a.json.stream, true);
  // the token is a secret the host redacts, as a key is
  assert.deepEqual(providerKeys(setup.provider, process.env), [['TURN_TEST_AZURE_TOKEN', TOKEN]]);
});

test('azure: an error (a content filter refusal) is an error in both, not retried; a missing key fails before sending', async () => {
  const err = { error: { message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.", type: null, param: 'prompt', code: 'content_filter', status: 400 } };
  const f = await fake(() => ({ status: 400, body: err }));
  const r = await runWith(CATCHING, (q, io) => createModel(spec(f, '&stream=0')).infer(q, io));
  assert.match(okJson(r) as string, /Azure OpenAI request refused: HTTP 400 from http:\/\/127\.0\.0\.1:\d+\/openai\/deployments\/gpt4o-prod\/chat\/completions\?api-version=2024-10-21: The response was filtered/);
  assert.equal(f.received.length, 1);
  const sdk = new AzureOpenAI({ endpoint: f.url, apiKey: KEY, apiVersion: VERSION, deployment: 'gpt4o-prod', maxRetries: 0 });
  await assert.rejects(sdk.chat.completions.create(sdkParams(r.requests[0])), /The response was filtered/);

  const none = await runWith(CATCHING, (q, io) => createModel(spec(f, '&api_key_env=TURN_TEST_AZURE_UNSET')).infer(q, io));
  assert.match(okJson(none) as string, /no API key: the environment variable TURN_TEST_AZURE_UNSET is not set/);
  assert.equal(f.received.length, 2, 'nothing more was sent');
});

test('azure attack: a reply over max_reply_bytes, too deep, endless, a malformed chunk; the spec is checked', async () => {
  const big = await fake(() => ({ body: completion('y'.repeat(10_000)) }));
  const r1 = await runWith(CATCHING, (q, io) => createModel(spec(big, '&stream=0&max_reply_bytes=2048')).infer(q, io));
  assert.match(okJson(r1) as string, /refused the reply: it is over 2048 bytes \(max_reply_bytes\) from http:\/\/127\.0\.0\.1:\d+\/openai\/deployments\//);
  const deep = '['.repeat(MAX_JSON_DEPTH + 5) + ']'.repeat(MAX_JSON_DEPTH + 5);
  const nested = await fake(() => ({ body: completion(`{"value": {"ok": true, "score": 1, "tags": ${deep}}, "confidence": 1}`) }));
  const rd = await runWith(CATCHING, (q, io) => createModel(spec(nested, '&stream=0')).infer(q, io));
  assert.match(okJson(rd) as string, new RegExp(`nested more than ${MAX_JSON_DEPTH} levels deep`));
  const piece = (content: string) => sse([[undefined, { id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] }]]);
  const endless = await fake(() => ({ pieces: [piece('{"value": {"ok": true, "score": 1'), piece('9')], endless: true }));
  const re = await runWith(CATCHING, (q, io) => createModel(spec(endless, '&max_tokens=16')).infer(q, io));
  assert.match(okJson(re) as string, /cut off at the output token limit/);
  assert.ok(re.events.filter((e) => e.kind === 'infer.delta').length <= endless.received.length * (16 + 33));
  const bad = await fake(() => ({ pieces: ['data: {"choices": [{"delta": {"content": "x"\n\n'] }));
  const r2 = await runWith(CATCHING, (q, io) => createModel(spec(bad)).infer(q, io));
  assert.match(okJson(r2) as string, /Azure OpenAI at http:\/\/127\.0\.0\.1:\d+\/openai\/deployments\/gpt4o-prod\/chat\/completions\?api-version=2024-10-21 sent a stream event that is not JSON/);
  assert.throws(() => createModel('azure:gpt4o?api_version=1'), /no endpoint: set endpoint=https:\/\/RESOURCE\.openai\.azure\.com in the spec or AZURE_OPENAI_ENDPOINT/);
  assert.throws(() => createModel('azure:a/../b?endpoint=https://x.openai.azure.com'), /a deployment name has only letters, digits/);
  assert.throws(() => createModel('azure:d?endpoint=https://x.openai.azure.com&auth=basic'), /auth must be key or entra/);
});
