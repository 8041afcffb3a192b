// Native tool calls on AWS Bedrock's Converse API, side by side with the official
// `@aws-sdk/client-bedrock-runtime` against one local fake: for the same tool-offering call Turn's
// request carries what the SDK's carries (`toolConfig.tools[].toolSpec.inputSchema.json` beside the
// answer tool, `toolChoice: any`, the earlier round as `toolUse` / `toolResult` blocks, a SigV4
// signature of the same scope), and a reply with two parallel `toolUse` blocks, buffered and as
// ConverseStream's binary events (`contentBlockStart` toolUse, `contentBlockDelta` input pieces), is
// read by both to the same calls. Then the attacks: 100 MB of input, an unterminated tool block, an
// id twice, a name not offered.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type ConverseCommandInput, type ContentBlock } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import { createModel } from '../../runtime/run/model.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import type { InferRequest } from '../../runtime/infer/types.js';
import { fakesForFile, type Recorded, type WireFake } from './wire-fake.js';
import { CALLS, HUNDRED_MB_PIECES, PIECE_64K, pieces, toolRequest, TOOLS } from './tool-fixtures.js';

const CREDS = { accessKeyId: 'AKIATESTBEDROCKTOOLS', secretAccessKey: 'bedrock/tools+secret/0a1b2c', sessionToken: 'IQoJb3JpZ2luX2VjToolsSessionToken' };
process.env.TURN_TEST_AWS_TOOLS_ID = CREDS.accessKeyId;
process.env.TURN_TEST_AWS_TOOLS_SECRET = CREDS.secretAccessKey;
process.env.TURN_TEST_AWS_TOOLS_TOKEN = CREDS.sessionToken;
const MODEL_ID = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const REGION = 'eu-west-3';

const fake = fakesForFile();
const model = (f: WireFake, more = '') =>
  createModel(`bedrock:${MODEL_ID}?region=${REGION}&base_url=${f.url}&access_key_env=TURN_TEST_AWS_TOOLS_ID&secret_key_env=TURN_TEST_AWS_TOOLS_SECRET&session_token_env=TURN_TEST_AWS_TOOLS_TOKEN&retries=0${more}`);
// HTTP/1.1 (the fake's): the client's default handler speaks HTTP/2
const client = (f: WireFake) => new BedrockRuntimeClient({ region: REGION, endpoint: f.url, credentials: CREDS, maxAttempts: 1, requestHandler: new NodeHttpHandler() });

/** The SDK's input for the call Turn made, written from the request and the API's documentation. */
function sdkInput(q: InferRequest): ConverseCommandInput {
  const { system, turns } = chatTurns(q);
  return {
    modelId: MODEL_ID,
    messages: [
      { role: 'user', content: [{ text: turns[0].content }] },
      {
        role: 'assistant',
        content: [
          { text: 'Let me look that up.' },
          { toolUse: { toolUseId: 'call_a1', name: 'get_weather', input: { city: 'Paris' } } },
          { toolUse: { toolUseId: 'call_b2', name: 'search', input: { query: 'paris events', limit: 3 } } },
        ],
      },
      {
        role: 'user',
        content: [
          { toolResult: { toolUseId: 'call_a1', content: [{ text: '{"temp":18,"sky":"clear"}' }] } },
          { toolResult: { toolUseId: 'call_b2', content: [{ text: 'search is down' }], status: 'error' } },
        ],
      },
    ],
    system: [{ text: system }],
    inferenceConfig: { maxTokens: q.maxTokens },
    toolConfig: {
      tools: [
        { toolSpec: { name: 'turn_reply', description: 'Give the answer: "value" is a Review that matches the schema, "confidence" (0 to 1) how likely it is right.', inputSchema: { json: q.wireSchema as never } } },
        ...TOOLS.map((t) => ({ toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.parameters as never } } })),
      ],
      toolChoice: { any: {} },
    },
  };
}

type Use = { toolUseId: string; name: string; input: unknown };
const USES: Use[] = CALLS.map((c) => ({ toolUseId: c.id, name: c.name, input: c.arguments }));

/** The documented Converse response: a text block and two `toolUse` blocks. */
function converse(uses: Use[] = USES) {
  return {
    output: { message: { role: 'assistant', content: [{ text: 'I will check both.' }, ...uses.map((toolUse) => ({ toolUse }))] } },
    stopReason: 'tool_use',
    usage: { inputTokens: 90, outputTokens: 30, totalTokens: 120 },
    metrics: { latencyMs: 500 },
  };
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);
function message(type: string, payload: unknown): Uint8Array {
  const headers: Record<string, { type: 'string'; value: string }> = {
    ':message-type': { type: 'string', value: 'event' },
    ':event-type': { type: 'string', value: type },
    ':content-type': { type: 'string', value: 'application/json' },
  };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify(payload)) });
}
const STREAM_HEADERS = { 'content-type': 'application/vnd.amazon.eventstream' };

/** ConverseStream's documented events: the text block, then each call's block with its input in pieces. */
function streamOf(uses: { toolUseId: string; name: string; text: string[] }[], end = true): Uint8Array[] {
  const out = [message('messageStart', { role: 'assistant' }), message('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'I will check both.' } }), message('contentBlockStop', { contentBlockIndex: 0 })];
  uses.forEach((u, i) => {
    out.push(message('contentBlockStart', { contentBlockIndex: i + 1, start: { toolUse: { toolUseId: u.toolUseId, name: u.name } } }));
    for (const p of u.text) out.push(message('contentBlockDelta', { contentBlockIndex: i + 1, delta: { toolUse: { input: p } } }));
    if (end) out.push(message('contentBlockStop', { contentBlockIndex: i + 1 }));
  });
  if (end) out.push(message('messageStop', { stopReason: 'tool_use' }), message('metadata', { usage: { inputTokens: 90, outputTokens: 30, totalTokens: 120 }, metrics: { latencyMs: 400 } }));
  return out;
}
const STREAMED = USES.map((u) => ({ toolUseId: u.toolUseId, name: u.name, text: pieces(JSON.stringify(u.input)) }));

function sdkCalls(content: ContentBlock[]) {
  return content.filter((b) => b.toolUse).map((b) => ({ id: b.toolUse!.toolUseId, name: b.toolUse!.name, arguments: b.toolUse!.input }));
}

/** The SigV4 scope and signed headers of a request as it arrived. */
function sigv4(r: Recorded) {
  const m = /^AWS4-HMAC-SHA256 Credential=[^/]+\/\d{8}\/([^,]+), SignedHeaders=([^,]+), Signature=[0-9a-f]{64}$/.exec(String(r.headers.authorization));
  assert.ok(m, `a SigV4 authorization header, got ${String(r.headers.authorization)}`);
  return { scope: m[1], signed: m[2].split(';') };
}

test('bedrock tools: Converse carries what the SDK sends (tool specs, toolChoice any, the round as blocks), signed alike; both read two parallel calls', async () => {
  const f = await fake(() => ({ body: converse() }));
  const q = await toolRequest();
  const reply = await model(f, '&stream=0').infer(q);
  const theirs = await client(f).send(new ConverseCommand(sdkInput(q)));
  assert.deepEqual(reply.toolCalls, CALLS);
  assert.deepEqual(sdkCalls(theirs.output!.message!.content!), CALLS, 'the SDK reads the same calls');
  assert.equal(reply.finishReason, 'tool_calls');
  assert.equal(reply.text, 'I will check both.');
  const [a, b] = f.received;
  assert.equal(a.url, `/model/${encodeURIComponent(MODEL_ID)}/converse`);
  assert.equal(a.url, b.url);
  assert.deepEqual(a.json, b.json, 'the same body, field for field');
  assert.equal(sigv4(a).scope, `${REGION}/bedrock/aws4_request`);
  assert.equal(sigv4(a).scope, sigv4(b).scope);
  for (const h of ['host', 'x-amz-date', 'x-amz-security-token']) assert.ok(sigv4(a).signed.includes(h), `${h} is signed`);
});

test('bedrock tools: ConverseStream with two calls in input pieces is read by both to the same calls', async () => {
  const f = await fake(() => ({ headers: STREAM_HEADERS, pieces: streamOf(STREAMED) }));
  const q = await toolRequest();
  const deltas: string[] = [];
  const reply = await model(f).infer(q, { emit: (e) => void (e.kind === 'infer.delta' && deltas.push(e.delta)) });
  assert.deepEqual(reply.toolCalls, CALLS);
  assert.deepEqual(deltas, ['I will check both.'], "the calls' input is not shown as the reply's text");
  const out = await client(f).send(new ConverseStreamCommand(sdkInput(q)));
  const byIndex = new Map<number, { id: string; name: string; text: string }>();
  for await (const e of out.stream!) {
    const start = e.contentBlockStart;
    if (start?.start?.toolUse) byIndex.set(start.contentBlockIndex!, { id: start.start.toolUse.toolUseId!, name: start.start.toolUse.name!, text: '' });
    const d = e.contentBlockDelta;
    if (d?.delta?.toolUse?.input) byIndex.get(d.contentBlockIndex!)!.text += d.delta.toolUse.input;
  }
  assert.deepEqual([...byIndex.values()].map((c) => ({ id: c.id, name: c.name, arguments: JSON.parse(c.text) as unknown })), CALLS);
  assert.equal(f.received[0].url, `/model/${encodeURIComponent(MODEL_ID)}/converse-stream`);
  assert.deepEqual(f.received[0].json, f.received[1].json);
});

test('bedrock tools: structured=prompt sends only the program tools (auto); a tool named turn_reply is then a tool', async () => {
  const f = await fake(() => ({ body: converse([{ toolUseId: 't1', name: 'turn_reply', input: { x: 1 } }]) }));
  const q = await toolRequest({ tools: [{ name: 'turn_reply', description: 'mine', parameters: { type: 'object' } }] });
  const reply = await model(f, '&stream=0&structured=prompt').infer(q);
  assert.deepEqual(f.received[0].json.toolConfig, { tools: [{ toolSpec: { name: 'turn_reply', description: 'mine', inputSchema: { json: { type: 'object' } } } }] });
  assert.deepEqual(reply.toolCalls, [{ id: 't1', name: 'turn_reply', arguments: { x: 1 } }]);
  // with the answer tool (structured=tool), it is renamed and a program tool of its name stays a tool
  const g = await fake(() => ({ body: converse([{ toolUseId: 't2', name: 'turn_reply', input: { x: 2 } }]) }));
  const second = await model(g, '&stream=0').infer(q);
  assert.deepEqual(((g.received[0].json.toolConfig as { tools: { toolSpec: { name: string } }[] }).tools).map((t) => t.toolSpec.name), ['turn_reply_2', 'turn_reply']);
  assert.deepEqual(second.toolCalls, [{ id: 't2', name: 'turn_reply', arguments: { x: 2 } }]);
});

test('bedrock tools attack: 100 MB of one call’s input is refused at the bound, not read to its end', async () => {
  const start = streamOf([{ toolUseId: 'big', name: 'search', text: ['{"query": "'] }], false);
  const piece = message('contentBlockDelta', { contentBlockIndex: 1, delta: { toolUse: { input: PIECE_64K } } });
  const f = await fake(() => ({ headers: STREAM_HEADERS, pieces: [...start, ...Array<Uint8Array>(HUNDRED_MB_PIECES).fill(piece)] }));
  await assert.rejects(model(f, '&max_reply_bytes=200000000').infer(await toolRequest()), /AWS Bedrock at http:\/\/127\.0\.0\.1:\d+\/model\/.*\/converse-stream sent a tool call \(search\) whose arguments are over 1048576 bytes/);
});

test('bedrock tools attack: an unterminated tool block, an id twice, a name not offered', async () => {
  const cut = await fake(() => ({ headers: STREAM_HEADERS, pieces: streamOf([{ toolUseId: 'c', name: 'search', text: ['{"query": "unfin'] }], false) }));
  await assert.rejects(model(cut).infer(await toolRequest()), /ended early: it closed without messageStop/);

  const twice = await fake(() => ({ body: converse([USES[0], { ...USES[1], toolUseId: USES[0].toolUseId }]) }));
  await assert.rejects(model(twice, '&stream=0').infer(await toolRequest()), /sent two tool calls with the same id \(call_x1\)/);

  const stranger = await fake(() => ({ headers: STREAM_HEADERS, pieces: streamOf([{ toolUseId: 's', name: 'rm_rf', text: ['{"path":', ' "/"}'] }]) }));
  assert.deepEqual((await model(stranger).infer(await toolRequest())).toolCalls, [{ id: 's', name: 'rm_rf', arguments: { path: '/' } }], 'passed up as it came: the tool loop refuses it');
});
