// The repository's examples have tests (examples/*_test.tn) that run offline from their recordings,
// through the built `turn test`, in parallel child processes.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ROOT, JS_STACK, turnAsync } from './helpers.js';

const testFiles = fs.readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('_test.tn'));

/** `// needs: nothing` in an example's header: it runs with a model alone (test/examples/examples.test.ts). */
const needsOnlyAModel = (f: string): boolean => /^\/\/ needs: nothing/m.test(fs.readFileSync(path.join(ROOT, 'examples', f), 'utf8'));

test('every example that needs only a model has a test file', () => {
  const programs = fs.readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.tn') && !f.endsWith('_test.tn') && needsOnlyAModel(f));
  assert.ok(programs.length >= 3);
  for (const p of programs) assert.ok(testFiles.includes(p.replace(/\.tn$/, '_test.tn')), `examples/${p} has no test file`);
});

test('`turn test examples` passes offline from the recordings', async () => {
  // no model at all: a test that asked a live model would fail, not pass
  const r = await turnAsync(['test', 'examples', '--jobs', '2'], { env: { TURN_MODEL: 'openai:none?base_url=http://127.0.0.1:9/v1&retries=0', OPENAI_API_KEY: '' } });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout + r.stderr, JS_STACK);
  for (const f of testFiles) assert.match(r.stdout, new RegExp(`^examples/${f}$`, 'm'));
  const m = /^(\d+) passed, 0 failed$/m.exec(r.stdout);
  assert.ok(m && Number(m[1]) >= 10, r.stdout);
  // the triage tests check the scripted replies (billing, bug, question): the mock model would give "billing" thrice
  assert.match(r.stdout, /✓ each ticket lands in its category/);
});

test('the reporters: tap and junit carry the same results and the summary line', async () => {
  const tap = await turnAsync(['test', 'examples/triage_agent_test.tn', '--reporter', 'tap']);
  assert.equal(tap.code, 0, tap.stderr);
  assert.match(tap.stdout, /^TAP version 13$/m);
  assert.match(tap.stdout, /^ok 2 - examples\/triage_agent_test\.tn > each ticket lands in its category$/m);
  assert.match(tap.stdout, /^1\.\.5$/m);
  assert.match(tap.stdout, /^# 5 passed, 0 failed$/m);
  const junit = await turnAsync(['test', 'examples/triage_agent_test.tn', '--reporter', 'junit', '--filter', 'urgent']);
  assert.equal(junit.code, 0, junit.stderr);
  assert.match(junit.stdout, /<testsuites name="turn test" tests="1" failures="0">/);
  assert.match(junit.stdout, /<testcase name="a how-to question is not urgent" classname="examples\/triage_agent_test.tn"/);
  const bad = await turnAsync(['test', 'examples', '--reporter', 'html']);
  assert.equal(bad.code, 64);
  assert.match(bad.stderr, /--reporter expects spec, tap, junit or json/);
});
