// Bad input to `turn test`, each a clear error naming the file and line, never a JavaScript stack:
// a malformed recording, a recording of another format or edited by hand, a test file without
// tests, and tests that never end (step and time limits). Also: a failing assert is located.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { JS_STACK, copyExample, tempDir, turnAsync } from './helpers.js';

function withTest(source: string): string {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'x_test.tn'), source);
  return dir;
}

test('a failing assert names its file, line and column, and the test goes on being reported', async () => {
  const dir = withTest('let double = turn(n: Num) -> Num { return n * 2; };\nreturn {\n    "doubles": turn() {\n        call("assert_eq", double(2), 4);\n        call("assert", double(3) == 7, "three doubled");\n    },\n    "ok": turn() { call("assert", true); },\n};\n');
  const r = await turnAsync(['test'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.doesNotMatch(r.stdout + r.stderr, JS_STACK);
  assert.match(r.stdout, /^ {6}x_test\.tn:5:9: assertion failed: three doubled$/m);
  assert.match(r.stdout, /✓ ok/);
  assert.match(r.stdout, /^1 passed, 1 failed$/m);
  const eq = withTest('return {\n    "eq": turn() { call("assert_eq", [1, "a"], [1, "b"], "lists"); },\n};\n');
  const r2 = await turnAsync(['test'], { cwd: eq });
  assert.match(r2.stdout, /x_test\.tn:2:20: assertion failed: lists: expected \[1, "b"\], got \[1, "a"\]/);
});

test('a malformed recording is an error at its line and column', async () => {
  const dir = tempDir();
  copyExample('triage_agent', dir);
  const cassette = path.join(dir, 'triage_agent_test.cassette.json');
  const text = fs.readFileSync(cassette, 'utf8');
  fs.writeFileSync(cassette, text.replace('"type": "Triage",', '"type": "Triage"'));
  const r = await turnAsync(['test'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.doesNotMatch(r.stdout + r.stderr, JS_STACK);
  assert.match(r.stdout, /✗ triage_agent_test\.cassette\.json:10:11: the recording is not valid JSON: Expected ',' or '}' after property value/);
  assert.match(r.stdout, /^0 passed, 1 failed \(1 file could not run\)$/m);
});

test('a recording of another format, or with a field of the wrong kind, is refused at its line', async () => {
  const dir = tempDir();
  copyExample('triage_agent', dir);
  const cassette = path.join(dir, 'triage_agent_test.cassette.json');
  const text = fs.readFileSync(cassette, 'utf8');
  fs.writeFileSync(cassette, text.replace('"turn_cassette": 1', '"turn_cassette": 7'));
  const r = await turnAsync(['test'], { cwd: dir });
  assert.match(r.stdout, /triage_agent_test\.cassette\.json:2:20: not a Turn recording of format 1 \("turn_cassette": 7\)/);
  fs.writeFileSync(cassette, text.replace('"attempt": 1,', '"attempt": "first",'));
  const r2 = await turnAsync(['test'], { cwd: dir });
  assert.match(r2.stdout, /triage_agent_test\.cassette\.json:10:\d+: test "every ticket gets a verdict", exchange 1: "attempt" must be a whole number >= 1/);
});

test('a recorded request edited by hand no longer matches its fingerprint: refused at its line', async () => {
  const dir = tempDir();
  copyExample('triage_agent', dir);
  const cassette = path.join(dir, 'triage_agent_test.cassette.json');
  const text = fs.readFileSync(cassette, 'utf8');
  fs.writeFileSync(cassette, text.replace('You triage customer support tickets.', 'You triage tickets.'));
  const r = await turnAsync(['test'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /triage_agent_test\.cassette\.json:8:26: test "every ticket gets a verdict", exchange 1: the fingerprint does not match the recorded request/);
});

test('a test file without a map of tests says what a test file looks like, at its line', async () => {
  const dir = withTest('let x = 1;\nreturn [x];\n');
  const r = await turnAsync(['test', 'x_test.tn'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /x_test\.tn:2:8: a test file returns a map of tests at its top level: return \{"name": turn\(\) \{ \.\.\. \}, \.\.\.\};/);
  const syntax = withTest('return {\n    "a": turn() { let = 1; },\n};\n');
  const r2 = await turnAsync(['test'], { cwd: syntax });
  assert.match(r2.stdout, /x_test\.tn:2:\d+: /);
  assert.doesNotMatch(r2.stdout + r2.stderr, JS_STACK);
});

test('a test that never ends is stopped by its step limit, and one that waits forever by its time limit', async () => {
  const dir = withTest('return {\n    "spins": turn() {\n        while true { let x = 1; }\n    },\n    "sleeps": turn() {\n        while true { call("sleep", 50); }\n    },\n    "deadlocks": turn() {\n        let m = receive;\n    },\n};\n');
  const r = await turnAsync(['test', '--max-steps', '100000', '--max-time', '0.5'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.doesNotMatch(r.stdout + r.stderr, JS_STACK);
  assert.match(r.stdout, /x_test\.tn:3:\d+: the test did not finish within its limits: step budget of 100000 exhausted; raise it with --max-steps/);
  assert.match(r.stdout, /x_test\.tn:6:\d+: the test did not finish within its limits: time budget of 0\.5 s exhausted; raise it with --max-time/);
  assert.match(r.stdout, /x_test\.tn:9:17: deadlock: every process is waiting/);
  assert.match(r.stdout, /^0 passed, 3 failed$/m);
});
