// Model servers that attack the host (runtime/providers/transport.ts, frames.ts): a body without
// end, megabyte deltas, a stream without newlines or without the blank line that ends an event,
// keep-alives forever (SSE comments, empty deltas, Anthropic pings, Ollama's empty lines), a
// server that never sends headers, a dropped connection, an HTML page. Each ends in a catchable
// InferError at the infer's line that names the bound and the option that raises it, within the
// small bounds the spec sets here, and with bounded memory: the peak RSS growth while the call ran,
// sampled every few milliseconds, stays under MAX_RSS_GROWTH. The servers stream "without end"
// up to ENDLESS bytes (far past every bound here; an old host read it all) and respect
// backpressure, so the server side itself stays small. Nothing here asserts a duration: a time
// bound is tested with small configured limits and an outcome that only the bound produces.
import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createModel } from '../../runtime/run/model.js';
import { okJson, runWith } from '../infer/helpers.js';
import { turnAsync } from '../cli/run-cli.js';

/** how far an endless body goes before the server gives up (an old host buffered all of it) */
const ENDLESS = 96 * 1024 * 1024;
/** the most the process's RSS may grow while one hostile call runs */
const MAX_RSS_GROWTH = 48 * 1024 * 1024;
const KiB = 1024;
const MiB = 1024 * KiB;

const PROGRAM = 'struct Verdict { ok: Bool, label: Str };\n\ntry { return infer Verdict { "Judge it."; }; } catch (e) { return e; }\n';
const INFER_LINE = 3;

type Handler = (res: http.ServerResponse, req: http.IncomingMessage) => void;

interface Hostile {
  url: string;
  /** requests received */
  requests: number;
}

const servers: http.Server[] = [];
after(() => {
  for (const s of servers) {
    s.closeAllConnections();
    s.close();
  }
});

async function hostile(handler: Handler): Promise<Hostile> {
  const h: Hostile = { url: '', requests: 0 };
  const server = http.createServer((req, res) => {
    h.requests++;
    req.resume();
    req.on('end', () => handler(res, req));
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  h.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return h;
}

/** Writes `piece` again and again, waiting for the client to drain, until `limit` bytes or the client leaves. */
function flood(res: http.ServerResponse, piece: Buffer, limit = ENDLESS): void {
  let sent = 0;
  let gone = false;
  res.on('close', () => (gone = true));
  const more = () => {
    while (!gone && sent < limit) {
      sent += piece.length;
      if (!res.write(piece)) return void res.once('drain', more);
    }
    if (!gone) res.end();
  };
  more();
}

/** Writes `piece` every `ms` until the client leaves: a server that is alive and says nothing. */
function drip(res: http.ServerResponse, piece: string, ms = 20): void {
  const timer = setInterval(() => res.write(piece), ms);
  res.on('close', () => clearInterval(timer));
}

/** Runs PROGRAM against `spec` while sampling RSS: the caught error map and the peak growth. */
async function attack(spec: string): Promise<{ error: Record<string, unknown>; rssGrowth: number }> {
  const model = createModel(spec);
  const base = process.memoryUsage().rss;
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const r = await runWith(PROGRAM, (q, io) => model.infer(q, io));
    peak = Math.max(peak, process.memoryUsage().rss);
    const error = okJson(r) as Record<string, unknown>;
    assert.equal(error.type, 'InferError', `the call should fail, got ${JSON.stringify(error).slice(0, 300)}`);
    assert.equal(error.reason, 'provider');
    assert.equal(error.line, INFER_LINE, 'located at the infer');
    return { error, rssGrowth: peak - base };
  } finally {
    clearInterval(sampler);
  }
}

function boundedMemory(rssGrowth: number): void {
  assert.ok(rssGrowth < MAX_RSS_GROWTH, `RSS grew by ${(rssGrowth / MiB).toFixed(1)} MiB during the call (bound ${MAX_RSS_GROWTH / MiB} MiB)`);
}

const openai = (h: Hostile, options: string) => `openai:m?base_url=${h.url}/v1&logprobs=0&backoff_ms=1&${options}`;
const sse = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' });
const delta = (content: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

before(async () => {
  // module loading and the first run's one-time costs are not what the RSS samples measure
  const warm = await hostile((res) => {
    sse(res);
    res.end(delta('{"value": {"ok": true, "label": "x"}, "confidence": 0.5}') + `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
  });
  const model = createModel(openai(warm, ''));
  okJson(await runWith(PROGRAM, (q, io) => model.infer(q, io)));
});

test('a body without end (unstreamed) is refused at max_reply_bytes, once, in bounded memory', async () => {
  const h = await hostile((res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"choices": [{"message": {"content": "');
    flood(res, Buffer.alloc(64 * KiB, 'a'));
  });
  const { error, rssGrowth } = await attack(openai(h, `stream=0&max_reply_bytes=${1 * MiB}`));
  assert.match(String(error.message), /refused the reply: it is over 1048576 bytes \(max_reply_bytes\) from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(HTTP 200, application\/json, \d+ bytes in \d+ ms\); not sent again.*raise max_reply_bytes/);
  assert.equal(h.requests, 1, 'not sent again');
  boundedMemory(rssGrowth);
});

test('1 MB deltas are refused at max_reply_bytes', async () => {
  const h = await hostile((res) => {
    sse(res);
    flood(res, Buffer.from(delta('a'.repeat(1 * MiB))));
  });
  const { error, rssGrowth } = await attack(openai(h, `max_reply_bytes=${4 * MiB}&max_frame_bytes=${2 * MiB}`));
  assert.match(String(error.message), /refused the reply: it is over 4194304 bytes \(max_reply_bytes\).*\(HTTP 200, text\/event-stream, \d+ bytes in \d+ ms\)/);
  assert.equal(h.requests, 1);
  boundedMemory(rssGrowth);
});

test('an SSE stream without newlines is refused at max_frame_bytes', async () => {
  const h = await hostile((res) => {
    sse(res);
    res.write('data: ');
    flood(res, Buffer.alloc(64 * KiB, 'a'));
  });
  const { error, rssGrowth } = await attack(openai(h, `max_frame_bytes=${256 * KiB}`));
  assert.match(String(error.message), /refused the stream: a line of the stream is over 262144 bytes \(max_frame_bytes\).*raise max_frame_bytes/);
  boundedMemory(rssGrowth);
});

test('an SSE event that never ends (no blank line) is refused at max_frame_bytes', async () => {
  const h = await hostile((res) => {
    sse(res);
    flood(res, Buffer.from('data: {"choices": [{"delta": {"content": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}}]}\n'.repeat(1000)));
  });
  const { error, rssGrowth } = await attack(openai(h, `max_frame_bytes=${256 * KiB}`));
  assert.match(String(error.message), /refused the stream: an event of the stream is over 262144 bytes \(max_frame_bytes\)/);
  boundedMemory(rssGrowth);
});

// Keep-alives: alive, never silent, never saying anything. Only content resets the silence timer
// (idle_timeout_ms); before the first content, first_byte_timeout_ms runs from sending, unreset.
const KEEP_ALIVE = /no content for 300 ms \(idle_timeout_ms; keep-alives and empty events do not count\).*; not sent again, as the server had started on it \(raise idle_timeout_ms/;
const NO_CONTENT = /no content within 300 ms of sending \(first_byte_timeout_ms; keep-alives and empty events do not count\).*; not sent again, as the server had started on it \(raise first_byte_timeout_ms/;

test('SSE comments forever, once content began, end at idle_timeout_ms', async () => {
  const h = await hostile((res) => {
    sse(res);
    res.write(delta('{"value": '));
    drip(res, ': keep-alive\n\n');
  });
  const { error } = await attack(openai(h, 'idle_timeout_ms=300'));
  assert.match(String(error.message), KEEP_ALIVE);
  assert.equal(h.requests, 1);
});

test('empty deltas forever end at first_byte_timeout_ms, counted from sending; a reasoning model\'s thinking is generation, not a keep-alive', async () => {
  // thinking for longer than first_byte_timeout_ms, then the answer: it binds (the first thought
  // comes at 50 ms, and then the silence between thoughts is timed by idle_timeout_ms)
  const thinker = await hostile((res) => {
    sse(res);
    let n = 0;
    const timer = setInterval(() => {
      if (++n <= 25) return void res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: '', reasoning_content: 'hmm ' }, finish_reason: null }] })}\n\n`);
      clearInterval(timer);
      res.end(delta('{"value": {"ok": true, "label": "thought"}, "confidence": 0.5}') + `data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
    }, 50);
    res.on('close', () => clearInterval(timer));
  });
  const model = createModel(openai(thinker, 'first_byte_timeout_ms=1000&idle_timeout_ms=2000'));
  assert.deepEqual(okJson(await runWith(PROGRAM, (q, io) => model.infer(q, io))), { ok: true, label: 'thought' });

  const h = await hostile((res) => {
    sse(res);
    drip(res, delta(''));
  });
  const { error } = await attack(openai(h, 'first_byte_timeout_ms=300&idle_timeout_ms=300'));
  assert.match(String(error.message), NO_CONTENT);
});

test('Anthropic pings forever end at first_byte_timeout_ms', async () => {
  const h = await hostile((res) => {
    sse(res);
    res.write(`event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'msg', model: 'm', usage: { input_tokens: 1 } } })}\n\n`);
    drip(res, 'event: ping\ndata: {"type": "ping"}\n\n');
  });
  process.env.H5_FAKE_KEY = 'k';
  const { error } = await attack(`anthropic:m?base_url=${h.url}&api_key_env=H5_FAKE_KEY&first_byte_timeout_ms=300&idle_timeout_ms=300`);
  assert.match(String(error.message), NO_CONTENT);
  assert.match(String(error.message), /\/v1\/messages/);
});

test('Ollama empty lines (and empty messages) forever, once content began, end at idle_timeout_ms', async () => {
  const h = await hostile((res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    res.write(JSON.stringify({ model: 'm', message: { role: 'assistant', content: '{"value": ' }, done: false }) + '\n');
    drip(res, '\n\n' + JSON.stringify({ model: 'm', message: { role: 'assistant', content: '' }, done: false }) + '\n');
  });
  const { error } = await attack(`ollama:m?api=native&base_url=${h.url}&idle_timeout_ms=300`);
  assert.match(String(error.message), KEEP_ALIVE);
  assert.match(String(error.message), /application\/x-ndjson/);
});

test('content without end stops at the call\'s deadline (timeout_ms), which content does not extend', async () => {
  const h = await hostile((res) => {
    sse(res);
    drip(res, delta('a'));
  });
  // content every 20 ms, silence allowed far longer than the deadline: only the deadline can end it
  const { error } = await attack(openai(h, 'idle_timeout_ms=10000&timeout_ms=800'));
  assert.match(String(error.message), /no complete reply: the call's deadline, timeout_ms=800, passed from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(HTTP 200, text\/event-stream, \d+ bytes in \d+ ms\); not sent again.*raise timeout_ms/);
});

test('a server that never sends headers: the deadline counts every attempt and ends the call', async () => {
  const h = await hostile(() => {});
  // each attempt waits 400 ms for a first byte; the whole call may take 700: a second attempt
  // starts and the deadline ends it (or, on a machine slow enough, the deadline leaves no time
  // to start it); no third one is made
  const { error } = await attack(openai(h, 'first_byte_timeout_ms=400&timeout_ms=700&retries=2'));
  assert.match(String(error.message), /^infer Verdict: the model call failed: no (response|reply) from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions.*the call's deadline, timeout_ms=700, .*raise timeout_ms/);
  assert.ok(h.requests <= 2, `${h.requests} requests`);
});

test('a dropped connection says so, and does not advise raising a timeout', async () => {
  const h = await hostile((res) => {
    sse(res);
    res.write(delta('{"value": {"ok": tr'), () => setTimeout(() => res.socket?.destroy(), 20));
  });
  const { error } = await attack(openai(h, ''));
  assert.match(String(error.message), /the connection was dropped mid-reply.* from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(HTTP 200, text\/event-stream, \d+ bytes in \d+ ms\); not sent again, as the server had started on it$/);
  assert.doesNotMatch(String(error.message), /timeout_ms/);
  assert.equal(h.requests, 1);
});

test('a 200 HTML page is "not JSON: is the base URL right?", and is not sent three times', async () => {
  const page = '<!doctype html><html><head><title>Welcome</title></head><body>It works!</body></html>';
  const h = await hostile((res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page);
  });
  const { error } = await attack(openai(h, 'retries=2'));
  assert.match(String(error.message), new RegExp(`answered with an HTML page, not JSON: is the base URL right\\? .*\\(HTTP 200, text/html, ${page.length} bytes in \\d+ ms\\)$`));
  assert.doesNotMatch(String(error.message), /truncated/);
  assert.equal(h.requests, 1, 'an HTML page is not asked for again');
});

test('the bounds are model spec options with defaults, refused when not a positive number', () => {
  assert.throws(() => createModel('openai:m?base_url=http://127.0.0.1:1&max_reply_bytes=0'), /option max_reply_bytes needs a whole number >= 1, got `0`/);
  assert.throws(() => createModel('anthropic:m?max_frame_bytes=lots'), /option max_frame_bytes needs a whole number >= 1/);
  createModel('ollama:m?api=native&max_reply_bytes=100&max_frame_bytes=10&timeout_ms=5');
});

test('a refused reply is journaled: the resume of a durable run replays the error and does not ask again', { timeout: 120_000 }, async () => {
  const h = await hostile((res) => {
    sse(res);
    flood(res, Buffer.from(delta('a'.repeat(16 * KiB))));
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-hostile-'));
  try {
    fs.writeFileSync(
      path.join(dir, 'p.tn'),
      'struct Verdict { ok: Bool, label: Str };\nlet judge = turn() -> Str {\n  try { let v = infer Verdict { "Judge it."; }; return "bound"; } catch (e) { return e["message"]; }\n};\nlet said = judge();\nsuspend;\nreturn said;\n',
    );
    const spec = openai(h, `max_reply_bytes=${256 * KiB}`);
    const first = await turnAsync(['run', 'p.tn', '--store', 'st', '--model', spec], { cwd: dir, killAfterMs: 60_000 });
    assert.equal(first.code, 0, first.stderr);
    const id = /suspended: (\S+)/.exec(first.stderr)?.[1];
    assert.ok(id, first.stderr);
    assert.equal(h.requests, 1);
    const resumed = await turnAsync(['resume', id, '--store', 'st', '--json'], { cwd: dir, killAfterMs: 60_000 });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(String(JSON.parse(resumed.stdout)), /refused the reply: it is over 262144 bytes \(max_reply_bytes\)/);
    assert.equal(h.requests, 1, 'the resume replayed the journaled error instead of asking again');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
