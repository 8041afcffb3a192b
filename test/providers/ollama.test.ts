// Ollama's native chat API (`ollama:MODEL?api=native`) against a local fake that speaks it: the
// schema as `format`, sampling as `options`, and the reply streamed as newline-delimited JSON.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createModel } from '../../runtime/run/model.js';
import { wireSchema } from '../../runtime/infer/prompt.js';
import type { RunEvent } from '../../runtime/events/index.js';
import { okJson, runWith } from '../infer/helpers.js';

const received: Record<string, unknown>[] = [];
let stopAfter: number | undefined;
const server = http.createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (c: Buffer) => parts.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
    received.push({ url: req.url, ...body });
    const text = JSON.stringify({ value: { ok: true, label: 'fine' }, confidence: 0.6 });
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ model: 'm', message: { role: 'assistant', content: text }, done: true, done_reason: 'stop', prompt_eval_count: 21, eval_count: 9 }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    // lines split across writes, to exercise the framing
    let out = '';
    for (let i = 0; i < text.length; i += 5) out += JSON.stringify({ model: 'm', message: { role: 'assistant', content: text.slice(i, i + 5) }, done: false }) + '\n';
    if (stopAfter === undefined) out += JSON.stringify({ model: 'm', message: { role: 'assistant', content: '' }, done: true, done_reason: 'stop', prompt_eval_count: 21, eval_count: 9 }) + '\n';
    else out = out.split('\n').slice(0, stopAfter).join('\n') + '\n';
    for (let i = 0; i < out.length; i += 7) res.write(out.slice(i, i + 7));
    res.end();
  });
});
after(() => new Promise<void>((r) => server.close(() => r())));

const PROGRAM = 'struct Verdict { ok: Bool, label: Str };\ntry { let v = infer Verdict { "Judge it."; }; return [v, confidence v]; } catch (e) { return e; }\n';

async function url(): Promise<string> {
  if (!server.listening) await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

test('api=native: /api/chat with the schema as format, streamed NDJSON binds; tokens and usage', async () => {
  const m = createModel(`ollama:llama3.2?api=native&base_url=${await url()}&temperature=0.1`);
  const r = await runWith(PROGRAM, (q, io) => m.infer({ ...q, sampling: { seed: 5 } }, io));
  assert.deepEqual(okJson(r), [{ ok: true, label: 'fine' }, 0.6]);
  const got = received[received.length - 1];
  assert.equal(got.url, '/api/chat');
  assert.equal(got.stream, true);
  assert.deepEqual(got.format, JSON.parse(JSON.stringify(wireSchema(r.requests[0].schema))));
  assert.deepEqual(got.options, { num_predict: r.requests[0].maxTokens, temperature: 0.1, seed: 5 });
  assert.ok(r.events.filter((e) => e.kind === 'infer.delta').length > 3);
  const reply = r.events.find((e) => e.kind === 'infer.reply') as Extract<RunEvent, { kind: 'infer.reply' }>;
  assert.deepEqual(reply.usage, { inputTokens: 21, outputTokens: 9 });
});

test('api=native with stream=0 reads one JSON body; a stream without its last line ended early: a provider error that says so, not a token-limit cut-off', async () => {
  const m = createModel(`ollama:llama3.2?api=native&stream=0&base_url=${await url()}`);
  assert.deepEqual(okJson(await runWith(PROGRAM, (q, io) => m.infer(q, io))), [{ ok: true, label: 'fine' }, 0.6]);
  stopAfter = 3;
  try {
    const cut = createModel(`ollama:llama3.2?api=native&base_url=${await url()}`);
    const e = okJson(await runWith(PROGRAM, (q, io) => cut.infer(q, io))) as Record<string, unknown>;
    assert.equal(e.reason, 'provider');
    assert.match(String(e.message), /the stream from the Ollama server at http:\/\/127\.0\.0\.1:\d+\/api\/chat ended early: it closed before its last line .*\(HTTP 200, application\/x-ndjson, \d+ bytes in \d+ ms\)$/);
    assert.doesNotMatch(String(e.message), /token limit/);
  } finally {
    stopAfter = undefined;
  }
  assert.throws(() => createModel('ollama:x?api=grpc'), /api must be openai or native/);
});
