// The testing library in-process: discovery from the syntax, the recording's checks and diff, and
// what the Test Explorer shows for a result (extension/testing/results.ts, which imports no vscode).
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { CassetteError, discoverSource, formatCassette, parseCassette, type Cassette, type TestResult } from '../../runtime/index.js';
import { closestExchange, fingerprint } from '../../runtime/testing/cassette.js';
import { diffLines, formatDiff } from '../../runtime/testing/diff.js';
import { shownMessage, STALE_CONTEXT } from '../../extension/testing/results.js';

test('tests are found from the syntax: names, lines, closures bound by name', async () => {
  const src = 'let helper = turn() { call("assert", true); };\nreturn {\n    "inline": turn() {\n        call("assert", 1);\n    },\n    "by name": helper,\n};\n';
  const found = await discoverSource('a_test.tn', src);
  assert.equal(found.error, undefined);
  assert.deepEqual(found.tests, [
    { name: 'inline', line: 3, column: 5, endLine: 5 },
    { name: 'by name', line: 6, column: 5, endLine: 1 },
  ]);
  const notClosure = await discoverSource('b_test.tn', 'return {"x": 1};\n');
  assert.equal(notClosure.error, 'b_test.tn:1:14: test "x" must be a closure: turn() { ... }');
  const params = await discoverSource('c_test.tn', 'return {"x": turn(a) { }};\n');
  assert.equal(params.error, 'c_test.tn:1:14: test "x" takes no parameters');
});

function sample(): Cassette {
  const request = { system: ['Be brief.'], context: ['Ticket: 1'], prompt: 'Classify it.', feedback: [] };
  const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'string' };
  const fp = fingerprint({ typeName: 'Str', schema, prompt: request.prompt, context: [...request.system, ...request.context], attempt: 1, feedback: [] });
  return { turn_cassette: 1, tests: { t: { model: 'mock', exchanges: [{ fingerprint: fp, type: 'Str', attempt: 1, request, schema, reply: { text: '{"value": "bug"}' } }] } } };
}

test('a recording round-trips, and each exchange knows its line', () => {
  const text = formatCassette(sample());
  const loaded = parseCassette('t.cassette.json', text);
  assert.deepEqual(loaded.cassette, sample());
  assert.equal(text.split('\n')[loaded.lineOf('t', 0)! - 1].trim(), '{');
  assert.equal(loaded.lineOf('t', 0), 7);
});

test('a recording with a missing reply is refused at the exchange, naming the test', () => {
  const bad = sample();
  (bad.tests.t.exchanges[0] as unknown as Record<string, unknown>).reply = { value: 1 };
  assert.throws(
    () => parseCassette('t.cassette.json', formatCassette(bad)),
    (e: unknown) => e instanceof CassetteError && e.line === 25 && /^t\.cassette\.json:25:20: test "t", exchange 1: "reply" needs exactly one of "text" or "error"/.test(e.message),
  );
});

test('the closest recorded request and the diff from it', () => {
  const c = sample();
  const now = { type: 'Str', attempt: 1, request: { system: ['Be brief.'], context: ['Ticket: 2'], prompt: 'Classify it.', feedback: [] }, schema: c.tests.t.exchanges[0].schema };
  const closest = closestExchange(c.tests.t.exchanges, now)!;
  assert.equal(closest.schemaOnly, false);
  assert.match(closest.diff, /^- context: Ticket: 1$/m);
  assert.match(closest.diff, /^\+ context: Ticket: 2$/m);
  assert.equal(formatDiff(diffLines(['a', 'b', 'c', 'd', 'e', 'f', 'g'], ['a', 'b', 'c', 'd', 'e', 'f', 'X']), 1), '  f\n- g\n+ X');
});

test('the Test Explorer shows a failure at its assert, and a stale recording with its diff and re-record action', () => {
  const base: TestResult = { file: 'x_test.tn', name: 't', line: 3, column: 5, status: 'failed', durationMs: 1, output: [], inference: { calls: 0, inputTokens: 0, outputTokens: 0, latencyMs: 0, confidences: [] } };
  const failed = shownMessage({ ...base, message: 'x_test.tn:4:9: assertion failed', location: { path: 'x_test.tn', line: 4, column: 9 } }, '/w');
  assert.deepEqual(failed, { text: 'x_test.tn:4:9: assertion failed', location: { file: path.resolve('/w', 'x_test.tn'), line: 3, column: 8 } });
  const stale = shownMessage({ ...base, status: 'stale', message: 'stale recording', details: '- a\n+ b', requests: { recorded: 'a', now: 'b' } }, '/w');
  assert.equal(stale.contextValue, STALE_CONTEXT);
  assert.deepEqual(stale.diff, { expected: 'a', actual: 'b' });
  assert.deepEqual(stale.location, { file: path.resolve('/w', 'x_test.tn'), line: 2, column: 4 });
  assert.match(stale.text, /^stale recording\n\nThe request differs from the recording in its header\.\n\nheader:\n {2}recorded: a\n {2}now: {6}b\n/, 'the readable difference (runtime/testing/stale-diff.ts)');
});
