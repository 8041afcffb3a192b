// Native tool calls on Ollama's native chat API (`ollama:MODEL?api=native`, POST /api/chat) against a
// local fake in its documented shapes (Ollama has no official SDK among the project's): the tools as
// `tools` with no `format`, the earlier round as an assistant message with `tool_calls` and `tool`
// messages, and a reply with two parallel calls in `message.tool_calls`, buffered and on a line of
// an NDJSON stream. Then the attacks: 100 MB of arguments, a stream cut before its last line, an id
// twice, a name not offered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createModel } from '../../runtime/run/model.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import type { ToolRound } from '../../runtime/infer/types.js';
import { fakesForFile, type WireFake } from './wire-fake.js';
import { CALLS, HUNDRED_MB_PIECES, PIECE_64K, toolRequest, TOOLS } from './tool-fixtures.js';

const fake = fakesForFile();
const model = (f: WireFake, more = '') => createModel(`ollama:llama3.2?api=native&base_url=${f.url}&retries=0${more}`);
const NDJSON = { 'content-type': 'application/x-ndjson' };

type WireCall = { id?: string; function: { index?: number; name: string; arguments: unknown } };
const WIRE: WireCall[] = CALLS.map((c, index) => ({ id: c.id, function: { index, name: c.name, arguments: c.arguments } }));

/** The documented /api/chat reply with tool calls. */
function chat(calls: WireCall[] = WIRE, content = '') {
  return { model: 'llama3.2', created_at: '2026-12-07T20:00:00Z', message: { role: 'assistant', content, tool_calls: calls }, done_reason: 'stop', done: true, prompt_eval_count: 90, eval_count: 30 };
}

/** The documented stream: the calls on a line of their own (done: false), then the last line. */
function lines(calls: WireCall[] = WIRE, end = true): string[] {
  const out = [JSON.stringify({ model: 'llama3.2', message: { role: 'assistant', content: '' , tool_calls: calls }, done: false }) + '\n'];
  if (end) out.push(JSON.stringify({ model: 'llama3.2', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 90, eval_count: 30 }) + '\n');
  return out;
}

test('ollama tools: tools without format, the round as tool_calls and tool messages; two parallel calls read, buffered and streamed', async () => {
  const round: ToolRound = { ...(await toolRequest()).toolRounds![0] };
  round.calls = [{ ...round.calls[0], id: 'turn_call_0' }, round.calls[1]];
  round.results = [{ ...round.results[0], id: 'turn_call_0' }, round.results[1]];
  const q = await toolRequest({ toolRounds: [round] });
  const f = await fake((r) => (r.json.stream ? { headers: NDJSON, pieces: lines() } : { body: chat() }));
  const buffered = await model(f, '&stream=0').infer(q);
  assert.deepEqual(buffered.toolCalls, CALLS);
  assert.equal(buffered.finishReason, 'tool_calls');
  const deltas: string[] = [];
  const streamed = await model(f).infer(q, { emit: (e) => void (e.kind === 'infer.delta' && deltas.push(e.delta)) });
  assert.deepEqual(streamed.toolCalls, CALLS);
  assert.deepEqual(deltas, []);

  const { system, turns } = chatTurns(q);
  const body = f.received[0].json;
  assert.equal(f.received[0].url, '/api/chat');
  assert.equal(body.format, undefined, 'no format grammar beside tools');
  assert.deepEqual(body.tools, TOOLS.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })));
  assert.deepEqual(body.messages, [
    { role: 'system', content: system },
    { role: 'user', content: turns[0].content },
    {
      role: 'assistant',
      content: 'Let me look that up.',
      tool_calls: [
        { function: { name: 'get_weather', arguments: { city: 'Paris' } } },
        { id: 'call_b2', function: { name: 'search', arguments: { query: 'paris events', limit: 3 } } },
      ],
    },
    { role: 'tool', content: '{"temp":18,"sky":"clear"}', tool_name: 'get_weather' },
    { role: 'tool', content: 'search is down', tool_name: 'search', tool_call_id: 'call_b2' },
  ]);
});

test('ollama tools: calls without ids get their own; without tools the schema is the format as before', async () => {
  const f = await fake(() => ({ body: chat(WIRE.map((c) => ({ function: c.function }))) }));
  const reply = await model(f, '&stream=0').infer(await toolRequest());
  assert.deepEqual(reply.toolCalls!.map((c) => c.id), ['turn_call_0', 'turn_call_1']);
  const plain = await fake(() => ({ body: chat([], JSON.stringify({ value: { ok: true, score: 1 }, confidence: 0.5 })) }));
  const q = await toolRequest({ tools: undefined, toolRounds: undefined });
  const answer = await model(plain, '&stream=0').infer(q);
  assert.deepEqual(plain.received[0].json.format, JSON.parse(JSON.stringify(q.wireSchema)));
  assert.equal(plain.received[0].json.tools, undefined);
  assert.equal(answer.toolCalls, undefined);
});

test('ollama tools attack: 100 MB of arguments, a stream cut before its last line, an id twice, a name not offered', async () => {
  const head = '{"model": "llama3.2", "done": false, "message": {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "search", "arguments": {"query": "';
  const f = await fake(() => ({ headers: NDJSON, pieces: [head, ...Array<string>(HUNDRED_MB_PIECES).fill(PIECE_64K)] }));
  await assert.rejects(model(f, '&max_reply_bytes=200000000').infer(await toolRequest()), /refused the stream: a line of the stream is over 1048576 bytes \(max_frame_bytes\)/);
  // under a raised frame bound, the call's own bound refuses it
  const big = await fake(() => ({ body: chat([{ function: { name: 'search', arguments: { query: PIECE_64K.repeat(20) } } }]) }));
  await assert.rejects(model(big, '&stream=0&max_reply_bytes=200000000').infer(await toolRequest()), /the Ollama server at .* sent a tool call \(search\) whose arguments are over 1048576 bytes/);

  const cut = await fake(() => ({ headers: NDJSON, pieces: lines(WIRE, false) }));
  await assert.rejects(model(cut).infer(await toolRequest()), /ended early: it closed before its last line/);

  const twice = await fake(() => ({ body: chat([WIRE[0], { ...WIRE[1], id: WIRE[0].id }]) }));
  await assert.rejects(model(twice, '&stream=0').infer(await toolRequest()), /sent two tool calls with the same id \(call_x1\)/);

  const many = Array.from({ length: 65 }, (_, i): WireCall => ({ function: { name: 'search', arguments: { query: String(i) } } }));
  const crowd = await fake(() => ({ body: chat(many) }));
  await assert.rejects(model(crowd, '&stream=0').infer(await toolRequest()), /sent more than 64 tool calls in one reply/);

  const stranger = await fake(() => ({ headers: NDJSON, pieces: lines([{ function: { name: 'rm_rf', arguments: '{"path": "/"' } }]) }));
  const passed = await model(stranger).infer(await toolRequest());
  assert.deepEqual(passed.toolCalls, [{ id: 'turn_call_0', name: 'rm_rf', arguments: null, argumentsText: '{"path": "/"' }], 'passed up as it came, its unparsable arguments as text: the tool loop refuses it');
});
