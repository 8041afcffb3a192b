// `turn eval FILE --samples N --model M`: pass rate, confidence distribution, tokens and latency,
// as a table and as JSON; against scripted replies and a local OpenAI-compatible server.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { fakeServer, openaiCompletion } from '../providers/fake-server.js';
import { tempDir, turnAsync } from './helpers.js';

interface Report {
  passRate: number;
  samples: { passed: boolean; calls: number; inputTokens: number; outputTokens: number; confidences: number[]; error?: string }[];
  confidence: { count: number; min: number; median: number; max: number; histogram: { count: number }[] };
  tokens: { input: number; output: number };
}

test('a program evaluated against scripted replies: every sample passes with the scripted confidences', async () => {
  const r = await turnAsync(['eval', 'examples/triage_agent.tn', '--samples', '3', '--model', 'script:examples/triage_agent.replies.json', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout) as Report;
  assert.equal(report.passRate, 1);
  assert.equal(report.samples.length, 3);
  for (const s of report.samples) {
    assert.equal(s.calls, 3);
    assert.deepEqual(s.confidences.slice().sort(), [0.55, 0.88, 0.94]);
  }
  assert.equal(report.confidence.count, 9);
  assert.equal(report.confidence.min, 0.55);
  assert.equal(report.confidence.max, 0.94);
  const table = await turnAsync(['eval', 'examples/triage_agent.tn', '--samples', '2', '--model', 'script:examples/triage_agent.replies.json']);
  assert.match(table.stdout, /^sample {2}result {2}calls {2}tokens in {2}tokens out {2}latency ms {2}confidence$/m);
  assert.match(table.stdout, /^pass rate: 100% \(2 of 2\) with script:examples\/triage_agent\.replies\.json$/m);
});

test('a test file evaluated against a live server: a sample fails when its test does; tokens are counted', async () => {
  const dir = tempDir();
  fs.writeFileSync(
    path.join(dir, 'legs_test.tn'),
    'return {\n    "a cat has four legs": turn() {\n        let n = infer Num { "How many legs has a cat?"; };\n        call("assert_eq", n, 4);\n    },\n};\n',
  );
  // the second of three answers is wrong
  const server = await fakeServer((_req, n) => ({ status: 200, body: openaiCompletion(`{"value": ${n === 2 ? 3 : 4}, "confidence": ${n === 2 ? 0.4 : 0.9}}`, { usage: [20, 5] }) }));
  try {
    const model = `openai:gpt-test?base_url=${encodeURIComponent(server.url)}&retries=0&logprobs=0`;
    const r = await turnAsync(['eval', 'legs_test.tn', '--samples', '3', '--model', model, '--json'], { cwd: dir, env: { OPENAI_API_KEY: 'k' } });
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as Report;
    assert.deepEqual(report.samples.map((s) => s.passed), [true, false, true]);
    assert.match(report.samples[1].error!, /assertion failed: expected 4, got 3/);
    assert.equal(Math.round(report.passRate * 100), 67);
    assert.deepEqual(report.tokens, { input: 60, output: 15, meanPerSample: 25 });
    assert.deepEqual(report.samples.map((s) => s.confidences[0]), [0.9, 0.4, 0.9]);
    assert.equal(report.confidence.histogram[2].count, 1); // 0.4 is in [0.4, 0.6)
    assert.equal(report.confidence.histogram[4].count, 2);
  } finally {
    await server.close();
  }
});
