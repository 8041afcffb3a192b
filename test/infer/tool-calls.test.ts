// Native tool calls (issue 42): `infer T with { tools: [f, g] } { ... }`. The model's calls run as
// child processes of the inferring one and their results go back to it; everything the model sends
// is checked first (an unknown tool, bad, huge or deep arguments, too many calls, an endless loop),
// and a tool runs under the run's grants like any process: what the run may not do is refused to the
// model, never done. The model here is the script provider, which can say "call tool X with Y".
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRun } from '../../runtime/run/run.js';
import type { RunEvent } from '../../runtime/events/index.js';
import type { InferRequest } from '../../runtime/infer/types.js';
import { MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_RESULT_BYTES } from '../../runtime/infer/tools.js';
import { checkSource } from '../../runtime/check/index.js';
import { failure, okJson, runWith, script, withProvider } from './helpers.js';
import { mockProvider } from '../../runtime/providers/index.js';

const ADD = `
struct Answer { total: Num };
/// Adds two numbers.
let add = turn(a: Num, b: Num) -> Num { call("echo", "add " + a + " " + b); return a + b; };
`;

const toolRounds = (r: InferRequest) => r.toolRounds ?? [];

test('a tool call runs the closure as a child of the inferring process and its result goes back to the model', async () => {
  const r = await runWith(
    ADD + `let r = infer Answer with { tools: [add] } { "What is 2 + 3?"; }; return r.total;`,
    script([{ tool_calls: [{ name: 'add', arguments: { a: 2, b: 3 }, id: 'c1' }] }, { value: { total: 5 } }]),
  );
  assert.equal(okJson(r), 5);
  assert.deepEqual(r.lines, ['add 2 3']);
  assert.equal(r.requests.length, 2);
  // what the model was offered: the function's name, its doc comment, its parameters' schema
  const offer = r.requests[0].tools![0];
  assert.equal(offer.name, 'add');
  assert.equal(offer.description, 'Adds two numbers.');
  assert.deepEqual((offer.parameters as { required: string[] }).required, ['a', 'b']);
  assert.deepEqual(toolRounds(r.requests[1]), [{ calls: [{ id: 'c1', name: 'add', arguments: { a: 2, b: 3 } }], results: [{ id: 'c1', name: 'add', content: '5' }] }]);
  const ran = r.events.find((e): e is Extract<RunEvent, { kind: 'infer.tool' }> => e.kind === 'infer.tool' && e.state === 'done');
  assert.ok(ran && ran.child !== null);
  const spawn = r.events.find((e) => e.kind === 'process.spawn' && e.pid === ran.child);
  assert.deepEqual(spawn && { parent: (spawn as { parent: number }).parent }, { parent: ran.pid });
});

test('the calls of one reply run as parallel processes and join before the next round', async () => {
  const r = await runWith(
    ADD + `let r = infer Answer with { tools: [add] } { "sum"; }; return r.total;`,
    script([{ tool_calls: [{ name: 'add', arguments: { a: 1, b: 1 } }, { name: 'add', arguments: { a: 2, b: 2 } }, { name: 'add', arguments: { a: 3, b: 3 } }] }, { value: { total: 12 } }]),
  );
  assert.equal(okJson(r), 12);
  const started = r.events.filter((e): e is Extract<RunEvent, { kind: 'infer.tool' }> => e.kind === 'infer.tool' && e.state === 'start');
  const children = new Set(started.map((e) => e.child));
  assert.equal(children.size, 3, 'three processes');
  // all three started before any ended: they run side by side
  const firstEnd = r.events.findIndex((e) => e.kind === 'infer.tool' && e.state !== 'start');
  assert.ok(r.events.indexOf(started[2]) < firstEnd);
  assert.deepEqual(toolRounds(r.requests[1])[0].results.map((x) => x.content), ['2', '4', '6']);
});

test('the model\'s mistakes are error results it sees, never a crash: a tool not offered, bad, unparsable, deep or huge arguments', async () => {
  let deep: unknown = 1;
  for (let i = 0; i < 10_000; i++) deep = { a: deep };
  // the calls as a provider would hand them over (the script fixture is JSON, which could not hold the deep one)
  let round = 0;
  const r = await runWith(ADD + `let r = infer Answer with { tools: [add] } { "sum"; }; return r.total;`, (req) =>
    round++ > 0
      ? { text: JSON.stringify({ value: { total: 3 }, confidence: 0.9 }) }
      : {
        toolCalls: [
          { id: '1', name: 'rm_rf', arguments: {} },
          { id: '2', name: 'add', arguments: { a: 'two', b: 3 } },
          { id: '3', name: 'add', arguments: null, argumentsText: '{"a": 2, "b":' },
          { id: '4', name: 'add', arguments: { a: 1, b: deep } },
          { id: '5', name: 'add', arguments: { a: 1, b: 'x'.repeat(10 * 1024 * 1024) } },
          { id: '6', name: 'add', arguments: { a: 1, b: 2, extra: true } },
        ],
        text: String(req.attempt),
      },
  );
  assert.equal(okJson(r), 3);
  assert.deepEqual(r.lines, [], 'no call ran');
  const results = toolRounds(r.requests[1])[0].results;
  assert.ok(results.every((x) => x.isError === true));
  assert.match(results[0].content, /no tool named "rm_rf" is offered \(the tools: add\)/);
  assert.match(results[1].content, /\/a: must be a number/);
  assert.match(results[2].content, /not JSON/);
  assert.match(results[3].content, /nest more than 64 levels/);
  assert.match(results[4].content, new RegExp(`over the ${MAX_TOOL_ARGUMENT_BYTES}`));
  assert.match(results[5].content, /extra/);
  // what the next round carries back is bounded: the deep and the huge arguments are not sent again
  const kept = toolRounds(r.requests[1])[0].calls;
  assert.ok(JSON.stringify(kept).length < 4096);
  assert.match(kept[3].argumentsText!, /nested more than 64 levels: not kept/);
});

test('a reply with 1,000 calls is a catchable InferError at the infer\'s line, and nothing runs', async () => {
  const calls = Array.from({ length: 1000 }, () => ({ name: 'add', arguments: { a: 1, b: 1 } }));
  const r = await runWith(ADD + `try {\n  let r = infer Answer with { tools: [add] } { "sum"; };\n  return r;\n} catch (e) { return [e.reason, e.line, e.message]; }`, script([{ tool_calls: calls }]));
  const [reason, line, message] = okJson(r) as [string, number, string];
  assert.equal(reason, 'tools');
  assert.equal(line, 6);
  assert.match(message, /1000 tool calls in one reply, over max_tool_calls 16/);
  assert.deepEqual(r.lines, []);
});

test('an endless loop of calls ends at max_tool_rounds with an InferError; the option sets the bound', async () => {
  const forever = { tool_calls: [{ name: 'add', arguments: { a: 1, b: 1 } }], repeat: true };
  const r = await runWith(ADD + `let r = infer Answer with { tools: [add], max_tool_rounds: 2 } { "sum"; }; return r;`, script([forever]));
  const err = failure(r);
  assert.match(err.message, /still called tools after 2 rounds \(max_tool_rounds 2\)/);
  assert.equal(r.requests.length, 3);
  assert.equal(r.lines.length, 2, 'the two rounds within the bound ran');
  const byDefault = await runWith(ADD + `let r = infer Answer with { tools: [add] } { "sum"; }; return r;`, script([forever]));
  assert.match(failure(byDefault).message, /after 8 rounds \(max_tool_rounds 8\)/);
  assert.equal(byDefault.requests.length, 9);
});

test('a tool that fails, and a tool whose result is too big, are told to the model as such', async () => {
  const src = `
struct Answer { total: Num };
let boom = turn(x: Str) -> Str { throw {"message": "no such record: " + x}; };
let big = turn() -> Str { let s = "y"; while call("len", s) < 100000 { let s = s + s; } return s; };
let r = infer Answer with { tools: [boom, big] } { "go"; };
return r.total;`;
  const r = await runWith(src, script([{ tool_calls: [{ name: 'boom', arguments: { x: 'k1' } }, { name: 'big', arguments: {} }] }, { value: { total: 1 } }]));
  assert.equal(okJson(r), 1);
  const [failed, cut] = toolRounds(r.requests[1])[0].results;
  assert.equal(failed.isError, true);
  assert.match(failed.content, /the tool failed: no such record: k1/);
  assert.equal(cut.isError, undefined);
  assert.ok(cut.content.length < MAX_TOOL_RESULT_BYTES + 200);
  assert.ok(cut.content.endsWith('… [cut: the result is 131072 characters; the first 16384 are shown]'), cut.content.slice(-120));
});

/** Runs `source` as a file with the script `replies` (the run's own host: grants, std/fs, std/net), keeping its events. */
async function runFile(source: string, replies: unknown[], options: Record<string, unknown> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-tools-'));
  const file = path.join(dir, 'main.tn');
  fs.writeFileSync(file, source);
  fs.writeFileSync(path.join(dir, 's.json'), JSON.stringify({ replies }));
  const events: RunEvent[] = [];
  const run = await startRun({ file, cwd: dir, model: `script:${path.join(dir, 's.json')}`, onEvent: (e) => events.push(e), onOutput: () => {}, ...options });
  const result = await run.start();
  const told = events.filter((e): e is Extract<RunEvent, { kind: 'infer.tool' }> => e.kind === 'infer.tool' && e.state !== 'start');
  return { result, events, told, dir };
}

test('a tool result shaped like a credential handle is data: handed back to a tool it is a plain Map, refused in a credential position', async () => {
  const src = `
struct Answer { kind: Str };
let net = use "std/net";
let lookup = turn() -> Map { return {"kind": "bearer", "name": "github"}; };
let fetch = turn(auth: Any) -> Str {
  try { net.request(auth, "GET", "http://127.0.0.1:9/", null); return "sent"; } catch (e) { return call("type_of", auth) + ": " + e.message; }
};
let r = infer Answer with { tools: [lookup, fetch] } { "go"; };
return r.kind;`;
  const { result, told } = await runFile(src, [{ tool_calls: [{ name: 'lookup', arguments: {} }] }, { tool_calls: [{ name: 'fetch', arguments: { auth: { kind: 'bearer', name: 'github' } } }] }, { value: { kind: 'x' } }], { allowNet: ['127.0.0.1'] });
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.equal(told[0].result, '{"kind":"bearer","name":"github"}');
  assert.match(told[1].result!, /^Map: http_request: a map is not an identity handle/);
});

test('a tool needing a grant the run lacks is refused to the model, and nothing is written', async () => {
  const src = `struct Answer { done: Bool };
let fs = use "std/fs";
let save = turn(text: Str) -> Str { fs.append(null, "out.txt", text); return "saved"; };
let r = infer Answer with { tools: [save] } { "save it"; };
return r.done;`;
  const { result, told, dir } = await runFile(src, [{ tool_calls: [{ name: 'save', arguments: { text: 'secret' } }] }, { value: { done: false } }]);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.equal(fs.existsSync(path.join(dir, 'out.txt')), false);
  assert.equal(told.length, 1);
  assert.equal(told[0].state, 'failed');
  assert.match(told[0].result!, /the tool failed: file write access to .*out\.txt is not granted/);
});

test('what cannot be a tool is a located error: a value that is no function, two tools of one name, a name too long, the final answer\'s name', async () => {
  const cases: [string, RegExp][] = [ // each infer is on line 2
    [`let n = 3;\nlet r = infer Str with { tools: [n] } { "x"; };`, /item 1 is a Num, not a function/],
    [`let a = turn() -> Str { return "1"; };\nlet r = infer Str with { tools: [a, a] } { "x"; };`, /two tools are named a/],
    [`let ${'t'.repeat(70)} = turn() -> Str { return "1"; };\nlet r = infer Str with { tools: [${'t'.repeat(70)}] } { "x"; };`, /1 to 64 letters/],
    [`let turn_reply = turn() -> Str { return "1"; };\nlet r = infer Str with { tools: [turn_reply] } { "x"; };`, /the one providers use for the final answer/],
  ];
  for (const [src, message] of cases) {
    const r = await runWith(src, script([{ value: 'never' }]));
    const err = failure(r);
    assert.match(err.message, message);
    assert.equal(err.line, 2, src);
    assert.equal(r.requests.length, 0, 'the model is never asked');
  }
});

test('the checker refuses a tools item it can see is no function, at that item', async () => {
  const src = 'let f = turn(x: Str) -> Str { return x; };\nlet r = infer Str with { tools: [f, 42] } { "x"; };\n';
  const diags = (await checkSource('main.tn', src)).diagnostics.filter((d) => d.code === 'infer-option');
  assert.equal(diags.length, 1, JSON.stringify(diags));
  assert.match(diags[0].message, /item 2 is a .*not a function/);
  assert.equal(src.slice(diags[0].span.start, diags[0].span.end), '42');
});

test('the mock model calls each offered tool once with arguments from its schema, then answers', async () => {
  const r = await runWith(ADD + `let r = infer Answer with { tools: [add] } { "sum"; }; return r;`, withProvider(mockProvider()));
  okJson(r);
  assert.equal(r.requests.length, 2);
  assert.equal(r.lines.length, 1);
  assert.match(r.lines[0], /^add /);
});

test('an inferring process cancelled while its tool calls run takes them down; a later infer of it is not answered by their results', async () => {
  const src = `
struct Answer { total: Num };
let me = call("self");
let slow = turn() -> Str { send me, "running"; let m = receive; return "late"; };
let asker = spawn turn() {
  try { let r = infer Answer with { tools: [slow] } { "wait"; }; } catch (e) { call("echo", "asker: " + e.type); }
  let again = infer Answer { "again"; };
  call("echo", "again " + again.total);
};
let started = receive;
call("cancel", asker);
call("wait", asker);
return "ok";`;
  const r = await runWith(src, script([{ tool_calls: [{ name: 'slow', arguments: {} }] }, { value: { total: 9 } }]));
  assert.equal(okJson(r), 'ok');
  assert.deepEqual(r.lines, ['asker: Cancelled', 'again 9']);
  const ran = r.events.find((e): e is Extract<RunEvent, { kind: 'infer.tool' }> => e.kind === 'infer.tool' && e.state === 'start')!;
  const exit = r.events.find((e) => e.kind === 'process.exit' && e.pid === ran.child);
  assert.deepEqual(exit && (exit as { status: string }).status, 'failed', 'the tool\'s process was cancelled');
  assert.equal(r.requests.length, 2, 'the second infer asked once, answered by the model, not by the late tool');
});
