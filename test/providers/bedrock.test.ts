// AWS Bedrock (`bedrock:MODEL_ID`) against a local fake, side by side with the official
// `@aws-sdk/client-bedrock-runtime`: the same path (/model/{id}/converse, /converse-stream), the same
// body for the same structured call (messages, system, inferenceConfig, the forced tool), and a
// SigV4 signature that the test recomputes from what arrived (so it verifies, with the session
// token signed in). Replies in the documented shapes — a Converse response, ConverseStream's binary
// event stream, an exception (as an HTTP error and as a stream event) — are read by both. Then the
// attacks: too large, too deep, endless, and a malformed frame (a bad CRC, a short message) as a
// located error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import { Hash } from '@smithy/hash-node';
import { EventStreamCodec } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/core/serde';
import { createModel } from '../../runtime/run/model.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import { providerKeys } from '../../runtime/providers/index.js';
import { MAX_JSON_DEPTH } from '../../runtime/values/index.js';
import type { InferRequest } from '../../runtime/infer/types.js';
import { okJson, runWith } from '../infer/helpers.js';
import { fakesForFile, type Recorded, type WireFake } from './wire-fake.js';

const CREDS = { accessKeyId: 'AKIATESTBEDROCK0001', secretAccessKey: 'bedrock/secret+key/9f8e7d6c5b4a', sessionToken: 'IQoJb3JpZ2luX2VjEBedrockSessionToken' };
process.env.TURN_TEST_AWS_ID = CREDS.accessKeyId;
process.env.TURN_TEST_AWS_SECRET = CREDS.secretAccessKey;
process.env.TURN_TEST_AWS_TOKEN = CREDS.sessionToken;
const MODEL_ID = 'anthropic.claude-3-5-sonnet-20240620-v1:0';
const REGION = 'eu-west-3';

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
const ENVELOPE = { value: GOOD, confidence: 0.55 };

const fake = fakesForFile();

const spec = (f: WireFake, more = '') =>
  `bedrock:${MODEL_ID}?region=${REGION}&base_url=${f.url}&access_key_env=TURN_TEST_AWS_ID&secret_key_env=TURN_TEST_AWS_SECRET&session_token_env=TURN_TEST_AWS_TOKEN${more}`;

/** The documented Converse response whose forced tool input is `input`. */
function converse(input: unknown, stopReason = 'tool_use') {
  return {
    output: { message: { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'turn_reply', input } }] } },
    stopReason,
    usage: { inputTokens: 61, outputTokens: 33, totalTokens: 94, cacheReadInputTokens: 5 },
    metrics: { latencyMs: 812 },
  };
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);
/** One event-stream message, as Bedrock frames it. */
function message(type: string, payload: unknown, kind: 'event' | 'exception' = 'event'): Uint8Array {
  const headers: Record<string, { type: 'string'; value: string }> = {
    ':message-type': { type: 'string', value: kind },
    [kind === 'event' ? ':event-type' : ':exception-type']: { type: 'string', value: type },
    ':content-type': { type: 'string', value: 'application/json' },
  };
  return codec.encode({ headers, body: fromUtf8(JSON.stringify(payload)) });
}

/** ConverseStream's documented events for the tool input `json`, in pieces. */
function streamOf(json: string, piece = 11): Uint8Array[] {
  const out = [message('messageStart', { role: 'assistant', p: 'abcdefgh' }), message('contentBlockStart', { contentBlockIndex: 0, start: { toolUse: { toolUseId: 'tooluse_1', name: 'turn_reply' } } })];
  for (let i = 0; i < json.length; i += piece) out.push(message('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: json.slice(i, i + piece) } } }));
  out.push(message('contentBlockStop', { contentBlockIndex: 0 }), message('messageStop', { stopReason: 'tool_use' }));
  out.push(message('metadata', { usage: { inputTokens: 61, outputTokens: 33, totalTokens: 94 }, metrics: { latencyMs: 400 } }));
  return out;
}
const STREAM_HEADERS = { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': 'req-1' };

function client(f: WireFake): BedrockRuntimeClient {
  // HTTP/1.1 (the fake's): the client's default handler speaks HTTP/2, for its bidirectional streams
  return new BedrockRuntimeClient({ region: REGION, endpoint: f.url, credentials: CREDS, maxAttempts: 1, requestHandler: new NodeHttpHandler() });
}

/** The SDK's input for the call Turn made, from the request. */
function sdkInput(q: InferRequest) {
  const { system, turns } = chatTurns(q);
  return {
    modelId: MODEL_ID,
    messages: turns.map((t) => ({ role: t.role, content: [{ text: t.content }] })),
    system: [{ text: system }],
    inferenceConfig: { maxTokens: q.maxTokens },
    toolConfig: {
      tools: [{ toolSpec: { name: 'turn_reply', description: `Give the answer: "value" is a ${q.typeName} that matches the schema, "confidence" (0 to 1) how likely it is right.`, inputSchema: { json: q.wireSchema as never } } }],
      toolChoice: { tool: { name: 'turn_reply' } },
    },
  };
}

/**
 * Recomputes the SigV4 signature of a request as it arrived (its signed headers, path, query and
 * body) with the credentials and the request's own x-amz-date, and checks it is the one it carries.
 */
async function verifySignature(r: Recorded): Promise<{ signedHeaders: string[]; scope: string }> {
  const auth = String(r.headers.authorization);
  const m = /^AWS4-HMAC-SHA256 Credential=([^,]+), SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
  assert.ok(m, `a SigV4 authorization header, got ${auth}`);
  const [, credential, signed, signature] = m;
  const [keyId, day, region, service] = credential.split('/');
  assert.equal(keyId, CREDS.accessKeyId);
  const signedHeaders = signed.split(';');
  // what AWS checks first: the signed payload hash is the body's
  if (r.headers['x-amz-content-sha256'] !== undefined) assert.equal(r.headers['x-amz-content-sha256'], createHash('sha256').update(r.body).digest('hex'), 'the payload hash is the body\'s');
  const headers: Record<string, string> = {};
  for (const h of signedHeaders) headers[h] = String(r.headers[h]);
  const amzDate = String(r.headers['x-amz-date']);
  const date = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
  const signer = new SignatureV4({ service, region, credentials: CREDS, sha256: Hash.bind(null, 'sha256'), uriEscapePath: true });
  const u = new URL(r.url, 'http://x');
  const query: Record<string, string> = {};
  for (const [k, v] of u.searchParams) query[k] = v;
  const again = await signer.sign({ method: r.method, protocol: 'http:', hostname: '127.0.0.1', path: u.pathname, query, headers, body: r.body }, { signingDate: date, signableHeaders: new Set(signedHeaders) });
  const recomputed = /Signature=([0-9a-f]{64})/.exec(String(again.headers.authorization))![1];
  assert.equal(recomputed, signature, 'the signature verifies');
  return { signedHeaders, scope: `${day}/${region}/${service}` };
}

test('bedrock: Converse carries what the SDK sends for the same structured call, signed (SigV4, verified); both read the response', async () => {
  const f = await fake(() => ({ body: converse(ENVELOPE), headers: { 'x-amzn-requestid': 'req-0' } }));
  const r = await runWith(PROGRAM, (q, io) => createModel(spec(f, '&stream=0')).infer(q, io));
  assert.deepEqual(okJson(r), [GOOD, 0.55]);
  const theirs = await client(f).send(new ConverseCommand(sdkInput(r.requests[0])));
  assert.deepEqual(theirs.output?.message?.content?.[0].toolUse?.input, ENVELOPE);
  assert.equal(theirs.usage?.inputTokens, 61);

  const [a, b] = f.received;
  assert.equal(a.url, `/model/${encodeURIComponent(MODEL_ID)}/converse`);
  assert.equal(a.url, b.url);
  assert.deepEqual(a.json, b.json, 'the same body, field for field');
  const ours = await verifySignature(a);
  const sdks = await verifySignature(b);
  assert.equal(ours.scope.split('/').slice(1).join('/'), `${REGION}/bedrock`);
  assert.equal(ours.scope, sdks.scope);
  for (const h of ['host', 'x-amz-date', 'x-amz-security-token', 'content-type']) assert.ok(ours.signedHeaders.includes(h), `${h} is signed`);
  assert.equal(a.headers['x-amz-security-token'], CREDS.sessionToken);
  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.deepEqual(reply.usage, { inputTokens: 61, outputTokens: 33, cachedTokens: 5 });
  const text = JSON.stringify(r.events);
  for (const secret of [CREDS.secretAccessKey, CREDS.sessionToken]) assert.ok(!text.includes(secret));
});

test('bedrock: ConverseStream\'s binary event stream is read by both, the tool input as deltas; a tampered signature would not verify', async () => {
  const json = JSON.stringify(ENVELOPE);
  const f = await fake(() => ({ headers: STREAM_HEADERS, pieces: streamOf(json) }));
  const r = await runWith(PROGRAM, (q, io) => createModel(spec(f)).infer(q, io));
  assert.deepEqual(okJson(r), [GOOD, 0.55]);
  assert.equal(r.events.filter((e) => e.kind === 'infer.delta').map((e) => e.delta).join(''), json);
  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.deepEqual(reply.usage, { inputTokens: 61, outputTokens: 33 });

  const out = await client(f).send(new ConverseStreamCommand(sdkInput(r.requests[0])));
  let input = '';
  let stop: string | undefined;
  for await (const e of out.stream!) {
    if (e.contentBlockDelta?.delta?.toolUse?.input) input += e.contentBlockDelta.delta.toolUse.input;
    if (e.messageStop) stop = e.messageStop.stopReason;
  }
  assert.equal(input, json);
  assert.equal(stop, 'tool_use');
  const [a, b] = f.received;
  assert.equal(a.url, `/model/${encodeURIComponent(MODEL_ID)}/converse-stream`);
  assert.equal(a.url, b.url);
  assert.deepEqual(a.json, b.json);
  await verifySignature(a);
  await verifySignature(b);
  // the check can fail: the same request with one byte of the body, or of a signed header, changed does not verify
  await assert.rejects(verifySignature({ ...a, body: a.body.replace('Review', 'Reviex') }), /the payload hash is the body's/);
  await assert.rejects(verifySignature({ ...a, headers: { ...a.headers, 'content-type': 'text/plain' } }), /the signature verifies/);
});

test('bedrock: errors — an HTTP exception (ThrottlingException retried, ValidationException not) and a stream exception — in both', async () => {
  const f = await fake((_, n) =>
    n === 0
      ? { status: 429, headers: { 'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/' }, body: { message: 'Too many requests, please wait before trying again.' } }
      : { status: 400, headers: { 'x-amzn-errortype': 'ValidationException' }, body: { message: 'The provided model identifier is invalid.' } },
  );
  const r = await runWith(CATCHING, (q, io) => createModel(spec(f, '&stream=0&backoff_ms=1')).infer(q, io));
  assert.match(okJson(r) as string, /AWS Bedrock request refused: HTTP 400 from http:\/\/127\.0\.0\.1:\d+\/model\/anthropic\.claude-3-5-sonnet-20240620-v1%3A0\/converse: The provided model identifier is invalid\. \(ValidationException\)/);
  assert.equal(f.received.length, 2);
  await assert.rejects(client(f).send(new ConverseCommand(sdkInput(r.requests[0]))), (e: Error) => e.name === 'ValidationException' && /model identifier is invalid/.test(e.message));

  const s = await fake(() => ({ headers: STREAM_HEADERS, pieces: [message('messageStart', { role: 'assistant' }), message('modelStreamErrorException', { message: 'The model stream failed.', originalStatusCode: 500 }, 'exception')] }));
  const r2 = await runWith(CATCHING, (q, io) => createModel(spec(s)).infer(q, io));
  assert.match(okJson(r2) as string, /AWS Bedrock at http:\/\/127\.0\.0\.1:\d+\/model\/.+\/converse-stream reported modelStreamErrorException mid-stream: The model stream failed\./);
  const out = await client(s).send(new ConverseStreamCommand(sdkInput(r2.requests[0])));
  await assert.rejects(
    (async () => {
      for await (const e of out.stream!) void e;
    })(),
    /The model stream failed/,
  );
});

test('bedrock: missing credentials fail before anything is sent; the secret and session token are redacted keys', async () => {
  const f = await fake(() => ({ body: converse(ENVELOPE) }));
  const r = await runWith(CATCHING, (q, io) => createModel(spec(f, '&stream=0').replace('TURN_TEST_AWS_SECRET', 'TURN_TEST_AWS_UNSET')).infer(q, io));
  assert.match(okJson(r) as string, /no AWS credentials: the environment variable TURN_TEST_AWS_UNSET is not set/);
  assert.equal(f.received.length, 0);
  const keys = providerKeys(createModel(spec(f)).provider, process.env).map(([name]) => name).sort();
  assert.deepEqual(keys, ['TURN_TEST_AWS_ID', 'TURN_TEST_AWS_SECRET', 'TURN_TEST_AWS_TOKEN']);
  assert.throws(() => createModel(`bedrock:${MODEL_ID}?region=us-east-1/../x`), /region must be an AWS region name/);
});

test('bedrock attack: a malformed frame (bad CRC, too short, cut off) is a located error; too large, too deep, endless are bounded', async () => {
  const good = streamOf(JSON.stringify(ENVELOPE));
  const crc = Buffer.from(good[1]);
  crc[crc.length - 1] ^= 0xff; // the message CRC no longer matches
  const badCrc = await fake(() => ({ headers: STREAM_HEADERS, pieces: [good[0], crc] }));
  const r1 = await runWith(CATCHING, (q, io) => createModel(spec(badCrc)).infer(q, io));
  const at = good[0].length;
  assert.match(okJson(r1) as string, new RegExp(`the stream is malformed: the event-stream message at byte ${at} \\(${crc.length} bytes\\) cannot be read: The message checksum .* from http://127\\.0\\.0\\.1:\\d+/model/.+/converse-stream \\(HTTP 200, application/vnd\\.amazon\\.eventstream`));

  const short = await fake(() => ({ headers: STREAM_HEADERS, pieces: [good[0], Buffer.from([0, 0, 0, 5, 1, 2, 3, 4])] }));
  const r2 = await runWith(CATCHING, (q, io) => createModel(spec(short)).infer(q, io));
  assert.match(okJson(r2) as string, new RegExp(`the event-stream message at byte ${at} announces 5 bytes, fewer than the 16 of its prelude and checksums`));

  const cut = await fake(() => ({ headers: STREAM_HEADERS, pieces: [good[0], good[1].subarray(0, 20)] }));
  const r3 = await runWith(CATCHING, (q, io) => createModel(spec(cut)).infer(q, io));
  assert.match(okJson(r3) as string, new RegExp(`the event stream ended inside a message: 20 bytes after byte ${at} are not a whole message`));

  // a message announcing 64 MiB is refused before any of it is buffered
  const huge = Buffer.alloc(16);
  huge.writeUInt32BE(64 * 1024 * 1024, 0);
  const big = await fake(() => ({ headers: STREAM_HEADERS, pieces: [huge] }));
  const r4 = await runWith(CATCHING, (q, io) => createModel(spec(big)).infer(q, io));
  assert.match(okJson(r4) as string, /refused the stream: a message of the stream is over 1048576 bytes \(max_frame_bytes\)/);

  const nested = await fake(() => ({ body: `{"output": {"message": {"content": [{"toolUse": {"name": "turn_reply", "input": {"value": ${'['.repeat(200_000)}1${']'.repeat(200_000)}}}}]}}, "stopReason": "tool_use"}` }));
  const r5 = await runWith(CATCHING, (q, io) => createModel(spec(nested, '&stream=0')).infer(q, io));
  assert.match(okJson(r5) as string, new RegExp(`AWS Bedrock at http://127\\.0\\.0\\.1:\\d+/model/.+/converse sent a tool input nested more than ${MAX_JSON_DEPTH} levels deep`));

  const endless = await fake(() => ({ headers: STREAM_HEADERS, pieces: [good[0], good[1], message('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{"value": {"ok": true, "score": 1' } } }), message('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '9' } } })], endless: true }));
  const r6 = await runWith(CATCHING, (q, io) => createModel(spec(endless, '&max_tokens=16')).infer(q, io));
  assert.match(okJson(r6) as string, /cut off at the output token limit/);
  assert.ok(r6.events.filter((e) => e.kind === 'infer.delta').length <= endless.received.length * (16 + 33));
});

test('bedrock: structured=prompt sends no tool and reads a text reply; the region and credentials come from the environment by default', async () => {
  const f = await fake(() => ({ body: { output: { message: { role: 'assistant', content: [{ text: JSON.stringify(ENVELOPE) }] } }, stopReason: 'end_turn', usage: { inputTokens: 5, outputTokens: 6 } } }));
  const r = await runWith(PROGRAM, (q, io) => createModel(spec(f, '&stream=0&structured=prompt')).infer(q, io));
  assert.deepEqual(okJson(r), [GOOD, 0.55]);
  assert.equal(f.received[0].json.toolConfig, undefined);
  await verifySignature(f.received[0]);
  const setup = createModel(`bedrock:${MODEL_ID}`, { AWS_REGION: 'ap-south-1' });
  const call = (setup.provider as import('../../runtime/providers/types.js').HttpProvider).encode(r.requests[0]);
  assert.equal(call.url, `https://bedrock-runtime.ap-south-1.amazonaws.com/model/${encodeURIComponent(MODEL_ID)}/converse-stream`);
  assert.deepEqual(call.auth, { kind: 'sigv4', service: 'bedrock', region: 'ap-south-1', accessKeyEnv: 'AWS_ACCESS_KEY_ID', secretKeyEnv: 'AWS_SECRET_ACCESS_KEY', sessionTokenEnv: 'AWS_SESSION_TOKEN' });
  assert.ok(!call.body.includes(CREDS.secretAccessKey) && !JSON.stringify(call.headers).includes(CREDS.accessKeyId), 'the provider never holds a credential');
  assert.throws(() => createModel(`bedrock:${MODEL_ID}`, {}), /no region: set region=us-east-1/);
});
