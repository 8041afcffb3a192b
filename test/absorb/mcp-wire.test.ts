// Issue 38 for MCP: a tool whose input and output property names are not Turn names (`type`, a Turn
// keyword; `first-name`, not an identifier), nested in an object and in a list, against a real MCP
// server built on the official SDK (Streamable HTTP on 127.0.0.1). The program writes `type_` and
// `first_name`; the server receives `type` and `first-name` at every depth, and what it answers under
// those names (its structured content, validated against the output schema) reads back as `type_`
// and `first_name`. Optional arguments left out are not sent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { RunResult } from '../../runtime/index.js';
import { runAbsorbed } from './run-absorbed.js';

const person = { type: 'object', properties: { 'first-name': { type: 'string' }, type: { type: 'string' } }, required: ['first-name'] };
const TOOL = {
  name: 'file_issue',
  description: 'Files an issue.',
  inputSchema: {
    type: 'object',
    properties: {
      title: { type: 'string' },
      owner: person,
      type: { type: 'string' },
      'first-name': { type: 'string' },
      labels: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' }, 'first-name': { type: 'string' } }, required: ['type'] } },
    },
    required: ['title', 'owner'],
  },
  outputSchema: {
    type: 'object',
    properties: {
      id: { type: 'number' },
      type: { type: 'string' },
      'first-name': { type: 'string' },
      owner: person,
      tags: { type: 'array', items: { type: 'object', properties: { type: { type: 'string' } }, required: ['type'] } },
    },
    required: ['id', 'type', 'owner', 'tags'],
  },
};

/** the arguments of every tools/call, as the server received them */
const received: Record<string, unknown>[] = [];
let httpServer: http.Server;
let url = '';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-wire-'));

before(async () => {
  httpServer = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as unknown) : undefined;
      const server = new Server({ name: 'issues', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [TOOL] }));
      server.setRequestHandler(CallToolRequestSchema, (request) => {
        const args = (request.params.arguments ?? {}) as { owner: Record<string, unknown>; type?: string; labels?: { type: string }[] };
        received.push(args);
        const structured = { id: received.length, type: args.type ?? 'issue', 'first-name': args.owner['first-name'], owner: args.owner, tags: (args.labels ?? []).map((l) => ({ type: l.type })) };
        return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
      });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      res.setHeader('connection', 'close');
      await transport.handleRequest(req, res, body);
    })();
  });
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(httpServer.address() as AddressInfo).port}/mcp`;
  // the tools/list the program absorbs, as the SDK's client lists it from the server
  const client = new Client({ name: 'lister', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  fs.writeFileSync(path.join(dir, 'issues.json'), JSON.stringify(await client.listTools()));
  await client.close();
});
after(() => httpServer?.close());

function run(name: string, body: string): Promise<{ result: RunResult; lines: string[] }> {
  return runAbsorbed(dir, name, `let issues = use schema::mcp("issues.json");\nlet srv = issues.client("${url}");\n${body}`);
}

test('renamed argument names go out as the spec names them, nested in an object and a list; the structured result reads back under Turn names', { timeout: 60_000 }, async () => {
  received.length = 0;
  const { result, lines } = await run('file.tn', `
let owner = FileIssueOwner { first_name: "Ada", type_: "user" };
let r = srv.file_issue(null, "Crash", owner, "bug", "Grace", [FileIssueLabelsItem { type_: "crash", first_name: "Linus" }, FileIssueLabelsItem { type_: "ui" }]);
call("echo", r.type_ + " " + r.first_name + " " + r.owner.first_name + " " + r.owner.type_);
call("echo", r.tags[0].type_ + " " + r.tags[1].type_);
let plain = srv.file_issue(null, "Hang", FileIssueOwner { first_name: "Edsger" });
call("echo", plain.type_ + " " + plain.first_name + " " + call("len", plain.tags));
`);
  assert.equal(result.kind, 'done', JSON.stringify(result));
  assert.deepEqual(received, [
    { title: 'Crash', owner: { 'first-name': 'Ada', type: 'user' }, type: 'bug', 'first-name': 'Grace', labels: [{ type: 'crash', 'first-name': 'Linus' }, { type: 'ui' }] },
    { title: 'Hang', owner: { 'first-name': 'Edsger' } },
  ]);
  assert.deepEqual(lines, ['bug Ada Ada user', 'crash ui', 'issue Edsger 0']);
});
