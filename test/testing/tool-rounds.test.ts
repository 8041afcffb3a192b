// Recordings of native tool calls (issue 42): a test whose infer offers tools records each model
// round — the calls a reply made, and the next ask with the tools' results — and replays offline:
// the model's rounds come from the recording, the tools (program code) run again, and a tool that
// now gives another result makes the recording stale, as any changed request does.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { JS_STACK, tempDir, turnAsync } from './helpers.js';

// no model at all on replay: a request the recording does not answer fails, never reaches a model
const OFFLINE = { TURN_MODEL: 'openai:none?base_url=http://127.0.0.1:9/v1&retries=0', OPENAI_API_KEY: '' };

const TEST_FILE = (body: string) => `struct Answer { total: Num };
/// Adds two numbers.
let add = turn(a: Num, b: Num) -> Num { return ${body}; };
return {
    "adds with a tool": turn() {
        let r = infer Answer with { tools: [add] } { "What is 2 + 3?"; };
        call("assert_eq", r.total, 5);
    },
};
`;

interface Recorded {
  tests: Record<string, { exchanges: { request: { tools?: string[]; tool_rounds?: { calls: unknown[]; results: { content: string }[] }[] }; reply: { text?: string; tool_calls?: unknown[] } }[] }>;
}

async function recorded(): Promise<string> {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'sum_test.tn'), TEST_FILE('a + b'));
  // the model: calls add(2, 3), then answers 5 after that round
  fs.writeFileSync(
    path.join(dir, 'model.json'),
    JSON.stringify({ replies: [{ round: 0, tool_calls: [{ id: 'c1', name: 'add', arguments: { a: 2, b: 3 } }] }, { round: 1, value: { total: 5 } }] }),
  );
  const r = await turnAsync(['test', '--record', '--model', `script:${path.join(dir, 'model.json')}`], { cwd: dir });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  return dir;
}

test('a test whose infer calls tools records its rounds and replays offline, the tools running again', async () => {
  const dir = await recorded();
  const cassette = JSON.parse(fs.readFileSync(path.join(dir, 'sum_test.cassette.json'), 'utf8')) as Recorded;
  const ex = cassette.tests['adds with a tool'].exchanges;
  assert.equal(ex.length, 2);
  assert.deepEqual(ex[0].request.tools, ['add']);
  assert.deepEqual(ex[0].request.tool_rounds, []);
  assert.deepEqual(ex[0].reply.tool_calls, [{ id: 'c1', name: 'add', arguments: { a: 2, b: 3 } }]);
  assert.deepEqual(ex[1].request.tool_rounds?.[0].results.map((x) => x.content), ['5']);
  assert.equal(ex[1].reply.tool_calls, undefined);

  const replay = await turnAsync(['test'], { cwd: dir, env: OFFLINE });
  assert.equal(replay.code, 0, replay.stdout + replay.stderr);
  assert.match(replay.stdout, /adds with a tool/);

  // the tool is program code: on replay it runs again, and another result is another question
  fs.writeFileSync(path.join(dir, 'sum_test.tn'), TEST_FILE('a + b + 1'));
  const changed = await turnAsync(['test'], { cwd: dir, env: OFFLINE });
  assert.notEqual(changed.code, 0);
  assert.match(changed.stdout, /stale recording/);
  // the diff names what changed: the tool's result in the round
  assert.match(changed.stdout, /- *round 1 result: add: 5\n.*\+ *round 1 result: add: 6/s);
  assert.doesNotMatch(changed.stdout + changed.stderr, JS_STACK);
});

test('a recording whose tool calls were edited into a wrong shape is refused at its line', async () => {
  const dir = await recorded();
  const file = path.join(dir, 'sum_test.cassette.json');
  const cassette = JSON.parse(fs.readFileSync(file, 'utf8')) as Recorded;
  cassette.tests['adds with a tool'].exchanges[0].reply.tool_calls = [{ name: 7 }];
  fs.writeFileSync(file, JSON.stringify(cassette, null, 2));
  const r = await turnAsync(['test'], { cwd: dir, env: OFFLINE });
  assert.notEqual(r.code, 0);
  assert.match(r.stdout + r.stderr, /sum_test\.cassette\.json:\d+.*"reply\.tool_calls" must be a non-empty list/);
  assert.doesNotMatch(r.stdout + r.stderr, JS_STACK);
});

test('a std/react test recorded with a native-tools model replays offline on the same native path', async () => {
  const dir = tempDir();
  fs.writeFileSync(
    path.join(dir, 'agent_test.tn'),
    `return {
    "react answers": turn() {
        let react = use "std/react";
        let out = react.run({"goal": "g", "tools": {"mock": turn(x: Str) -> Any { return "seen " + x; }}, "max_steps": 3});
        call("assert_eq", out["answer"], "mock");
        call("assert_eq", out["trace"][0]["observation"], "seen mock");
    },
};
`,
  );
  const rec = await turnAsync(['test', '--record', '--model', 'mock'], { cwd: dir });
  assert.equal(rec.code, 0, rec.stdout + rec.stderr);
  const cassette = JSON.parse(fs.readFileSync(path.join(dir, 'agent_test.cassette.json'), 'utf8')) as Recorded;
  assert.deepEqual(cassette.tests['react answers'].exchanges.map((e) => e.request.tools), [['use_tool'], ['use_tool']]);
  const replay = await turnAsync(['test'], { cwd: dir, env: OFFLINE });
  assert.equal(replay.code, 0, replay.stdout + replay.stderr);
  assert.match(replay.stdout, /1 passed, 0 failed/);
});
