// `turn calibrate` and calibrated confidence end to end with a script fixture as the model
// (docs/inference.md, *Calibration*): the maps are fitted and keyed by the model's identity, a run
// of that model binds the calibrated confidence and journals the raw one and the map's id, a replay
// binds the same value whatever the file says by then, a run of another model is refused the map
// with a warning, and bad datasets and calibration files are refused with located errors.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { calibrate } from '../../runtime/calibration/run.js';
import { DatasetError, parseDataset } from '../../runtime/calibration/dataset.js';
import { readCalibration, MAX_CALIBRATION_BYTES } from '../../runtime/calibration/file.js';
import { applyMap } from '../../runtime/calibration/isotonic.js';
import { calibrated } from '../../runtime/infer/confidence.js';
import { resumeRun, startRun, RunSetupError, type RunResult } from '../../runtime/run/index.js';
import type { RunEvent } from '../../runtime/events/index.js';
import { turn } from '../cli/run-cli.js';
import { Runner } from '../../extension/panel/runner.js';
import { isRunView } from '../../extension/protocol/panel.js';
import { MemoryVault } from '../../runtime/effects/vault.js';

/** 60 yes/no cases; the script model says "yes" to the even ones only and reports 0.9 (or 0.6 for every third): overconfident. */
function workspace(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-calibrate-'));
  const cases: string[] = [];
  const replies: unknown[] = [];
  for (let i = 0; i < 60; i++) {
    cases.push(JSON.stringify({ id: `q${i}`, prompt: `Q${i}: is it yes?`, choices: ['yes', 'no'], expected: 'yes' }));
    replies.push({ match: `^Q${i}:`, value: i % 2 === 0 ? 'yes' : 'no', confidence: i % 3 === 0 ? 0.6 : 0.9, repeat: true });
  }
  fs.writeFileSync(path.join(dir, 'cases.jsonl'), cases.join('\n') + '\n');
  fs.writeFileSync(path.join(dir, 'replies.json'), JSON.stringify({ replies }));
  fs.writeFileSync(path.join(dir, 'other.json'), JSON.stringify({ replies: [{ value: 'yes', confidence: 0.9, repeat: true }] }));
  fs.writeFileSync(path.join(dir, 'one.tn'), 'let v = infer "yes" | "no" { "Q2: is it yes?"; };\nreturn confidence v;\n');
  fs.writeFileSync(path.join(dir, 'later.tn'), 'let v = infer "yes" | "no" { "Q2: is it yes?"; };\nsuspend;\nreturn confidence v;\n');
  return dir;
}

/** A script model of the workspace (its path absolute: a fixture is read from the process's folder). */
const script = (dir: string, name = 'replies.json') => `script:${path.join(dir, name)}`;

async function run(dir: string, model: string, extra: { calibration?: string | false } = {}): Promise<{ result: RunResult; notes: string[]; reply: Extract<RunEvent, { kind: 'infer.reply' }> }> {
  const events: RunEvent[] = [];
  const r = await startRun({ file: path.join(dir, 'one.tn'), cwd: dir, model, onEvent: (e) => events.push(e), ...extra });
  const result = await r.start();
  return { result, notes: r.notes, reply: events.find((e): e is Extract<RunEvent, { kind: 'infer.reply' }> => e.kind === 'infer.reply')! };
}

test('turn calibrate fits a map per source, keyed by the model file\'s hash, and measures it on held-out cases', async () => {
  const dir = workspace();
  const report = await calibrate({ dataset: 'cases.jsonl', cwd: dir, model: script(dir), holdout: 0.3 });
  assert.equal(report.cases, 60);
  assert.equal(report.failed, 0);
  const reported = report.sources.find((s) => s.source === 'reported')!;
  assert.equal(reported.fitted + reported.heldOut, 60);
  assert.ok(reported.heldOut > 5 && reported.heldOut < 30, `about 30% held out: ${reported.heldOut}`);
  assert.equal(reported.on, 'held-out');
  // raw: 0.9 / 0.6 on cases right half the time; the map brings it near 0.5
  assert.ok(reported.after!.ece < reported.before.ece, JSON.stringify(reported));
  assert.equal(report.results.filter((r) => r.right).length, 30);
  const file = readCalibration(path.join(dir, '.turn', 'calibration.json'))!;
  assert.equal(file.maps.length, 1);
  const map = file.maps[0];
  assert.equal(map.id, reported.map);
  assert.deepEqual({ provider: map.model.provider, model: map.model.model }, { provider: 'script', model: 'replies.json' });
  assert.match(map.model.sha256!, /^[0-9a-f]{64}$/);
  assert.equal(map.fitted.cases, reported.fitted);
  assert.equal(map.evaluation!.reliability.before.length, 10, 'the reliability diagram\'s data is in the file');
  // the same split on every run: a case's side depends on its id only
  const again = await calibrate({ dataset: 'cases.jsonl', cwd: dir, model: script(dir), holdout: 0.3, out: false });
  assert.deepEqual(again.results.map((r) => r.heldOut), report.results.map((r) => r.heldOut));
});

test('a run of the calibrated model binds the calibrated confidence; the trace has the raw one and the map id', async () => {
  const dir = workspace();
  await calibrate({ dataset: 'cases.jsonl', cwd: dir, model: script(dir) });
  const map = readCalibration(path.join(dir, '.turn', 'calibration.json'))!.maps[0];
  const { result, notes, reply } = await run(dir, script(dir));
  assert.deepEqual(notes, []);
  assert.equal(result.kind, 'done');
  const want = applyMap(map, 0.9);
  assert.ok(Math.abs(want - 0.9) > 0.2, `the map moves 0.9 (to ${want})`);
  assert.equal((result as { json: unknown }).json, want);
  assert.equal(reply.confidence!.value, want);
  assert.equal(reply.confidence!.raw, 0.9);
  assert.equal(reply.confidence!.calibration, map.id);
  assert.equal(reply.confidence!.source, 'reported');
  // --calibration none: raw
  const raw = await run(dir, script(dir), { calibration: false });
  assert.equal((raw.result as { json: unknown }).json, 0.9);
});

test('the run panel\'s data has the calibrated confidence, the raw one and the map\'s id', async () => {
  const dir = workspace();
  await calibrate({ dataset: 'cases.jsonl', cwd: dir, model: script(dir) });
  const map = readCalibration(path.join(dir, '.turn', 'calibration.json'))!.maps[0];
  const view = await new Runner({ file: path.join(dir, 'one.tn'), options: { model: script(dir), cwd: dir, authority: { vault: new MemoryVault({}) } }, publish: () => {} }).start();
  assert.equal(view.status, 'done', JSON.stringify(view.error));
  assert.ok(isRunView(view));
  const attempt = view.infers[0].attempts[0];
  assert.equal(attempt.confidence, applyMap(map, 0.9));
  assert.deepEqual(attempt.calibration, { source: 'reported', raw: 0.9, map: map.id });
});

test('a map fitted on one model is never applied to another: a clear warning, and the raw value', async () => {
  const dir = workspace();
  await calibrate({ dataset: 'cases.jsonl', cwd: dir, model: script(dir) });
  for (const extra of [{}, { calibration: '.turn/calibration.json' }]) {
    const { result, notes, reply } = await run(dir, script(dir, 'other.json'), extra);
    assert.equal((result as { json: unknown }).json, 0.9, 'raw value');
    assert.equal(reply.confidence!.calibration, undefined);
    assert.equal(notes.length, 1);
    assert.match(notes[0], /has maps for script:replies\.json \(sha256 [0-9a-f]{12}…\), not for this run's model script:other\.json \(sha256 [0-9a-f]{12}…\): a map fitted on one model is never applied to another, so confidences are raw/);
  }
  // the same file name with other bytes is another model
  fs.writeFileSync(path.join(dir, 'replies.json'), fs.readFileSync(path.join(dir, 'other.json')));
  const swapped = await run(dir, script(dir));
  assert.equal((swapped.result as { json: unknown }).json, 0.9);
  assert.match(swapped.notes[0], /not for this run's model script:replies\.json/);
});

test('each source has its own map: --consistency calibrates agreement, a single call its self-report', async () => {
  const dir = workspace();
  const replies: unknown[] = [];
  for (let i = 0; i < 60; i++) {
    // the three samples agree on "yes" for even cases (right), split 2-1 on "no" for odd ones (wrong)
    replies.push({ match: `^Q${i}:`, sample: 1, value: i % 2 === 0 ? 'yes' : 'no', confidence: 0.9, repeat: true });
    replies.push({ match: `^Q${i}:`, sample: 2, value: i % 2 === 0 ? 'yes' : 'no', confidence: 0.9, repeat: true });
    replies.push({ match: `^Q${i}:`, sample: 3, value: 'yes', confidence: 0.9, repeat: true });
  }
  replies.push({ match: '^Q', value: 'yes', confidence: 0.9, repeat: true });
  fs.writeFileSync(path.join(dir, 'sampled.json'), JSON.stringify({ replies }));
  const model = script(dir, 'sampled.json');
  const report = await calibrate({ dataset: 'cases.jsonl', cwd: dir, model, consistency: 3 });
  assert.deepEqual(report.sources.map((s) => [s.source, s.fitted]), [['agreement', 60], ['reported', 60]]);
  const agreement = report.sources.find((s) => s.source === 'agreement')!;
  // agreement 1 is always right, 2/3 always wrong: the map separates them (shrunk: 30.5/31 and 0.5/31)
  assert.equal(agreement.before.auroc, 1);
  const maps = readCalibration(path.join(dir, '.turn', 'calibration.json'))!.maps;
  const byId = new Map(maps.map((m) => [m.source, m]));
  const sampled = await startRun({ file: path.join(dir, 'one.tn'), cwd: dir, model, consistency: 3 });
  const r1 = await sampled.start();
  assert.equal((r1 as { json: unknown }).json, applyMap(byId.get('agreement')!, 1));
  assert.ok(Math.abs(applyMap(byId.get('agreement')!, 1) - 30.5 / 31) < 1e-12);
  const single = await run(dir, model);
  assert.equal(single.reply.confidence!.source, 'reported');
  assert.equal(single.reply.confidence!.calibration, byId.get('reported')!.id);
});

test('a replay binds the journaled calibrated value, whatever the calibration file says by then', async () => {
  const dir = workspace();
  await calibrate({ dataset: 'cases.jsonl', cwd: dir, model: script(dir) });
  const map = readCalibration(path.join(dir, '.turn', 'calibration.json'))!.maps[0];
  const store = path.join(dir, 'store');
  const first = await startRun({ file: path.join(dir, 'later.tn'), cwd: dir, model: script(dir), store });
  const suspended = await first.start();
  assert.equal(suspended.kind, 'suspended');
  // a new map for the same model (fitted on other labels) replaces the one the run used
  // (labels the model gets all right: the map now says about 0.98)
  const relabeled = Array.from({ length: 60 }, (_, i) => JSON.stringify({ id: `q${i}`, prompt: `Q${i}: is it yes?`, choices: ['yes', 'no'], expected: i % 2 === 0 ? 'yes' : 'no' }));
  fs.writeFileSync(path.join(dir, 'cases.jsonl'), relabeled.join('\n'));
  await calibrate({ dataset: 'cases.jsonl', cwd: dir, model: script(dir) });
  const now = readCalibration(path.join(dir, '.turn', 'calibration.json'))!.maps[0];
  assert.notEqual(now.id, map.id);
  const resumed = await resumeRun({ runId: first.id!, store, cwd: dir });
  const done = await resumed.start();
  assert.equal(done.kind, 'done');
  assert.equal((done as { json: unknown }).json, applyMap(map, 0.9), 'the value the run bound first');
  // turn inspect shows the journaled step's calibrated confidence, the raw one and the map's id
  const inspected = turn(['inspect', first.id!, '--store', store], { cwd: dir });
  assert.equal(inspected.code, 0, inspected.stderr);
  assert.match(inspected.stdout, new RegExp(`confidence ${Math.round(applyMap(map, 0.9) * 1000) / 1000} \\(reported, calibrated from 0\\.9 by map ${map.id}\\)`));
});

test('a journaled calibration is used only for the figure it was made for', () => {
  const info = { value: 0.9, source: 'reported' as const, reported: 0.9 };
  assert.equal(calibrated(info, { source: 'reported', raw: 0.9, value: 0.4, map: 'abc' }).value, 0.4);
  assert.equal(calibrated(info, { source: 'logprobs', raw: 0.9, value: 0.4, map: 'abc' }).value, 0.9, 'another source');
  assert.equal(calibrated(info, { source: 'reported', raw: 0.8, value: 0.4, map: 'abc' }).value, 0.9, 'another raw value (an edited reply)');
  assert.equal(calibrated(info, { source: 'reported', raw: 0.9, value: 7, map: 'abc' }).value, 0.9, 'out of [0, 1]');
  assert.equal(calibrated(info, { source: 'reported', raw: 0.9, value: Number.NaN, map: 'abc' }).value, 0.9);
});

test('a calibration file that cannot be trusted: named explicitly, the run is refused; the default one, a warning and raw values', async () => {
  const dir = workspace();
  await calibrate({ dataset: 'cases.jsonl', cwd: dir, model: script(dir) });
  const file = path.join(dir, '.turn', 'calibration.json');
  const good = JSON.parse(fs.readFileSync(file, 'utf8'));
  const write = (data: unknown) => fs.writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
  const bad: [unknown, RegExp][] = [
    [{ ...good, maps: [{ ...good.maps[0], points: [[0, 0.99], [1, 0.99]] }] }, /maps\[0\]\.id: does not match the map's content \(expected [0-9a-f]{16}\): a map changed after it was fitted is not used/],
    [{ ...good, maps: [{ ...good.maps[0], points: [[0.2, 0.9], [0.9, 0.1]] }] }, /maps\[0\]\.points\[1\]: the breakpoints must go up/],
    [{ ...good, maps: [{ ...good.maps[0], points: [[0.2, 1.5]] }] }, /maps\[0\]\.points\[0\]: must be \[raw, calibrated\], both numbers from 0 to 1/],
    [{ ...good, maps: [good.maps[0], good.maps[0]] }, /maps\[1\]: a second map for reported of the same model/],
    [{ ...good, version: 9 }, /version: must be 1/],
    ['{"format": "turn-calibration", "version": 1, "maps": [', /not valid JSON/],
    [' '.repeat(MAX_CALIBRATION_BYTES + 1), /more than a calibration file may have/],
  ];
  for (const [data, message] of bad) {
    write(data);
    await assert.rejects(
      startRun({ file: path.join(dir, 'one.tn'), cwd: dir, model: script(dir), calibration: '.turn/calibration.json' }),
      (e: unknown) => e instanceof RunSetupError && e.kind === 'input' && message.test(e.message) && e.message.includes(file),
    );
    const { result, notes } = await run(dir, script(dir));
    assert.equal((result as { json: unknown }).json, 0.9, 'the default file unusable: raw');
    assert.equal(notes.length, 1);
    assert.match(notes[0], message);
    assert.match(notes[0], /confidences are raw/);
  }
  await assert.rejects(startRun({ file: path.join(dir, 'one.tn'), cwd: dir, model: 'mock', calibration: 'nowhere.json' }), /nowhere\.json: no such calibration file/);
});

test('a dataset is refused with the line of its first bad case', () => {
  const bad: [string, RegExp][] = [
    ['{"prompt": "a", "expected": 1}\n{"prompt": "b", "expected": 2\n', /^d\.jsonl:2: not valid JSON/],
    ['{"expected": 1}', /^d\.jsonl:1: "prompt" must be a non-empty string/],
    ['\n\n{"prompt": "a", "expected": null}', /^d\.jsonl:3: "expected" must be a string, a number or a boolean/],
    ['{"prompt": "a", "expected": "c", "choices": ["a", "b"]}', /^d\.jsonl:1: "expected" must be one of the choices/],
    ['{"prompt": "a", "expected": "a", "choices": ["a"]}', /^d\.jsonl:1: "choices" must be a list of 2 to 64/],
    ['{"prompt": "a", "expected": 1, "type": "Num; call(\\"x\\")"}', /^d\.jsonl:1: unknown key "type"/],
    ['{"prompt": "a", "expected": 1, "id": "x"}\n{"prompt": "b", "expected": 1, "id": "x"}', /^d\.jsonl:2: the id "x" is used twice/],
    ['[1, 2]', /^d\.jsonl:1: a case is a JSON object/],
    [`{"prompt": "${'x'.repeat(20_000)}", "expected": 1}`, /^d\.jsonl:1: "prompt" has 20000 characters, more than 16384/],
    ['\n  \n', /^d\.jsonl: no cases/],
    [Array.from({ length: 10_001 }, () => '{"prompt": "a", "expected": 1}').join('\n'), /^d\.jsonl:10001: more than 10000 cases/],
  ];
  for (const [text, message] of bad) assert.throws(() => parseDataset(text, 'd.jsonl'), (e: unknown) => e instanceof DatasetError && message.test(e.message), text.slice(0, 60));
  const ok = parseDataset('{"prompt": "2+2?", "expected": 4}\n{"prompt": "ok?", "expected": true}\n{"prompt": "who?", "expected": "Ann"}\n{"prompt": "c?", "expected": "a", "choices": ["a", "b \\" c"]}', 'd.jsonl');
  assert.deepEqual(ok.map((c) => c.typeName), ['Num', 'Bool', 'Str', '"a" | "b \\" c"']);
  assert.deepEqual(ok[3].schema, { type: 'string', enum: ['a', 'b " c'] });
});

test('the turn calibrate command: the table, the file, located errors and exit codes', () => {
  const dir = workspace();
  const r = turn(['calibrate', 'cases.jsonl', '--model', 'script:replies.json', '--holdout', '0.3', '--out', 'cal.json'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^60 cases against script:replies\.json \(sha256 [0-9a-f]{12}…\)\n/);
  assert.match(r.stdout, /^reported +\d+ +\d+ +held-out +\d\.\d{3} /m);
  assert.match(r.stdout, /wrote 1 map\(s\) to .*cal\.json/);
  assert.equal(readCalibration(path.join(dir, 'cal.json'))!.maps.length, 1);
  fs.writeFileSync(path.join(dir, 'bad.jsonl'), '{"prompt": "a", "expected": 1}\n{"prompt": 3, "expected": 1}\n');
  const bad = turn(['calibrate', 'bad.jsonl', '--model', 'script:replies.json'], { cwd: dir });
  assert.equal(bad.code, 2);
  assert.equal(bad.stderr, `turn: ${path.join(dir, 'bad.jsonl')}:2: "prompt" must be a non-empty string\n`);
  const usage = turn(['calibrate', 'cases.jsonl', '--holdout', '2'], { cwd: dir });
  assert.equal(usage.code, 64);
  assert.match(usage.stderr, /--holdout needs a share from 0 to 0\.9/);
  // a run-wide budget spent stops the calibration with a warning, and what was measured is reported
  const spent = turn(['calibrate', 'cases.jsonl', '--model', 'script:replies.json', '--max-model-tokens', '2000', '--dry-run'], { cwd: dir });
  assert.equal(spent.code, 0, spent.stderr);
  assert.match(spent.stderr, /^turn: warning: stopped after case (\d+) of 60: .*model token budget of 2000/m);
  const n = /stopped after case (\d+)/.exec(spent.stderr)![1];
  assert.match(spent.stdout, new RegExp(`^${n} of 60 cases against script:replies\\.json`));
  assert.match(spent.stdout, /no map written/);
  // turn run takes the file and warns for another model
  const other = turn(['run', 'one.tn', '--model', 'script:other.json', '--calibration', 'cal.json'], { cwd: dir });
  assert.equal(other.code, 0, other.stderr);
  assert.match(other.stderr, /turn: warning: the calibration file .*cal\.json has maps for script:replies\.json .* not for this run's model script:other\.json/);
});
