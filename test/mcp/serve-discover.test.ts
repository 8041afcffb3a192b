// What `turn mcp` reads from a served file without running it (runtime/mcp/serve/discover.ts,
// annotations.ts): annotations from the closures' effects, prompts' and resources' declarations and
// their located refusals, URI templates matched by a plain scan; and the HTTP message bound.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { discoverServed, ServeError, serveMcp } from '../../runtime/index.js';
import { matchTemplate, parseTemplate } from '../../runtime/mcp/serve/discover.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-serve-discover-'));
let n = 0;
function file(source: string): string {
  const f = path.join(dir, `served${++n}.tn`);
  fs.writeFileSync(f, source);
  return f;
}

test('annotations follow what a closure can reach, and claim nothing where the walk cannot see', async () => {
  const served = await discoverServed(
    file(`let json = use "std/json";
let read_notes = turn() -> Str { return call("fs_read", "notes.txt"); };
struct Answer { text: Str }
return {
    "reads": turn() -> Str { return read_notes(); },
    "writes": turn(text: Str) -> Str { call("fs_write", "out.txt", text); return "ok"; },
    "appends": turn(text: Str) -> Str { call("fs_append", "log.txt", text); return "ok"; },
    "asks": turn(q: Str) -> Answer { return infer Answer { q; }; },
    "via_module": turn(text: Str) -> Any { return json.parse(text); },
    "computed": turn(name: Str) -> Any { return call(name); },
};
`),
  );
  const hints = Object.fromEntries(served.tools.map((t) => [t.name, t.annotations]));
  assert.deepEqual(hints.reads, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
  assert.deepEqual(hints.writes, { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false });
  assert.deepEqual(hints.appends, { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
  assert.deepEqual(hints.asks, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
  // a module's closure and a tool named by a value: unknown, so the spec's defaults
  for (const name of ['via_module', 'computed']) assert.deepEqual(hints[name], { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true }, name);
});

test('a struct two parameters share is described once in $defs, an optional one nullable by reference', async () => {
  const served = await discoverServed(file('struct Point { x: Num, y: Num }\nreturn { "span": turn(from: Point, to: Point?) -> Num { return 0; } };\n'));
  const schema = served.tools[0].inputSchema as Record<string, unknown>;
  assert.deepEqual(schema.properties, { from: { $ref: '#/$defs/Point' }, to: { anyOf: [{ $ref: '#/$defs/Point' }, { type: 'null' }] } });
  assert.deepEqual(Object.keys(schema.$defs as object), ['Point']);
  assert.deepEqual(schema.required, ['from']);
});

test('prompts and resources are declared by their keys, and a declaration MCP cannot carry is refused where it is written', async () => {
  const served = await discoverServed(
    file(`return {
    /// Plan a trip.
    "prompt:plan": turn(city: Str, pace: "slow" | "fast", note: Str?) -> Str { return city; },
    "resource:kb://facts/{topic}/latest": turn(topic: Str) -> Str { return topic; },
    "resource:kb://index": turn() -> Str { return "index"; },
};
`),
  );
  assert.deepEqual(served.tools, []);
  assert.deepEqual(served.prompts.map((p) => [p.name, p.description, p.params.map((a) => [a.name, a.optional, a.choices])]), [['plan', 'Plan a trip.', [['city', false, undefined], ['pace', false, ['slow', 'fast']], ['note', true, undefined]]]]);
  assert.deepEqual(served.resources.map((r) => [r.uri, r.template?.vars]), [['kb://facts/{topic}/latest', ['topic']], ['kb://index', undefined]]);
  await assert.rejects(discoverServed(file('return {\n    "prompt:count": turn(n: Num) -> Str { return "x"; },\n};\n')), (e: Error) => e instanceof ServeError && /served\d+\.tn:2:5: the argument `n` of the prompt "count" must be a Str/.test(e.message));
  await assert.rejects(discoverServed(file('return {\n    "resource:kb://{a}": turn(b: Str) -> Str { return b; },\n};\n')), (e: Error) => e instanceof ServeError && /:2:5: the closure of the resource "kb:\/\/\{a\}" takes the URI template's variables \(a\)/.test(e.message));
  await assert.rejects(discoverServed(file('return {\n    "bad name!": turn() -> Str { return "x"; },\n};\n')), (e: Error) => e instanceof ServeError && /:2:5: "bad name!" is not an MCP tool name/.test(e.message));
});

test('a URI template matches by a plain scan: never an empty value, never across a /, never a malformed escape', () => {
  const t = parseTemplate('memo://notes/{day}/v{n}')!;
  assert.deepEqual(matchTemplate(t, 'memo://notes/monday/v2'), { day: 'monday', n: '2' });
  assert.deepEqual(matchTemplate(t, 'memo://notes/a%20b/v1'), { day: 'a b', n: '1' });
  assert.equal(matchTemplate(t, 'memo://notes//v2'), undefined);
  assert.equal(matchTemplate(t, 'memo://notes/a/b/v2'), undefined);
  assert.equal(matchTemplate(t, 'memo://notes/%E0%A4%A/v2'), undefined);
  assert.equal(matchTemplate(t, 'other://notes/monday/v2'), undefined);
  assert.throws(() => parseTemplate('kb://{a}{b}'), /separated by text/);
  // a long hostile URI costs one pass
  assert.equal(matchTemplate(t, 'memo://notes/' + 'x'.repeat(1_000_000)), undefined);
});

test('over HTTP a message over the bound is answered 413 with a JSON-RPC error, unread', async () => {
  const served = file('return { "echo": turn(x: Str) -> Str { return x; } };\n');
  const serving = await serveMcp(served, { run: {}, port: 0, maxMessageBytes: 4096 });
  try {
    const headers = { authorization: `Bearer ${serving.token!.value}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x'.repeat(8000), version: '1' } } });
    const refused = await fetch(serving.url!, { method: 'POST', headers, body: big });
    assert.equal(refused.status, 413);
    const body = (await refused.json()) as { error: { code: number; message: string } };
    assert.equal(body.error.code, -32600);
    assert.match(body.error.message, /over 4,096 bytes/);
    const small = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } });
    assert.equal((await fetch(serving.url!, { method: 'POST', headers, body: small })).status, 200);
    // the refused connection is dropped 2 s after its answer (REFUSED_LINGER_MS in http.ts): that
    // timer once found the request's socket already detached and threw, after the test had ended
    await new Promise((resolve) => setTimeout(resolve, 2100));
  } finally {
    await serving.close();
  }
});

test('"task:NAME" and "task-required:NAME" are tools that may (must) run as tasks; a bad name or a tool served twice is refused, located', async () => {
  const served = await discoverServed(
    file(`return {
    "task:slow": turn(seconds: Num) -> Str { return "done"; },
    "task-required:only": turn() -> Str { return "done"; },
    "plain": turn() -> Str { return "done"; },
};
`),
  );
  assert.deepEqual(
    served.tools.map((t) => [t.name, t.key, t.taskSupport]),
    [
      ['slow', 'task:slow', 'optional'],
      ['only', 'task-required:only', 'required'],
      ['plain', 'plain', undefined],
    ],
  );
  await assert.rejects(discoverServed(file(`return { "task:has space": turn() -> Str { return "x"; } };\n`)), (e: Error) => e instanceof ServeError && /:1:\d+: "has space" is not an MCP tool name/.test(e.message));
  await assert.rejects(discoverServed(file(`return {\n    "twice": turn() -> Str { return "x"; },\n    "task:twice": turn() -> Str { return "y"; },\n};\n`)), (e: Error) => e instanceof ServeError && /:3:\d+: the tool "twice" is served twice/.test(e.message));
});
