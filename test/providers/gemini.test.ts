// Google Gemini (`gemini:MODEL`) against a local fake, side by side with the official
// `@google/genai` SDK: the same path (generateContent, streamGenerateContent?alt=sse), the same body
// for the same structured call (contents, systemInstruction, generationConfig with
// responseJsonSchema), the key in x-goog-api-key; the documented replies (a response with
// usageMetadata, its SSE chunks, an error) read by both. Then the attacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoogleGenAI } from '@google/genai';
import { createModel } from '../../runtime/run/model.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import { MAX_JSON_DEPTH } from '../../runtime/values/index.js';
import type { InferRequest } from '../../runtime/infer/types.js';
import { okJson, runWith } from '../infer/helpers.js';
import { fakesForFile, sse, type WireFake } from './wire-fake.js';

const KEY = 'AIza-gemini-test-key-19c3';
process.env.TURN_TEST_GEMINI_KEY = KEY;

const PROGRAM = `
struct Tag { name: Str, weight: Num };
struct Review { ok: Bool, score: Num, mood: "happy" | "sad", tags: List<Tag>, note: Str? };
context.system("You review code.");
let v = infer Review { "Review the change."; };
return [v, confidence v];
`;
const CATCHING = `
struct Review { ok: Bool, score: Num, tags: List<Str> };
try { return infer Review { "Review the change."; }; } catch (e) { return e.message; }
`;
const GOOD = { ok: true, score: 0.5, mood: 'sad', tags: [{ name: 'perf', weight: 2 }], note: null };
const TEXT = JSON.stringify({ value: GOOD, confidence: 0.65 });

const fake = fakesForFile();

const spec = (f: WireFake, more = '') => `gemini:gemini-test?base_url=${f.url}&api_key_env=TURN_TEST_GEMINI_KEY${more}`;

/** The documented GenerateContentResponse. */
function response(text: string, finishReason = 'STOP', extra: Record<string, unknown> = {}) {
  return {
    candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason, index: 0 }],
    usageMetadata: { promptTokenCount: 52, candidatesTokenCount: 20, totalTokenCount: 80, thoughtsTokenCount: 8, cachedContentTokenCount: 16 },
    modelVersion: 'gemini-test-001',
    responseId: 'resp-gem-1',
    ...extra,
  };
}

/** Its SSE stream: a thought, the text in chunks, the last with finishReason and usage. */
function chunks(text: string): string {
  const events: [undefined, unknown][] = [[undefined, { candidates: [{ content: { parts: [{ text: 'Considering the diff', thought: true }], role: 'model' }, index: 0 }], modelVersion: 'gemini-test-001', responseId: 'r' }]];
  for (let i = 0; i < text.length; i += 9) {
    events.push([undefined, { candidates: [{ content: { parts: [{ text: text.slice(i, i + 9) }], role: 'model' }, index: 0 }], modelVersion: 'gemini-test-001', responseId: 'r' }]);
  }
  events.push([undefined, { ...response(''), candidates: [{ content: { parts: [{ text: '' }], role: 'model' }, finishReason: 'STOP', index: 0 }] }]);
  return sse(events);
}

function sdk(f: WireFake): GoogleGenAI {
  return new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: f.url } });
}

/** The SDK's parameters for the call Turn made, from the request (not from Turn's body). */
function sdkParams(q: InferRequest) {
  const { system, turns } = chatTurns(q);
  return {
    model: 'gemini-test',
    contents: turns.map((t) => ({ role: t.role === 'assistant' ? 'model' : 'user', parts: [{ text: t.content }] })),
    config: { systemInstruction: system, maxOutputTokens: q.maxTokens, responseMimeType: 'application/json', responseJsonSchema: q.wireSchema },
  };
}

test('gemini: generateContent carries what the SDK sends for the same structured call; both read the response and usage', async () => {
  const f = await fake(() => ({ body: response(TEXT) }));
  const r = await runWith(PROGRAM, (q, io) => createModel(spec(f, '&stream=0')).infer(q, io));
  assert.deepEqual(okJson(r), [GOOD, 0.65]);
  const theirs = await sdk(f).models.generateContent(sdkParams(r.requests[0]));
  assert.equal(theirs.text, TEXT);
  assert.equal(theirs.usageMetadata?.promptTokenCount, 52);

  const [a, b] = f.received;
  assert.equal(a.url, '/v1beta/models/gemini-test:generateContent');
  assert.equal(a.url, b.url);
  assert.deepEqual(a.json, b.json, 'the same body, field for field');
  assert.equal(a.headers['x-goog-api-key'], KEY);
  assert.equal(a.headers['x-goog-api-key'], b.headers['x-goog-api-key']);
  assert.equal(a.headers.authorization, undefined);
  const config = a.json.generationConfig as Record<string, unknown>;
  assert.equal(config.responseMimeType, 'application/json');
  assert.deepEqual(config.responseJsonSchema, JSON.parse(JSON.stringify(r.requests[0].wireSchema)), 'the full wire schema');
  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.deepEqual(reply.usage, { inputTokens: 52, outputTokens: 28, cachedTokens: 16 }, 'thinking tokens count as output');
  assert.ok(!JSON.stringify(r.events).includes(KEY));
});

test('gemini: streamGenerateContent?alt=sse is read by both, a thought part is not the reply; a seed goes in generationConfig, best effort', async () => {
  const f = await fake(() => ({ pieces: [chunks(TEXT)] }));
  const r = await runWith(PROGRAM, (q, io) => createModel(spec(f)).infer({ ...q, sampling: { seed: 11 } }, io));
  assert.deepEqual(okJson(r), [GOOD, 0.65]);
  assert.equal(r.events.filter((e) => e.kind === 'infer.delta').map((e) => e.delta).join(''), TEXT);
  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.equal((reply.meta as Record<string, unknown>).seedGuarantee, 'best-effort');
  const params = sdkParams(r.requests[0]);
  let text = '';
  for await (const c of await sdk(f).models.generateContentStream({ ...params, config: { ...params.config, seed: 11 } })) text += c.text ?? '';
  assert.equal(text, TEXT);
  const [a, b] = f.received;
  assert.equal(a.url, '/v1beta/models/gemini-test:streamGenerateContent?alt=sse');
  assert.equal(a.url, b.url);
  assert.deepEqual(a.json, b.json);
  assert.equal((a.json.generationConfig as { seed: number }).seed, 11);
});

test('gemini: an error is an error in both; a 429 waits its RetryInfo delay, a 400 is not sent again', async () => {
  const tooMany = { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED', details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '0.05s' }] } };
  const invalid = { error: { code: 400, message: 'Invalid JSON payload received. Unknown name "foo"', status: 'INVALID_ARGUMENT' } };
  const f = await fake((_, n) => (n === 0 ? { status: 429, body: tooMany } : { status: 400, body: invalid }));
  const r = await runWith(CATCHING, (q, io) => createModel(spec(f, '&stream=0&backoff_ms=60000&max_wait_ms=1000')).infer(q, io));
  // back-off 60 s would exceed max_wait_ms: only RetryInfo's 50 ms lets the second attempt happen
  assert.match(okJson(r) as string, /the Gemini API request refused: HTTP 400 from http:\/\/127\.0\.0\.1:\d+\/v1beta\/models\/gemini-test:generateContent: Invalid JSON payload received/);
  assert.equal(f.received.length, 2);
  const retry = r.events.find((e) => e.kind === 'http.retry')!;
  assert.equal(retry.waitMs, 50);
  await assert.rejects(sdk(f).models.generateContent(sdkParams(r.requests[0])), /Invalid JSON payload received/);
});

test('gemini: MAX_TOKENS is a cut-off reply (re-asked), a blocked prompt and a SAFETY stop fail the call', async () => {
  const f = await fake((_, n) =>
    n === 0 ? { body: response('{"value": {"ok": tr', 'MAX_TOKENS') } : n === 1 ? { body: response('', 'SAFETY') } : { body: { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 3 } } },
  );
  const r = await runWith(CATCHING, (q, io) => createModel(spec(f, '&stream=0')).infer(q, io));
  assert.match(okJson(r) as string, /the Gemini API at http:\/\/127\.0\.0\.1:\d+\/v1beta\/models\/gemini-test:generateContent withheld the reply \(finishReason SAFETY\)/);
  assert.ok(r.events.some((e) => e.kind === 'infer.reply' && e.finishReason === 'length'));
  const r2 = await runWith(CATCHING, (q, io) => createModel(spec(f, '&stream=0')).infer(q, io));
  assert.match(okJson(r2) as string, /did not answer: the prompt was blocked \(PROHIBITED_CONTENT\)/);
});

test('gemini attack: too large, too deep, endless, malformed: each bounded, each a located error', async () => {
  const big = await fake(() => ({ body: response('z'.repeat(50_000)) }));
  const r1 = await runWith(CATCHING, (q, io) => createModel(spec(big, '&stream=0&max_reply_bytes=8192')).infer(q, io));
  assert.match(okJson(r1) as string, /refused the reply: it is over 8192 bytes \(max_reply_bytes\) from http:\/\/127\.0\.0\.1:\d+\/v1beta\/models\/gemini-test:generateContent/);

  const deep = '['.repeat(MAX_JSON_DEPTH + 5) + ']'.repeat(MAX_JSON_DEPTH + 5);
  const nested = await fake(() => ({ body: response(`{"value": {"ok": true, "score": 1, "tags": ${deep}}, "confidence": 1}`) }));
  const r2 = await runWith(CATCHING, (q, io) => createModel(spec(nested, '&stream=0')).infer(q, io));
  assert.match(okJson(r2) as string, new RegExp(`nested more than ${MAX_JSON_DEPTH} levels deep`));

  const chunk = sse([[undefined, { candidates: [{ content: { parts: [{ text: '9' }], role: 'model' }, index: 0 }] }]]);
  const endless = await fake(() => ({ pieces: [sse([[undefined, { candidates: [{ content: { parts: [{ text: '{"value": {"ok": true, "score": 1' }] }, index: 0 }] }]]), chunk], endless: true }));
  const r3 = await runWith(CATCHING, (q, io) => createModel(spec(endless, '&max_tokens=16')).infer(q, io));
  assert.match(okJson(r3) as string, /cut off at the output token limit/);
  assert.ok(r3.events.filter((e) => e.kind === 'infer.delta').length <= endless.received.length * (16 + 33));

  const bad = await fake(() => ({ pieces: ['data: {"candidates": [\n\n'] }));
  const r4 = await runWith(CATCHING, (q, io) => createModel(spec(bad)).infer(q, io));
  assert.match(okJson(r4) as string, /the Gemini API at http:\/\/127\.0\.0\.1:\d+\/v1beta\/models\/gemini-test:streamGenerateContent\?alt=sse sent a stream event that is not JSON: \{"candidates": \[ \(HTTP 200, text\/event-stream/);

  const cut = await fake(() => ({ pieces: [sse([[undefined, { candidates: [{ content: { parts: [{ text: TEXT }] }, index: 0 }] }]])] }));
  const r5 = await runWith(CATCHING, (q, io) => createModel(spec(cut)).infer(q, io));
  assert.match(okJson(r5) as string, /ended early: it closed without a finishReason/);
  assert.throws(() => createModel('gemini:../../v1/files?api_key_env=X'), /a model name has only letters, digits/);
});
