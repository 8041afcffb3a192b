// The OpenAI-compatible and Anthropic providers against local fake servers that speak each
// API's wire format, errors included. Every failure must end in a clear, catchable error or a
// bounded retry — never a hang — so every test here is bounded in time.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createModel } from '../../runtime/run/model.js';
import { wireSchema } from '../../runtime/infer/prompt.js';
import { defaultMaxTokens } from '../../runtime/infer/bounds.js';
import { okJson, runWith, type Ran } from '../infer/helpers.js';
import { anthropicError, anthropicMessage, fakeServer, openaiCompletion, openaiError, type FakeServer, type Scripted } from './fake-server.js';

const SECRET = 'sk-test-secret-5f1c9a';
process.env.TURN_TEST_KEY = SECRET;

const PROGRAM = `
struct Tag { name: Str, weight: Num };
struct Review { ok: Bool, score: Num, mood: "happy" | "sad", tags: List<Tag>, main: Tag };
context.system("You review code.");
context.append("diff: adds a cache");
let v = infer Review { "Review the change."; };
return [v, confidence v];
`;
const CATCHING = PROGRAM.replace('let v = infer Review { "Review the change."; };\nreturn [v, confidence v];', 'try { return infer Review { "Review the change."; }; } catch (e) { return e; }');
const GOOD = { ok: true, score: 0.5, mood: 'happy', tags: [{ name: 'perf', weight: 2 }], main: { name: 'cache', weight: 1 } };

const servers: FakeServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function serve(answers: Scripted[]): Promise<FakeServer> {
  const s = await fakeServer(answers);
  servers.push(s);
  return s;
}

async function run(spec: string, source = PROGRAM): Promise<Ran & { ms: number }> {
  const model = createModel(spec);
  const t0 = performance.now();
  const r = await runWith(source, (req, io) => model.infer(req, io));
  return { ...r, ms: performance.now() - t0 };
}

const openai = (s: FakeServer, opts = '') => `openai:gpt-test?base_url=${s.url}/v1&api_key_env=TURN_TEST_KEY${opts}`;
const anthropic = (s: FakeServer, opts = '') => `anthropic:claude-test?base_url=${s.url}&api_key_env=TURN_TEST_KEY${opts}`;

function tokensOf(text: string, logprob: number) {
  const out: { token: string; logprob: number }[] = [];
  for (let i = 0; i < text.length; i += 4) out.push({ token: text.slice(i, i + 4), logprob });
  return out;
}

test('openai: a nested struct binds; strict json_schema, log-probabilities, the key only in the header', async () => {
  const content = JSON.stringify({ value: GOOD, confidence: 0.6 });
  const s = await serve([{ status: 200, body: openaiCompletion(content, { logprobs: tokensOf(content, -0.1), usage: [120, 30] }) }]);
  const r = await run(openai(s));
  const [value, confidence] = okJson(r) as [unknown, number];
  assert.deepEqual(value, GOOD);
  assert.ok(Math.abs(confidence - Math.exp(-0.1)) < 1e-12, `confidence from log-probabilities, got ${confidence}`);

  assert.equal(s.received.length, 1);
  const got = s.received[0];
  assert.equal(got.method, 'POST');
  assert.equal(got.url, '/v1/chat/completions');
  assert.equal(got.headers.authorization, `Bearer ${SECRET}`);
  const body = got.json as { model: string; messages: { role: string; content: string }[]; response_format: Record<string, unknown>; logprobs: boolean };
  assert.equal(body.model, 'gpt-test');
  assert.deepEqual(body.messages[0], { role: 'system', content: 'You review code.' });
  assert.equal(body.messages[1].role, 'user');
  assert.ok(body.messages[1].content.startsWith('diff: adds a cache\n\nReview the change.\n\nReply with only a JSON object'));
  assert.equal(body.response_format.type, 'json_schema');
  const js = body.response_format.json_schema as { name: string; strict: boolean; schema: Record<string, unknown> };
  assert.equal(js.name, 'turn_Review');
  assert.equal(js.strict, true);
  assert.deepEqual(js.schema, JSON.parse(JSON.stringify(wireSchema(r.requests[0].schema))));
  assert.equal((js.schema.properties as { value: { title: string } }).value.title, 'Review');
  assert.equal(body.logprobs, true);

  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.deepEqual(reply.usage, { inputTokens: 120, outputTokens: 30, cachedTokens: 0 });
  assert.equal((reply.confidence as { source: string }).source, 'logprobs');
  assert.equal((reply.confidence as { reported: number }).reported, 0.6);
  assert.ok(!JSON.stringify(r.events).includes(SECRET), 'the secret never reaches the events/trace');
  assert.ok(!JSON.stringify(r.requests).includes(SECRET), 'nor the request the provider transforms');
});

test('openai: 429 with retry-after is waited out, then the reply binds', async () => {
  const s = await serve([
    { status: 429, headers: { 'retry-after': '1' }, body: openaiError(429, 'Rate limit reached for gpt-test', 'requests') },
    { status: 200, body: openaiCompletion(JSON.stringify({ value: GOOD, confidence: 0.9 })) },
  ]);
  const r = await run(openai(s));
  assert.deepEqual(okJson(r), [GOOD, 0.9]);
  assert.equal(s.received.length, 2);
  assert.ok(r.ms >= 950, `waited the retry-after (${r.ms} ms)`);
  const retry = r.events.find((e) => e.kind === 'http.retry')!;
  assert.equal(retry.status, 429);
  assert.equal(retry.waitMs, 1000);
  assert.match(String(retry.reason), /rate limited: HTTP 429 .*Rate limit reached/);
});

test('openai: a retry-after longer than the host waits fails at once with a catchable error', async () => {
  const s = await serve([{ status: 429, headers: { 'retry-after': '120' }, body: openaiError(429, 'Rate limit reached', 'requests') }]);
  const r = await run(openai(s), CATCHING);
  const e = okJson(r) as Record<string, unknown>;
  assert.equal(e.type, 'InferError');
  assert.equal(e.reason, 'provider');
  assert.equal(e.status, 429);
  assert.match(String(e.message), /^infer Review: the model call failed: the OpenAI-compatible server rate limited: HTTP 429 .*asked to wait 120 s, more than the 30 s the host waits/);
  assert.ok(r.ms < 2000);
});

test('openai: 500s are retried a bounded number of times, then a clear error', async () => {
  const err: Scripted = { status: 500, body: openaiError(500, 'The server had an error while processing your request.') };
  const s = await serve([err, err, err, err]);
  const r = await run(openai(s, '&retries=2&backoff_ms=10'), CATCHING);
  const e = okJson(r) as Record<string, unknown>;
  assert.equal(s.received.length, 3);
  assert.equal(e.status, 500);
  assert.match(String(e.message), /server error: HTTP 500 from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: The server had an error .* \(application\/json, \d+ bytes in \d+ ms\) \(gave up after 3 HTTP attempts\)$/);
  assert.equal(r.events.filter((x) => x.kind === 'http.retry').length, 2);
});

test('openai: a server that never answers times out, bounded (nothing came back, so it is sent again)', async () => {
  const s = await serve([{ hang: true }, { hang: true }, { hang: true }]);
  const r = await run(openai(s, '&first_byte_timeout_ms=200&retries=1&backoff_ms=10'), CATCHING);
  const e = okJson(r) as Record<string, unknown>;
  assert.match(String(e.message), /no reply from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions within 200 ms of sending \(first_byte_timeout_ms\) \(gave up after 2 HTTP attempts\)/);
  assert.equal(s.received.length, 2);
  assert.ok(r.ms < 3000, `bounded (${r.ms} ms)`);
});

test('openai: a body cut off in transit is not sent again (the server had answered); the catchable error says so', async () => {
  const s = await serve([{ truncate: '{"id": "chatcmpl-x", "choices": [{"mess' }, { status: 200, body: openaiCompletion(JSON.stringify({ value: GOOD, confidence: 0.5 })) }]);
  const r = await run(openai(s, '&backoff_ms=10'), CATCHING);
  const e = okJson(r) as Record<string, unknown>;
  assert.equal(e.reason, 'provider');
  assert.match(String(e.message), /the connection was dropped mid-reply from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(HTTP 200, application\/json, \d+ bytes in \d+ ms\); not sent again, as the server had started on it$/);
  assert.equal(s.received.length, 1);
});

test('openai: finish_reason length is a failed attempt, re-asked with the reason; bounded', async () => {
  const cut = JSON.stringify({ value: GOOD, confidence: 0.5 }).slice(0, 40);
  const s = await serve([
    { status: 200, body: openaiCompletion(cut, { finish: 'length' }) },
    { status: 200, body: openaiCompletion(JSON.stringify({ value: GOOD, confidence: 0.5 })) },
  ]);
  const r = await run(openai(s));
  assert.deepEqual(okJson(r), [GOOD, 0.5]);
  const second = s.received[1].json as { messages: { role: string; content: string }[] };
  assert.deepEqual(second.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
  assert.equal(second.messages[2].content, cut);
  assert.match(second.messages[3].content, /- \/: the reply was cut off at the output token limit \(finish_reason: length\)/);

  const always = await serve([1, 2, 3].map(() => ({ status: 200, body: openaiCompletion(cut, { finish: 'length' }) })));
  const e = okJson(await run(openai(always), CATCHING)) as Record<string, unknown>;
  assert.equal(e.attempts, 3);
  assert.equal(e.reply, cut);
  assert.match(String(e.message), /after 3 attempts: \/: the reply was cut off/);
});

test('openai: 401 is not retried and says to check the key; a local server needs no key', async () => {
  const s = await serve([{ status: 401, body: openaiError(401, 'Incorrect API key provided: sk-***', 'invalid_request_error') }]);
  const e = okJson(await run(openai(s), CATCHING)) as Record<string, unknown>;
  assert.equal(s.received.length, 1);
  assert.match(String(e.message), /not authorized \(check the API key\): HTTP 401 .*Incorrect API key provided/);

  const local = await serve([{ status: 200, body: openaiCompletion('```json\n' + JSON.stringify({ value: GOOD, confidence: 0.8 }) + '\n```') }]);
  const r = await run(`openai:llama3?base_url=${local.url}/v1&api_key_env=TURN_TEST_UNSET_KEY&structured=json&logprobs=0`);
  assert.deepEqual(okJson(r), [GOOD, 0.8]);
  assert.equal(local.received[0].headers.authorization, undefined);
  assert.deepEqual((local.received[0].json as { response_format: unknown }).response_format, { type: 'json_object' });
  assert.equal((local.received[0].json as { logprobs?: unknown }).logprobs, undefined);
  assert.deepEqual(r.events.find((x) => x.kind === 'infer.reply')!.repairs, ['removed a Markdown code fence (```json)']);
});

test('anthropic: the schema goes as a forced tool; the tool input binds with its reported confidence', async () => {
  const s = await serve([{ status: 200, body: anthropicMessage({ value: GOOD, confidence: 0.75 }, { usage: [200, 40] }) }]);
  const r = await run(anthropic(s));
  assert.deepEqual(okJson(r), [GOOD, 0.75]);
  const got = s.received[0];
  assert.equal(got.url, '/v1/messages');
  assert.equal(got.headers['x-api-key'], SECRET);
  assert.equal(got.headers['anthropic-version'], '2023-06-01');
  assert.equal(got.headers.authorization, undefined);
  const body = got.json;
  assert.equal(body.model, 'claude-test');
  // the bound derived from the schema (runtime/infer/bounds.ts), as no max_tokens was given
  assert.equal(body.max_tokens, defaultMaxTokens(wireSchema(r.requests[0].schema)));
  assert.equal(body.system, 'You review code.');
  assert.deepEqual((body.messages as { role: string }[]).map((m) => m.role), ['user']);
  const tools = body.tools as { name: string; input_schema: unknown }[];
  assert.equal(tools[0].name, 'turn_reply');
  assert.deepEqual(tools[0].input_schema, JSON.parse(JSON.stringify(wireSchema(r.requests[0].schema))));
  assert.deepEqual(body.tool_choice, { type: 'tool', name: 'turn_reply' });
  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.deepEqual(reply.usage, { inputTokens: 200, outputTokens: 40 });
  assert.equal((reply.confidence as { source: string }).source, 'reported');
  assert.ok(!JSON.stringify(r.events).includes(SECRET));
});

test('anthropic: 529 overloaded is retried; max_tokens is re-asked; invalid input re-asked with errors', async () => {
  const s = await serve([
    { status: 529, body: anthropicError('overloaded_error', 'Overloaded') },
    { status: 200, body: anthropicMessage({ value: { ok: true } }, { stop: 'max_tokens' }) },
    { status: 200, body: anthropicMessage({ value: { ...GOOD, mood: 'meh' }, confidence: 0.5 }) },
    { status: 200, body: anthropicMessage({ value: GOOD, confidence: 0.5 }) },
  ]);
  const r = await run(anthropic(s, '&backoff_ms=10'));
  assert.deepEqual(okJson(r), [GOOD, 0.5]);
  assert.equal(s.received.length, 4);
  const last = s.received[3].json as { messages: { role: string; content: string }[] };
  assert.deepEqual(last.messages.map((m) => m.role), ['user', 'assistant', 'user', 'assistant', 'user']);
  assert.match(last.messages[2].content, /cut off at the output token limit/);
  assert.match(last.messages[4].content, /- \/value\/mood: must be one of "happy", "sad"/);
});

test('anthropic: errors are clear and catchable — a refused request, a missing key', async () => {
  const s = await serve([{ status: 400, body: anthropicError('invalid_request_error', 'max_tokens: must be at most 8192') }]);
  const e = okJson(await run(anthropic(s), CATCHING)) as Record<string, unknown>;
  assert.equal(e.status, 400);
  assert.match(String(e.message), /the Anthropic API request refused: HTTP 400 .*max_tokens: must be at most 8192 \(application\/json, \d+ bytes in \d+ ms\)$/);

  const none = await serve([]);
  const m = okJson(await run(`anthropic:claude-test?base_url=${none.url}&api_key_env=TURN_TEST_UNSET_KEY`, CATCHING)) as Record<string, unknown>;
  assert.match(String(m.message), /no API key: the environment variable TURN_TEST_UNSET_KEY is not set/);
  assert.equal(none.received.length, 0);
});
