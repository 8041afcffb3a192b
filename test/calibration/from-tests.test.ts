// `turn calibrate` on test files (docs/inference.md, *Calibration*; runtime/calibration/from-tests.ts):
// each test that compares an inferred value with a literal becomes a labeled case — the confidence
// of its one infer, and whether its expectation held — run as `turn test` runs it: a test without a
// qualifying expectation is not asked, a test that asks twice or never is left out with its reason,
// a file with no qualifying test is a located error before any model is asked, and a hostile test
// (a loop, a file write) runs under the limits and grants of `turn test`.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { calibrate } from '../../runtime/calibration/run.js';
import { DatasetError } from '../../runtime/calibration/dataset.js';
import { readCalibration } from '../../runtime/calibration/file.js';
import { qualifyingExpectations } from '../../runtime/calibration/from-tests.js';
import { parseSource } from '../../runtime/syntax/parse.js';
import { turn } from '../cli/run-cli.js';

/**
 * 40 tests `q0`..`q39`, each asking one yes/no infer and asserting "yes"; the script model says yes
 * to the even ones only, always with confidence 0.9 (overconfident: right half the time). Beside
 * them, tests that are not cases: one without an expectation, one comparing two literals, one that
 * asks twice, one whose expectation is about no infer at all.
 */
function workspace(reply: { confidence?: number; yes?: (i: number) => boolean } = {}): string {
  const confidence = 'confidence' in reply ? reply.confidence : 0.9;
  const yes = reply.yes ?? ((i: number) => i % 2 === 0);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-calibrate-tests-'));
  const tests: string[] = [];
  const replies: unknown[] = [];
  for (let i = 0; i < 40; i++) {
    const assertion = i % 4 === 1 ? `call("assert", v == "yes")` : `call("assert_eq", v, "yes", "Q${i}")`;
    tests.push(`  "q${i}": turn() { let v = infer "yes" | "no" { "Q${i}: is it yes?"; }; ${assertion}; },`);
    replies.push({ match: `^Q${i}:`, value: yes(i) ? 'yes' : 'no', ...(confidence !== undefined ? { confidence } : {}), repeat: true });
  }
  tests.push('  "no expectation": turn() { let v = infer "yes" | "no" { "Q0: is it yes?"; }; call("echo", v); },');
  tests.push('  "two literals": turn() { call("assert_eq", 1, 1); },');
  tests.push('  "asks twice": turn() { let a = infer "yes" | "no" { "Q0: is it yes?"; }; let b = infer "yes" | "no" { "Q2: is it yes?"; }; call("assert_eq", a, "yes"); },');
  tests.push('  "no infer": turn() { call("assert_eq", call("len", [1, 2]), 2); },');
  fs.writeFileSync(path.join(dir, 'yes_test.tn'), `return {\n${tests.join('\n')}\n};\n`);
  fs.writeFileSync(path.join(dir, 'replies.json'), JSON.stringify({ replies }));
  return dir;
}

const script = (dir: string) => `script:${path.join(dir, 'replies.json')}`;

test('a test file is a dataset: one case per test with a qualifying expectation, labeled by whether it held', async () => {
  const dir = workspace();
  const report = await calibrate({ dataset: 'yes_test.tn', cwd: dir, model: script(dir) });
  // the 40 q tests, "asks twice" and "no infer" qualify from the syntax; "no expectation" and "two literals" do not
  assert.equal(report.cases, 42);
  const byId = new Map(report.results.map((r) => [r.id, r]));
  assert.equal(byId.has('yes_test.tn: no expectation'), false);
  assert.equal(byId.has('yes_test.tn: two literals'), false);
  const q = report.results.filter((r) => /: q\d+$/.test(r.id));
  assert.equal(q.length, 40);
  assert.ok(q.every((r) => r.ok), JSON.stringify(q.filter((r) => !r.ok)));
  // the label is whether the model's value met the expectation: even cases right, odd wrong (assert and assert_eq alike)
  for (const r of q) {
    const i = Number(/q(\d+)$/.exec(r.id)![1]);
    assert.equal(r.right, i % 2 === 0, r.id);
    assert.deepEqual(r.confidence, { reported: 0.9 }, r.id);
  }
  // the two that ran but cannot be cases are left out with their reason
  assert.equal(report.failed, 2);
  assert.match(byId.get('yes_test.tn: asks twice')!.error!, /made 2 infers/);
  assert.match(byId.get('yes_test.tn: no infer')!.error!, /made no infer/);
  // and the map is fitted on them: 0.9 maps to the accuracy seen (one half, shrunk: (20 + 0.5) / 41)
  const reported = report.sources.find((s) => s.source === 'reported')!;
  assert.equal(reported.fitted, 40);
  const file = readCalibration(path.join(dir, '.turn', 'calibration.json'))!;
  assert.equal(file.maps.length, 1);
  assert.equal(file.maps[0].fitted.dataset, 'yes_test.tn');
  assert.deepEqual(file.maps[0].points, [[0.9, 20.5 / 41]]);
});

test('calibration runs tests on raw confidences: a calibration file already there is not applied', async () => {
  // no confidence in the replies: the unreported 0.5, whose figure is the bound value itself; 30 of 40 right
  const dir = workspace({ confidence: undefined, yes: (i) => i % 4 !== 3 });
  const first = await calibrate({ dataset: 'yes_test.tn', cwd: dir, model: script(dir) });
  assert.deepEqual(readCalibration(path.join(dir, '.turn', 'calibration.json'))!.maps[0].points, [[0.5, 30.5 / 41]]);
  assert.ok(first.results.filter((r) => r.ok).every((r) => r.confidence!.unreported === 0.5));
  // a second calibration, with the first one's map in .turn/calibration.json, still measures 0.5, not the map's 0.74
  const again = await calibrate({ dataset: 'yes_test.tn', cwd: dir, model: script(dir), out: false });
  assert.ok(again.results.filter((r) => r.ok).every((r) => r.confidence!.unreported === 0.5), JSON.stringify(again.results[0]));
});

test('which expectations qualify, from the syntax', async () => {
  const count = async (src: string): Promise<number> => qualifyingExpectations((await parseSource('q.tn', src)).program);
  assert.equal(await count('call("assert_eq", v, "yes");'), 1);
  assert.equal(await count('call("assert_eq", 3, v.n);'), 1, 'either side may be the literal');
  assert.equal(await count('call("assert_eq", v, -2);'), 1);
  assert.equal(await count('call("assert", v.ok == true);'), 1);
  assert.equal(await count('call("assert_eq", v, w);'), 0, 'two values: nothing to label against');
  assert.equal(await count('call("assert_eq", "a", "a");'), 0, 'two literals say nothing about a model');
  assert.equal(await count('call("assert", v);'), 0);
  assert.equal(await count('call("assert", v != "no");'), 0);
  assert.equal(await count('if x { call("assert_eq", v, 1); call("assert", 2 == v); }'), 2, 'nested anywhere in the closure');
});

test('a test file with no qualifying expectation is a clear error, before any model is asked', async () => {
  const dir = workspace();
  fs.writeFileSync(path.join(dir, 'none_test.tn'), 'return {\n  "a": turn() { let v = infer Str { "hi"; }; call("assert", v != ""); },\n  "b": turn() { call("assert_eq", 1, 1); },\n};\n');
  // a model that would fail any call: the error comes first
  await assert.rejects(
    calibrate({ dataset: 'none_test.tn', cwd: dir, model: `script:${path.join(dir, 'no-such.json')}` }),
    (e: unknown) => e instanceof DatasetError && /none_test\.tn: no test states an expectation calibration can use: a test qualifies when it calls call\("assert_eq", VALUE, LITERAL\)/.test(e.message),
  );
  fs.writeFileSync(path.join(dir, 'broken_test.tn'), 'return {\n  "a": turn() { call("assert_eq", v, 1) \n};\n');
  await assert.rejects(calibrate({ dataset: 'broken_test.tn', cwd: dir, model: script(dir) }), (e: unknown) => e instanceof DatasetError && /broken_test\.tn:\d+:\d+: /.test(e.message));
  await assert.rejects(calibrate({ dataset: 'gone_test.tn', cwd: dir, model: script(dir) }), (e: unknown) => e instanceof DatasetError && /gone_test\.tn: no such file/.test(e.message));
  const cli = turn(['calibrate', 'none_test.tn', '--model', 'mock'], { cwd: dir });
  assert.equal(cli.code, 2, cli.stderr);
  assert.match(cli.stderr, /^turn: .*none_test\.tn: no test states an expectation calibration can use/);
  assert.doesNotMatch(cli.stderr, /\n\s+at /, 'no JavaScript stack');
});

test('hostile tests run under the limits and grants of turn test: a loop ends, a write is refused, and both are left out', async () => {
  const dir = workspace();
  fs.writeFileSync(
    path.join(dir, 'hostile_test.tn'),
    [
      'return {',
      '  "loops": turn() { let v = infer "yes" | "no" { "Q0: is it yes?"; }; while true { } call("assert_eq", v, "yes"); },',
      '  "writes": turn() { call("fs_write", "pwned.txt", "x"); let v = infer "yes" | "no" { "Q0: is it yes?"; }; call("assert_eq", v, "yes"); },',
      '  "honest": turn() { let v = infer "yes" | "no" { "Q0: is it yes?"; }; call("assert_eq", v, "yes"); },',
      '};',
      '',
    ].join('\n'),
  );
  const report = await calibrate({ dataset: 'hostile_test.tn', cwd: dir, model: script(dir), maxSteps: 20_000, out: false });
  const byId = new Map(report.results.map((r) => [r.id, r]));
  assert.equal(report.cases, 3);
  assert.equal(byId.get('hostile_test.tn: loops')!.ok, false);
  assert.match(byId.get('hostile_test.tn: loops')!.error!, /hostile_test\.tn:2:\d+: the test did not finish within its limits: step budget of 20000 exhausted/);
  assert.equal(byId.get('hostile_test.tn: writes')!.ok, false);
  assert.match(byId.get('hostile_test.tn: writes')!.error!, /fs_write|write/);
  assert.equal(fs.existsSync(path.join(dir, 'pwned.txt')), false, 'the write was refused: calibrate grants nothing turn test does not');
  assert.deepEqual({ ok: byId.get('hostile_test.tn: honest')!.ok, right: byId.get('hostile_test.tn: honest')!.right }, { ok: true, right: true });
});

test('a folder of test files is a dataset too', async () => {
  const dir = workspace();
  fs.mkdirSync(path.join(dir, 'more'));
  fs.writeFileSync(path.join(dir, 'more', 'one_test.tn'), 'return { "q1 again": turn() { let v = infer "yes" | "no" { "Q1: is it yes?"; }; call("assert_eq", v, "no"); } };\n');
  const report = await calibrate({ dataset: '.', cwd: dir, model: script(dir), out: false });
  assert.equal(report.cases, 43);
  const again = report.results.find((r) => r.id === `${path.join('more', 'one_test.tn')}: q1 again`)!;
  assert.deepEqual({ ok: again.ok, right: again.right }, { ok: true, right: true });
});

test('the turn calibrate command on a test file: the cases, the tests left out and why', () => {
  const dir = workspace();
  const r = turn(['calibrate', 'yes_test.tn', '--model', script(dir), '--dry-run'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^42 cases against script:.*replies\.json .*, 2 left out \(below\)\n/);
  assert.match(r.stdout, /^reported +40 +0 +fitted +0\.500 /m);
  assert.match(r.stdout, /^left out: yes_test\.tn: asks twice: yes_test\.tn: test "asks twice" made 2 infers/m);
  assert.match(r.stdout, /^left out: yes_test\.tn: no infer: .*made no infer/m);
  assert.match(r.stdout, /no map written\n$/);
});
