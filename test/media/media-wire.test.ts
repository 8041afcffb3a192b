// Images and documents on each provider's wire, side by side with the vendor's official SDK sent
// the documented content parts for the same image and PDF (openai, @anthropic-ai/sdk,
// @google/genai, @aws-sdk/client-bedrock-runtime) against the same local fake: the user message
// Turn sends holds what the SDK's holds, part for part and byte for byte. A provider that cannot
// take a part refuses before anything is sent, naming itself.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { createModel } from '../../runtime/run/model.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import { okJson, runWith } from '../infer/helpers.js';
import { wireFake, type Answer, type Recorded, type WireFake } from '../providers/wire-fake.js';
import { pdf, png } from './fixtures.js';

const KEY = 'sk-media-wire-test-7c1e';
process.env.TURN_TEST_MEDIA_KEY = KEY;
const CREDS = { accessKeyId: 'AKIATESTMEDIA0001', secretAccessKey: 'media/secret+key/1a2b', sessionToken: 'IQoJMediaSessionToken' };
process.env.TURN_TEST_MEDIA_AWS_ID = CREDS.accessKeyId;
process.env.TURN_TEST_MEDIA_AWS_SECRET = CREDS.secretAccessKey;
process.env.TURN_TEST_MEDIA_AWS_TOKEN = CREDS.sessionToken;

const IMAGE = png(2, 2, [0, 128, 255]);
const DOC = pdf(2);
const b64 = (b: Buffer) => b.toString('base64');
const docName = `document-${createHash('sha256').update(DOC).digest('hex').slice(0, 16)}`;

/** An image placed in the context, a PDF in the prompt: both go in the first user turn, the context's first. */
const PROGRAM = `
let img = call("media_base64", "${b64(IMAGE)}", "image/png", "image", null);
let doc = call("media_base64", "${b64(DOC)}", "application/pdf", "any", null);
context.system("You read charts.");
context.append(img);
try { return infer Str { ["Compare the chart with the report:", doc]; }; } catch (e) { return e.message; }
`;
const IMAGE_ONLY = PROGRAM.replace('["Compare the chart with the report:", doc]', '"Describe the chart."');

const fakes: WireFake[] = [];
after(async () => {
  for (const f of fakes) await f.close();
});
/** A fake that refuses every call (400): only the requests matter here, and a 400 is not sent again. */
async function fake(): Promise<WireFake> {
  const f = await wireFake((): Answer => ({ status: 400, body: { error: { message: 'recorded, refused', type: 'invalid_request_error' } } }));
  fakes.push(f);
  return f;
}
const userOf = (r: Recorded, key: string) => (r.json[key] as { role: string; content?: unknown; images?: unknown }[]).find((m) => m.role === 'user');

test('openai chat: image_url with a data URL and a file part with the PDF, as the SDK sends them', async () => {
  const f = await fake();
  const r = await runWith(PROGRAM, (q, io) => createModel(`openai:gpt-test?base_url=${f.url}/v1&api_key_env=TURN_TEST_MEDIA_KEY&stream=0&retries=0`).infer(q, io));
  assert.match(okJson(r) as string, /recorded, refused/);
  const text = chatTurns(r.requests[0]).turns[0].content;
  const sdk = new OpenAI({ apiKey: KEY, baseURL: `${f.url}/v1`, maxRetries: 0 });
  await assert.rejects(
    sdk.chat.completions.create({
      model: 'gpt-test',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: `data:image/png;base64,${b64(IMAGE)}` } },
            { type: 'file', file: { filename: `${docName}.pdf`, file_data: `data:application/pdf;base64,${b64(DOC)}` } },
            { type: 'text', text },
          ],
        },
      ],
    }),
  );
  const [turn, theirs] = f.received;
  assert.deepEqual(userOf(turn, 'messages'), userOf(theirs, 'messages'));
  assert.ok(text.includes('sha256:') && text.startsWith('<image image/png'), 'the context, with the image label, leads the text');
  // a prompt without media is sent as before: plain string content
  await runWith('try { return infer Str { "Hello."; }; } catch (e) { return e.message; }', (q, io) => createModel(`openai:gpt-test?base_url=${f.url}/v1&api_key_env=TURN_TEST_MEDIA_KEY&stream=0&retries=0`).infer(q, io));
  assert.equal(typeof (userOf(f.received[2], 'messages') as { content: unknown }).content, 'string');
});

test('openai responses: input_image and input_file then input_text, as the SDK sends them', async () => {
  const f = await fake();
  const r = await runWith(PROGRAM, (q, io) => createModel(`openai:gpt-test?api=responses&base_url=${f.url}/v1&api_key_env=TURN_TEST_MEDIA_KEY&stream=0&retries=0`).infer(q, io));
  assert.match(okJson(r) as string, /recorded, refused/);
  const text = chatTurns(r.requests[0]).turns[0].content;
  const sdk = new OpenAI({ apiKey: KEY, baseURL: `${f.url}/v1`, maxRetries: 0 });
  await assert.rejects(
    sdk.responses.create({
      model: 'gpt-test',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_image', image_url: `data:image/png;base64,${b64(IMAGE)}`, detail: 'auto' },
            { type: 'input_file', filename: `${docName}.pdf`, file_data: `data:application/pdf;base64,${b64(DOC)}` },
            { type: 'input_text', text },
          ],
        },
      ],
    }),
  );
  const [turn, theirs] = f.received;
  assert.deepEqual(userOf(turn, 'input'), userOf(theirs, 'input'));
});

test('anthropic: image and document blocks with base64 sources, as the SDK sends them', async () => {
  const f = await fake();
  const r = await runWith(PROGRAM, (q, io) => createModel(`anthropic:claude-test?base_url=${f.url}&api_key_env=TURN_TEST_MEDIA_KEY&stream=0&retries=0`).infer(q, io));
  assert.match(okJson(r) as string, /recorded, refused/);
  const text = chatTurns(r.requests[0]).turns[0].content;
  const sdk = new Anthropic({ apiKey: KEY, baseURL: f.url, maxRetries: 0 });
  await assert.rejects(
    sdk.messages.create({
      model: 'claude-test',
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: b64(IMAGE) } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: b64(DOC) } },
            { type: 'text', text },
          ],
        },
      ],
    }),
  );
  const [turn, theirs] = f.received;
  assert.deepEqual(userOf(turn, 'messages'), userOf(theirs, 'messages'));
});

test('gemini: inlineData parts then the text part, as the SDK sends them', async () => {
  const f = await fake();
  const r = await runWith(PROGRAM, (q, io) => createModel(`gemini:gemini-test?base_url=${f.url}&api_key_env=TURN_TEST_MEDIA_KEY&stream=0&retries=0`).infer(q, io));
  assert.match(okJson(r) as string, /refused/);
  const text = chatTurns(r.requests[0]).turns[0].content;
  const sdk = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: f.url } });
  await assert.rejects(
    sdk.models.generateContent({
      model: 'gemini-test',
      contents: [{ role: 'user', parts: [{ inlineData: { mimeType: 'image/png', data: b64(IMAGE) } }, { inlineData: { mimeType: 'application/pdf', data: b64(DOC) } }, { text }] }],
    }),
  );
  const [turn, theirs] = f.received;
  assert.deepEqual(userOf(turn, 'contents'), userOf(theirs, 'contents'));
});

test('bedrock converse: image and document blocks, bytes base64 in JSON, as the SDK serializes them', async () => {
  const f = await fake();
  const spec = `bedrock:anthropic.claude-test-v1:0?region=eu-west-3&base_url=${f.url}&access_key_env=TURN_TEST_MEDIA_AWS_ID&secret_key_env=TURN_TEST_MEDIA_AWS_SECRET&session_token_env=TURN_TEST_MEDIA_AWS_TOKEN&stream=0&retries=0`;
  const r = await runWith(PROGRAM, (q, io) => createModel(spec).infer(q, io));
  assert.match(okJson(r) as string, /refused/);
  const text = chatTurns(r.requests[0]).turns[0].content;
  const client = new BedrockRuntimeClient({ region: 'eu-west-3', endpoint: f.url, credentials: CREDS, maxAttempts: 1, requestHandler: new NodeHttpHandler() });
  await assert.rejects(
    client.send(
      new ConverseCommand({
        modelId: 'anthropic.claude-test-v1:0',
        messages: [
          {
            role: 'user',
            content: [
              { image: { format: 'png', source: { bytes: new Uint8Array(IMAGE) } } },
              { document: { format: 'pdf', name: docName, source: { bytes: new Uint8Array(DOC) } } },
              { text },
            ],
          },
        ],
      }),
    ),
  );
  const [turn, theirs] = f.received;
  assert.deepEqual(userOf(turn, 'messages'), userOf(theirs, 'messages'));
});

test('ollama: native api — the image in the message\'s images (base64); openai api — image_url; a PDF is refused by both, naming the provider, before anything is sent', async () => {
  const f = await fake();
  const r = await runWith(IMAGE_ONLY, (q, io) => createModel(`ollama:llava?api=native&base_url=${f.url}&stream=0&retries=0`).infer(q, io));
  assert.match(okJson(r) as string, /refused/);
  const user = userOf(f.received[0], 'messages') as { images?: string[]; content: unknown };
  assert.deepEqual(user.images, [b64(IMAGE)]);
  assert.equal(typeof user.content, 'string');
  const compat = await fake();
  await runWith(IMAGE_ONLY, (q, io) => createModel(`ollama:llava?base_url=${compat.url}/v1&stream=0&retries=0`).infer(q, io));
  const parts = (userOf(compat.received[0], 'messages') as { content: { type: string; image_url?: { url: string } }[] }).content;
  assert.equal(parts[0].image_url?.url, `data:image/png;base64,${b64(IMAGE)}`);
  for (const api of ['native', 'openai']) {
    const g = await fake();
    const doc = await runWith(PROGRAM, (q, io) => createModel(`ollama:llava?api=${api}&base_url=${g.url}&stream=0&retries=0`).infer(q, io));
    assert.match(okJson(doc) as string, /(the Ollama server|ollama:llava) cannot take <document application\/pdf \d+ B sha256:[0-9a-f]{12}…> in a prompt: Ollama takes images only/);
    assert.equal(g.received.length, 0, `nothing was sent (api=${api})`);
  }
});

test('llama (in process): an image is refused naming the provider, before the model file is even opened', async () => {
  const r = await runWith(IMAGE_ONLY, (q, io) => createModel('llama:/nonexistent/turn-media-model.gguf').infer(q, io));
  assert.match(okJson(r) as string, /llama:\/nonexistent\/turn-media-model\.gguf cannot take <image image\/png \d+ B sha256:[0-9a-f]{12}…> in a prompt: the in-process provider reads text only/);
});
