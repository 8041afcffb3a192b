// Native tool calls on OpenAI's Responses API, side by side with the official `openai` SDK against
// one local fake: for the same tool-offering call Turn's request carries what the SDK's carries
// (`function` tools beside the answer's text.format, the earlier round as `function_call` and
// `function_call_output` items, the bearer key), and a response with two parallel `function_call`
// items, buffered and streamed (`response.function_call_arguments.delta`), is read by both to the
// same calls. Then the attacks: 100 MB of arguments, a call never finished, an id twice, a name not offered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createModel } from '../../runtime/run/model.js';
import { strictSchema } from '../../runtime/infer/provider-schema.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import type { InferRequest } from '../../runtime/infer/types.js';
import { fakesForFile, sse, type WireFake } from './wire-fake.js';
import { CALLS, HUNDRED_MB_PIECES, PIECE_64K, pieces, toolRequest, TOOLS } from './tool-fixtures.js';

const KEY = 'sk-resp-tools-0b7a21';
process.env.TURN_TEST_RESPONSES_TOOLS_KEY = KEY;

const fake = fakesForFile();
const model = (f: WireFake, more = '') => createModel(`openai:gpt-test?api=responses&base_url=${f.url}/v1&api_key_env=TURN_TEST_RESPONSES_TOOLS_KEY&retries=0${more}`);
const client = (f: WireFake) => new OpenAI({ apiKey: KEY, baseURL: `${f.url}/v1`, maxRetries: 0 });

/** The SDK's parameters for the call Turn made, written from the request and the API's documentation. */
function sdkParams(q: InferRequest): OpenAI.Responses.ResponseCreateParamsNonStreaming {
  const { system, turns } = chatTurns(q);
  const strict = strictSchema(q.wireSchema);
  assert.ok(strict.ok);
  return {
    model: 'gpt-test',
    instructions: system,
    input: [
      { role: 'user', content: turns[0].content },
      { role: 'assistant', content: 'Let me look that up.' },
      { type: 'function_call', call_id: 'call_a1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call', call_id: 'call_b2', name: 'search', arguments: '{"query":"paris events","limit":3}' },
      { type: 'function_call_output', call_id: 'call_a1', output: '{"temp":18,"sky":"clear"}' },
      { type: 'function_call_output', call_id: 'call_b2', output: 'search is down' },
    ],
    tools: TOOLS.map((t) => ({ type: 'function' as const, name: t.name, description: t.description, parameters: t.parameters, strict: false })),
    text: { format: { type: 'json_schema', name: 'turn_Review', strict: true, schema: strict.schema } },
    include: ['message.output_text.logprobs'],
    max_output_tokens: q.maxTokens,
    store: false,
  };
}

type Call = { call_id: string; name: string; arguments: string };
const WIRE_CALLS: Call[] = CALLS.map((c) => ({ call_id: c.id, name: c.name, arguments: JSON.stringify(c.arguments) }));

/** The documented response whose output is two `function_call` items. */
function response(calls: Call[] = WIRE_CALLS, status = 'completed') {
  return {
    id: 'resp_tools',
    object: 'response',
    created_at: 1741476542,
    status,
    error: null,
    incomplete_details: null,
    model: 'gpt-test-2025',
    output: calls.map((c, i) => ({ type: 'function_call', id: `fc_${i}`, status: 'completed', ...c })),
    usage: { input_tokens: 90, input_tokens_details: { cached_tokens: 0 }, output_tokens: 30, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 120 },
  };
}

/** The documented event stream of that response: each call's arguments as delta pieces. */
function events(calls: Call[] = WIRE_CALLS, o: { end?: boolean } = {}): string {
  const ev: [string, unknown][] = [['response.created', { type: 'response.created', sequence_number: 0, response: { ...response([], 'in_progress'), usage: null } }]];
  let n = 1;
  calls.forEach((c, i) => {
    ev.push(['response.output_item.added', { type: 'response.output_item.added', sequence_number: n++, output_index: i, item: { type: 'function_call', id: `fc_${i}`, call_id: c.call_id, name: c.name, arguments: '', status: 'in_progress' } }]);
    for (const p of pieces(c.arguments)) ev.push(['response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', sequence_number: n++, item_id: `fc_${i}`, output_index: i, delta: p }]);
    if (o.end === false) return;
    ev.push(['response.function_call_arguments.done', { type: 'response.function_call_arguments.done', sequence_number: n++, item_id: `fc_${i}`, output_index: i, arguments: c.arguments }]);
    ev.push(['response.output_item.done', { type: 'response.output_item.done', sequence_number: n++, output_index: i, item: { type: 'function_call', id: `fc_${i}`, status: 'completed', ...c } }]);
  });
  if (o.end !== false) ev.push(['response.completed', { type: 'response.completed', sequence_number: n, response: response(calls) }]);
  return sse(ev);
}

/** The calls of an SDK response, in Turn's shape. */
function sdkCalls(output: OpenAI.Responses.ResponseOutputItem[]) {
  return output.filter((i) => i.type === 'function_call').map((i) => ({ id: i.call_id, name: i.name, arguments: JSON.parse(i.arguments) as unknown }));
}

test('responses tools: Turn sends what the SDK sends (function tools, the round as items); both read two parallel calls', async () => {
  const f = await fake(() => ({ body: response() }));
  const q = await toolRequest();
  const reply = await model(f, '&stream=0').infer(q);
  const theirs = await client(f).responses.create(sdkParams(q));
  assert.deepEqual(reply.toolCalls, CALLS);
  assert.deepEqual(sdkCalls(theirs.output), CALLS, 'the SDK reads the same calls');
  assert.equal(reply.finishReason, 'tool_calls');
  const [turn, sdk] = f.received;
  assert.equal(turn.url, sdk.url);
  assert.deepEqual(turn.json, sdk.json, 'the same body, field for field');
  assert.equal(turn.headers.authorization, `Bearer ${KEY}`);
  assert.equal(turn.headers.authorization, sdk.headers.authorization);
});

test('responses tools: a streamed response with two calls in argument deltas is read by both to the same calls', async () => {
  const f = await fake(() => ({ pieces: [events()] }));
  const q = await toolRequest();
  const deltas: string[] = [];
  const reply = await model(f).infer(q, { emit: (e) => void (e.kind === 'infer.delta' && deltas.push(e.delta)) });
  assert.deepEqual(reply.toolCalls, CALLS);
  assert.deepEqual(deltas, [], "the calls' arguments are not shown as the reply's text");
  // the SDK's reading of the stream: the argument deltas joined per output item
  const byIndex = new Map<number, { id: string; name: string; text: string }>();
  for await (const e of await client(f).responses.create({ ...sdkParams(q), stream: true })) {
    if (e.type === 'response.output_item.added' && e.item.type === 'function_call') byIndex.set(e.output_index, { id: e.item.call_id, name: e.item.name, text: '' });
    if (e.type === 'response.function_call_arguments.delta') byIndex.get(e.output_index)!.text += e.delta;
  }
  assert.deepEqual([...byIndex.values()].map((c) => ({ id: c.id, name: c.name, arguments: JSON.parse(c.text) as unknown })), CALLS);
  assert.equal(f.received[0].json.stream, true);
  assert.deepEqual(f.received[0].json, f.received[1].json);
});

test('responses tools attack: 100 MB of one call’s arguments is refused at the bound, not read to its end', async () => {
  const start = sse([['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', id: 'fc_0', call_id: 'call_big', name: 'search', arguments: '' } }]]);
  const piece = sse([['response.function_call_arguments.delta', { type: 'response.function_call_arguments.delta', item_id: 'fc_0', output_index: 0, delta: PIECE_64K }]]);
  const f = await fake(() => ({ pieces: [start, ...Array<string>(HUNDRED_MB_PIECES).fill(piece)] }));
  await assert.rejects(model(f, '&max_reply_bytes=200000000').infer(await toolRequest()), /the OpenAI Responses API at http:\/\/127\.0\.0\.1:\d+\/v1\/responses sent a tool call \(search\) whose arguments are over 1048576 bytes/);
});

test('responses tools attack: a call never finished, malformed arguments, an id twice, a name not offered', async () => {
  const cut = await fake(() => ({ pieces: [events([{ call_id: 'call_c', name: 'search', arguments: '{"query": "unfinished"}' }], { end: false })] }));
  await assert.rejects(model(cut).infer(await toolRequest()), /ended early: it closed without response\.completed/);

  const bad = await fake(() => ({ body: response([{ call_id: 'call_m', name: 'search', arguments: '{"query": ' }, WIRE_CALLS[0]]) }));
  const kept = await model(bad, '&stream=0').infer(await toolRequest());
  assert.deepEqual(kept.toolCalls, [{ id: 'call_m', name: 'search', arguments: null, argumentsText: '{"query": ' }, CALLS[0]], 'malformed arguments are kept as text; the reply is not lost');

  const twice = await fake(() => ({ body: response([WIRE_CALLS[0], { ...WIRE_CALLS[1], call_id: WIRE_CALLS[0].call_id }]) }));
  await assert.rejects(model(twice, '&stream=0').infer(await toolRequest()), /sent two tool calls with the same id \(call_x1\)/);

  const stranger = await fake(() => ({ pieces: [events([{ call_id: 'call_s', name: 'rm_rf', arguments: '{"path":"/"}' }])] }));
  const passed = await model(stranger).infer(await toolRequest());
  assert.deepEqual(passed.toolCalls, [{ id: 'call_s', name: 'rm_rf', arguments: { path: '/' } }], 'passed up as it came: the tool loop refuses it');
});
