// A deeply nested model reply (issue 28, item 2): an 8,000-deep JSON reply to `infer Any` was an
// internal error in the reply's conversion (recursive), after the reply was journaled, so every
// resume of the durable run exited 70 again. A reply nested deeper than MAX_JSON_DEPTH is now an
// invalid reply (re-asked, then a catchable InferError) before it is accepted, the conversion is
// iterative, and a reply that was accepted replays on resume.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fromReply, interpret } from '../../runtime/infer/index.js';
import { openStore, resumeRun, startRun } from '../../runtime/index.js';
import { MAX_JSON_DEPTH } from '../../runtime/values/index.js';
import { turn } from '../cli/run-cli.js';

const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'turn-deep-reply-')));
after(() => fs.rmSync(tmp, { recursive: true, force: true }));

const nested = (depth: number) => '['.repeat(depth) + '1' + ']'.repeat(depth);

function fixture(name: string, replies: unknown[], program: string): { dir: string; file: string; script: string } {
  const dir = path.join(tmp, name);
  fs.mkdirSync(dir);
  const script = path.join(dir, 'replies.json');
  fs.writeFileSync(script, JSON.stringify({ replies }));
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(file, program);
  return { dir, file, script };
}

test('the conversion of a reply into Turn values is iterative', () => {
  const value = JSON.parse(nested(50_000)) as unknown;
  let v = fromReply(value, {});
  let depth = 0;
  while (Array.isArray(v)) {
    v = v[0];
    depth++;
  }
  assert.equal(depth, 50_000);
  assert.equal(v, 1);
});

test('a reply nested deeper than the limit is an invalid reply; one at the limit is valid', () => {
  const deep = interpret({}, { text: JSON.stringify({ value: 'X', confidence: 0.9 }).replace('"X"', nested(MAX_JSON_DEPTH + 1)) });
  assert.equal(deep.value, undefined);
  assert.match(deep.issues[0]?.message ?? '', /nested more than 1000 levels deep/);
  const ok = interpret({}, { text: JSON.stringify({ value: 'X', confidence: 0.9 }).replace('"X"', nested(MAX_JSON_DEPTH)) });
  assert.deepEqual(ok.issues, []);
});

test('an 8,000-deep reply to `infer Any` in a durable run is a catchable InferError, and the run resumes', async () => {
  const { dir, file, script } = fixture(
    'caught',
    [{ text: nested(8000), repeat: true }],
    `let x = null;
try { let x = infer Any { "anything"; }; } catch (e) { call("echo", "caught " + e["type"] + ": " + e["message"]); }
suspend;
call("echo", "resumed");
`,
  );
  const store = openStore(path.join(dir, '.turn'));
  try {
    const lines: string[] = [];
    const run = await startRun({ file, cwd: dir, model: `script:${script}`, store, fetchSchemas: false, onOutput: (l) => lines.push(l) });
    const first = await run.start();
    assert.equal(first.kind, 'suspended', JSON.stringify(first).slice(0, 400));
    assert.match(lines.join('\n'), /caught InferError: .*nested more than 1000 levels deep/);
    const again: string[] = [];
    const resumed = await resumeRun({ runId: run.id!, cwd: dir, store, model: `script:${script}`, onOutput: (l) => again.push(l) });
    const result = await resumed.start();
    assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 400));
    assert.ok(again.includes('resumed'), again.join('\n'));
  } finally {
    store.close();
  }
});

test('an accepted deep reply (999 levels) is journaled and replays on resume', async () => {
  const { dir, file, script } = fixture(
    'replayed',
    [{ text: nested(MAX_JSON_DEPTH - 1) }],
    `let x: Any = infer Any { "anything"; };
suspend;
let d = 0;
let v = x;
while call("type_of", v) == "List" { let v = v[0]; let d = d + 1; }
call("echo", "depth " + d);
`,
  );
  const store = openStore(path.join(dir, '.turn'));
  try {
    const run = await startRun({ file, cwd: dir, model: `script:${script}`, store, fetchSchemas: false, onOutput: () => {} });
    assert.equal((await run.start()).kind, 'suspended');
    const lines: string[] = [];
    // the fixture's one reply is used up: the resume must take it from the journal
    const resumed = await resumeRun({ runId: run.id!, cwd: dir, store, model: `script:${script}`, onOutput: (l) => lines.push(l) });
    const result = await resumed.start();
    assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 400));
    assert.deepEqual(lines, [`depth ${MAX_JSON_DEPTH - 1}`]);
  } finally {
    store.close();
  }
});

test('through the CLI: an uncaught deep reply fails with a located message (exit 1), and `turn resume` says the run failed', () => {
  const { dir, script } = fixture('cli', [{ text: nested(8000), repeat: true }], 'let x: Any = infer Any { "anything"; };\ncall("echo", "got it");\n');
  const r = turn(['run', 'p.tn', '--model', `script:${script}`, '--store', '.turn'], { cwd: dir });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /p\.tn:1:\d+: runtime error: infer Any: .*nested more than 1000 levels deep/);
  assert.doesNotMatch(r.stderr, /internal error/);
  const id = /run (\S+) \(store/.exec(r.stderr)?.[1];
  assert.ok(id, r.stderr);
  const again = turn(['resume', id, '--model', `script:${script}`, '--store', '.turn'], { cwd: dir });
  assert.notEqual(again.code, 70, again.stderr);
  assert.doesNotMatch(again.stderr, /internal error/);
});
