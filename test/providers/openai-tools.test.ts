// Native tool calls on OpenAI's Chat Completions wire (issue 42), side by side with the official
// `openai` SDK against a local fake that records requests: Turn's request carries what the SDK's
// carries for the same call (the tool definitions, the assistant's `tool_calls` and the `tool`
// results of the rounds so far, `response_format` for the final typed value), and the vendor's
// documented tool-call replies, whole and streamed (`delta.tool_calls` pieces joined by index),
// are read alike by both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { createModel } from '../../runtime/run/model.js';
import { strictSchema } from '../../runtime/infer/provider-schema.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import type { InferRequest } from '../../runtime/infer/types.js';
import { okJson, runWith } from '../infer/helpers.js';
import { fakesForFile, sse, type WireFake } from './wire-fake.js';

const SECRET = 'sk-tools-secret-5a1f';
process.env.TURN_TEST_TOOLS_KEY = SECRET;

const PROGRAM = `
struct Answer { total: Num };
/// Adds two numbers.
let add = turn(a: Num, b: Num) -> Num { return a + b; };
/// Looks a word up.
let lookup = turn(word: Str, limit: Num?) -> Str { return "found " + word; };
context.system("You add.");
let r = infer Answer with { tools: [add, lookup] } { "What is 2 + 3?"; };
return r.total;
`;
const FINAL = JSON.stringify({ value: { total: 5 }, confidence: 0.8 });

const fake = fakesForFile();
const spec = (f: WireFake, more = '') => `openai:gpt-test?base_url=${f.url}/v1&api_key_env=TURN_TEST_TOOLS_KEY&logprobs=0${more}`;

const CALLS = [
  { id: 'call_a', type: 'function' as const, function: { name: 'add', arguments: '{"a": 2, "b": 3}' } },
  { id: 'call_b', type: 'function' as const, function: { name: 'lookup', arguments: '{"word": "sum"}' } },
];

function completion(message: Record<string, unknown>, finish: string) {
  return {
    id: 'chatcmpl-tools',
    object: 'chat.completion',
    created: 1741476542,
    model: 'gpt-test-2025',
    choices: [{ index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finish, logprobs: null }],
    usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 },
  };
}

/** The documented stream of a reply that calls both tools: each call's id and name first, then its arguments in pieces, one call after the other. */
function toolCallStream(): string {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id: 'chatcmpl-tools', object: 'chat.completion.chunk', created: 1741476542, model: 'gpt-test-2025', choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
  });
  const piece = (index: number, fields: Record<string, unknown>) => ({ tool_calls: [{ index, ...fields }] });
  return sse([
    [undefined, chunk({ role: 'assistant', content: null, ...piece(0, { id: 'call_a', type: 'function', function: { name: 'add', arguments: '' } }) })],
    [undefined, chunk(piece(0, { function: { arguments: '{"a": 2' } }))],
    [undefined, chunk(piece(0, { function: { arguments: ', "b": 3}' } }))],
    [undefined, chunk(piece(1, { id: 'call_b', type: 'function', function: { name: 'lookup', arguments: '{"wo' } }))],
    [undefined, chunk(piece(1, { function: { arguments: 'rd": "sum"}' } }))],
    [undefined, chunk({}, 'tool_calls')],
    [undefined, { id: 'chatcmpl-tools', object: 'chat.completion.chunk', created: 1741476542, model: 'gpt-test-2025', choices: [], usage: { prompt_tokens: 40, completion_tokens: 12, total_tokens: 52 } }],
    [undefined, '[DONE]'],
  ]);
}

function finalStream(): string {
  return sse([
    [undefined, { id: 'c2', object: 'chat.completion.chunk', created: 1, model: 'gpt-test-2025', choices: [{ index: 0, delta: { role: 'assistant', content: FINAL }, finish_reason: 'stop' }] }],
    [undefined, '[DONE]'],
  ]);
}

/** The SDK's parameters for the call Turn made: built from the request (its tools and rounds), not from Turn's body. */
function sdkParams(q: InferRequest, stream: boolean) {
  const { system, turns } = chatTurns(q);
  const strict = strictSchema(q.wireSchema);
  assert.ok(strict.ok);
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'system', content: system }, { role: 'user', content: turns[0].content }];
  for (const round of q.toolRounds ?? []) {
    messages.push({ role: 'assistant', content: null, tool_calls: round.calls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: JSON.stringify(c.arguments) } })) });
    for (const r of round.results) messages.push({ role: 'tool', tool_call_id: r.id, content: r.content });
  }
  return {
    model: 'gpt-test',
    messages,
    response_format: { type: 'json_schema' as const, json_schema: { name: `turn_${q.typeName}`, strict: true, schema: strict.schema } },
    tools: [
      {
        type: 'function' as const,
        function: {
          name: 'add', description: 'Adds two numbers.', strict: true,
          parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false },
        },
      },
      {
        // `limit: Num?` may be left out: not the strict subset, so no `strict`
        type: 'function' as const,
        function: {
          name: 'lookup', description: 'Looks a word up.',
          parameters: { type: 'object', properties: { word: { type: 'string' }, limit: { anyOf: [{ type: 'number' }, { type: 'null' }] } }, required: ['word'], additionalProperties: false },
        },
      },
    ],
    max_tokens: q.maxTokens,
    ...(stream ? { stream: true as const, stream_options: { include_usage: true } } : {}),
  };
}

const client = (f: WireFake) => new OpenAI({ apiKey: SECRET, baseURL: `${f.url}/v1`, maxRetries: 0 });

test('openai tools: Turn sends what the SDK sends (tools, tool_calls, tool results); both read a tool-call reply', async () => {
  const f = await fake((req) =>
    // Turn's rounds: calls, then the answer; the SDK's two requests are answered like Turn's of the same shape
    ((req.json.messages as unknown[]).length > 2 ? { body: completion({ content: FINAL }, 'stop') } : { body: completion({ content: null, tool_calls: CALLS }, 'tool_calls') }),
  );
  const model = createModel(spec(f, '&stream=0'));
  const r = await runWith(PROGRAM, (q, io) => model.infer(q, io));
  assert.equal(okJson(r), 5);
  assert.equal(r.requests.length, 2);
  const rounds = r.requests[1].toolRounds!;
  assert.deepEqual(rounds[0].calls.map((c) => [c.id, c.name, c.arguments]), [['call_a', 'add', { a: 2, b: 3 }], ['call_b', 'lookup', { word: 'sum' }]]);
  assert.deepEqual(rounds[0].results.map((x) => x.content), ['5', 'found sum']);

  const first = (await client(f).chat.completions.create(sdkParams(r.requests[0], false))) as OpenAI.Chat.ChatCompletion;
  assert.deepEqual(first.choices[0].message.tool_calls, CALLS, 'the SDK reads the same calls');
  const second = (await client(f).chat.completions.create(sdkParams(r.requests[1], false))) as OpenAI.Chat.ChatCompletion;
  assert.equal(second.choices[0].message.content, FINAL);

  const [turn1, turn2, sdk1, sdk2] = f.received;
  assert.deepEqual(turn1.json, sdk1.json, 'the first round: the same body, field for field');
  assert.deepEqual(turn2.json, sdk2.json, 'the second round: the calls and their results as the SDK sends them');
  assert.equal(turn2.headers.authorization, sdk2.headers.authorization);
  const tools = r.events.filter((e) => e.kind === 'infer.tool' && e.state === 'done');
  assert.equal(tools.length, 2);
});

test('openai tools: streamed delta.tool_calls pieces are joined by index, as the SDK joins them', async () => {
  const f = await fake((req) => ({ pieces: [(req.json.messages as unknown[]).length > 2 ? finalStream() : toolCallStream()] }));
  const model = createModel(spec(f));
  const r = await runWith(PROGRAM, (q, io) => model.infer(q, io));
  assert.equal(okJson(r), 5);
  const rounds = r.requests[1].toolRounds!;
  assert.deepEqual(rounds[0].calls.map((c) => [c.id, c.name, c.arguments]), [['call_a', 'add', { a: 2, b: 3 }], ['call_b', 'lookup', { word: 'sum' }]]);

  const stream = client(f).chat.completions.stream(sdkParams(r.requests[0], true));
  const done = await stream.finalChatCompletion();
  assert.deepEqual(
    done.choices[0].message.tool_calls?.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments) as unknown]),
    rounds[0].calls.map((c) => [c.id, c.name, c.arguments]),
    'the SDK joins the pieces into the same calls',
  );
  const [turn1, turn2, sdk1] = f.received;
  assert.deepEqual(turn1.json, sdk1.json, 'the same streamed request');
  assert.equal(turn2.json.stream, true);
});

test('openai tools: arguments that are not JSON reach the loop as text and come back to the model as an error result', async () => {
  const bad = [{ id: 'call_x', type: 'function', function: { name: 'add', arguments: '{"a": 2, "b": ' } }];
  const f = await fake((req) => ((req.json.messages as unknown[]).length > 2 ? { body: completion({ content: FINAL }, 'stop') } : { body: completion({ content: null, tool_calls: bad }, 'tool_calls') }));
  const model = createModel(spec(f, '&stream=0'));
  const r = await runWith(PROGRAM, (q, io) => model.infer(q, io));
  assert.equal(okJson(r), 5);
  const sent = f.received[1].json.messages as { role: string; content?: string; tool_calls?: { function: { arguments: string } }[] }[];
  const assistant = sent.find((m) => m.role === 'assistant')!;
  assert.equal(assistant.tool_calls![0].function.arguments, '{"a": 2, "b": ', 'the call as the model wrote it');
  const tool = sent.find((m) => m.role === 'tool')!;
  assert.match(tool.content!, /the arguments are not JSON/);
});
