// Turn v1's eight provider drivers, built from their crates in a Turn v1 checkout (test/providers/
// v1-drivers.ts), each running an `infer` through `wasm:FILE` against a local fake of its service
// on 127.0.0.1, in that service's wire format. Drivers that name a fixed hosted origin
// (api.openai.com, localhost:11434...) reach the fake through ModelAccess.dial, which maps the
// origin they asked for to the fake; the run's network grant is still checked against the origin
// the driver named. Skipped, saying why, where the Turn v1 sources or a Rust toolchain with the
// wasm32 target are absent (CI has neither).
//   TURN_V1_PROVIDERS=/path/to/turn-v1/providers node scripts/test.mjs test/providers/v1-drivers.test.ts
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createModel } from '../../runtime/run/model.js';
import { inferEnvelope } from '../../runtime/providers/wasm.js';
import type { InferReply, InferRequest } from '../../runtime/infer/types.js';
import { okJson, runWith } from '../infer/helpers.js';
import { fakeServer, openaiCompletion, type FakeServer, type Received } from './fake-server.js';
import { buildV1Drivers, v1SkipReason, type V1Driver } from './v1-drivers.js';

const DIR = process.env.TURN_V1_PROVIDERS;
const skip = v1SkipReason(DIR);

let built: Record<V1Driver, string> | undefined;
const drivers = () => (built ??= buildV1Drivers(DIR!));

const servers: FakeServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const PROGRAM = `
struct Verdict { approved: Bool, note: Str };
context.system("You review changes.");
context.append("diff: adds a cache");
let v = infer Verdict { "Should we approve?"; };
return [v, confidence v];
`;
const GOOD = { approved: true, note: 'a "quoted" note \\ with é' };
const CONTENT = JSON.stringify({ value: GOOD, confidence: 0.8 });
const KEY = 'sk-v1-driver-secret-51c9a2';
// the system text every Turn v1 driver starts with
const SYS = "You are a cognitive runtime inference engine mapped to the Turn language. You must return pure JSON matching the user's schema.";

type Params = ReturnType<typeof inferEnvelope>['params'];

interface Case {
  /** the spec's options after the driver file */
  options: string;
  env: Record<string, string>;
  /** the origin the driver sends to, which the run grants and the dial maps to the fake */
  origin: string;
  /** the path and query the service gets */
  path: string;
  /** the service's answer, in its wire format, carrying `content` as the model's text */
  answer(content: string): unknown;
  /** the request's headers and JSON body, against the envelope's params */
  request(got: Received, p: Params): void;
  /** the usage the driver reports (null: it reports none) */
  usage: InferReply['usage'] | null;
}

// OpenAI's chat-completions request as the OpenAI, Grok and both Azure drivers write it
function chatMessages(p: Params) {
  return [{ role: 'system', content: SYS }, ...p.context.map((c) => ({ role: 'system', content: c })), { role: 'user', content: p.prompt }];
}
const jsonSchemaFormat = (p: Params) => ({ type: 'json_schema', json_schema: { name: 'turn_schema', schema: p.schema, strict: true } });

/** The JSON text after `marker` in `text` (Turn v1's drivers write the schema into a system prompt, keys sorted). */
function jsonAfter(text: string, marker: string): unknown {
  const at = text.indexOf(marker);
  assert.ok(at >= 0, `${JSON.stringify(marker)} in ${JSON.stringify(text)}`);
  return JSON.parse(text.slice(at + marker.length));
}

const CASES: Record<V1Driver, Case> = {
  openai: {
    // OPENAI_MODEL allowed and set: the driver's "$env:OPENAI_MODEL:gpt-4o" is the variable's value
    options: '?secret=OPENAI_API_KEY,OPENAI_MODEL',
    env: { OPENAI_API_KEY: KEY, OPENAI_MODEL: 'gpt-4o-mini' },
    origin: 'https://api.openai.com',
    path: '/v1/chat/completions',
    answer: (c) => openaiCompletion(c, { usage: [61, 14] }),
    request(got, p) {
      assert.equal(got.headers.authorization, `Bearer ${KEY}`);
      assert.deepEqual(got.json, { model: 'gpt-4o-mini', messages: chatMessages(p), response_format: jsonSchemaFormat(p) });
    },
    usage: null, // the driver returns {"result"} only
  },
  anthropic: {
    options: '?secret=ANTHROPIC_API_KEY',
    env: { ANTHROPIC_API_KEY: KEY },
    origin: 'https://api.anthropic.com',
    path: '/v1/messages',
    answer: (c) => ({
      id: 'msg_test',
      type: 'message',
      role: 'assistant',
      model: 'claude-3-5-sonnet-20241022',
      content: [{ type: 'text', text: c }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 30 },
    }),
    request(got, p) {
      assert.equal(got.headers['x-api-key'], KEY);
      assert.equal(got.headers['anthropic-version'], '2023-06-01');
      const body = got.json as { model: string; max_tokens: number; system: string; messages: unknown };
      assert.equal(body.model, 'claude-3-5-sonnet-20241022', 'the default of "$env:ANTHROPIC_MODEL:claude-3-5-sonnet-20241022" (ANTHROPIC_MODEL not allowed)');
      assert.equal(body.max_tokens, 4096);
      assert.deepEqual(body.messages, [{ role: 'user', content: p.prompt }]);
      assert.ok(body.system.startsWith([SYS, ...p.context].join('\n\n')), body.system);
      assert.deepEqual(jsonAfter(body.system, 'IMPORTANT: You MUST respond with ONLY a valid JSON object matching this schema:\n'), p.schema);
    },
    usage: { totalTokens: 150 },
  },
  grok: {
    options: '?secret=XAI_API_KEY',
    env: { XAI_API_KEY: KEY },
    origin: 'https://api.x.ai',
    path: '/v1/chat/completions',
    answer: (c) => openaiCompletion(c, { usage: [70, 11] }),
    request(got, p) {
      assert.equal(got.headers.authorization, `Bearer ${KEY}`);
      assert.deepEqual(got.json, { model: 'grok-3', messages: chatMessages(p), response_format: jsonSchemaFormat(p) });
    },
    usage: { totalTokens: 81 },
  },
  ollama: {
    options: '',
    env: {},
    origin: 'http://localhost:11434',
    path: '/api/chat',
    answer: (c) => ({ model: 'llama3', created_at: '2026-01-01T00:00:00Z', message: { role: 'assistant', content: c }, done: true, done_reason: 'stop', prompt_eval_count: 40, eval_count: 9 }),
    request(got, p) {
      assert.equal(got.headers.authorization, undefined, 'Ollama takes no key');
      const body = got.json as { model: string; stream: boolean; messages: { role: string; content: string }[] };
      assert.equal(body.model, 'llama3');
      assert.equal(body.stream, false);
      const [system, ...rest] = body.messages;
      assert.equal(system.role, 'system');
      assert.deepEqual(jsonAfter(system.content, `${SYS}\n\nIMPORTANT: Respond ONLY with a valid JSON object matching this schema:\n`), p.schema);
      assert.deepEqual(rest, chatMessages(p).slice(1));
    },
    usage: { totalTokens: 49 },
  },
  'azure-openai': {
    options: '?secret=AZURE_OPENAI_ENDPOINT,AZURE_OPENAI_DEPLOYMENT,AZURE_OPENAI_API_KEY',
    env: { AZURE_OPENAI_ENDPOINT: 'https://turn-test.openai.azure.com', AZURE_OPENAI_DEPLOYMENT: 'gpt-4o-prod', AZURE_OPENAI_API_KEY: KEY },
    origin: 'https://turn-test.openai.azure.com',
    path: '/openai/deployments/gpt-4o-prod/chat/completions?api-version=2025-04-01-preview',
    answer: (c) => openaiCompletion(c),
    request(got, p) {
      assert.equal(got.headers['api-key'], KEY);
      assert.deepEqual(got.json, { messages: chatMessages(p), response_format: jsonSchemaFormat(p) });
    },
    usage: null,
  },
  'azure-anthropic': {
    options: '?secret=AZURE_ANTHROPIC_ENDPOINT,AZURE_ANTHROPIC_API_KEY',
    env: { AZURE_ANTHROPIC_ENDPOINT: 'https://turn-test.services.ai.azure.com/models', AZURE_ANTHROPIC_API_KEY: KEY },
    origin: 'https://turn-test.services.ai.azure.com',
    path: '/models/chat/completions?api-version=2024-08-01-preview',
    answer: (c) => openaiCompletion(c),
    request(got, p) {
      assert.equal(got.headers['api-key'], KEY);
      assert.deepEqual(got.json, { messages: chatMessages(p), response_format: jsonSchemaFormat(p) });
    },
    usage: null,
  },
  'azure-openai-responses': {
    // "model": "$env:AZURE_OPENAI_DEPLOYMENT" in the body has no default: the name must be allowed
    options: '?secret=AZURE_OPENAI_ENDPOINT,AZURE_OPENAI_DEPLOYMENT,AZURE_OPENAI_API_KEY',
    env: { AZURE_OPENAI_ENDPOINT: 'https://turn-test.openai.azure.com', AZURE_OPENAI_DEPLOYMENT: 'gpt-5-mini', AZURE_OPENAI_API_KEY: KEY },
    origin: 'https://turn-test.openai.azure.com',
    path: '/openai/responses?api-version=2025-04-01-preview',
    answer: (c) => ({
      id: 'resp_test',
      object: 'response',
      status: 'completed',
      model: 'gpt-5-mini',
      output: [
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: c, annotations: [] }] },
      ],
      usage: { input_tokens: 90, output_tokens: 20, total_tokens: 110 },
      error: null,
    }),
    request(got, p) {
      assert.equal(got.headers.authorization, `Bearer ${KEY}`);
      assert.deepEqual(got.json, { input: chatMessages(p), model: 'gpt-5-mini', text: { format: { type: 'json_schema', name: 'turn_schema', schema: p.schema, strict: true } } });
    },
    usage: null,
  },
  gemini: {
    options: '?secret=GEMINI_API_KEY',
    env: { GEMINI_API_KEY: KEY },
    origin: 'https://generativelanguage.googleapis.com',
    path: `/v1beta/models/gemini-1.5-pro:generateContent?key=${KEY}`,
    answer: (c) => ({
      candidates: [{ content: { role: 'model', parts: [{ text: c }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 80, candidatesTokenCount: 15, totalTokenCount: 95 },
      modelVersion: 'gemini-1.5-pro',
    }),
    request(got, p) {
      assert.equal(got.headers.authorization, undefined, 'the key goes in the query');
      const body = got.json as { contents: unknown; systemInstruction: { parts: { text: string }[] }; generationConfig: unknown };
      const parts = [...p.context.flatMap((c) => [{ text: 'Context: ' }, { text: c }, { text: '\n' }]), { text: 'User Prompt: ' }, { text: p.prompt }];
      assert.deepEqual(body.contents, [{ role: 'user', parts }]);
      assert.deepEqual(body.generationConfig, { responseMimeType: 'application/json' });
      assert.deepEqual(jsonAfter(body.systemInstruction.parts[0].text, 'You must return pure JSON strictly matching the following schema:\n'), p.schema);
    },
    usage: null,
  },
};

for (const [name, c] of Object.entries(CASES) as [V1Driver, Case][]) {
  test(`Turn v1's ${name} driver, built from source, against a local fake of its service`, { skip, timeout: 20 * 60_000 }, async () => {
    const file = drivers()[name];
    const fake = await fakeServer(() => ({ status: 200, body: c.answer(CONTENT) }));
    servers.push(fake);
    const dialled: string[] = [];
    const model = createModel(`wasm:${file}${c.options}${c.options ? '&' : '?'}retries=0`, c.env, {
      capabilities: { network: { hosts: [new URL(c.origin).host] } },
      dial(url) {
        dialled.push(url);
        const u = new URL(url);
        return u.origin === c.origin ? fake.url + u.pathname + u.search : url;
      },
    });
    const requests: InferRequest[] = [];
    const r = await runWith(PROGRAM, (req, io) => {
      requests.push(req);
      return model.infer(req, io);
    });
    await model.driver?.close();

    assert.deepEqual(okJson(r), [GOOD, 0.8], 'the bound value and its confidence');
    assert.equal(dialled.length, 1);
    assert.equal(new URL(dialled[0]).origin, c.origin, 'the driver asked for its service');
    assert.equal(fake.received.length, 1);
    const got = fake.received[0];
    assert.equal(got.method, 'POST');
    assert.equal(got.url, c.path);
    assert.equal(got.headers['content-type'], 'application/json');
    c.request(got, inferEnvelope(requests[0], 1).params);

    const reply = r.events.find((e) => e.kind === 'infer.reply');
    assert.ok(reply && reply.kind === 'infer.reply');
    // the legacy reply hands back the text; {"result"} the driver's parse of it (serde_json sorts keys)
    assert.deepEqual(JSON.parse(reply.raw), JSON.parse(CONTENT), 'the model text, as the driver handed it back');
    assert.deepEqual(reply.usage, c.usage);
    assert.equal(reply.meta?.status, 200);
    assert.ok(!JSON.stringify(r.events).includes(KEY), 'the key is in no event');
  });
}

test("a Turn v1 driver's error for a refused key fails the infer with the service's message, the key removed", { skip, timeout: 20 * 60_000 }, async () => {
  const file = drivers().anthropic;
  const fake = await fakeServer((req) => ({
    status: 401,
    body: { type: 'error', error: { type: 'authentication_error', message: `invalid x-api-key: ${String(req.headers['x-api-key'])}` } },
  }));
  servers.push(fake);
  const model = createModel(`wasm:${file}?secret=ANTHROPIC_API_KEY&retries=0`, { ANTHROPIC_API_KEY: KEY }, {
    capabilities: { network: { hosts: ['api.anthropic.com'] } },
    dial: (url) => fake.url + new URL(url).pathname,
  });
  const r = await runWith('struct Verdict { approved: Bool, note: Str };\ntry { return infer Verdict { "Should we approve?"; }; } catch (e) { return e; }\n', (req, io) => model.infer(req, io));
  await model.driver?.close();
  const e = okJson(r) as { type: string; reason: string; status: number; message: string };
  assert.equal(e.type, 'InferError');
  assert.equal(e.reason, 'provider');
  assert.equal(e.status, 401);
  assert.match(e.message, /Wasm driver .*turn_provider_anthropic\.wasm reported an error: HTTP 401: .*authentication_error.*invalid x-api-key: \[secret ANTHROPIC_API_KEY\]/);
  assert.ok(!JSON.stringify(r.events).includes(KEY));
});
