// Turn agents offered to VS Code's agent mode by the extension's own MCP servers
// (extension/lm/agent-tools.ts, agent-server.ts): the grants in words, the tools as offered (no
// `$schema` VS Code would refuse them for, the grants in the description its confirmation shows),
// a call's `{value, confidence}` result, and the server itself over Streamable HTTP with the SDK's
// client, each call performed by the editor's runner (here a fake, and the real Runner of the panel).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { argumentValues, callEntryName, callResult, editorOutcome, grantsText, mayServe, offeredTools, serverLabel } from '../../extension/lm/agent-tools.js';
import { AgentServers, oneAtATime, serveAgent, type AgentServerSpec, type EditorCall, type RunInEditor } from '../../extension/lm/agent-server.js';
import { readRunSettings } from '../../extension/settings.js';
import { Runner } from '../../extension/panel/runner.js';
import { callProgram, discoverServed, type Run, type RunResult } from '../../runtime/index.js';

const settingsOf = (values: Record<string, unknown>) => readRunSettings(<T>(key: string, dflt: T) => (key in values ? (values[key] as T) : dflt));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-agent-tools-'));
const served = path.join(dir, 'mood.tn');
fs.writeFileSync(
  served,
  `struct Mood { label: "glad" | "calm" | "upset", score: Num };

return {
    /// Rates the mood of a sentence.
    "rate_mood": turn(text: Str, hint: Str?) -> Mood {
        call("echo", "rating: " + text);
        return infer Mood { "Rate the mood of: " + text; };
    },
    "count": turn(n: Num) -> Num {
        return n + 1;
    },
    /// A prompt the editor does not offer.
    "prompt:ask": turn(x: Str) -> Str {
        return x;
    },
};
`,
);
test.after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('the grants in words: the net, files, environment, launches, approvals and budgets a run has', () => {
  assert.equal(grantsText(settingsOf({})), 'no grants');
  const s = settingsOf({ 'run.allowNet': ['api.example.com'], 'run.allowRead': ['data'], 'run.allowWrite': ['out'], 'run.allowEnv': ['HOME'], 'run.allowRun': ['node server.js'], 'run.approveEffects': ['model'], 'run.maxModelCalls': 5, 'run.maxTimeSeconds': 30 });
  assert.equal(grantsText(s), 'net api.example.com; read data; write out; env HOME; run node server.js; approved without asking model; at most 5 model calls, 30 s');
  assert.equal(serverLabel('/ws/agents/mood.tn', '/ws', settingsOf({ 'run.allowNet': ['127.0.0.1:*'] })), 'Turn: agents/mood.tn (net 127.0.0.1:*)');
});

test('test files (which return their tests as closures) are not offered', () => {
  assert.equal(mayServe('/ws/triage.tn'), true);
  assert.equal(mayServe('/ws/triage_test.tn'), false);
  assert.equal(mayServe('/ws/notes.md'), false);
});

test('the tools as offered: no $schema (VS Code 1.104 drops a tool whose schema names draft 2020-12), the grants and model in the description, tools only', async () => {
  const discovered = await discoverServed(served);
  assert.equal((discovered.tools[0].inputSchema as Record<string, unknown>).$schema, 'https://json-schema.org/draft/2020-12/schema', 'turn mcp names the draft');
  const offered = offeredTools(discovered, 'net api.example.com; read data', 'openai:gpt-4o-mini');
  assert.deepEqual(offered.tools.map((t) => t.name), ['rate_mood', 'count']);
  assert.deepEqual(offered.prompts, []);
  assert.deepEqual(offered.resources, []);
  const rate = offered.tools[0];
  assert.equal('$schema' in rate.inputSchema, false);
  assert.deepEqual(rate.inputSchema.required, ['text']);
  assert.equal(rate.outputSchema, undefined, 'the result is {value, confidence}, not the closure value');
  assert.match(rate.description, /^Rates the mood of a sentence\.\n\n/);
  assert.match(rate.description, /with: net api\.example\.com; read data; model openai:gpt-4o-mini\./);
  assert.match(rate.description, /"confidence": 0\.\.1/);
  // read only as turn mcp sees it, never to VS Code: it asks to confirm (naming the grants) only a tool that is not
  assert.equal(discovered.tools[0].annotations.readOnlyHint, true);
  assert.deepEqual(rate.annotations, { ...discovered.tools[0].annotations, readOnlyHint: false });
  // a description cannot push the grants out of what the confirmation shows
  const long = offeredTools({ ...discovered, tools: [{ ...discovered.tools[1], description: 'x'.repeat(50_000) }] }, 'no grants', 'mock');
  assert.ok(long.tools[0].description.length < 2_400);
  assert.match(long.tools[0].description, /with: no grants; model mock\./);
});

test("a call's arguments in parameter order; a left-out optional one is null, an inherited key is not an argument", async () => {
  const tool = (await discoverServed(served)).tools[0];
  assert.deepEqual(argumentValues(tool, { hint: 'h', text: 't' }), ['t', 'h']);
  assert.deepEqual(argumentValues(tool, { text: 't' }), ['t', null]);
  assert.deepEqual(argumentValues(tool, Object.create({ text: 'inherited' }) as Record<string, unknown>), [null, null]);
  assert.equal(callEntryName('/ws/mood.tn', 'rate_mood'), '/ws/mood.tn#rate_mood');
});

test('a result is {value, confidence}, structured and as text; a failure is an error result with the reason', () => {
  const r = callResult({ ok: true, value: { label: 'glad' }, confidence: 0.9000000001 });
  assert.deepEqual(r.structuredContent, { value: { label: 'glad' }, confidence: 0.9 });
  assert.deepEqual(JSON.parse(r.content[0].text), { value: { label: 'glad' }, confidence: 0.9 });
  assert.equal(r.isError, undefined);
  assert.deepEqual(callResult({ ok: true, value: undefined, confidence: 1 }).structuredContent, { value: null, confidence: 1 });
  // a confidence out of range (or not a number) is never passed on as it is
  assert.equal(callResult({ ok: true, value: 1, confidence: 7 }).structuredContent?.confidence, 1);
  assert.equal(callResult({ ok: true, value: 1, confidence: Number.NaN }).structuredContent?.confidence, 0);
  assert.deepEqual(callResult({ ok: false, message: 'mood.tn:5:9: no model' }), { isError: true, content: [{ type: 'text', text: 'mood.tn:5:9: no model' }] });
});

/** Runs `entry` (named `name`) in the panel's Runner, as RunPanel.runCall does, on the mock model. */
async function runInRunner(name: string, entry: string): Promise<{ status: string; error?: string; settled?: { result: RunResult; run: Run } }> {
  let settled: { result: RunResult; run: Run } | undefined;
  const runner = new Runner({ file: name, options: { cwd: dir, model: 'mock', entryText: entry }, publish: () => {}, onSettled: (result, run) => void (settled = { result, run }) });
  const view = await runner.start();
  return { status: view.status, ...(view.error ? { error: view.error.message } : {}), ...(settled ? { settled } : {}) };
}

test("a call run by the panel's Runner: the value and the confidence of the model's reply (the mock's 0.9); a certain value has 1", async () => {
  const tools = (await discoverServed(served)).tools;
  const rate = await runInRunner(callEntryName(served, 'rate_mood'), callProgram(served, 'rate_mood', argumentValues(tools[0], { text: 'Shipped it!' })));
  const out = editorOutcome(rate);
  assert.equal(rate.status, 'done');
  assert.ok(out.ok);
  assert.equal(typeof (out.value as { label: string }).label, 'string');
  assert.equal(out.confidence, 0.9);
  const count = editorOutcome(await runInRunner(callEntryName(served, 'count'), callProgram(served, 'count', [41])));
  assert.deepEqual(count, { ok: true, value: 42, confidence: 1 });
});

test('a call that fails says why, located in the served file; an argument is data, never source', async () => {
  const bad = path.join(dir, 'bad.tn');
  fs.writeFileSync(bad, 'return {\n    "f": turn(x: Str) -> Str {\n        return x + nope;\n    },\n};\n');
  const failed = editorOutcome(await runInRunner(callEntryName(bad, 'f'), callProgram(bad, 'f', ['a'])));
  assert.equal(failed.ok, false);
  assert.match(!failed.ok ? failed.message : '', /bad\.tn:3:\d+: .*nope/);
  // Turn source in an argument stays a string
  const echo = path.join(dir, 'echo.tn');
  fs.writeFileSync(echo, 'return {\n    "echo": turn(x: Str) -> Str {\n        return x;\n    },\n};\n');
  const sneaky = '"); call("write_file", "pwned.txt", "x"); ("';
  assert.deepEqual(editorOutcome(await runInRunner(callEntryName(echo, 'echo'), callProgram(echo, 'echo', [sneaky]))), { ok: true, value: sneaky, confidence: 1 });
  assert.equal(fs.existsSync(path.join(dir, 'pwned.txt')), false);
});

const spec = (file: string, extra: Partial<AgentServerSpec> = {}): AgentServerSpec => ({ file, label: `Turn: ${path.basename(file)} (no grants)`, grants: 'no grants', model: 'mock', run: { cwd: dir }, version: '1', ...extra });

async function connect(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'turn-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

test('the editor serves a file over Streamable HTTP on 127.0.0.1: the tools as offered, each call performed in the editor, {value, confidence} back', async () => {
  const calls: EditorCall[] = [];
  const server = await serveAgent(spec(served, { grants: 'net api.example.com' }), async (call) => {
    calls.push(call);
    return { ok: true, value: { label: 'calm', score: 0.5 }, confidence: 0.73 };
  });
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.match(server.headers.Authorization, /^Bearer [A-Za-z0-9_-]{43}$/);
    const client = await connect(server.url, server.headers);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name), ['rate_mood', 'count']);
      assert.equal('$schema' in tools[0].inputSchema, false);
      assert.match(tools[0].description ?? '', /with: net api\.example\.com; model mock\./);
      const r = (await client.callTool({ name: 'rate_mood', arguments: { text: 'fine' } })) as CallToolResult;
      assert.deepEqual(r.structuredContent, { value: { label: 'calm', score: 0.5 }, confidence: 0.73 });
      assert.equal(calls.length, 1);
      assert.equal(calls[0].file, served);
      assert.equal(calls[0].tool.key, 'rate_mood');
      assert.deepEqual(calls[0].args, { text: 'fine' });
      // arguments that do not fit the schema never reach the editor
      await assert.rejects(client.callTool({ name: 'rate_mood', arguments: { text: 5 } }), /text/);
      await assert.rejects(client.callTool({ name: 'ask', arguments: { x: 'a' } }), /unknown tool/);
      assert.equal(calls.length, 1);
    } finally {
      await client.close();
    }
    // another local process, without the token VS Code was given, is refused before anything runs
    const refused = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'count', arguments: { n: 1 } } }) });
    assert.equal(refused.status, 401);
    await assert.rejects(connect(server.url, { Authorization: 'Bearer not-the-token-not-the-token-not-the-token' }));
    assert.equal(calls.length, 1);
  } finally {
    await server.close();
  }
});

test("VS Code cancelling a call aborts the signal that stops its run in the panel", async () => {
  let entered!: () => void;
  const inside = new Promise<void>((r) => (entered = r));
  let stopped!: () => void;
  const stop = new Promise<void>((r) => (stopped = r));
  const server = await serveAgent(spec(served), async (call) => {
    entered();
    await new Promise<void>((r) => call.signal.addEventListener('abort', () => r(), { once: true }));
    stopped();
    return { ok: false, message: 'the run was stopped' };
  });
  try {
    const client = await connect(server.url, server.headers);
    try {
      const cancel = new AbortController();
      const call = client.callTool({ name: 'count', arguments: { n: 1 } }, undefined, { signal: cancel.signal });
      await inside;
      cancel.abort();
      await assert.rejects(call);
      await stop; // the editor saw the cancellation (never resolves if it did not: the test times out)
    } finally {
      await client.close();
    }
  } finally {
    await server.close();
  }
});

test("the servers follow the workspace: an unchanged file keeps its server, an edited one is served afresh, a file that serves nothing is left out, a removed one's server closes", async () => {
  const never: RunInEditor = async () => ({ ok: false, message: 'not called' });
  const notServed = path.join(dir, 'plain.tn');
  fs.writeFileSync(notServed, 'call("echo", "hi");\n');
  const servers = new AgentServers(never);
  try {
    const [a] = await servers.update([spec(served), spec(notServed)]);
    assert.equal(a.file, served);
    const [same] = await servers.update([spec(served)]);
    assert.equal(same.url, a.url);
    const [edited] = await servers.update([spec(served, { version: '2' })]);
    assert.notEqual(edited.url, a.url);
    await assert.rejects(fetch(a.url, { method: 'POST', headers: { ...a.headers, 'content-type': 'application/json' }, body: '{}' }), 'the old server is closed');
    assert.deepEqual(await servers.update([]), []);
    await assert.rejects(fetch(edited.url, { method: 'POST', headers: { ...edited.headers, 'content-type': 'application/json' }, body: '{}' }));
  } finally {
    await servers.closeAll();
  }
});

test('calls run one after another (the panel shows one run; a new one would stop it); a call cancelled while waiting never runs', async () => {
  const started: string[] = [];
  const ends = new Map<string, () => void>();
  const run = oneAtATime(async (call) => {
    started.push(call.tool.name);
    await new Promise<void>((resolve) => ends.set(call.tool.name, resolve));
    return { ok: true, value: call.tool.name, confidence: 1 };
  });
  const tool = (name: string) => ({ ...toolBase(), name }) as EditorCall['tool'];
  const cancelled = new AbortController();
  const first = run({ file: served, tool: tool('a'), args: {}, signal: new AbortController().signal });
  const second = run({ file: served, tool: tool('b'), args: {}, signal: cancelled.signal });
  const third = run({ file: served, tool: tool('c'), args: {}, signal: new AbortController().signal });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, ['a']);
  cancelled.abort();
  ends.get('a')!();
  assert.deepEqual(await first, { ok: true, value: 'a', confidence: 1 });
  assert.deepEqual(await second, { ok: false, message: 'the call was cancelled before it ran' });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(started, ['a', 'c']);
  ends.get('c')!();
  assert.deepEqual(await third, { ok: true, value: 'c', confidence: 1 });
});

function toolBase() {
  return { key: 'k', params: [], description: '', inputSchema: { type: 'object' as const }, annotations: {} };
}
