// Native tool calls on Azure OpenAI (`azure:DEPLOYMENT`), which shares the `openai:` provider's chat
// completions wire (openai.ts), side by side with the official `openai` SDK's AzureOpenAI client
// against one local fake: for the same tool-offering call Turn's request carries what the SDK's
// carries (the deployment URL and api-version, `tools` as functions, the earlier round as an
// assistant message with `tool_calls` and `tool` messages, the key in `api-key`), and Azure's
// documented replies with two parallel tool calls — buffered, and streamed after Azure's first chunk
// without choices — are read by both to the same calls.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AzureOpenAI } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { createModel } from '../../runtime/run/model.js';
import { strictSchema } from '../../runtime/infer/provider-schema.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import type { InferRequest } from '../../runtime/infer/types.js';
import { fakesForFile, sse, type WireFake } from './wire-fake.js';
import { CALLS, pieces, toolRequest, TOOLS } from './tool-fixtures.js';

const KEY = 'azure-tools-key-51e0';
process.env.TURN_TEST_AZURE_TOOLS_KEY = KEY;
const VERSION = '2024-10-21';

const fake = fakesForFile();
const model = (f: WireFake, more = '') => createModel(`azure:gpt4o-prod?endpoint=${f.url}&api_version=${VERSION}&api_key_env=TURN_TEST_AZURE_TOOLS_KEY&logprobs=0&retries=0${more}`);
const client = (f: WireFake) => new AzureOpenAI({ endpoint: f.url, apiKey: KEY, apiVersion: VERSION, deployment: 'gpt4o-prod', maxRetries: 0 });

/** The SDK's parameters for the call Turn made, written from the request and the API's documentation. */
function sdkParams(q: InferRequest): ChatCompletionCreateParamsNonStreaming {
  const { system, turns } = chatTurns(q);
  const strict = strictSchema(q.wireSchema);
  assert.ok(strict.ok);
  return {
    model: 'gpt4o-prod',
    messages: [
      { role: 'system', content: system },
      { role: 'user', content: turns[0].content },
      {
        role: 'assistant',
        content: 'Let me look that up.',
        tool_calls: [
          { id: 'call_a1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          { id: 'call_b2', type: 'function', function: { name: 'search', arguments: '{"query":"paris events","limit":3}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a1', content: '{"temp":18,"sky":"clear"}' },
      { role: 'tool', tool_call_id: 'call_b2', content: 'search is down' },
    ],
    response_format: { type: 'json_schema', json_schema: { name: 'turn_Review', strict: true, schema: strict.schema } },
    // neither tool's parameters are inside strict mode's subset (optional properties): no `strict`
    tools: TOOLS.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })),
    max_completion_tokens: q.maxTokens,
  };
}

const WIRE = CALLS.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.arguments) } }));
const FILTERS = { hate: { filtered: false, severity: 'safe' }, self_harm: { filtered: false, severity: 'safe' }, sexual: { filtered: false, severity: 'safe' }, violence: { filtered: false, severity: 'safe' } };

/** Azure's documented chat completion with two tool calls and its content-filter results. */
function completion() {
  return {
    id: 'chatcmpl-azure-tools',
    object: 'chat.completion',
    created: 1727000000,
    model: 'gpt-4o-2024-08-06',
    prompt_filter_results: [{ prompt_index: 0, content_filter_results: FILTERS }],
    choices: [{ index: 0, finish_reason: 'tool_calls', logprobs: null, message: { role: 'assistant', content: null, refusal: null, tool_calls: WIRE }, content_filter_results: FILTERS }],
    usage: { prompt_tokens: 90, completion_tokens: 30, total_tokens: 120 },
  };
}

/** Azure's stream: a first chunk without choices, then each call's first piece (id, name) and its arguments in pieces by index. */
function chunks(): string {
  const chunk = (delta: unknown, finish: string | null = null) => [undefined, { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta, finish_reason: finish, content_filter_results: {} }] }] as [undefined, unknown];
  const events: [undefined, unknown][] = [[undefined, { id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: [{ prompt_index: 0, content_filter_results: {} }] }]];
  WIRE.forEach((c, index) => {
    events.push(chunk({ role: 'assistant', content: null, tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.function.name, arguments: '' } }] }));
    for (const p of pieces(c.function.arguments)) events.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  events.push(chunk({}, 'tool_calls'));
  events.push([undefined, '[DONE]']);
  return sse(events);
}

test('azure tools: the deployment URL, api-key and body (tools, the round as messages) are the SDK\'s; both read two parallel calls', async () => {
  const f = await fake(() => ({ body: completion() }));
  const q = await toolRequest();
  const reply = await model(f, '&stream=0').infer(q);
  const theirs = await client(f).chat.completions.create(sdkParams(q));
  assert.deepEqual(reply.toolCalls, CALLS);
  assert.deepEqual(theirs.choices[0].message.tool_calls!.map((c) => ({ id: c.id, name: c.type === 'function' ? c.function.name : '', arguments: c.type === 'function' ? (JSON.parse(c.function.arguments) as unknown) : null })), CALLS);
  const [a, b] = f.received;
  assert.equal(a.url, `/openai/deployments/gpt4o-prod/chat/completions?api-version=${VERSION}`);
  assert.equal(a.url, b.url);
  assert.deepEqual(a.json, b.json, 'the same body, field for field');
  assert.equal(a.headers['api-key'], KEY);
  assert.equal(a.headers['api-key'], b.headers['api-key']);
});

test('azure tools: the stream (first chunk without choices, call pieces by index) is read by both to the same calls', async () => {
  const f = await fake(() => ({ pieces: [chunks()] }));
  const q = await toolRequest();
  const reply = await model(f).infer(q);
  assert.deepEqual(reply.toolCalls, CALLS);
  const byIndex = new Map<number, { id: string; name: string; text: string }>();
  for await (const c of await client(f).chat.completions.create({ ...sdkParams(q), stream: true, stream_options: { include_usage: true } })) {
    for (const t of c.choices[0]?.delta?.tool_calls ?? []) {
      const call = byIndex.get(t.index) ?? { id: '', name: '', text: '' };
      if (t.id) call.id = t.id;
      if (t.function?.name) call.name = t.function.name;
      call.text += t.function?.arguments ?? '';
      byIndex.set(t.index, call);
    }
  }
  assert.deepEqual([...byIndex.values()].map((c) => ({ id: c.id, name: c.name, arguments: JSON.parse(c.text) as unknown })), CALLS);
  assert.equal(f.received[0].json.stream, true);
  assert.deepEqual(f.received[0].json, f.received[1].json);
});
