// Per-infer options (`infer T with { max_tokens: 200, consistency: 3, seed: 7 } { ... }`): each
// reaches the model call over the run's value (--max-tokens, --seed, --temperature, --consistency,
// TURN_INFER_RETRIES, the model spec's time limits), is journaled with the step (so `turn inspect`
// shows it and a replay matches it), and a bad value computed at run time is a located error. The
// `mock` model takes the run's seed. The model server is the slow local fake of the streaming tests.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createModel } from '../../runtime/run/model.js';
import { startRun } from '../../runtime/run/run.js';
import type { RunEvent } from '../../runtime/events/index.js';
import { openStore } from '../../runtime/store/index.js';
import { inspectRun } from '../../runtime/durable/inspect.js';
import { inspectionText } from '../../cli/runs.js';
import { fingerprint } from '../../runtime/testing/cassette.js';
import { compileFiles } from '../vm/harness.js';
import { failure, okJson, runWith, script } from './helpers.js';
import { slowServer, type Plan, type SlowServer } from '../providers/slow-server.js';

const servers: SlowServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

async function serve(plan: (body: Record<string, unknown>, n: number) => Plan): Promise<SlowServer> {
  const s = await slowServer(plan);
  servers.push(s);
  return s;
}

const GOOD = { ok: true, label: 'fine' };
const envelope = (value: unknown, confidence = 0.5) => JSON.stringify({ value, confidence });
const spec = (s: SlowServer, opts = '') => `openai:slow?base_url=${s.url}/v1&logprobs=0${opts}`;

async function runProgram(source: string, options: Record<string, unknown>) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-inferopts-'));
  const file = path.join(dir, 'main.tn');
  fs.writeFileSync(file, source);
  const events: RunEvent[] = [];
  const lines: string[] = [];
  const run = await startRun({ file, cwd: dir, onEvent: (e) => events.push(e), onOutput: (l) => lines.push(l), ...options });
  return { result: await run.start(), events, lines };
}

const TWO = `
struct Verdict { ok: Bool, label: Str };
let tight = infer Verdict with { max_tokens: 120, seed: 3, temperature: 0.5 } { "Judge it briefly."; };
let plain = infer Verdict { "Judge it."; };
return [tight, plain];
`;

test('an infer\'s max_tokens, seed and temperature go on the wire over the run\'s; a plain infer keeps the run\'s', async () => {
  const s = await serve(() => ({ stream: envelope(GOOD) }));
  const store = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-inferopts-store-'));
  const { result, events } = await runProgram(TWO, { model: spec(s), seed: 7, temperature: 0.25, maxTokens: 300, store });
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.equal(s.received.length, 2);
  const [tight, plain] = s.received.map((r) => r.body);
  assert.deepEqual([tight.max_tokens, tight.seed, tight.temperature], [120, 3, 0.5]);
  assert.deepEqual([plain.max_tokens, plain.seed, plain.temperature], [300, 7, 0.25]);
  // the trace shows the options as written
  const requests = events.filter((e): e is Extract<RunEvent, { kind: 'infer.request' }> => e.kind === 'infer.request');
  assert.deepEqual(requests[0].options, { max_tokens: 120, temperature: 0.5, seed: 3 });
  assert.equal(requests[1].options, undefined);
  // the journal: the step's request holds them (turn inspect shows them), its reply what was sent
  const st = openStore(store);
  try {
    const inspection = inspectRun(st, st.listRuns()[0].id);
    const shown = inspectionText(inspection).split('\n').filter((l) => / infer /.test(l));
    assert.equal(shown.length, 2);
    assert.match(shown[0], / ok {6}with \{max_tokens: 120, temperature: 0\.5, seed: 3\} {2}confidence 0\.5 \(reported\)/);
    assert.doesNotMatch(shown[1], /with \{/);
    const steps = inspection.journal.filter((e) => e.kind === 'infer');
    assert.equal(steps.length, 2);
    assert.deepEqual((steps[0].request as { options?: unknown }).options, { max_tokens: 120, temperature: 0.5, seed: 3 });
    assert.equal((steps[1].request as { options?: unknown }).options, undefined);
    assert.deepEqual((steps[0].payload as { meta: { sampling: unknown } }).meta.sampling, { seed: 3, temperature: 0.5, maxTokens: 120 });
  } finally {
    st.close();
  }
});

test('consistency per infer: k samples for the infer that asks, one for the others; seeds seed..seed+k-1', async () => {
  const values = [GOOD, { ok: false, label: 'bad' }, GOOD, GOOD];
  const s = await serve((_, n) => ({ stream: envelope(values[n], 0.99) }));
  const source = `
struct Verdict { ok: Bool, label: Str };
let v = infer Verdict with { consistency: 3, seed: 11 } { "Judge it."; };
let w = infer Verdict { "Judge it again."; };
return [confidence v, confidence w];
`;
  const { result, events } = await runProgram(source, { model: spec(s) });
  assert.equal(result.kind, 'done', JSON.stringify(result));
  const [cv, cw] = (result as { json: [number, number] }).json;
  assert.ok(Math.abs(cv - 2 / 3) < 1e-12, `agreement 2 of 3, got ${cv}`);
  assert.equal(cw, 0.99, 'one reply: its own confidence');
  assert.equal(s.received.length, 4);
  assert.deepEqual(s.received.slice(0, 3).map((r) => r.body.seed).sort(), [11, 12, 13]);
  const replies = events.filter((e): e is Extract<RunEvent, { kind: 'infer.reply' }> => e.kind === 'infer.reply');
  assert.equal(replies[0].confidence?.source, 'agreement');
  assert.equal(replies[1].confidence?.source, 'reported');
});

test('retries per infer: `retries: 0` asks once, the default re-asks twice', async () => {
  const bad = { value: { ok: 'yes', label: 1 }, confidence: 0.5 };
  const replies = Array.from({ length: 4 }, () => ({ text: JSON.stringify(bad) }));
  const once = await runWith('struct V { ok: Bool, label: Str };\ntry { return infer V with { retries: 0 } { "j"; }; } catch (e) { return e.attempts; }', script(replies));
  assert.equal(okJson(once), 1);
  const thrice = await runWith('struct V { ok: Bool, label: Str };\ntry { return infer V { "j"; }; } catch (e) { return e.attempts; }', script(replies));
  assert.equal(okJson(thrice), 3);
});

test('time limits per infer: first_byte_timeout_ms and timeout_ms over the model spec\'s (300 s first byte, a 10-minute deadline)', async () => {
  const s = await serve(() => ({ hang: true }));
  const m = createModel(spec(s, '&retries=0'));
  const ask = (req: Parameters<typeof m.infer>[0], io: Parameters<typeof m.infer>[1]) => m.infer(req, io);
  const firstByte = await runWith('try { return infer Str with { first_byte_timeout_ms: 200 } { "x"; }; } catch (e) { return e.message; }', ask);
  assert.match(String(okJson(firstByte)), /no reply from http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions within 200 ms of sending \(first_byte_timeout_ms\)/);
  const total = await runWith('try { return infer Str with { timeout_ms: 250 } { "x"; }; } catch (e) { return e.message; }', ask);
  assert.match(String(okJson(total)), /the call's deadline, timeout_ms=250, passed/);
});

test('a bad option value computed at run time is a runtime error at the infer, before any model call', async () => {
  let asked = 0;
  const r = await runWith('let n = 0;\nlet k = "three";\nlet a = infer Str with { consistency: k } { "x"; };', () => {
    asked++;
    return { text: '{"value": "a", "confidence": 1}' };
  });
  const e = failure(r);
  assert.equal(e.line, 3);
  assert.match(e.message, /infer option consistency needs a whole number from 1 to 16, got the Str "three"/);
  assert.equal(asked, 0);
});

test('options are evaluated in the enclosing scope, before the prompt, and reach the request as numbers', async () => {
  const seen: unknown[] = [];
  const r = await runWith(
    'let k = 2;\nlet out = infer Str with { max_tokens: k * 50, seed: k } { let note = "n"; "x" + note; };\nreturn [out, k];',
    (req) => {
      seen.push(req.options);
      return { text: '{"value": "a", "confidence": 1}' };
    },
  );
  assert.deepEqual(okJson(r), ['a', 2]);
  assert.deepEqual(seen, [{ maxTokens: 100, seed: 2 }]);
});

test('a program without options compiles to the descriptor it always had; its fingerprint is the old formula', async () => {
  const bundle = await compileFiles({ 'main.tn': 'let a = infer Str { "x"; };\nlet b = infer Str with {} { "y"; };\nreturn [a, b];' });
  const descs = bundle.functions.flatMap((f) => f.consts).filter((c): c is { typeName: string } => !!c && typeof c === 'object' && 'typeName' in c);
  assert.equal(descs.length, 2);
  for (const d of descs) assert.deepEqual(Object.keys(d).sort(), ['schema', 'typeName']);
  const input = { typeName: 'Str', schema: { type: 'string' }, prompt: 'x', context: [], attempt: 1, feedback: [] };
  const old = createHash('sha256').update(JSON.stringify(input)).digest('hex');
  assert.equal(fingerprint(input), old);
  assert.equal(fingerprint({ ...input, options: {} }), old);
  assert.notEqual(fingerprint({ ...input, options: { seed: 1 } }), old, 'other options, another question');
});

// ---- the mock model and the seed

const SHAPES = `
struct Approve { kind: "approve", note: Str? };
struct Reject { kind: "reject", reason: Str };
let d = infer Approve | Reject { "Decide."; };
let l = infer "low" | "mid" | "high" { "Level?"; };
call("echo", d);
call("echo", l);
`;

test('mock: no seed gives what it always gave; --seed varies the values, the same seed the same values', async () => {
  const plain = await runProgram(SHAPES, { model: 'mock' });
  assert.deepEqual(plain.lines, ['Approve { kind: "approve", note: "mock" }', 'low']);
  const zero = await runProgram(SHAPES, { model: 'mock', seed: 0 });
  assert.deepEqual(zero.lines, plain.lines);
  const seen = new Set<string>();
  for (const seed of [1, 2, 3, 4, 5, 6]) {
    const a = await runProgram(SHAPES, { model: 'mock', seed });
    const b = await runProgram(SHAPES, { model: 'mock', seed });
    assert.deepEqual(a.lines, b.lines, `seed ${seed} replays`);
    seen.add(a.lines.join('\n'));
  }
  assert.ok(seen.size >= 2, `seeds change mock values: ${[...seen].join(' / ')}`);
  assert.ok([...seen].some((x) => x !== plain.lines.join('\n')));
});

test('mock: an infer\'s own seed is over the run\'s', async () => {
  const source = 'let l = infer "low" | "mid" | "high" with { seed: SEED } { "Level?"; };\ncall("echo", l);';
  const bySeed = new Map<number, string>();
  for (const seed of [0, 1, 2, 3, 4, 5, 6, 7]) bySeed.set(seed, (await runProgram(source.replace('SEED', String(seed)), { model: 'mock', seed: 99 })).lines[0]);
  assert.equal(bySeed.get(0), 'low', 'seed 0 is the first member, whatever the run\'s seed');
  for (const [seed, line] of bySeed) {
    const alone = await runProgram(source.replace('SEED', String(seed)), { model: 'mock' });
    assert.equal(alone.lines[0], line, `with { seed: ${seed} } gives the same value under any run seed`);
  }
  assert.ok(new Set(bySeed.values()).size >= 2);
});

test('self-consistency: samples that differ only by an optional field given as null or left out agree', async () => {
  const { selfConsistent } = await import('../../runtime/infer/consistency.js');
  const schema = {
    type: 'object',
    properties: { decision: { enum: ['approve', 'reject'] }, note: { type: ['string', 'null'] } },
    required: ['decision'],
    additionalProperties: false,
  };
  const texts = [{ decision: 'approve', note: null }, { decision: 'reject' }, { decision: 'approve' }].map((value) => JSON.stringify({ value, confidence: 0.9 }));
  let n = 0;
  const ask = selfConsistent(async () => ({ text: texts[n++] }), 3);
  const reply = await ask({ schema } as unknown as Parameters<typeof ask>[0], { emit: () => {} });
  assert.deepEqual(reply.agreement, { samples: 3, agreeing: 2 });
  assert.equal(reply.text, texts[0], 'the earliest of the agreeing samples');
});
