// The playground's runtime half (runtime/playground/): one top-level function of a file, run with
// JSON arguments checked against its parameters' types; the model calls read back from the events
// as the chat provider sent them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { callFunction, inferViews, parseSource, playableFunctions, PlaygroundError, startRun } from '../../runtime/index.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import { renderPrompt } from '../../runtime/context/render.js';
import type { InferRequest } from '../../runtime/infer/types.js';

const PROGRAM = `// a file with an entry, printing at the top level, and two functions
struct Ticket { title: Str, urgent: Bool };
let prefix = "#";
let label = turn(t: Ticket, n: Num, note: Str?) -> Str {
    let mark = "";
    if t.urgent { let mark = "!"; }
    let tail = "";
    if note != null { let tail = " (" + note + ")"; }
    return prefix + n + " " + t.title + mark + tail;
};
call("echo", "the top level printed this");
let broken = turn(x: Num) -> Num {
    call("assert", x > 5, "x is too small");
    return x;
};
turn {
    call("echo", "the entry ran");
    return prefix;
}
`;

function fixture(text = PROGRAM): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-play-'));
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(file, text);
  return { dir, file };
}

test('a function runs with JSON arguments by name and gives its value; the entry and the top-level printing do not run', async () => {
  const { dir, file } = fixture();
  const printed: string[] = [];
  const { result } = await callFunction({ file, cwd: dir, model: 'mock', name: 'label', args: '{"t": {"title": "Printer on fire", "urgent": true}, "n": 7}', onOutput: (l) => printed.push(l) });
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.equal(result.kind === 'done' ? result.json : null, '#7 Printer on fire!');
  assert.deepEqual(printed, [], 'neither the top-level call nor the entry ran');
  // an array gives the arguments in order; the optional one given
  const again = await callFunction({ file, cwd: dir, model: 'mock', name: 'label', args: [{ title: 'x', urgent: false }, 1, 'late'], onOutput: () => {} });
  assert.equal(again.result.kind === 'done' ? again.result.json : null, '#1 x (late)');
});

test('an ill-typed argument is refused at its parameter, before the run starts', async () => {
  const { dir, file } = fixture();
  const refused = async (args: string, pattern: RegExp): Promise<void> => {
    await assert.rejects(callFunction({ file, cwd: dir, model: 'mock', name: 'label', args }), (e: unknown) => {
      assert.ok(e instanceof PlaygroundError, String(e));
      assert.match(e.message, pattern);
      return true;
    });
  };
  // `n: Num` is line 4, column 29 of the file; `t: Ticket` column 18
  await refused('{"t": {"title": "a", "urgent": true}, "n": "seven"}', /p\.tn:4:29: the argument `n` of label is not a Num: it: must be number/);
  await refused('{"t": {"title": "a", "urgent": "yes"}, "n": 1}', /p\.tn:4:18: the argument `t` of label is not a Ticket: \/urgent: must be boolean/);
  await refused('{"t": {"title": "a"}, "n": 1}', /p\.tn:4:18: .*must have required property 'urgent'/);
  await refused('{"n": 1}', /p\.tn:4:18: the argument `t` of label is missing \(a Ticket\)/);
  await refused('{"t": {"title": "a", "urgent": true}, "n": 1, "extra": 2}', /p\.tn:4:1: label has no parameter `extra` \(its parameters: `t`, `n`, `note`\)/);
  await refused('{"t": ', /p\.tn:4:1: the arguments of label are not JSON/);
  await refused('"just a string"', /the arguments of label are a JSON object by parameter name/);
  await refused('[1, 2, 3, 4]', /label takes 3 arguments, not 4/);
  await refused('[' .repeat(2000) + ']'.repeat(2000), /nested more than 1000 levels deep/);
  await assert.rejects(callFunction({ file, cwd: dir, model: 'mock', name: 'prefix', args: {} }), /p\.tn:1:1: no top-level function `prefix` \(its functions: label, broken\)/);
});

test('a run-time error in the function is reported at its line in the file, not in the synthetic entry', async () => {
  const { dir, file } = fixture();
  const { result } = await callFunction({ file, cwd: dir, model: 'mock', name: 'broken', args: { x: 1 }, onOutput: () => {} });
  assert.equal(result.kind, 'failed');
  if (result.kind === 'failed') {
    assert.equal(path.resolve(result.error.path), file);
    assert.equal(result.error.line, 13);
  }
});

test('the functions of a file: names, parameters with their types and schemas, places', async () => {
  const { program, file } = await parseSource('p.tn', PROGRAM);
  const fns = playableFunctions(program, file);
  assert.deepEqual(fns.map((f) => [f.name, f.line, f.at.line]), [['label', 4, 3], ['broken', 12, 11]]);
  assert.deepEqual(fns[0].params.map((p) => [p.name, p.type, p.optional]), [['t', 'Ticket', false], ['n', 'Num', false], ['note', 'Str?', true]]);
  assert.equal(fns[0].returns, 'Str');
  assert.equal((fns[0].params[0].schema as { type?: string }).type, 'object');
});

test('each model call is shown as the provider got it: system, user, and per re-ask the rejected reply and the feedback', async () => {
  const { dir, file } = fixture(`let rate = turn(item: Str) -> Num {
    context.system("You rate things.");
    context.append("Scale: 0 to 10.");
    return infer Num { "Rate " + item; };
};
`);
  const replies = path.join(dir, 'replies.json');
  fs.writeFileSync(replies, JSON.stringify({ replies: [{ text: 'not json at all' }, { value: 8, usage: { input: 40, output: 3 } }] }));
  const { result, events } = await callFunction({ file, cwd: dir, model: `script:${replies}`, name: 'rate', args: { item: 'the tea' }, onOutput: () => {} });
  assert.equal(result.kind === 'done' ? result.json : null, 8);
  const [view] = inferViews(events);
  assert.equal(view.type, 'Num');
  assert.equal(view.attempts.length, 2);
  const [first, second] = view.attempts;
  assert.deepEqual(first.messages.map((m) => m.role), ['system', 'user']);
  assert.equal(first.messages[0].content, 'You rate things.');
  assert.match(first.messages[1].content, /^Scale: 0 to 10\.\n\nRate the tea\n\nReply with only a JSON object/);
  assert.equal(first.raw, 'not json at all');
  assert.equal(first.valid, false);
  assert.ok(first.errors.length > 0);
  assert.deepEqual(second.messages.map((m) => m.role), ['system', 'user', 'assistant', 'user']);
  assert.equal(second.messages[2].content, 'not json at all');
  assert.match(second.messages[3].content, /^That reply was rejected:/);
  assert.equal(second.valid, true);
  assert.deepEqual(second.usage, { inputTokens: 40, outputTokens: 3 });
  // the same turns chatTurns (what the chat providers send) builds from the driver's request
  const req = events.find((e) => e.kind === 'infer.request' && e.attempt === 2);
  assert.ok(req && req.kind === 'infer.request');
  const rendered = renderPrompt({ system: req.prompt.P0, episodic: req.prompt.P2, working: req.prompt.P1 }, req.prompt.task);
  const sent = chatTurns({ rendered, feedback: [{ reply: 'not json at all', issues: first.errors }] } as unknown as InferRequest);
  assert.deepEqual(second.messages, [{ role: 'system', content: sent.system }, ...sent.turns]);
});

test('entryText: a run compiles the given text under the file\'s name, and the file on disk is not read', async () => {
  const { dir, file } = fixture('return 1;\n');
  const run = await startRun({ file, cwd: dir, model: 'mock', entryText: 'return 2;\n', onOutput: () => {} });
  const r = await run.start();
  assert.equal(r.kind === 'done' ? r.json : null, 2);
});

test('turn run FILE --call NAME --args JSON prints the value; a wrong argument is a located error, exit 2', async () => {
  const { turn } = await import('../cli/run-cli.js');
  const ok = turn(['run', 'examples/hello.tn', '--call', 'greet', '--args', '{"name": "Ada"}']);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout.trim(), '"Hello, Ada!"', 'only the value: the top-level echo did not run');
  const bad = turn(['run', 'examples/hello.tn', '--call', 'greet', '--args', '{"name": 3}']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^examples\/hello\.tn:4:18: the argument `name` of greet is not a Str/);
  assert.equal(bad.stdout, '');
  const stray = turn(['run', 'examples/hello.tn', '--args', '{}']);
  assert.equal(stray.code, 64);
});

test('re-run with the last run\'s recording: an unchanged request is answered from it, a changed one asks the model', async () => {
  const { ReplyRecording } = await import('../../runtime/index.js');
  const { dir, file } = fixture(`let rate = turn(item: Str) -> Num {
    let scale = infer Num { "Pick a scale"; };
    let score = infer Num { "Rate " + item; };
    return scale * 100 + score;
};
`);
  const script = (name: string, replies: unknown[]): string => {
    const f = path.join(dir, name);
    fs.writeFileSync(f, JSON.stringify({ replies }));
    return `script:${f}`;
  };
  const first = await callFunction({ file, cwd: dir, model: script('a.json', [{ value: 1 }, { value: 2 }]), name: 'rate', args: { item: 'tea' }, onOutput: () => {} });
  assert.equal(first.result.kind === 'done' ? first.result.json : null, 102);
  const recording = ReplyRecording.fromEvents(first.events);
  assert.equal(recording.size, 2);
  // the second prompt changed (coffee): only it reaches the model, which now says 7 to anything
  const model = script('b.json', [{ value: 7, repeat: true }]);
  const second = await callFunction({ file, cwd: dir, model, name: 'rate', args: { item: 'coffee' }, replayReply: (r) => recording.reply(r), onOutput: () => {} });
  assert.equal(second.result.kind === 'done' ? second.result.json : null, 107);
  assert.equal(recording.replayed, 1);
  const replayedReplies = second.events.filter((e) => e.kind === 'infer.reply' && e.meta?.replayedFromRecording === true);
  assert.equal(replayedReplies.length, 1);
  // without the recording both are asked
  const third = await callFunction({ file, cwd: dir, model, name: 'rate', args: { item: 'tea' }, onOutput: () => {} });
  assert.equal(third.result.kind === 'done' ? third.result.json : null, 707);
});

test('inputs from a test: the literal calls of the function in test cases, by parameter name; others are not offered', async () => {
  const { inputsFromTests } = await import('../../runtime/index.js');
  const params = [
    { name: 't', schema: {}, optional: false, line: 1, column: 1 },
    { name: 'n', schema: {}, optional: false, line: 1, column: 1 },
  ];
  const text = `let lib = use "./p";
let outside = lib.label({"title": "not in a test", "urgent": false}, 0);
return {
    "urgent tickets are marked": turn() {
        call("assert_eq", lib.label({"title": "fire", "urgent": true, "tags": ["a", 1, null]}, 7), "#7 fire!");
    },
    "computed arguments are not offered": turn() {
        let n = 3;
        call("assert_eq", lib.label({"title": "x", "urgent": false}, n), "#3 x");
        call("assert_eq", lib["label"]({"title": "y", "urgent": false}, 2), "#2 y");
    },
    "another function": turn() { call("assert_eq", lib.other(1, 2), 3); },
};
`;
  const { dir } = fixture(PROGRAM + 'return {"label": label};\n');
  const testFile = path.join(dir, 'p_test.tn');
  fs.writeFileSync(testFile, text);
  const found = await inputsFromTests('label', params, testFile, text);
  assert.deepEqual(found, [
    { test: 'urgent tickets are marked', line: 5, args: { t: { title: 'fire', urgent: true, tags: ['a', 1, null] }, n: 7 } },
    { test: 'computed arguments are not offered', line: 10, args: { t: { title: 'y', urgent: false }, n: 2 } },
  ]);
  // a file that is no test file offers nothing
  assert.deepEqual(await inputsFromTests('label', params, 'p_test.tn', 'let x = 1;\n'), []);
});
