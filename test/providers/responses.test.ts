// OpenAI's Responses API (`openai:MODEL?api=responses`) against a local fake, side by side with the
// official `openai` SDK: for the same structured call Turn's request carries what the SDK's carries
// (path, model, instructions, input, text.format, stream flag, the bearer key), and the documented
// reply shapes (a response, its event stream, an error) are read by both. Then the attacks: a reply
// too large, a stream without end, a malformed event.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createModel } from '../../runtime/run/model.js';
import { strictSchema } from '../../runtime/infer/provider-schema.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import type { InferRequest } from '../../runtime/infer/types.js';
import { MAX_JSON_DEPTH } from '../../runtime/values/index.js';
import { okJson, runWith } from '../infer/helpers.js';
import { fakesForFile, sse, type WireFake } from './wire-fake.js';

const SECRET = 'sk-resp-secret-81c4e2';
process.env.TURN_TEST_RESPONSES_KEY = SECRET;

const PROGRAM = `
struct Tag { name: Str, weight: Num };
struct Review { ok: Bool, score: Num, tags: List<Tag> };
context.system("You review code.");
let v = infer Review { "Review the change."; };
return [v, confidence v];
`;
const CATCHING = `
struct Review { ok: Bool, score: Num, tags: List<Str> };
try { return infer Review { "Review the change."; }; } catch (e) { return e.message; }
`;
const GOOD = { ok: true, score: 0.5, tags: [{ name: 'perf', weight: 2 }] };
const TEXT = JSON.stringify({ value: GOOD, confidence: 0.75 });

const fake = fakesForFile();

const spec = (f: WireFake, more = '') => `openai:gpt-test?api=responses&base_url=${f.url}/v1&api_key_env=TURN_TEST_RESPONSES_KEY${more}`;

/** The documented `response` object with one message whose text is `text`. */
function response(text: string, status = 'completed', extra: Record<string, unknown> = {}) {
  return {
    id: 'resp_test',
    object: 'response',
    created_at: 1741476542,
    status,
    error: null,
    incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
    model: 'gpt-test-2025',
    output: [
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text, annotations: [] }] },
    ],
    usage: { input_tokens: 36, input_tokens_details: { cached_tokens: 12 }, output_tokens: 87, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 123 },
    ...extra,
  };
}

/** The documented event stream of that response, its text in pieces. */
function events(text: string): string {
  const pieces: [string, unknown][] = [
    ['response.created', { type: 'response.created', sequence_number: 0, response: { ...response('', 'in_progress'), output: [], usage: null } }],
    ['response.output_item.added', { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item: { type: 'message', id: 'msg_1', status: 'in_progress', role: 'assistant', content: [] } }],
  ];
  for (let i = 0, n = 2; i < text.length; i += 7, n++) {
    pieces.push(['response.output_text.delta', { type: 'response.output_text.delta', sequence_number: n, item_id: 'msg_1', output_index: 0, content_index: 0, delta: text.slice(i, i + 7), logprobs: [] }]);
  }
  pieces.push(['response.output_text.done', { type: 'response.output_text.done', sequence_number: 900, item_id: 'msg_1', output_index: 0, content_index: 0, text }]);
  pieces.push(['response.completed', { type: 'response.completed', sequence_number: 901, response: response(text) }]);
  return sse(pieces);
}

/** The SDK's parameters for the call Turn made: built from the request, not from Turn's body. */
function sdkParams(q: InferRequest) {
  const { system, turns } = chatTurns(q);
  const strict = strictSchema(q.wireSchema);
  assert.ok(strict.ok);
  return {
    model: 'gpt-test',
    instructions: system,
    input: turns,
    text: { format: { type: 'json_schema' as const, name: `turn_${q.typeName}`, strict: true, schema: strict.schema } },
    include: ['message.output_text.logprobs' as const],
    max_output_tokens: q.maxTokens,
    store: false,
  };
}

function client(f: WireFake): OpenAI {
  return new OpenAI({ apiKey: SECRET, baseURL: `${f.url}/v1`, maxRetries: 0 });
}

test('responses: Turn sends what the SDK sends for the same structured call; both read the response', async () => {
  const f = await fake(() => ({ body: response(TEXT) }));
  const model = createModel(spec(f, '&stream=0'));
  const r = await runWith(PROGRAM, (q, io) => model.infer(q, io));
  const [value, confidence] = okJson(r) as [unknown, number];
  assert.deepEqual(value, GOOD);
  assert.equal(confidence, 0.75);
  const sdk = await client(f).responses.create(sdkParams(r.requests[0]));
  assert.equal(sdk.output_text, TEXT, 'the SDK reads the same reply');

  const [turn, theirs] = f.received;
  assert.equal(turn.method, theirs.method);
  assert.equal(turn.url, '/v1/responses');
  assert.equal(theirs.url, '/v1/responses');
  assert.deepEqual(turn.json, theirs.json, 'the same body, field for field');
  assert.equal(turn.headers.authorization, `Bearer ${SECRET}`);
  assert.equal(turn.headers.authorization, theirs.headers.authorization);
  assert.match(String(turn.headers['content-type']), /^application\/json/);
  assert.equal((turn.json.text as { format: { strict: boolean } }).format.strict, true);

  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.deepEqual(reply.usage, { inputTokens: 36, outputTokens: 87, cachedTokens: 12 });
  assert.ok(!JSON.stringify(r.events).includes(SECRET));
});

test('responses: the event stream is read by both, text as deltas; the stream flag is on the wire', async () => {
  const f = await fake(() => ({ pieces: [events(TEXT)] }));
  const model = createModel(spec(f));
  const r = await runWith(PROGRAM, (q, io) => model.infer(q, io));
  assert.deepEqual((okJson(r) as unknown[])[0], GOOD);
  const deltas = r.events.filter((e) => e.kind === 'infer.delta').map((e) => e.delta).join('');
  assert.equal(deltas, TEXT);
  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.deepEqual(reply.usage, { inputTokens: 36, outputTokens: 87, cachedTokens: 12 });

  const stream = await client(f).responses.create({ ...sdkParams(r.requests[0]), stream: true });
  let sdkText = '';
  let completed = false;
  for await (const e of stream) {
    if (e.type === 'response.output_text.delta') sdkText += e.delta;
    if (e.type === 'response.completed') completed = true;
  }
  assert.equal(sdkText, TEXT);
  assert.ok(completed);
  const [turn, theirs] = f.received;
  assert.equal(turn.json.stream, true);
  assert.deepEqual(turn.json, theirs.json);
  assert.match(String(turn.headers.accept), /text\/event-stream/);
});

test('responses: an error reply is an error in both; a 429 is retried, a 400 is not', async () => {
  const error = { error: { message: "Invalid schema for response_format 'turn_Review'", type: 'invalid_request_error', param: 'text.format.schema', code: 'invalid_json_schema' } };
  const f = await fake((_, n) => (n === 0 ? { status: 429, headers: { 'retry-after-ms': '10' }, body: { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } } } : { status: 400, body: error }));
  const model = createModel(spec(f, '&stream=0'));
  const r = await runWith(CATCHING, (q, io) => model.infer(q, io));
  const message = okJson(r) as string;
  assert.match(message, /the OpenAI Responses API request refused: HTTP 400 from http:\/\/127\.0\.0\.1:\d+\/v1\/responses: Invalid schema for response_format 'turn_Review'/);
  assert.equal(f.received.length, 2, 'the 429 was sent again, the 400 was not');
  await assert.rejects(client(f).responses.create(sdkParams(r.requests[0])), (e: Error) => e.message.includes("Invalid schema for response_format 'turn_Review'"));
});

test('responses: an incomplete response (max_output_tokens) is a cut-off reply, re-asked; a refusal is an error', async () => {
  const refusal = response('', 'completed', { output: [{ type: 'message', id: 'm', role: 'assistant', status: 'completed', content: [{ type: 'refusal', refusal: 'I cannot help with that.' }] }] });
  const f = await fake((_, n) => (n === 0 ? { body: response('{"value": {"ok": tr', 'incomplete') } : { body: refusal }));
  const model = createModel(spec(f, '&stream=0'));
  const r = await runWith(CATCHING, (q, io) => model.infer(q, io));
  assert.match(okJson(r) as string, /the model refused: I cannot help with that\./);
  assert.equal(f.received.length, 2);
  assert.ok(r.events.some((e) => e.kind === 'infer.reply' && e.finishReason === 'length'), 'the first reply was cut off at the token limit');
});

test('responses attack: a reply over max_reply_bytes, a stream without end, a malformed event: each a located error', async () => {
  const big = await fake(() => ({ body: response('x'.repeat(20_000)) }));
  const r1 = await runWith(CATCHING, (q, io) => createModel(spec(big, '&stream=0&max_reply_bytes=4096')).infer(q, io));
  assert.match(okJson(r1) as string, /refused the reply: it is over 4096 bytes \(max_reply_bytes\) from http:\/\/127\.0\.0\.1:\d+\/v1\/responses/);

  // a value nested past the reply bound is refused by the driver (re-asked, then the error)
  const deep = '['.repeat(MAX_JSON_DEPTH + 5) + ']'.repeat(MAX_JSON_DEPTH + 5);
  const nested = await fake(() => ({ body: response(`{"value": {"ok": true, "score": 1, "tags": ${deep}}, "confidence": 1}`) }));
  const rd = await runWith(CATCHING, (q, io) => createModel(spec(nested, '&stream=0')).infer(q, io));
  assert.match(okJson(rd) as string, new RegExp(`nested more than ${MAX_JSON_DEPTH} levels deep`));

  // deltas forever: stopped 32 pieces past the token bound, as a reply cut off at its limit
  const delta = sse([['response.output_text.delta', { type: 'response.output_text.delta', delta: '9' }]]);
  const endless = await fake(() => ({ pieces: [sse([['response.output_text.delta', { type: 'response.output_text.delta', delta: '{"value": {"ok": true, "score": 1' }]]), delta], endless: true }));
  const r2 = await runWith(CATCHING, (q, io) => createModel(spec(endless, '&max_tokens=20&retries=0')).infer(q, io));
  assert.match(okJson(r2) as string, /cut off at the output token limit \(finish_reason: length\)/);
  const attempts = endless.received.length;
  assert.ok(r2.events.filter((e) => e.kind === 'infer.delta').length <= attempts * (20 + 33), 'the host stopped reading each attempt');

  const bad = await fake(() => ({ pieces: ['event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "delta": \n\n'] }));
  const r3 = await runWith(CATCHING, (q, io) => createModel(spec(bad)).infer(q, io));
  assert.match(okJson(r3) as string, /the OpenAI Responses API at http:\/\/127\.0\.0\.1:\d+\/v1\/responses sent a stream event that is not JSON: \{"type": "response\.output_text\.delta", "delta": +\(HTTP 200, text\/event-stream/);

  const cut = await fake(() => ({ pieces: [sse([['response.output_text.delta', { type: 'response.output_text.delta', delta: TEXT }]])] }));
  const r4 = await runWith(CATCHING, (q, io) => createModel(spec(cut)).infer(q, io));
  assert.match(okJson(r4) as string, /ended early: it closed without response\.completed/);
});

test('responses: a seeded call is sent no seed, and its trace says the API takes none', async () => {
  const f = await fake(() => ({ body: response(TEXT) }));
  const model = createModel(spec(f, '&stream=0'));
  const r = await runWith(PROGRAM.replace('infer Review {', 'infer Review with { seed: 7 } {'), (q, io) => model.infer({ ...q, sampling: { seed: 7 } }, io));
  assert.deepEqual((okJson(r) as unknown[])[0], GOOD);
  assert.equal(f.received[0].json.seed, undefined);
  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.equal((reply.meta as Record<string, unknown>).seedGuarantee, 'none');
});
