// The playground's host side without VS Code: where the Run lenses go (targets.ts), and what the
// result pane gets from a run (session.ts): the value, each attempt's messages with their roles,
// the request's parameters, tokens; a refused input; a test case; re-run replaying.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { playTargets } from '../../extension/playground/targets.js';
import { play } from '../../extension/playground/session.js';
import { isPlayWebviewMessage } from '../../extension/playground/protocol.js';
import { argumentsSchema } from '../../runtime/index.js';

const RATE = `struct Review { score: Num, note: Str };
let rate = turn(item: Str, strict: Bool?) -> Review {
    context.system("You review things.");
    return infer Review { "Review " + item; };
};
let helper = 3;
turn {
    call("echo", rate("x").note);
}
`;

function fixture(name: string, text: string): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-playground-'));
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return { dir, file };
}

test('a Run lens on every top-level function and every test case, at their lines', async () => {
  const targets = await playTargets(RATE, '/w/rate.tn');
  assert.deepEqual(targets.map((t) => [t.kind, t.name, t.line]), [['function', 'rate', 1]]);
  const tests = `let double = turn(x: Num) -> Num { return x * 2; };
return {
    "doubles": turn() { call("assert_eq", double(2), 4); },
    "doubles zero": turn() { call("assert_eq", double(0), 0); },
};
`;
  assert.deepEqual((await playTargets(tests, '/w/double_test.tn')).map((t) => [t.kind, t.name, t.line]), [['function', 'double', 0], ['test', 'doubles', 2], ['test', 'doubles zero', 3]]);
  // the same text in a file that is not a test file: its map is no tests
  assert.deepEqual((await playTargets(tests, '/w/double.tn')).map((t) => t.kind), ['function']);
});

test('the input form\'s schema: the parameters by name, the optional one not required', async () => {
  const [t] = await playTargets(RATE, '/w/rate.tn');
  assert.ok(t.kind === 'function');
  const schema = argumentsSchema(t.fn) as { properties: Record<string, { type?: unknown }>; required: string[]; additionalProperties: boolean };
  assert.deepEqual(Object.keys(schema.properties), ['item', 'strict']);
  assert.equal(schema.properties.item.type, 'string');
  assert.deepEqual(schema.required, ['item']);
  assert.equal(schema.additionalProperties, false);
});

test('the result pane of a function run: the value, messages with roles, parameters, raw and re-asks, tokens; a re-run replays', async () => {
  const { dir, file } = fixture('rate.tn', RATE);
  const replies = path.join(dir, 'replies.json');
  fs.writeFileSync(replies, JSON.stringify({ replies: [{ text: '{"value": {"score": "high"}}', usage: { input: 30, output: 5 } }, { value: { score: 9, note: 'fine' }, usage: { input: 50, output: 7 }, repeat: true }] }));
  const options = { cwd: dir, model: `script:${replies}`, temperature: 0.2, seed: 7 };
  const { view, recording } = await play({ file, target: { kind: 'function', name: 'rate' }, args: '{"item": "the tea"}', options });
  assert.equal(view.status, 'done', view.error);
  assert.deepEqual(JSON.parse(view.value!), { score: 9, note: 'fine' });
  assert.deepEqual(view.parameters, { model: `script:${replies}`, temperature: 0.2, seed: 7 });
  assert.deepEqual(view.tokens, { input: 80, output: 12, cached: 0 });
  assert.deepEqual(view.output, [], 'the entry did not run');
  const [infer] = view.infers;
  assert.equal(infer.type, 'Review');
  assert.deepEqual(infer.attempts.map((a) => a.messages.map((m) => m.role)), [['system', 'user'], ['system', 'user', 'assistant', 'user']]);
  assert.equal(infer.attempts[0].raw, '{"value": {"score": "high"}}');
  assert.equal(infer.attempts[0].valid, false);
  assert.ok(infer.attempts[0].errors.length > 0);
  assert.equal(infer.attempts[1].valid, true);
  // the same request again: answered from the recording, no tokens spent
  const again = await play({ file, target: { kind: 'function', name: 'rate' }, args: '{"item": "the tea"}', options: { ...options, model: 'mock' }, recording });
  assert.equal(again.view.replayed, 2);
  assert.deepEqual(JSON.parse(again.view.value!), { score: 9, note: 'fine' }, 'the mock would have said something else');
  assert.deepEqual(again.view.tokens, { input: 0, output: 0, cached: 0 });
});

test('a wrong input is refused at its parameter, nothing runs; a broken file is refused with its diagnostic', async () => {
  const { dir, file } = fixture('rate.tn', RATE);
  const { view } = await play({ file, target: { kind: 'function', name: 'rate' }, args: '{"item": 5}', options: { cwd: dir, model: 'mock' } });
  assert.equal(view.status, 'refused');
  assert.match(view.error!, /rate\.tn:2:17: the argument `item` of rate is not a Str/);
  assert.deepEqual(view.infers, []);
  const broken = await play({ file, target: { kind: 'function', name: 'rate' }, args: '{"item": "x"}', text: RATE.replace('return infer', 'return nosuch + infer'), options: { cwd: dir, model: 'mock' } });
  assert.equal(broken.view.status, 'refused');
  assert.match(broken.view.error!, /rate\.tn:4:\d+: .*nosuch/);
});

test('a test case runs in the playground: its value, its failure located in the test file', async () => {
  const { dir, file } = fixture('d_test.tn', `return {
    "passes": turn() { return 41 + 1; },
    "fails": turn() { call("assert_eq", 1, 2); },
};
`);
  const ok = await play({ file, target: { kind: 'test', name: 'passes' }, args: '{}', options: { cwd: dir, model: 'mock' } });
  assert.equal(ok.view.status, 'done', ok.view.error);
  assert.equal(ok.view.value, '42');
  const failed = await play({ file, target: { kind: 'test', name: 'fails' }, args: '{}', options: { cwd: dir, model: 'mock' } });
  assert.equal(failed.view.status, 'failed');
  assert.match(failed.view.error!, /d_test\.tn:3:\d+: /);
});

test('the webview\'s messages are checked: anything else is ignored', () => {
  assert.ok(isPlayWebviewMessage({ type: 'run', args: '{}' }));
  assert.ok(!isPlayWebviewMessage({ type: 'run', args: {} }));
  assert.ok(!isPlayWebviewMessage({ type: 'rerunOnSave', on: 'yes' }));
  assert.ok(!isPlayWebviewMessage(null));
  assert.ok(!isPlayWebviewMessage({ type: 'eval', code: 'x' }));
});

test('a recorded test case answers from its cassette, as turn test replays it, whatever the settings\' model', async () => {
  const file = path.resolve(__dirname, '../../examples/triage_agent_test.tn');
  const { view } = await play({ file, target: { kind: 'test', name: 'each ticket lands in its category' }, args: '{}', options: { cwd: path.dirname(file), model: 'mock' } });
  assert.equal(view.status, 'done', view.error);
  assert.equal(view.parameters.model, "the test's recording in triage_agent_test.cassette.json");
  assert.equal(view.infers.length, 3, 'one model call per ticket');
  assert.ok(view.infers.every((i) => i.attempts.every((a) => a.raw !== undefined && a.messages.some((m) => m.role === 'user'))));
  // a cassette that cannot be read is a refusal naming it, nothing runs
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-playground-'));
  fs.writeFileSync(path.join(dir, 'x_test.tn'), 'return {"t": turn() { return 1; }};\n');
  fs.writeFileSync(path.join(dir, 'x_test.cassette.json'), '{"turn_cassette": 99');
  const bad = await play({ file: path.join(dir, 'x_test.tn'), target: { kind: 'test', name: 't' }, args: '{}', options: { cwd: dir, model: 'mock' } });
  assert.equal(bad.view.status, 'refused');
  assert.match(bad.view.error!, /x_test\.cassette\.json/);
});
