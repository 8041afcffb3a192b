// Native tool calls on Anthropic's Messages API, side by side with the official `@anthropic-ai/sdk`
// against one local fake: for the same tool-offering call Turn's request carries what the SDK's
// carries (the answer tool beside the program's tools, `tool_choice: any`, the earlier round as
// `tool_use` / `tool_result` blocks, the key header), and a reply with two parallel `tool_use`
// blocks, buffered and streamed (`input_json_delta` pieces), is read by both to the same calls.
// Then the attacks: 100 MB of arguments, an unterminated tool block, an id twice, a tool name the
// request did not offer, a program tool named like the answer tool.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { createModel } from '../../runtime/run/model.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import type { InferRequest } from '../../runtime/infer/types.js';
import { fakesForFile, sse, type WireFake } from './wire-fake.js';
import { CALLS, HUNDRED_MB_PIECES, PIECE_64K, pieces, toolRequest, TOOLS } from './tool-fixtures.js';

const KEY = 'sk-ant-tools-5d1e07';
process.env.TURN_TEST_ANTHROPIC_TOOLS_KEY = KEY;

const fake = fakesForFile();
const model = (f: WireFake, more = '') => createModel(`anthropic:claude-test?base_url=${f.url}&api_key_env=TURN_TEST_ANTHROPIC_TOOLS_KEY&retries=0${more}`);
const sdk = (f: WireFake) => new Anthropic({ apiKey: KEY, baseURL: f.url, maxRetries: 0 });

/** The SDK's parameters for the call Turn made, written from the request and the API's documentation, not from Turn's body. */
function sdkParams(q: InferRequest): Anthropic.MessageCreateParamsNonStreaming {
  const { system, turns } = chatTurns(q);
  const round = q.toolRounds![0];
  return {
    model: 'claude-test',
    max_tokens: q.maxTokens!,
    system,
    messages: [
      { role: 'user', content: turns[0].content },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: round.text! },
          ...round.calls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.arguments })),
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_a1', content: '{"temp":18,"sky":"clear"}' },
          { type: 'tool_result', tool_use_id: 'call_b2', content: 'search is down', is_error: true },
        ],
      },
    ],
    tools: [
      { name: 'turn_reply', description: `Give the answer: "value" is a Review that matches the schema, "confidence" (0 to 1) how likely it is right.`, input_schema: q.wireSchema as Anthropic.Tool.InputSchema },
      ...TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters as Anthropic.Tool.InputSchema })),
    ],
    tool_choice: { type: 'any' },
  };
}

/** The documented message with a text block and two parallel `tool_use` blocks. */
function message(calls: { id: string; name: string; input: unknown }[] = CALLS.map((c) => ({ id: c.id, name: c.name, input: c.arguments }))) {
  return {
    id: 'msg_tools',
    type: 'message',
    role: 'assistant',
    model: 'claude-test',
    content: [{ type: 'text', text: 'I will check both.' }, ...calls.map((c) => ({ type: 'tool_use', ...c }))],
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 120, output_tokens: 40 },
  };
}

/** The documented event stream of that message: each call's input as `input_json_delta` pieces. */
function events(o: { calls?: { id: string; name: string; text: string[] }[]; end?: boolean } = {}): string {
  const calls = o.calls ?? CALLS.map((c) => ({ id: c.id, name: c.name, text: pieces(JSON.stringify(c.arguments)) }));
  const ev: [string, unknown][] = [
    ['message_start', { type: 'message_start', message: { ...message([]), content: [], stop_reason: null, usage: { input_tokens: 120, output_tokens: 1 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'I will check both.' } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ];
  calls.forEach((c, i) => {
    ev.push(['content_block_start', { type: 'content_block_start', index: i + 1, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } }]);
    for (const p of c.text) ev.push(['content_block_delta', { type: 'content_block_delta', index: i + 1, delta: { type: 'input_json_delta', partial_json: p } }]);
    ev.push(['content_block_stop', { type: 'content_block_stop', index: i + 1 }]);
  });
  if (o.end !== false) {
    ev.push(['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 40 } }]);
    ev.push(['message_stop', { type: 'message_stop' }]);
  }
  return sse(ev);
}

/** The calls of an SDK message, in Turn's shape. */
function sdkCalls(m: Anthropic.Message) {
  return m.content.filter((b) => b.type === 'tool_use').map((b) => ({ id: b.id, name: b.name, arguments: b.input }));
}

test('anthropic tools: Turn sends what the SDK sends (tools, tool_choice any, the round as blocks); both read two parallel calls', async () => {
  const f = await fake(() => ({ body: message() }));
  const q = await toolRequest();
  const reply = await model(f, '&stream=0').infer(q);
  const theirs = await sdk(f).messages.create(sdkParams(q));
  assert.deepEqual(reply.toolCalls, CALLS);
  assert.deepEqual(sdkCalls(theirs), CALLS, 'the SDK reads the same calls');
  assert.equal(reply.finishReason, 'tool_calls');
  assert.equal(reply.text, 'I will check both.', 'the text beside the calls');

  const [turn, sdkReq] = f.received;
  assert.equal(turn.url, sdkReq.url);
  assert.deepEqual(turn.json, sdkReq.json, 'the same body, field for field');
  // the key in the documented x-api-key header; the installed SDK (1.17) sends an API key as a bearer, its own choice
  assert.equal(turn.headers['x-api-key'], KEY);
  assert.equal(sdkReq.headers.authorization, `Bearer ${KEY}`);
  assert.match(String(turn.headers['anthropic-version']), /^\d{4}-\d{2}-\d{2}$/);
});

test('anthropic tools: a streamed reply with two calls in input_json_delta pieces is read by both to the same calls', async () => {
  const f = await fake(() => ({ pieces: [events()] }));
  const q = await toolRequest();
  const deltas: string[] = [];
  const reply = await model(f).infer(q, { emit: (e) => void (e.kind === 'infer.delta' && deltas.push(e.delta)) });
  const theirs = await sdk(f).messages.stream(sdkParams(q)).finalMessage();
  assert.deepEqual(reply.toolCalls, CALLS);
  assert.deepEqual(sdkCalls(theirs), CALLS);
  assert.equal(reply.finishReason, 'tool_calls');
  assert.deepEqual(deltas, ['I will check both.'], "the calls' arguments are not shown as the reply's text");
  assert.equal(f.received[0].json.stream, true);
  assert.deepEqual(f.received[0].json, f.received[1].json);
});

test('anthropic tools attack: a program tool named turn_reply is a tool, not the answer; the answer tool is renamed (and forced alone without tools)', async () => {
  const mine = { name: 'turn_reply', description: 'A tool of the program that happens to have the name.', parameters: { type: 'object', properties: { x: { type: 'number' } } } };
  const q = await toolRequest({ tools: [mine], toolRounds: undefined });
  const f = await fake((_, n) => ({
    body: message(n === 0 ? [{ id: 'toolu_9', name: 'turn_reply', input: { x: 1 } }] : [{ id: 'toolu_8', name: 'turn_reply_2', input: { value: { ok: false, score: 0 }, confidence: 0.5 } }]),
  }));
  const first = await model(f, '&stream=0').infer(q);
  const names = (f.received[0].json.tools as { name: string }[]).map((t) => t.name);
  assert.deepEqual(names, ['turn_reply_2', 'turn_reply'], 'the answer tool takes a free name');
  assert.deepEqual(first.toolCalls, [{ id: 'toolu_9', name: 'turn_reply', arguments: { x: 1 } }], "the program's tool is a call");
  assert.equal(first.text, 'I will check both.');
  const second = await model(f, '&stream=0').infer(q);
  assert.equal(second.toolCalls, undefined);
  assert.deepEqual(JSON.parse(second.text!), { value: { ok: false, score: 0 }, confidence: 0.5 }, 'the renamed answer tool is the answer');

  // without tools, the answer tool keeps its name and is forced, as before
  const plain = await fake(() => ({ body: { ...message(), content: [{ type: 'tool_use', id: 'toolu_1', name: 'turn_reply', input: { value: { ok: true, score: 1 }, confidence: 0.9 } }] } }));
  const answer = await model(plain, '&stream=0').infer(await toolRequest({ tools: undefined, toolRounds: undefined }));
  assert.deepEqual(plain.received[0].json.tool_choice, { type: 'tool', name: 'turn_reply' });
  assert.equal((plain.received[0].json.tools as unknown[]).length, 1);
  assert.equal(answer.toolCalls, undefined);
  assert.deepEqual(JSON.parse(answer.text!), { value: { ok: true, score: 1 }, confidence: 0.9 });
});

test('anthropic tools attack: 100 MB of one call’s arguments is refused at the bound, not read to its end', async () => {
  const start = events({ calls: [{ id: 'toolu_big', name: 'search', text: ['{"query": "'] }], end: false });
  const piece = sse([['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: PIECE_64K } }]]);
  const f = await fake(() => ({ pieces: [start, ...Array<string>(HUNDRED_MB_PIECES).fill(piece)] }));
  const q = await toolRequest();
  await assert.rejects(model(f, '&max_reply_bytes=200000000').infer(q), /the Anthropic API at http:\/\/127\.0\.0\.1:\d+\/v1\/messages sent a tool call \(search\) whose arguments are over 1048576 bytes/);
});

test('anthropic tools attack: an unterminated tool block, an id twice, a name not offered', async () => {
  // the stream closes inside a tool block: the reply is incomplete, said so
  const cut = await fake(() => ({ pieces: [events({ calls: [{ id: 'toolu_c', name: 'search', text: ['{"query": "unfin'] }], end: false })] }));
  await assert.rejects(model(cut).infer(await toolRequest()), /ended early: it closed without a stop_reason or message_stop/);

  // a block whose JSON never closed, in a message that did end: the call keeps its text, the reply is not lost
  const open = await fake(() => ({ pieces: [events({ calls: [{ id: 'toolu_o', name: 'search', text: ['{"query": "unfin'] }, { id: 'toolu_p', name: 'get_weather', text: ['{"city":"Rome"}'] }] })] }));
  const reply = await model(open).infer(await toolRequest());
  assert.deepEqual(reply.toolCalls, [
    { id: 'toolu_o', name: 'search', arguments: null, argumentsText: '{"query": "unfin' },
    { id: 'toolu_p', name: 'get_weather', arguments: { city: 'Rome' } },
  ]);

  const twice = await fake(() => ({ body: message([{ id: 'toolu_same', name: 'search', input: { query: 'a' } }, { id: 'toolu_same', name: 'search', input: { query: 'b' } }]) }));
  await assert.rejects(model(twice, '&stream=0').infer(await toolRequest()), /sent two tool calls with the same id \(toolu_same\)/);

  // more calls than a reply may ask for: buffered, and streamed (refused at the 65th block's start)
  const many = Array.from({ length: 65 }, (_, i) => ({ id: `toolu_${i}`, name: 'search', input: { query: String(i) } }));
  const crowd = await fake(() => ({ body: message(many) }));
  await assert.rejects(model(crowd, '&stream=0').infer(await toolRequest()), /sent 65 tool calls in one reply, more than the 64 a reply may ask for/);
  const streamedCrowd = await fake(() => ({ pieces: [events({ calls: many.map((c) => ({ id: c.id, name: c.name, text: [JSON.stringify(c.input)] })) })] }));
  await assert.rejects(model(streamedCrowd).infer(await toolRequest()), /sent more than 64 tool calls in one reply/);

  // a name the request did not offer is passed up as it came (the tool loop refuses it, not the decoder)
  const stranger = await fake(() => ({ body: message([{ id: 'toolu_s', name: 'rm_rf', input: { path: '/' } }]) }));
  const passed = await model(stranger, '&stream=0').infer(await toolRequest());
  assert.deepEqual(passed.toolCalls, [{ id: 'toolu_s', name: 'rm_rf', arguments: { path: '/' } }]);
});
