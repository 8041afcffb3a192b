import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseScript, scriptProvider } from '../../runtime/providers/script.js';
import { failure, okJson, runWith, script, withProvider } from './helpers.js';
import { JS_STACK, ROOT, turn } from '../cli/run-cli.js';

const FIXTURES = path.join(__dirname, 'fixtures');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-script-'));

test('script: entries answer in order, by prompt pattern and by type; used up unless repeat', async () => {
  const ask = script([
    { match: 'capital', value: 'Paris', confidence: 0.9 },
    { value: 1 },
    { value: 2, confidence: 0.4 },
    { type: 'Bool', value: true, repeat: true },
  ]);
  const r = await runWith(
    'return [infer Num { "first"; }, infer Str { "the capital of France"; }, infer Num { "second"; }, infer Bool { "b"; }, infer Bool { "b"; }];',
    ask,
  );
  assert.deepEqual(okJson(r), [1, 'Paris', 2, true, true]);
  const none = await runWith('let a = infer Num { "x"; };\nlet b = infer Num { "y"; };', script([{ value: 1 }]));
  const e = failure(none);
  assert.equal(e.line, 2);
  assert.match(e.message, /^infer Num: the model call failed: script test\.json: no reply left for infer Num with the prompt "y" \(attempt 1; 1 of 1 replies used\)/);
});

test('script: an error entry is a failed model call; text entries are raw replies', async () => {
  const r = await runWith('try { infer Num { "x"; }; } catch (e) { return [e["reason"], e["message"]]; }', script([{ error: 'the service is down' }]));
  assert.deepEqual(okJson(r), ['provider', 'infer Num: the model call failed: script test.json: replies[0]: the service is down']);
});

test('script: malformed fixtures are refused with a location', () => {
  const bad: [string, RegExp][] = [
    ['{"replies": [\n  {"value": 1},\n  {"value": 2,}\n]}', /f\.json:3:15: the script fixture is not valid JSON: /],
    ['{"replies": [{"value": 1, "text": "1"}]}', /f\.json: replies\[0\]: needs exactly one of "value", "text" or "error" \(has value, text\)/],
    ['{"replies": [{"confidence": 0.5}]}', /f\.json: replies\[0\]: needs exactly one of/],
    ['{"replies": [{"value": 1, "confidense": 0.5}]}', /f\.json: replies\[0\]: must NOT have additional properties \("confidense"\)/],
    ['{"replies": [{"value": 1, "confidence": 2}]}', /f\.json: replies\[0\]\.confidence: must be <= 1/],
    ['{"replies": [{"value": 1, "match": "(unclosed"}]}', /f\.json: replies\[0\]\.match: the pattern "\(unclosed" is not a regular expression Turn can run/],
    ['{"replies": [{"value": 1, "match": "(?!x)"}]}', /f\.json: replies\[0\]\.match: the pattern "\(\?!x\)" uses a lookahead assertion/],
    ['{"answers": []}', /f\.json: the top level: must have required property 'replies'/],
  ];
  for (const [text, re] of bad) assert.throws(() => parseScript('f.json', text), re, text);
  assert.equal(parseScript('f.json', '[{"value": 1}]').length, 1); // a bare list of replies is fine too
  assert.equal(scriptProvider('f.json', '{"replies": []}').kind, 'local');
  void withProvider;
});

test('turn run --model script:FILE runs a nested-struct program exactly; --trace-file writes JSON lines', () => {
  const traceFile = path.join(tmp, 'trace.jsonl');
  const r = turn(['run', path.join(FIXTURES, 'review.tn'), '--model', `script:${path.join(FIXTURES, 'review.json')}`, '--trace-file', traceFile]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'cache perf\n0.8\n6\n0.5\n');
  const events = fs.readFileSync(traceFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  const kinds = events.map((e) => e.kind);
  assert.deepEqual(kinds, [
    'process.spawn', 'infer.request', 'infer.reply', 'infer.retry', 'infer.request', 'infer.reply', 'infer.request', 'infer.reply', 'process.exit',
  ]);
  events.forEach((e, i) => assert.equal(e.seq, i + 1));
  const firstReply = events[2];
  assert.deepEqual(firstReply.errors, [{ path: '/value/mood', message: 'must be one of "happy", "sad"' }]);
  const retried = events[4] as { attempt: number; feedback: string[] };
  assert.equal(retried.attempt, 2);
  assert.match(retried.feedback[0], /\/value\/mood: must be one of/);
  assert.deepEqual(events[7].repairs, ['removed a Markdown code fence (```json)', 'removed 1 trailing comma']);
  const req = events[1] as { prompt: Record<string, unknown>; schema: unknown; prefix: { hash: string } };
  assert.deepEqual(Object.keys(req.prompt), ['P0', 'P2', 'P1', 'task']);
  assert.match(req.prefix.hash, /^[0-9a-f]{64}$/);
});

test('turn run --trace prints JSON lines on stderr; a bad fixture is exit 2 with its location, no stack', () => {
  const prog = path.join(tmp, 'p.tn');
  fs.writeFileSync(prog, 'call("echo", infer Num { "n"; });');
  const r = turn(['run', prog, '--trace']);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '1\n');
  const lines = r.stderr.trim().split('\n').map((l) => JSON.parse(l) as { kind: string });
  assert.ok(lines.some((l) => l.kind === 'infer.reply'));

  const fixture = path.join(tmp, 'bad.json');
  fs.writeFileSync(fixture, '{"replies": [\n  {"value": 1,}\n]}');
  const bad = turn(['run', prog, '--model', `script:${fixture}`]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^turn: .*bad\.json:2:15: the script fixture is not valid JSON/);
  assert.doesNotMatch(bad.stderr, JS_STACK);
  const missing = turn(['run', prog, '--model', `script:${path.join(tmp, 'nope.json')}`]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /cannot read the script fixture .*nope\.json/);
  const unknown = turn(['run', prog, '--model', 'gpt4']);
  assert.equal(unknown.code, 64);
  assert.match(unknown.stderr, /unknown model `gpt4`/);
  const badOpt = turn(['run', prog, '--model', 'openai:x?colour=red']);
  assert.equal(badOpt.code, 64);
  assert.match(badOpt.stderr, /unknown option `colour`/);
});

test('turn run against a local OpenAI-compatible server, key from the environment, never in the trace', async () => {
  const { fakeServer, openaiCompletion } = await import('../providers/fake-server.js');
  const GOOD = { ok: true, score: 7, mood: 'happy', tags: [{ name: 'perf', weight: 2 }], main: { name: 'cache', weight: 1 } };
  const s = await fakeServer((req) => {
    const num = /How many/.test(JSON.stringify(req.json));
    return { status: 200, body: openaiCompletion(JSON.stringify({ value: num ? 3 : GOOD, confidence: 0.5 })) };
  });
  try {
    const traceFile = path.join(tmp, 'http-trace.jsonl');
    const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'turn.js'), 'run', path.join(FIXTURES, 'review.tn'), '--model', `openai:gpt-test?base_url=${s.url}/v1&api_key_env=TURN_E2E_KEY`, '--trace-file', traceFile], {
      env: { ...process.env, TURN_E2E_KEY: 'sk-e2e-secret-77' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const code = await new Promise<number | null>((resolve) => {
      const timer = setTimeout(() => child.kill(), 30_000);
      child.on('close', (c) => {
        clearTimeout(timer);
        resolve(c);
      });
    });
    assert.equal(code, 0, stderr);
    assert.equal(stdout, 'cache perf\n0.5\n6\n0.5\n');
    assert.equal(s.received.length, 2);
    assert.equal(s.received[0].headers.authorization, 'Bearer sk-e2e-secret-77');
    assert.ok(!fs.readFileSync(traceFile, 'utf8').includes('sk-e2e-secret-77'));
  } finally {
    await s.close();
  }
});
