// Real-model failures reproduced against a slow local server (slow-server.ts): a reply that takes
// longer than one fixed limit, a stream that stalls mid-reply (never sent again), two calls queued
// behind a one-slot server, digits without end under a grammar that does not bound a number,
// streamed text as run events, seed and temperature on the wire and in the journal, and
// self-consistency. Time limits here are small and the margins wide (a stall lasts until the
// client gives up), so a busy machine changes durations, never outcomes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createModel } from '../../runtime/run/model.js';
import { startRun } from '../../runtime/run/run.js';
import { wireSchema } from '../../runtime/infer/prompt.js';
import { defaultMaxTokens, MIN_MAX_TOKENS } from '../../runtime/infer/bounds.js';
import type { RunEvent } from '../../runtime/events/index.js';
import { okJson, runWith, type Ran } from '../infer/helpers.js';
import { slowServer, type Plan, type SlowServer } from './slow-server.js';

const servers: SlowServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function serve(plan: (body: Record<string, unknown>, n: number) => Plan, options: { slots?: number } = {}): Promise<SlowServer> {
  const s = await slowServer(plan, options);
  servers.push(s);
  return s;
}

const PROGRAM = `
struct Verdict { ok: Bool, label: Str };
try { let v = infer Verdict { "Judge it."; }; return [v, confidence v]; } catch (e) { return e; }
`;
const GOOD = { ok: true, label: 'fine' };
const envelope = (value: unknown, confidence = 0.5) => JSON.stringify({ value, confidence });
const spec = (s: SlowServer, opts = '') => `openai:slow?base_url=${s.url}/v1&logprobs=0${opts}`;

async function run(model: string, source = PROGRAM): Promise<Ran> {
  const m = createModel(model);
  return runWith(source, (req, io) => m.infer(req, io));
}

test('a reply that streams longer than every phase limit binds: only silence between chunks is timed once it started', async () => {
  // 20 chunks, 60 ms apart: over a second of generation against limits of 400 ms
  const s = await serve(() => ({ stream: envelope(GOOD, 0.8), piece: 2, everyMs: 60 }));
  const r = await run(spec(s, '&first_byte_timeout_ms=400&idle_timeout_ms=400&retries=0'));
  assert.deepEqual(okJson(r), [GOOD, 0.8]);
  assert.equal(s.received.length, 1);
  assert.equal(s.received[0].body.stream, true);
});

test('a stream that stalls mid-reply fails once, with a clear error, and is never sent again', async () => {
  const s = await serve(() => ({ stream: envelope(GOOD), piece: 3, stallAfter: 3 }));
  const r = await run(spec(s, '&idle_timeout_ms=300&retries=2&backoff_ms=1'));
  const e = okJson(r) as Record<string, unknown>;
  assert.equal(e.type, 'InferError');
  assert.equal(e.reason, 'provider');
  assert.match(String(e.message), /no content for 300 ms \(idle_timeout_ms; keep-alives and empty events do not count\) from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions \(HTTP 200, text\/event-stream, \d+ bytes in \d+ ms\); not sent again, as the server had started on it \(raise idle_timeout_ms/);
  assert.equal(s.received.length, 1, 'a generation that had begun is not thrown away by a resend');
  assert.equal(r.events.filter((x) => x.kind === 'http.retry').length, 0);
});

test('a server that never answers: no reply within first_byte_timeout_ms is sent again, bounded', async () => {
  const s = await serve(() => ({ hang: true }));
  const r = await run(spec(s, '&first_byte_timeout_ms=200&retries=1&backoff_ms=1'));
  const e = okJson(r) as Record<string, unknown>;
  assert.match(String(e.message), /no reply from .* within 200 ms of sending \(first_byte_timeout_ms\) \(gave up after 2 HTTP attempts\)/);
  assert.equal(s.received.length, 2);
});

test('nothing listening: the connection is refused, retried, then a clear error', async () => {
  const s = await serve(() => ({ hang: true }));
  const url = s.url;
  await s.close();
  const r = await run(`openai:slow?base_url=${url}/v1&retries=1&backoff_ms=1`);
  const e = okJson(r) as Record<string, unknown>;
  assert.match(String(e.message), /cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: ECONNREFUSED \(gave up after 2 HTTP attempts\)/);
});

const TWO_CHILDREN = `
struct Verdict { ok: Bool, label: Str };
let judge = turn(name: Str) -> Verdict { return infer Verdict { "Judge " + name + "."; }; };
let ws = spawn_each(["a", "b"], judge);
let vs = gather ws;
return [vs[0].label, vs[1].label];
`;

test('two children against a one-slot server: they wait in the host queue, where no clock runs', async () => {
  // each generation takes about 10 x 60 ms, longer than the first-byte limit of 400 ms; the second
  // call would spend that long in the server's queue
  const s = await serve((_, n) => ({ stream: envelope({ ok: true, label: `v${n}` }), piece: 3, everyMs: 60 }), { slots: 1 });
  const r = await run(spec(s, '&first_byte_timeout_ms=400&idle_timeout_ms=400&retries=0'), TWO_CHILDREN);
  const labels = okJson(r) as string[];
  assert.deepEqual([...labels].sort(), ['v0', 'v1']);
  assert.equal(s.maxConcurrent, 1);
  // the second request reached the server only once the first was done
  assert.ok(s.received[1].arrived >= s.received[0].started, 'queued in the host, not in the server');
});

test('the same two children without the host queue (concurrency=0): the second times out in the server queue', async () => {
  const s = await serve((_, n) => ({ stream: envelope({ ok: true, label: `v${n}` }), piece: 3, everyMs: 150 }), { slots: 1 });
  const r = await run(spec(s, '&first_byte_timeout_ms=400&idle_timeout_ms=2000&retries=0&concurrency=0'), TWO_CHILDREN.replace('return [vs[0].label, vs[1].label];', 'return vs;'));
  const results = okJson(r) as Record<string, unknown>[];
  const failed = results.filter((x) => x.type === 'InferError');
  assert.equal(failed.length, 1, JSON.stringify(results));
  assert.match(JSON.stringify(failed[0]), /within 400 ms of sending \(first_byte_timeout_ms\)/);
});

test('streamed text arrives as infer.delta events with growing token counts; the reply is validated when complete', async () => {
  const text = envelope(GOOD, 0.7);
  const s = await serve(() => ({ stream: text, piece: 4 }));
  const r = await run(spec(s));
  assert.deepEqual(okJson(r), [GOOD, 0.7]);
  const deltas = r.events.filter((e): e is Extract<RunEvent, { kind: 'infer.delta' }> => e.kind === 'infer.delta');
  assert.equal(deltas.map((d) => d.delta).join(''), text);
  assert.deepEqual(deltas.map((d) => d.tokens), deltas.map((_, i) => i + 1));
  assert.ok(deltas.every((d) => d.id === 'i1' && d.pid === 1 && d.attempt === 1));
  const reply = r.events.find((e) => e.kind === 'infer.reply') as Extract<RunEvent, { kind: 'infer.reply' }>;
  assert.equal(reply.raw, text);
  assert.equal(reply.meta?.streamed, true);
  assert.deepEqual(reply.usage, { inputTokens: 40, outputTokens: 10, cachedTokens: 0 });
});

test('an invalid streamed reply is re-asked with its errors, as an unstreamed one', async () => {
  const s = await serve((_, n) => ({ stream: n === 0 ? envelope({ ok: 'yes', label: 'x' }) : envelope(GOOD, 0.4) }));
  const r = await run(spec(s));
  assert.deepEqual(okJson(r), [GOOD, 0.4]);
  assert.equal(s.received.length, 2);
  const messages = s.received[1].body.messages as { role: string; content: string }[];
  assert.match(messages[messages.length - 1].content, /rejected/);
});

test('anthropic: the forced tool input streams as input_json_delta pieces and binds', async () => {
  const s = await serve(() => ({ anthropic: { value: GOOD, confidence: 0.6 } }));
  process.env.TURN_TEST_SLOW_KEY = 'k-slow';
  const m = createModel(`anthropic:claude-slow?base_url=${s.url}&api_key_env=TURN_TEST_SLOW_KEY`);
  const r = await runWith(PROGRAM, (req, io) => m.infer(req, io));
  assert.deepEqual(okJson(r), [GOOD, 0.6]);
  assert.equal(s.received[0].body.stream, true);
  const deltas = r.events.filter((e) => e.kind === 'infer.delta');
  assert.ok(deltas.length > 3);
  const reply = r.events.find((e) => e.kind === 'infer.reply') as Extract<RunEvent, { kind: 'infer.reply' }>;
  assert.deepEqual(reply.usage, { inputTokens: 30, outputTokens: 12 });
});

test('bounds: the wire schema bounds confidence to [0, 1] and max_tokens is derived from the schema by default', async () => {
  const s = await serve(() => ({ stream: envelope(GOOD) }));
  const r = await run(spec(s));
  okJson(r);
  const wire = wireSchema(r.requests[0].schema) as { properties: { confidence: Record<string, unknown> } };
  assert.equal(wire.properties.confidence.minimum, 0);
  assert.equal(wire.properties.confidence.maximum, 1);
  const sent = s.received[0].body;
  assert.equal(sent.max_tokens, defaultMaxTokens(wire));
  assert.ok(Number(sent.max_tokens) >= MIN_MAX_TOKENS);
  // the spec's max_tokens overrides it
  const s2 = await serve(() => ({ stream: envelope(GOOD) }));
  okJson(await run(spec(s2, '&max_tokens=99')));
  assert.equal(s2.received[0].body.max_tokens, 99);
});

test('bounds: digits without end stop at max_tokens (a server that honours it); the complete value is kept, the runaway confidence dropped', async () => {
  const s = await serve(() => ({ digits: GOOD, honour: true }));
  const r = await run(spec(s, '&max_tokens=64'));
  assert.deepEqual(okJson(r), [GOOD, 0.5], 'the value binds; its confidence is unreported (0.5)');
  assert.equal(s.received.length, 1);
  assert.ok(s.chunks[0] <= 70, `the reply stopped near the bound: ${s.chunks[0]} chunks`);
  const reply = r.events.find((x) => x.kind === 'infer.reply') as Extract<RunEvent, { kind: 'infer.reply' }>;
  assert.equal(reply.confidence?.source, 'unreported');
  assert.ok(reply.repairs.some((x) => /cut off at the output token limit inside its confidence/.test(x)));
});

test('bounds: a grammar-less server that ignores max_tokens is cut off by the host shortly past the bound', async () => {
  const s = await serve(() => ({ digits: GOOD, honour: false, everyMs: 1 }));
  const r = await run(spec(s, '&max_tokens=40&retries=0'));
  assert.deepEqual(okJson(r), [GOOD, 0.5]);
  const reply = r.events.find((x) => x.kind === 'infer.reply') as Extract<RunEvent, { kind: 'infer.reply' }>;
  assert.equal(reply.finishReason, 'length');
  assert.ok(reply.raw.length < 200, `stopped reading shortly past 40 tokens (${reply.raw.length} characters)`);
});

test('bounds: a reply cut off inside its value is still a failed attempt, re-asked', async () => {
  const s = await serve(() => ({ stream: '{"value": {"ok": true, "label": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', finish: 'length' }));
  const r = await run(spec(s));
  const e = okJson(r) as Record<string, unknown>;
  assert.match(String(e.message), /after 3 attempts: \/: the reply was cut off at the output token limit/);
  assert.equal(s.received.length, 3);
});

// ---- through the run API: --seed, --temperature, --max-tokens and self-consistency

async function runProgram(source: string, options: Record<string, unknown>): Promise<{ result: Awaited<ReturnType<Awaited<ReturnType<typeof startRun>>['start']>>; events: RunEvent[]; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-stream-'));
  const file = path.join(dir, 'main.tn');
  fs.writeFileSync(file, source);
  const events: RunEvent[] = [];
  const run = await startRun({ file, cwd: dir, onEvent: (e) => events.push(e), ...options });
  return { result: await run.start(), events, dir };
}

test('--seed and --temperature reach the model call and the journal (meta.sampling)', async () => {
  const s = await serve(() => ({ stream: envelope(GOOD) }));
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-seed-store-'));
  const { result, events } = await runProgram(PROGRAM, { model: spec(s), seed: 7, temperature: 0.25, maxTokens: 300, store });
  assert.equal(result.kind, 'done');
  const sent = s.received[0].body;
  assert.equal(sent.seed, 7);
  assert.equal(sent.temperature, 0.25);
  assert.equal(sent.max_tokens, 300);
  const reply = events.find((x) => x.kind === 'infer.reply') as Extract<RunEvent, { kind: 'infer.reply' }>;
  assert.deepEqual(reply.meta?.sampling, { seed: 7, temperature: 0.25, maxTokens: 300 });
  // the journal holds the reply with what was sent
  const { openStore } = await import('../../runtime/store/index.js');
  const st = openStore(store);
  try {
    const runs = st.listRuns();
    const journal = st.readJournal(runs[0].id);
    const step = journal.find((e) => e.kind === 'infer' && e.status === 'ok');
    const payload = JSON.parse(Buffer.from(step!.payload!).toString('utf8')) as { meta: { sampling: unknown } };
    assert.deepEqual(payload.meta.sampling, { seed: 7, temperature: 0.25, maxTokens: 300 });
  } finally {
    st.close();
  }
});

test('self-consistency: k samples, agreement as the confidence (source agreement), seeds seed..seed+k-1', async () => {
  const values = [GOOD, { ok: false, label: 'bad' }, GOOD];
  const s = await serve((_, n) => ({ stream: envelope(values[n], 0.99) }));
  const { result, events } = await runProgram(PROGRAM, { model: spec(s), seed: 11, consistency: 3 });
  assert.equal(result.kind, 'done');
  const [value, confidence] = (result as { json: [unknown, number] }).json;
  assert.deepEqual(value, GOOD);
  assert.ok(Math.abs(confidence - 2 / 3) < 1e-12, `agreement 2 of 3, got ${confidence}`);
  assert.deepEqual(s.received.map((r) => r.body.seed).sort(), [11, 12, 13]);
  const reply = events.find((x) => x.kind === 'infer.reply') as Extract<RunEvent, { kind: 'infer.reply' }>;
  assert.equal(reply.confidence?.source, 'agreement');
  assert.equal(reply.confidence?.samples, 3);
  assert.equal(reply.confidence?.agreeing, 2);
  assert.equal((reply.meta?.samples as unknown[]).length, 3);
  assert.ok(events.some((e) => e.kind === 'infer.delta' && e.sample === 3));
});

test('turn inspect shows each journaled reply\'s confidence and its source (agreement here)', async () => {
  const s = await serve((_, n) => ({ stream: envelope(n === 1 ? { ok: false, label: 'no' } : GOOD, 0.9) }));
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-inspect-store-'));
  const { result } = await runProgram(PROGRAM, { model: spec(s), consistency: 3, store });
  assert.equal(result.kind, 'done');
  const { openStore } = await import('../../runtime/store/index.js');
  const { inspectRun } = await import('../../runtime/durable/inspect.js');
  const st = openStore(store);
  try {
    const infer = inspectRun(st, st.listRuns()[0].id).journal.filter((e) => e.kind === 'infer' && e.status === 'ok');
    assert.equal(infer.length, 1, 'the three samples are one journaled step');
    assert.equal(infer[0].confidence?.source, 'agreement');
    assert.ok(Math.abs(infer[0].confidence.value - 2 / 3) < 1e-12);
  } finally {
    st.close();
  }
});
