// A stale recording: a copy of the triage example whose prompt (or type) was edited no longer
// matches its recorded requests; `turn test` says so with the diff, and `--update` re-records only
// the stale tests.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { JS_STACK, copyExample, tempDir, turnAsync } from './helpers.js';

function triageCopy(): string {
  const dir = tempDir();
  copyExample('triage_agent', dir);
  return dir;
}

test('an edited prompt is reported as a stale recording, with the diff and where the request is made', async () => {
  const dir = triageCopy();
  const program = path.join(dir, 'triage_agent.tn');
  fs.writeFileSync(program, fs.readFileSync(program, 'utf8').replace('classify it, say whether', 'classify it, decide whether'));
  const r = await turnAsync(['test', 'triage_agent_test.tn', '--filter', 'category'], { cwd: dir });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout + r.stderr, JS_STACK);
  // the test (file:line:col), the infer that sent the request, the closest recorded request (file:line)
  assert.match(
    r.stdout,
    /triage_agent_test\.tn:14:5: stale recording: the program now sends a request the recording does not hold \(infer Triage at triage_agent\.tn:22:19\); closest recorded request: triage_agent_test\.cassette\.json:\d+;/,
  );
  assert.match(r.stdout, /^ {6}- ….*classify it, say whether it is urgent/m);
  assert.match(r.stdout, /^ {6}\+ ….*classify it, decide whether it is urgent/m);
  assert.match(r.stdout, /^0 passed, 1 failed \(1 stale recording\)$/m);
  // the recorded reply was not given to the changed question: the assertion never ran
  assert.doesNotMatch(r.stdout, /assertion failed/);
});

test('--update re-records only the stale tests, with the model given; then they replay', async () => {
  const dir = triageCopy();
  const program = path.join(dir, 'triage_agent.tn');
  const cassette = path.join(dir, 'triage_agent_test.cassette.json');
  fs.writeFileSync(program, fs.readFileSync(program, 'utf8').replace('classify it, say whether', 'classify it, decide whether'));
  const before = JSON.parse(fs.readFileSync(cassette, 'utf8')) as { tests: Record<string, unknown> };
  const r = await turnAsync(['test', '--update', '--filter', 'urgent', '--model', 'script:triage_agent.replies.json'], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /✓ a how-to question is not urgent \(recorded\)/);
  assert.match(r.stdout, /wrote triage_agent_test\.cassette\.json/);
  const after = JSON.parse(fs.readFileSync(cassette, 'utf8')) as { tests: Record<string, { exchanges: { request: { prompt: string } }[] }> };
  assert.match(after.tests['a how-to question is not urgent'].exchanges[0].request.prompt, /decide whether/);
  // the other tests' recordings are as they were (and so still stale)
  assert.deepEqual(after.tests['every ticket gets a verdict'], before.tests['every ticket gets a verdict']);
  const again = await turnAsync(['test'], { cwd: dir });
  assert.equal(again.code, 1);
  assert.match(again.stdout, /✓ a how-to question is not urgent \(\d+ ms\)/);
  assert.match(again.stdout, /^1 passed, 4 failed \(4 stale recordings\)$/m);
});

test('a changed type is reported as a recording for another schema, with the schema diff', async () => {
  const dir = triageCopy();
  const program = path.join(dir, 'triage_agent.tn');
  fs.writeFileSync(program, fs.readFileSync(program, 'utf8').replace('    summary: Str,', '    summary: Str,\n    priority: Num,'));
  const r = await turnAsync(['test', '--filter', 'every ticket'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /triage_agent_test\.tn:11:5: stale recording: triage_agent_test\.cassette\.json:\d+ was recorded for another schema of Triage \(infer Triage at triage_agent\.tn:23:19\)/);
  assert.match(r.stdout, /^ {6}\+ schema {5}"priority": \{$/m);
});

test('a test the recording has no entry for is stale once it asks the model', async () => {
  const dir = tempDir();
  fs.writeFileSync(
    path.join(dir, 'q_test.tn'),
    'return {\n    "one": turn() { call("assert", 1 + 1 == 2); },\n    "two": turn() { let n = infer Num { "How many?"; }; },\n};\n',
  );
  const recorded = await turnAsync(['test', '--record', '--filter', 'one'], { cwd: dir });
  assert.equal(recorded.code, 0, recorded.stdout + recorded.stderr);
  const r = await turnAsync(['test'], { cwd: dir });
  assert.equal(r.code, 1);
  assert.match(r.stdout, /✓ one/);
  assert.match(r.stdout, /q_test\.tn:3:5: stale recording: test "two" has no recorded model replies, and it now asks the model \(infer Num at q_test\.tn:3:29\)/);
});
