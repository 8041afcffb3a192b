// std/react over native tool calls (issue 42): where the run's model takes tools through its API
// (`call("model_supports", "tools")`, its provider's `nativeTools`), react.run offers its tools as one
// native tool (`use_tool(tool, input)`) of a single `infer ... with { tools }`; elsewhere it keeps the
// decision-struct loop. Both reach the same typed answer and the same trace. The mock model takes
// tools natively (its first round calls every offered tool with "mock" arguments); the script
// provider here does not say so, so it gets the decision loop.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRun } from '../../runtime/run/run.js';
import type { RunEvent } from '../../runtime/events/index.js';

async function runFile(source: string, model: 'mock' | { replies: unknown[] }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-react-'));
  const file = path.join(dir, 'main.tn');
  fs.writeFileSync(file, source);
  let spec = 'mock';
  if (model !== 'mock') {
    fs.writeFileSync(path.join(dir, 's.json'), JSON.stringify(model));
    spec = `script:${path.join(dir, 's.json')}`;
  }
  const events: RunEvent[] = [];
  const lines: string[] = [];
  const run = await startRun({ file, cwd: dir, model: spec, onEvent: (e) => events.push(e), onOutput: (l) => lines.push(l) });
  const result = await run.start();
  const toolEvents = events.filter((e): e is Extract<RunEvent, { kind: 'infer.tool' }> => e.kind === 'infer.tool');
  const inferTypes = events.filter((e) => e.kind === 'infer.request').map((e) => (e as { type?: string }).type);
  return { result, events, toolEvents, inferTypes, lines };
}

const REACT = (tools: string) => `
let react = use "std/react";
let out = react.run({
    "goal": "What does the mock tool say?",
    "tools": {${tools}},
    "max_steps": 4,
    "on_step": turn(e: Map) -> Any { call("echo", "step " + e["step"] + " " + e["tool"] + " " + e["ok"]); return null; }
});
return out;`;

const ECHO_TOOL = `"mock": turn(x: Str) -> Any { return "seen " + x; }`;

function json(result: Awaited<ReturnType<typeof runFile>>['result']): Record<string, unknown> {
  assert.equal(result.kind, 'done', JSON.stringify(result));
  return (result as { json: Record<string, unknown> }).json;
}

const withoutConfidence = (trace: unknown) => (trace as Record<string, unknown>[]).map(({ confidence: _c, ...rest }) => rest);

test('model_supports("tools") says whether the run\'s model takes native tools; another feature is an error', async () => {
  const src = `return call("model_supports", "tools");`;
  assert.equal(json((await runFile(src, 'mock')).result), true);
  assert.equal(json((await runFile(src, { replies: [] })).result), false);
  const bad = await runFile(`return call("model_supports", "tool");`, 'mock');
  assert.equal(bad.result.kind, 'failed');
  assert.match(JSON.stringify(bad.result), /model_supports knows the feature \\"tools\\"/);
});

test('with a native-tools model, react.run offers its tools natively and the tool closures run as infer.tool calls', async () => {
  const r = await runFile(REACT(ECHO_TOOL), 'mock');
  const out = json(r.result);
  assert.equal(out.answer, 'mock');
  assert.equal(out.stopped, 'finished');
  assert.equal(out.steps, 2);
  assert.deepEqual(withoutConfidence(out.trace), [{ step: 1, tool: 'mock', input: 'mock', ok: true, observation: 'seen mock' }]);
  // one native call of the dispatching tool, run and done
  assert.deepEqual(r.toolEvents.map((e) => [e.name, e.state]), [['use_tool', 'start'], ['use_tool', 'done']]);
  assert.deepEqual(r.inferTypes, ['ReactAnswer', 'ReactAnswer']);
  assert.deepEqual(r.lines, ['step 1 mock true']);

  // a custom decide closure keeps the decision loop even with a native-tools model
  const decided = await runFile(`
let react = use "std/react";
return react.run({"goal": "g", "tools": {${ECHO_TOOL}},
  "decide": turn(s: Map) -> Map { if call("len", s["trace"]) == 0 { return {"action": "use_tool", "tool": "mock", "input": "a"}; } return {"action": "finish", "answer": s["trace"][0]["observation"]}; }});`, 'mock');
  assert.equal(json(decided.result).answer, 'seen a');
  assert.equal(decided.toolEvents.length, 0);
});

test('without native tools, react.run keeps the decision loop and reaches the same answer and trace', async () => {
  const native = json((await runFile(REACT(ECHO_TOOL), 'mock')).result);
  const r = await runFile(REACT(ECHO_TOOL), {
    replies: [
      { type: 'ReactDecision', value: { action: 'use_tool', tool: 'mock', input: 'mock', answer: '' } },
      { type: 'ReactDecision', value: { action: 'finish', tool: '', input: '', answer: 'mock' } },
    ],
  });
  const out = json(r.result);
  assert.equal(r.toolEvents.length, 0, 'no native tool calls');
  assert.deepEqual(r.inferTypes, ['ReactDecision', 'ReactDecision']);
  assert.deepEqual(r.lines, ['step 1 mock true']);
  for (const key of ['answer', 'stopped', 'steps', 'policy']) assert.deepEqual(out[key], native[key], key);
  assert.deepEqual(withoutConfidence(out.trace), withoutConfidence(native.trace));
});

test('natively, an unknown tool name and a throwing tool are error results the model sees, not a crash', async () => {
  // the mock model asks use_tool for a tool named "mock": not in this map
  const unknown = await runFile(REACT(`"search": turn(x: Str) -> Any { return x; }`), 'mock');
  const out = json(unknown.result);
  assert.equal(out.answer, 'mock');
  assert.deepEqual(withoutConfidence(out.trace), [{ step: 1, tool: 'mock', input: 'mock', ok: false, observation: 'unknown tool mock (tools: search)' }]);
  assert.deepEqual(unknown.toolEvents.map((e) => e.state), ['start', 'failed']);
  assert.match(String(unknown.toolEvents[1].result), /unknown tool mock/);

  const throwing = await runFile(REACT(`"mock": turn(x: Str) -> Any { throw "the index is down"; }`), 'mock');
  const t = json(throwing.result);
  assert.equal(t.stopped, 'finished');
  assert.deepEqual(withoutConfidence(t.trace), [{ step: 1, tool: 'mock', input: 'mock', ok: false, observation: 'the index is down' }]);
  assert.match(String(throwing.toolEvents[1].result), /the tool failed: .*the index is down/);
});
