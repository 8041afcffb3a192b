// A served agent as a caller sees it, driven by the official SDK client over stdio: arguments
// validated before a run starts (invalid params naming the pointer), output checked before the
// reply, optional parameters, descriptions and annotations, progress, cancellation that stops the
// run before its POST, prompts/resources/completion, and the limits: a 5,000-deep argument, a
// message over the size bound, no call files left behind (nor a crashed server's).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN } from '../cli/run-cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-served-agent-'));
/** the served process's temporary folder: where its call files are */
const tmp = path.join(dir, 'tmp');
fs.mkdirSync(tmp);

/** A local HTTP server counting the POSTs that land. */
const posts: string[] = [];
const sink = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c: Buffer) => (body += c.toString()));
  req.on('end', () => {
    if (req.method === 'POST') posts.push(body);
    res.end('ok');
  });
});
const sinkReady = new Promise<string>((resolve) => sink.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(sink.address() as AddressInfo).port}/hook`)));

const served = path.join(dir, 'agent.tn');
async function writeAgent(): Promise<void> {
  const url = await sinkReady;
  fs.writeFileSync(
    served,
    `let mcp = use "std/mcp";
struct Person { name: Str, age: Num }
struct Forecast { city: Str, outlook: "sun" | "rain" }

/// Greets a person by name.
let greet = turn(person: Person, style: "plain" | "warm") -> Str {
    if style == "warm" { return "Dear " + person.name + " (" + call("to_string", person.age) + ")"; }
    return "Hi " + person.name;
};

return {
    "greet": greet,
    /// Reads the notes.
    "notes": turn() -> Str { return call("fs_read", "notes.txt"); },
    "post": turn(text: Str) -> Str { return call("http_post", {"url": "${url}", "body": text}); },
    "tag": turn(label: Str, suffix: Str?) -> Str { if suffix == null { return label; } return label + "-" + suffix; },
    "forecast": turn(city: Str, outlook: Str) -> Forecast { return Forecast { city: city, outlook: outlook }; },
    "deep": turn(value: Any) -> Str { return "took it"; },
    "chatty": turn() -> Str { call("echo", "said"); return "spoke"; },
    "ask_model": turn(q: Str) -> Str { let r = mcp.sample(q, 10); return "model: " + r["content"]["text"]; },
    "steps": turn() -> Str { mcp.progress(1, 3, "one"); mcp.progress(2, 3, "two"); mcp.progress(2, 3, "again"); mcp.progress(3, 3, null); return "done"; },
    "confirm_then_post": turn() -> Str {
        let answer = mcp.elicit("Post it?", {"type": "object", "properties": {"ok": {"type": "boolean"}}});
        call("http_post", {"url": "${url}", "body": "after " + answer["action"]});
        return "posted";
    },
    /// Summarise a topic.
    "prompt:summary": turn(topic: Str, tone: "brief" | "broad" | "bright") -> Str { return "Summarise " + topic + " (" + tone + ")"; },
    "resource:memo://notes/{day}": turn(day: Str) -> Str { return "notes of " + day; },
};
`,
  );
  fs.writeFileSync(path.join(dir, 'notes.txt'), 'the notes');
}
const ready = writeAgent();

async function connect(args: string[] = [], capabilities: Record<string, unknown> = {}, file = served): Promise<{ client: Client; pid: () => number | null; transport: StdioClientTransport }> {
  await ready;
  const client = new Client({ name: 'turn-test', version: '1.0.0' }, { capabilities });
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', file, ...args], cwd: dir, stderr: 'pipe', env: { ...(process.env as Record<string, string>), TMPDIR: tmp } });
  await client.connect(transport);
  return { client, pid: () => transport.pid, transport };
}

const text = (r: CallToolResult): string => r.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
const protocolError = (code: number, pattern: RegExp) => (e: { code?: number; message: string }) => {
  assert.equal(e.code, code, e.message);
  assert.match(e.message, pattern);
  return true;
};

test('arguments are validated against the input schema before a run starts: invalid params naming the pointer', async () => {
  const { client } = await connect(['--allow-net', '127.0.0.1']);
  try {
    // a number given as a string was coerced and concatenated ("361") before
    await assert.rejects(client.callTool({ name: 'greet', arguments: { person: { name: 'Ada', age: '36' }, style: 'warm' } }), protocolError(-32602, /\/person\/age: must be number/));
    // a value outside the parameter's literal set
    await assert.rejects(client.callTool({ name: 'greet', arguments: { person: { name: 'Ada', age: 36 }, style: 'loud' } }), protocolError(-32602, /\/style: must be equal to one of the allowed values/));
    // an argument the tool does not take
    await assert.rejects(client.callTool({ name: 'greet', arguments: { person: { name: 'Ada', age: 36 }, style: 'warm', admin: true } }), protocolError(-32602, /must NOT have additional properties "admin"/));
    // an unknown tool is a protocol error, not a tool's failure
    await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), protocolError(-32602, /unknown tool "nope"/));
    // what the client sent is quoted, clipped: a megabyte tool name is not echoed back whole
    await assert.rejects(client.callTool({ name: 'n'.repeat(1_000_000), arguments: {} }), (e: Error) => /unknown tool "n{200}…"/.test(e.message) && e.message.length < 1000);
    // a refused call ran nothing: the POST tool's argument of the wrong type never reached the sink
    await assert.rejects(client.callTool({ name: 'post', arguments: { text: 42 } }), protocolError(-32602, /\/text: must be string/));
    assert.deepEqual(posts, []);
    const ok = (await client.callTool({ name: 'greet', arguments: { person: { name: 'Ada', age: 36 }, style: 'warm' } })) as CallToolResult;
    assert.equal(text(ok), 'Dear Ada (36)');
  } finally {
    await client.close();
  }
});

test('the listing: optional parameters optional, structs in $defs, /// descriptions, annotations from the effects', async () => {
  const { client } = await connect();
  try {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const tag = byName.get('tag')!;
    assert.deepEqual(tag.inputSchema.required, ['label']);
    const greet = byName.get('greet')!;
    assert.equal(greet.description, 'Greets a person by name.');
    assert.deepEqual(greet.inputSchema.properties?.person, { $ref: '#/$defs/Person' });
    assert.deepEqual(((greet.inputSchema as { $defs?: Record<string, { required?: string[] }> }).$defs?.Person)?.required, ['name', 'age']);
    assert.equal(byName.get('notes')!.description, 'Reads the notes.');
    assert.deepEqual(byName.get('notes')!.annotations, { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    assert.deepEqual(byName.get('post')!.annotations, { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    // an optional argument left out reaches the closure as null
    assert.equal(text((await client.callTool({ name: 'tag', arguments: { label: 'a' } })) as CallToolResult), 'a');
    assert.equal(text((await client.callTool({ name: 'tag', arguments: { label: 'a', suffix: 'b' } })) as CallToolResult), 'a-b');
  } finally {
    await client.close();
  }
});

test('a value that breaks the tool\'s own output schema is an error result, never a reply the client throws on', async () => {
  const { client } = await connect();
  try {
    const bad = (await client.callTool({ name: 'forecast', arguments: { city: 'Oslo', outlook: 'snow' } })) as CallToolResult;
    assert.equal(bad.isError, true);
    assert.match(text(bad), /does not match its own output schema \(\/outlook: must be equal to one of the allowed values\)/);
    assert.equal(bad.structuredContent, undefined);
    const good = (await client.callTool({ name: 'forecast', arguments: { city: 'Oslo', outlook: 'rain' } })) as CallToolResult;
    assert.deepEqual(good.structuredContent, { city: 'Oslo', outlook: 'rain' });
  } finally {
    await client.close();
  }
});

test('call("progress", ...) reaches a caller that gave a progress token, increasing only, before the reply', async () => {
  const { client, transport } = await connect();
  try {
    // what arrives, in order, as the transport reads it: the SDK 1.x client hands a notification to
    // its handler a microtask after a response, so one read together with the reply never reaches onprogress
    const arrived: string[] = [];
    const deliver = transport.onmessage!;
    transport.onmessage = (m) => {
      const x = m as { method?: string; params?: { progress: number; total?: number; message?: string }; result?: unknown };
      if (x.method === 'notifications/progress') arrived.push(`${x.params!.progress}/${x.params!.total} ${x.params!.message ?? ''}`.trim());
      else if (x.result !== undefined) arrived.push('reply');
      deliver(m);
    };
    const r = (await client.callTool({ name: 'steps', arguments: {} }, undefined, { onprogress: () => undefined })) as CallToolResult;
    assert.equal(text(r), 'done');
    assert.deepEqual(arrived, ['1/3 one', '2/3 two', '3/3', 'reply']);
    // without a progress token nothing is sent
    arrived.length = 0;
    await client.callTool({ name: 'steps', arguments: {} });
    assert.deepEqual(arrived, ['reply']);
  } finally {
    await client.close();
  }
});

/** Settles once `folder` holds no call file (the call's run has ended: its file is removed after it), watching the folder. */
function noCallFiles(folder: () => string | undefined): Promise<void> {
  return new Promise((resolve) => {
    const check = (): boolean => {
      const f = folder();
      return f !== undefined && fs.readdirSync(f).length === 0;
    };
    if (check()) return resolve();
    const watcher = fs.watch(tmp, { recursive: true }, () => {
      if (check()) {
        watcher.close();
        resolve();
      }
    });
  });
}

const scratchOf = (pid: number | null): string | undefined => {
  const name = fs.readdirSync(tmp).find((n) => n.startsWith(`turn-mcp-${pid}-`));
  return name && path.join(tmp, name);
};

test('a cancelled call stops at its next safe point: the POST it was about to make never lands', async () => {
  for (const cancel of [false, true]) {
    posts.length = 0;
    const { client, pid } = await connect(['--allow-net', '127.0.0.1'], { elicitation: { form: {} } });
    try {
      const controller = new AbortController();
      client.setRequestHandler(ElicitRequestSchema, () => {
        // the cancellation is sent before this answer: over stdio the server reads it first
        if (cancel) controller.abort('the operator changed their mind');
        return { action: 'accept', content: { ok: true } };
      });
      const call = client.callTool({ name: 'confirm_then_post', arguments: {} }, undefined, { signal: controller.signal });
      if (cancel) {
        await assert.rejects(call, /changed their mind|abort/i);
        // the run has ended once its call file is gone
        await noCallFiles(() => scratchOf(pid()));
        assert.deepEqual(posts, [], 'the cancelled run made no POST');
      } else {
        assert.equal(text((await call) as CallToolResult), 'posted');
        assert.deepEqual(posts, ['after accept'], 'without the cancellation the same call POSTs');
      }
    } finally {
      await client.close();
    }
  }
});

test('a client that cannot be asked is not: mcp_elicit fails at its line, and the POST after it never runs', async () => {
  posts.length = 0;
  const { client } = await connect(['--allow-net', '127.0.0.1']);
  try {
    const r = (await client.callTool({ name: 'confirm_then_post', arguments: {} })) as CallToolResult;
    assert.equal(r.isError, true);
    assert.match(text(r), /declared no elicitation capability/);
    assert.match(text(r), /^agent\.tn:\d+:\d+: .*declared no elicitation capability/, "located in the served program");
    assert.deepEqual(posts, []);
  } finally {
    await client.close();
  }
});

test('mcp.roots asks a client that declared roots for them (roots/list); one that did not is not asked, and the call fails at its line', async () => {
  const file = path.join(dir, 'roots.tn');
  fs.writeFileSync(file, `let mcp = use "std/mcp";\nreturn { "where": turn() -> Str { return call("json_stringify", mcp.roots()["roots"]); } };\n`);
  const asked = await connect([], { roots: {} }, file);
  asked.client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
  try {
    const r = (await asked.client.callTool({ name: 'where', arguments: {} })) as CallToolResult;
    assert.deepEqual(JSON.parse(text(r)), [{ uri: 'file:///work', name: 'work' }]);
  } finally {
    await asked.client.close();
  }
  const unasked = await connect([], {}, file);
  try {
    const r = (await unasked.client.callTool({ name: 'where', arguments: {} })) as CallToolResult;
    assert.equal(r.isError, true);
    assert.match(text(r), /^roots\.tn:\d+:\d+: .*declared no roots capability/);
  } finally {
    await unasked.client.close();
  }
});

test('logging/setLevel filters what a run prints; a subscribed resource is reported updated after a call', async () => {
  const { client } = await connect();
  try {
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (m) => void logs.push(m.params.data));
    await client.setLoggingLevel('warning');
    assert.equal(text((await client.callTool({ name: 'chatty', arguments: {} })) as CallToolResult), 'spoke\nsaid');
    await client.setLoggingLevel('info');
    const updated = new Promise<string>((resolve) => client.setNotificationHandler(ResourceUpdatedNotificationSchema, (m) => resolve(m.params.uri)));
    await client.subscribeResource({ uri: 'memo://notes/monday' });
    await client.callTool({ name: 'chatty', arguments: {} });
    // the log message of the second call (level info) is sent before its reply; the first call's was not
    assert.deepEqual(logs, ['said']);
    assert.equal(await updated, 'memo://notes/monday');
    await assert.rejects(client.subscribeResource({ uri: 'memo://elsewhere' }), protocolError(-32002, /no resource/));
    // a connection's subscriptions are bounded (each is reported after every call)
    for (let i = 1; i < 1000; i++) await client.subscribeResource({ uri: `memo://notes/day${i}` });
    await assert.rejects(client.subscribeResource({ uri: 'memo://notes/one-more' }), protocolError(-32602, /subscribed to 1000 resources, the most it may be/));
    await client.unsubscribeResource({ uri: 'memo://notes/day1' });
    await client.subscribeResource({ uri: 'memo://notes/one-more' });
  } finally {
    await client.close();
  }
});

test('prompts, resource templates and completion of a literal-union argument', async () => {
  const { client } = await connect();
  try {
    const { prompts } = await client.listPrompts();
    assert.deepEqual(prompts, [{ name: 'summary', description: 'Summarise a topic.', arguments: [{ name: 'topic', required: true }, { name: 'tone', required: true }] }]);
    const got = await client.getPrompt({ name: 'summary', arguments: { topic: 'MCP', tone: 'brief' } });
    assert.deepEqual(got.messages, [{ role: 'user', content: { type: 'text', text: 'Summarise MCP (brief)' } }]);
    await assert.rejects(client.getPrompt({ name: 'summary', arguments: { topic: 'MCP', tone: 'long' } }), protocolError(-32602, /\/tone/));
    const done = await client.complete({ ref: { type: 'ref/prompt', name: 'summary' }, argument: { name: 'tone', value: 'br' } });
    assert.deepEqual(done.completion.values, ['brief', 'broad', 'bright'].filter((v) => v.startsWith('br')));
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ['memo://notes/{day}']);
    const read = await client.readResource({ uri: 'memo://notes/monday' });
    assert.deepEqual(read.contents, [{ uri: 'memo://notes/monday', mimeType: 'text/plain', text: 'notes of monday' }]);
    // a variable never spans a path segment: nothing matches, and nothing runs
    await assert.rejects(client.readResource({ uri: 'memo://notes/a/b' }), protocolError(-32002, /no resource/));
  } finally {
    await client.close();
  }
});

test('a 5,000-deep argument is invalid params, never a stack overflow', async () => {
  const { child, sendText, answerTo, send } = await rawServer();
  try {
    // written as text: the SDK client's own schema check overflows the stack on such a value
    const deep = '{"d":'.repeat(5000) + '1' + '}'.repeat(5000);
    sendText(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"deep","arguments":{"value":${deep}}}}`);
    const refused = await answerTo(2);
    assert.equal((refused.error as { code: number }).code, -32602, JSON.stringify(refused).slice(0, 300));
    assert.match((refused.error as { message: string }).message, /nested more than 1000 levels deep/);
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'deep', arguments: { value: 1 } } });
    assert.deepEqual(((await answerTo(3)).result as CallToolResult).content, [{ type: 'text', text: 'took it' }]);
  } finally {
    child.kill();
  }
});

/** `turn mcp` spoken to in raw JSON-RPC lines (what an SDK client would refuse to send), initialized. */
async function rawServer(capabilities: Record<string, unknown> = {}) {
  await ready;
  const child = spawn(process.execPath, [BIN, 'mcp', served], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, TMPDIR: tmp } });
  const answers: Record<string, unknown>[] = [];
  let buffered = '';
  const waiters: (() => void)[] = [];
  child.stdout.on('data', (c: Buffer) => {
    buffered += c.toString();
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      answers.push(JSON.parse(buffered.slice(0, nl)) as Record<string, unknown>);
      buffered = buffered.slice(nl + 1);
    }
    waiters.splice(0).forEach((w) => w());
  });
  child.once('exit', () => waiters.splice(0).forEach((w) => w()));
  const answerTo = async (id: number): Promise<Record<string, unknown>> => {
    for (;;) {
      const a = answers.find((x) => x.id === id);
      if (a) return a;
      if (child.exitCode !== null) assert.fail(`turn mcp exited (${child.exitCode}) without answering ${id}`);
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  const send = (m: unknown): boolean => child.stdin.write(JSON.stringify(m) + '\n');
  send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 't', version: '1' } } });
  await answerTo(1);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  return { child, send, answerTo, answers, sendText: (line: string) => child.stdin.write(line + '\n'), next: () => new Promise<void>((resolve) => waiters.push(resolve)) };
}

test('a message over the size bound is answered with a protocol error, and the server goes on', async () => {
  const { child, send, answerTo } = await rawServer();
  try {
    // 17 MiB: over the 16 MiB bound (the SDK's own reader threw at 10 MB and the server exited 0)
    send({ jsonrpc: '2.0', method: 'tools/call', params: { name: 'deep', arguments: { value: 'x'.repeat(17 * 1024 * 1024) } }, id: 2 });
    const over = await answerTo(2);
    assert.equal((over.error as { code: number }).code, -32600);
    assert.match((over.error as { message: string }).message, /over 16,777,216, the most one message to this server may be/);
    send({ jsonrpc: '2.0', id: 3, method: 'ping' });
    assert.deepEqual((await answerTo(3)).result, {});
  } finally {
    child.kill();
  }
});

test('the caller\'s answer is outside data: a sampling reply nested 5,000 deep fails the call at its line, and a plain one is used', async () => {
  const { child, send, sendText, answerTo, answers, next } = await rawServer({ sampling: {} });
  try {
    const asked = async (): Promise<Record<string, unknown>> => {
      for (;;) {
        const request = answers.find((a) => a.method === 'sampling/createMessage' && !(a as { seen?: boolean }).seen);
        if (request) return Object.assign(request, { seen: true });
        await next();
      }
    };
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ask_model', arguments: { q: 'hi' } } });
    const first = await asked();
    const deep = '{"d":'.repeat(5000) + '1' + '}'.repeat(5000);
    sendText(`{"jsonrpc":"2.0","id":${JSON.stringify(first.id)},"result":{"role":"assistant","content":{"type":"text","text":"deep"},"model":"m","_meta":{"x":${deep}}}}`);
    const failed = (await answerTo(2)).result as CallToolResult;
    assert.equal(failed.isError, true);
    assert.match(text(failed), /^agent\.tn:\d+:\d+: .*the answer to mcp_sample is nested more than 1000 levels deep/);
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'ask_model', arguments: { q: 'hi' } } });
    const second = await asked();
    send({ jsonrpc: '2.0', id: second.id, result: { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' } });
    assert.equal(text((await answerTo(3)).result as CallToolResult), 'model: hello');
  } finally {
    child.kill();
  }
});

test('no call file outlives its call, and a crashed server\'s folder is removed at the next start', async () => {
  // a folder as a SIGKILLed turn mcp leaves it: its pid no longer runs
  const gone = spawn(process.execPath, ['-e', '']);
  const deadPid = await new Promise<number>((resolve) => gone.on('exit', () => resolve(gone.pid!)));
  const leftover = path.join(tmp, `turn-mcp-${deadPid}-crash1`);
  fs.mkdirSync(leftover);
  fs.writeFileSync(path.join(leftover, 'call-7.tn'), 'return "the caller\'s arguments";');
  // a small program, so that 3,000 calls (each a run) take seconds
  const small = path.join(dir, 'small.tn');
  fs.writeFileSync(small, 'return { "tag": turn(label: Str) -> Str { return label; } };\n');
  const { client, pid } = await connect([], {}, small);
  try {
    assert.equal(fs.existsSync(leftover), false, 'the crashed server\'s folder was removed at start-up');
    const calls = 3000;
    for (let i = 0; i < calls; i++) {
      const r = (await client.callTool({ name: 'tag', arguments: { label: `n${i}` } })) as CallToolResult;
      assert.equal(text(r), `n${i}`);
      assert.deepEqual(fs.readdirSync(scratchOf(pid())!), [], `no file after call ${i + 1}`);
    }
  } finally {
    await client.close();
  }
});

test.after(() => {
  sink.close();
});
