// `turn mcp FILE`: a Turn program's closures served as MCP tools, called by the official SDK's
// client over stdio (as VS Code's agent mode or Claude Desktop launch it) and over Streamable HTTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN, turnAsync } from '../cli/run-cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-serve-'));
const served = path.join(dir, 'agent.tn');
fs.writeFileSync(
  served,
  `struct Forecast { city: Str, celsius: Num, outlook: "sun" | "rain" }

let forecast = turn(city: Str, days: Num) -> Forecast {
    call("echo", "forecasting " + city);
    return Forecast { city: city, celsius: 20 + days, outlook: "sun" };
};

return {
    "greet": turn(name: Str) -> Str { return "hello " + name; },
    "forecast": forecast,
    "notes": turn() -> Str { return call("fs_read", "notes.txt"); },
    "fail": turn(why: Str) -> Str { throw {"type": "Refused", "message": why}; },
};
`,
);
fs.writeFileSync(path.join(dir, 'notes.txt'), 'the notes');

async function connect(args: string[]): Promise<Client> {
  const client = new Client({ name: 'turn-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', served, ...args], cwd: dir, stderr: 'pipe' }));
  return client;
}

const text = (r: CallToolResult): string => r.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');

test('the SDK client lists the closures as tools with schemas from their types, and calls them', async () => {
  const client = await connect(['--allow-read', dir]);
  try {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), ['greet', 'forecast', 'notes', 'fail']);
    const forecast = tools.find((t) => t.name === 'forecast')!;
    assert.deepEqual(forecast.inputSchema, { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties: { city: { type: 'string' }, days: { type: 'number' } }, required: ['city', 'days'], additionalProperties: false });
    assert.deepEqual(forecast.outputSchema?.required, ['city', 'celsius', 'outlook']);
    assert.deepEqual((forecast.outputSchema?.properties as Record<string, unknown>).outlook, { type: 'string', enum: ['sun', 'rain'] });

    assert.equal(text((await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })) as CallToolResult), 'hello Ada');
    const logs: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
    const f = (await client.callTool({ name: 'forecast', arguments: { city: 'Oslo', days: 2 } })) as CallToolResult;
    // the SDK client validates structuredContent against the listed output schema itself
    assert.deepEqual(f.structuredContent, { city: 'Oslo', celsius: 22, outlook: 'sun' });
    assert.deepEqual(logs, ['forecasting Oslo'], 'what the run prints is a log message');
    // each call is a run with the capabilities of the command line (--allow-read DIR)
    assert.equal(text((await client.callTool({ name: 'notes', arguments: {} })) as CallToolResult), 'the notes');
    const failed = (await client.callTool({ name: 'fail', arguments: { why: 'no reason' } })) as CallToolResult;
    assert.equal(failed.isError, true);
    assert.match(text(failed), /no reason/);
    // a missing argument is the caller's error, answered before any run (invalid params)
    await assert.rejects(client.callTool({ name: 'greet', arguments: {} }), (e: { code?: number; message: string }) => e.code === -32602 && /must have required property 'name'/.test(e.message));
  } finally {
    await client.close();
  }
});

test('a call runs with only the capabilities given on the command line', async () => {
  const client = await connect([]);
  try {
    const r = (await client.callTool({ name: 'notes', arguments: {} })) as CallToolResult;
    assert.equal(r.isError, true);
    assert.match(text(r), /file read access to .*notes\.txt is not granted/);
  } finally {
    await client.close();
  }
});

test('turn mcp --port serves Streamable HTTP on 127.0.0.1 to a client with the token it printed', async () => {
  const child = spawn(process.execPath, [BIN, 'mcp', served, '--port', '0'], { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  try {
    const { url, token } = await new Promise<{ url: string; token: string }>((resolve, reject) => {
      let said = '';
      child.stderr.on('data', (c: Buffer) => {
        said += c.toString();
        // the token is printed before the line that says serving has begun
        const m = /over MCP \((http:\/\/127\.0\.0\.1:\d+\/mcp)\)/.exec(said);
        if (m) resolve({ url: m[1], token: /Authorization: Bearer (\S+)\n/.exec(said)?.[1] ?? '' });
      });
      child.on('exit', () => reject(new Error(`turn mcp exited: ${said}`)));
    });
    const client = new Client({ name: 'turn-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    try {
      assert.equal(text((await client.callTool({ name: 'greet', arguments: { name: 'HTTP' } })) as CallToolResult), 'hello HTTP');
    } finally {
      await client.close();
    }
  } finally {
    child.kill('SIGTERM');
  }
});

test('a file that does not return a map of closures is refused with a located message', async () => {
  const bad = path.join(dir, 'bad.tn');
  fs.writeFileSync(bad, 'let x = 1;\nreturn {"x": x};\n');
  const r = await turnAsync(['mcp', bad], { cwd: dir });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /bad\.tn:2:\d+: "x" must be a closure to be served as a tool/);
});
