// Native tool calls on the Gemini API, side by side with the official `@google/genai` SDK against
// one local fake: for the same tool-offering call Turn's request carries what the SDK's carries
// (`functionDeclarations` with `parametersJsonSchema` beside the answer function, mode ANY, the
// earlier round as `functionCall` parts — with their thoughtSignature — and `functionResponse`
// parts), and a reply with two parallel `functionCall` parts, buffered and streamed, is read by both
// to the same calls. Then the attacks: 100 MB of arguments, a stream cut inside the calls, an id
// twice, a name not offered, a program tool named like the answer function.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GoogleGenAI, FunctionCallingConfigMode, type GenerateContentParameters, type GenerateContentResponse } from '@google/genai';
import { createModel } from '../../runtime/run/model.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import type { InferRequest, ToolRound } from '../../runtime/infer/types.js';
import { fakesForFile, sse, type WireFake } from './wire-fake.js';
import { CALLS, HUNDRED_MB_PIECES, PIECE_64K, toolRequest, TOOLS } from './tool-fixtures.js';

const KEY = 'AIza-gemini-tools-key-77aa';
process.env.TURN_TEST_GEMINI_TOOLS_KEY = KEY;

const fake = fakesForFile();
const model = (f: WireFake, more = '') => createModel(`gemini:gemini-test?base_url=${f.url}&api_key_env=TURN_TEST_GEMINI_TOOLS_KEY&retries=0${more}`);
const sdk = (f: WireFake) => new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: f.url } });

/** Gemini's round: a call the API gave no id (Turn's own id is not sent back) and one with an id and a thought signature. */
const ROUND: ToolRound = {
  text: 'Let me look that up.',
  calls: [
    { id: 'turn_call_0', name: 'get_weather', arguments: { city: 'Paris' } },
    { id: 'fc-7', name: 'search', arguments: { query: 'paris events', limit: 3 }, signature: 'c2lnbmF0dXJlLW9mLXRob3VnaHQ=' },
  ],
  results: [
    { id: 'turn_call_0', name: 'get_weather', content: '{"temp":18,"sky":"clear"}' },
    { id: 'fc-7', name: 'search', content: 'search is down', isError: true },
  ],
};

/** The SDK's parameters for the call Turn made, written from the request and the API's documentation. */
function sdkParams(q: InferRequest): GenerateContentParameters {
  const { system, turns } = chatTurns(q);
  return {
    model: 'gemini-test',
    contents: [
      { role: 'user', parts: [{ text: turns[0].content }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me look that up.' },
          { functionCall: { name: 'get_weather', args: { city: 'Paris' } } },
          { functionCall: { id: 'fc-7', name: 'search', args: { query: 'paris events', limit: 3 } }, thoughtSignature: 'c2lnbmF0dXJlLW9mLXRob3VnaHQ=' },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: '{"temp":18,"sky":"clear"}' } } },
          { functionResponse: { id: 'fc-7', name: 'search', response: { error: 'search is down' } } },
        ],
      },
    ],
    config: {
      systemInstruction: system,
      maxOutputTokens: q.maxTokens,
      tools: [
        {
          functionDeclarations: [
            { name: 'turn_reply', description: 'Give the answer: "value" is a Review that matches the schema, "confidence" (0 to 1) how likely it is right.', parametersJsonSchema: q.wireSchema },
            ...TOOLS.map((t) => ({ name: t.name, description: t.description, parametersJsonSchema: t.parameters })),
          ],
        },
      ],
      toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
    },
  };
}

type Part = { functionCall: { id?: string; name: string; args: unknown }; thoughtSignature?: string };
const PARTS: Part[] = [
  { functionCall: { id: CALLS[0].id, name: CALLS[0].name, args: CALLS[0].arguments }, thoughtSignature: 'sig-one' },
  { functionCall: { id: CALLS[1].id, name: CALLS[1].name, args: CALLS[1].arguments } },
];

/** The documented GenerateContentResponse with a text part and function-call parts. */
function response(parts: Part[] = PARTS) {
  return {
    candidates: [{ content: { role: 'model', parts: [{ text: 'I will check both.' }, ...parts] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 90, candidatesTokenCount: 30, totalTokenCount: 120 },
    modelVersion: 'gemini-test-001',
    responseId: 'resp-tools',
  };
}

/** Its SSE stream: the text, then each call in a chunk of its own, the last chunk with finishReason. */
function chunks(parts: Part[] = PARTS, end = true): string {
  const chunk = (p: unknown[], finish?: string) => [undefined, { candidates: [{ content: { role: 'model', parts: p }, ...(finish ? { finishReason: finish } : {}), index: 0 }], modelVersion: 'gemini-test-001' }] as [undefined, unknown];
  const events = [chunk([{ text: 'I will check both.' }]), ...parts.map((p) => chunk([p]))];
  if (end) events.push(chunk([{ text: '' }], 'STOP'));
  return sse(events);
}

/** The calls of an SDK response, in Turn's shape (the SDK's own accessor). */
function sdkCalls(r: GenerateContentResponse) {
  return (r.functionCalls ?? []).map((c) => ({ id: c.id, name: c.name, arguments: c.args }));
}

test('gemini tools: Turn sends what the SDK sends (declarations, mode ANY, the round as parts); both read two parallel calls', async () => {
  const f = await fake(() => ({ body: response() }));
  const q = await toolRequest({ toolRounds: [ROUND] });
  const reply = await model(f, '&stream=0').infer(q);
  const theirs = await sdk(f).models.generateContent(sdkParams(q));
  assert.deepEqual(reply.toolCalls, [{ ...CALLS[0], signature: 'sig-one' }, CALLS[1]], 'the thought signature is kept with its call');
  assert.deepEqual(sdkCalls(theirs), CALLS, 'the SDK reads the same calls');
  assert.equal(reply.finishReason, 'tool_calls');
  assert.equal(reply.text, 'I will check both.');
  const [turn, theirsReq] = f.received;
  assert.equal(turn.url, '/v1beta/models/gemini-test:generateContent');
  assert.equal(turn.url, theirsReq.url);
  assert.deepEqual(turn.json, theirsReq.json, 'the same body, field for field');
  assert.equal(turn.headers['x-goog-api-key'], KEY);
  assert.equal(turn.headers['x-goog-api-key'], theirsReq.headers['x-goog-api-key']);
  assert.equal((turn.json.generationConfig as Record<string, unknown>).responseJsonSchema, undefined, 'no JSON response type beside function calling');
});

test('gemini tools: a streamed reply with the calls in chunks is read by both; the answer function is the reply', async () => {
  const f = await fake(() => ({ pieces: [chunks()] }));
  const q = await toolRequest({ toolRounds: [ROUND] });
  const deltas: string[] = [];
  const reply = await model(f).infer(q, { emit: (e) => void (e.kind === 'infer.delta' && deltas.push(e.delta)) });
  assert.deepEqual(reply.toolCalls, [{ ...CALLS[0], signature: 'sig-one' }, CALLS[1]]);
  assert.deepEqual(deltas, ['I will check both.']);
  const got: ReturnType<typeof sdkCalls> = [];
  for await (const c of await sdk(f).models.generateContentStream(sdkParams(q))) got.push(...sdkCalls(c));
  assert.deepEqual(got, CALLS);
  assert.equal(f.received[0].url, '/v1beta/models/gemini-test:streamGenerateContent?alt=sse');
  assert.deepEqual(f.received[0].json, f.received[1].json);

  const answer = { value: { ok: true, score: 1 }, confidence: 0.8 };
  const done = await fake(() => ({ pieces: [chunks([{ functionCall: { name: 'turn_reply', args: answer } }])] }));
  const final = await model(done).infer(q);
  assert.equal(final.toolCalls, undefined);
  assert.deepEqual(JSON.parse(final.text!), answer, "the answer function's arguments are the reply");
});

test('gemini tools attack: a program tool named turn_reply is a tool; a call without id gets one of its own', async () => {
  const q = await toolRequest({ tools: [{ name: 'turn_reply', description: 'mine', parameters: { type: 'object' } }], toolRounds: undefined });
  const f = await fake(() => ({ body: response([{ functionCall: { name: 'turn_reply', args: { x: 1 } } }, { functionCall: { name: 'turn_reply', args: { x: 2 } } }]) }));
  const reply = await model(f, '&stream=0').infer(q);
  const names = ((f.received[0].json.tools as { functionDeclarations: { name: string }[] }[])[0]).functionDeclarations.map((d) => d.name);
  assert.deepEqual(names, ['turn_reply_2', 'turn_reply']);
  assert.deepEqual(reply.toolCalls, [
    { id: 'turn_call_0', name: 'turn_reply', arguments: { x: 1 } },
    { id: 'turn_call_1', name: 'turn_reply', arguments: { x: 2 } },
  ]);
});

test('gemini tools attack: 100 MB of arguments, a stream cut inside the calls, an id twice, a name not offered', async () => {
  // Gemini sends a call whole: one chunk with 100 MB of arguments is over the frame bound long before the call bound
  const head = 'data: {"candidates": [{"index": 0, "content": {"role": "model", "parts": [{"functionCall": {"name": "search", "args": {"query": "';
  const f = await fake(() => ({ pieces: [head, ...Array<string>(HUNDRED_MB_PIECES).fill(PIECE_64K)] }));
  await assert.rejects(model(f, '&max_reply_bytes=200000000').infer(await toolRequest()), /refused the stream: a line of the stream is over 1048576 bytes \(max_frame_bytes\)/);
  // under a raised frame bound, the call's own bound refuses it
  const big = await fake(() => ({ body: response([{ functionCall: { name: 'search', args: { query: PIECE_64K.repeat(20) } } }]) }));
  await assert.rejects(model(big, '&stream=0&max_reply_bytes=200000000').infer(await toolRequest()), /the Gemini API at .* sent a tool call \(search\) whose arguments are over 1048576 bytes/);

  const cut = await fake(() => ({ pieces: [chunks(PARTS, false)] }));
  await assert.rejects(model(cut).infer(await toolRequest()), /ended early: it closed without a finishReason/);

  const twice = await fake(() => ({ body: response([PARTS[0], { functionCall: { ...PARTS[1].functionCall, id: CALLS[0].id } }]) }));
  await assert.rejects(model(twice, '&stream=0').infer(await toolRequest()), /sent two tool calls with the same id \(call_x1\)/);

  const many = Array.from({ length: 65 }, (_, i): Part => ({ functionCall: { id: `c${i}`, name: 'search', args: { query: String(i) } } }));
  const crowd = await fake(() => ({ pieces: [chunks(many)] }));
  await assert.rejects(model(crowd).infer(await toolRequest()), /sent more than 64 tool calls in one reply/);

  const stranger = await fake(() => ({ body: response([{ functionCall: { id: 'x', name: 'rm_rf', args: { path: '/' } } }]) }));
  assert.deepEqual((await model(stranger, '&stream=0').infer(await toolRequest())).toolCalls, [{ id: 'x', name: 'rm_rf', arguments: { path: '/' } }], 'passed up as it came: the tool loop refuses it');
});
