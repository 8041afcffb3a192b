// Redaction of text that arrives in pieces, and of secrets the redactor only knew by other forms.
// A model server (slow-server.ts: OpenAI-compatible server-sent events) echoes the run's key three
// characters per chunk: each `infer.delta` was redacted alone, so no delta held the key but the
// deltas together spelled it, in `--trace`, `--trace-file` and the events the run panel gets.
// Also: a secret registered with spaces around it, echoed trimmed and upper-cased; a provider's
// key the run's model does not use (the mock model), which the redactor did not know at all.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRun } from '../../runtime/run/run.js';
import { Redactor, StreamRedactor } from '../../runtime/effects/vault.js';
import type { RunEvent } from '../../runtime/events/index.js';
import { slowServer, type SlowServer } from '../providers/slow-server.js';
import { turnAsync } from '../cli/run-cli.js';

const KEY = 'sk-test-Zq81vN0pLx5Rt7Wm2Yc4Hb9Kd3Fg6Js';
const PADDED = '   pad-SECRET-value-4471-qwerty   ';
const servers: SlowServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-redact-stream-'));
const program = path.join(dir, 'echo.tn');
fs.writeFileSync(program, 'let said = infer Str { "Repeat what you were given."; };\ncall("echo", said);\nreturn "done";\n');

/** A server that streams `text` as a reply's value, three characters per chunk. */
async function echoing(text: string): Promise<SlowServer> {
  const s = await slowServer(() => ({ stream: JSON.stringify({ value: text, confidence: 0.9 }), piece: 3 }));
  servers.push(s);
  return s;
}
const model = (s: SlowServer) => `openai:echo?base_url=${s.url}/v1&logprobs=0&retries=0`;

/** The streamed text of a trace (JSON lines): every `infer.delta` joined in order. */
function streamedIn(lines: string): string {
  return lines
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { kind: string; delta?: string })
    .filter((e) => e.kind === 'infer.delta')
    .map((e) => e.delta)
    .join('');
}

/** No part of `secret` long enough to rebuild it with another: its first half, its last half, itself (any case). */
function assertNoPiece(text: string, secret: string, where: string): void {
  const lower = text.toLowerCase();
  const half = Math.ceil(secret.length / 2);
  for (const piece of [secret, secret.slice(0, half), secret.slice(secret.length - half)]) {
    assert.ok(!lower.includes(piece.toLowerCase()), `${where} holds ${JSON.stringify(piece)}:\n${text}`);
  }
}

test('a key echoed in 3-character deltas reaches neither --trace nor --trace-file, whole or in pieces', async () => {
  const s = await echoing(`the key is ${KEY} as asked`);
  const traceFile = path.join(dir, 'trace.jsonl');
  const env = { OPENAI_API_KEY: KEY };
  const toFile = await turnAsync(['run', program, '--model', model(s), '--trace-file', traceFile], { cwd: dir, env });
  const toStderr = await turnAsync(['run', program, '--model', model(s), '--trace'], { cwd: dir, env });
  for (const r of [toFile, toStderr]) {
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^the key is «redacted:OPENAI_API_KEY» as asked$/m);
  }
  const file = fs.readFileSync(traceFile, 'utf8');
  for (const [where, trace] of [['--trace-file', file], ['--trace (standard error)', toStderr.stderr]] as const) {
    const streamed = streamedIn(trace);
    assert.ok(streamed.length > 0, `${where} has the streamed deltas`);
    assert.match(streamed, /«redacted:OPENAI_API_KEY»/, where);
    assertNoPiece(streamed, KEY, `${where}'s deltas joined`);
    assertNoPiece(trace, KEY, where);
  }
  // nothing was lost: the deltas spell the whole reply, the key redacted
  assert.equal(streamedIn(file), JSON.stringify({ value: 'the key is «redacted:OPENAI_API_KEY» as asked', confidence: 0.9 }));
});

test('the events the run panel gets (onEvent) hold no piece of a key streamed 3 characters at a time', async () => {
  const s = await echoing(`${KEY}${KEY.slice(0, 20)}`);
  const events: RunEvent[] = [];
  const run = await startRun({ file: program, cwd: dir, model: model(s), env: { ...process.env, OPENAI_API_KEY: KEY }, onEvent: (e) => events.push(e), onOutput: () => {} });
  const result = await run.start();
  assert.equal(result.kind, 'done');
  const deltas = events.filter((e): e is Extract<RunEvent, { kind: 'infer.delta' }> => e.kind === 'infer.delta');
  assert.ok(deltas.length > 10, 'the reply streamed in many chunks');
  const streamed = deltas.map((e) => e.delta).join('');
  assertNoPiece(streamed, KEY, 'the panel\'s deltas joined');
  assertNoPiece(JSON.stringify(events), KEY, 'the panel\'s events');
  // the trailing 20 characters are a piece of the key too (more than half of it): redacted as one
  assert.equal((streamed.match(/«redacted:OPENAI_API_KEY»/g) ?? []).length, 2, streamed);
});

test('a secret registered with spaces around it is redacted when it comes back trimmed, or upper-cased', async () => {
  const trimmed = PADDED.trim();
  const s = await echoing(`plain ${trimmed} loud ${trimmed.toUpperCase()} end`);
  const traceFile = path.join(dir, 'padded.jsonl');
  const r = await turnAsync(['run', program, '--model', model(s), '--trace-file', traceFile], { cwd: dir, env: { OPENAI_API_KEY: KEY, TURN_SECRET_PAD: PADDED } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^plain «redacted:PAD» loud «redacted:PAD» end$/m);
  const trace = fs.readFileSync(traceFile, 'utf8');
  assertNoPiece(trace, trimmed, 'the trace');
  assertNoPiece(streamedIn(trace), trimmed, 'the deltas joined');
});

test('a provider key in the environment is redacted with the mock model too (it is not the run\'s key)', async () => {
  const keyFile = path.join(dir, 'leaked.txt');
  fs.writeFileSync(keyFile, `anthropic=${KEY}x\nopenai=${KEY}\n`);
  const source = path.join(dir, 'read.tn');
  fs.writeFileSync(source, `let fs = use "std/fs";\ncall("echo", fs.read(null, ${JSON.stringify(keyFile)}));\nreturn "read";\n`);
  const r = await turnAsync(['run', source, '--model', 'mock', '--allow-read', dir], { cwd: dir, env: { OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: `${KEY}x` } });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /anthropic=«redacted:ANTHROPIC_API_KEY»\nopenai=«redacted:OPENAI_API_KEY»/);
  assertNoPiece(r.stdout + r.stderr, KEY, 'the output');
});

test('a stream cut anywhere redacts as the whole text does, in every form, holding a bounded tail', () => {
  const redactor = new Redactor();
  redactor.addKnown('OPENAI_API_KEY', KEY);
  redactor.add('PAD', PADDED);
  redactor.add('QUOTED', 'pa ss"wo/rd+x');
  const trimmed = PADDED.trim();
  const forms = [
    KEY,
    KEY.toUpperCase(),
    Buffer.from(KEY).toString('base64'),
    JSON.stringify(JSON.stringify('pa ss"wo/rd+x')),
    encodeURIComponent('pa ss"wo/rd+x'),
    JSON.stringify([...KEY]),
    KEY.slice(0, 24),
    KEY.slice(-20),
    trimmed,
    Buffer.from(trimmed).toString('hex'),
  ];
  // a seeded generator: the same texts and cuts at every run
  let seed = 7;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const hold = redactor.holdLength();
  assert.ok(hold > KEY.length && hold < 4096, `hold ${hold}`);
  for (let round = 0; round < 40; round++) {
    let text = '';
    for (let i = 0; i < 12; i++) text += 'x'.repeat(next(50)) + ' {"k": "' + forms[next(forms.length)] + '"} ';
    const stream = new StreamRedactor(redactor);
    let out = '';
    let held = 0;
    for (let at = 0; at < text.length; ) {
      const size = 1 + next(7);
      out += stream.push(text.slice(at, at + size));
      at += size;
      held = Math.max(held, stream.heldLength);
    }
    out += stream.end();
    assert.equal(out, redactor.redact(text), `round ${round}`);
    assert.ok(!out.includes(KEY.slice(0, 20)) && !out.includes(trimmed), out);
    // what is held back stays bounded: the hold, one batch, one chunk
    assert.ok(held < hold + 64 + 7, `held ${held} >= ${hold} + a batch + a chunk`);
  }
});
