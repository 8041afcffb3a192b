// Turn's client on both revisions (runtime/mcp/modern-client.ts, session.ts): an HTTP server that
// answers server/discover is spoken to on 2026-07-28 (the 2.x client SDK), any other on
// 2025-11-25 (the 1.x client, as before). On 2026-07-28 a server asks by answering a call with
// input_required; the client answers the embedded requests with the same answerers as
// 2025-11-25's server-initiated ones (the operator for elicitation, the run's model for sampling,
// the grants for roots) and retries with the answers. The servers here are written with the SDKs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpSession, type ServerRequests } from '../../runtime/mcp/session.js';
import { serverSpec } from '../../runtime/mcp/server.js';
import type { ElicitationQuestion } from '../../runtime/mcp/elicitation.js';

/** An HTTP server for a web-standard handler (the 2.x SDK's createMcpHandler). */
async function listen(handle: (req: Request, body: unknown) => Promise<Response>): Promise<{ url: string; close(): void; posts: unknown[] }> {
  const posts: unknown[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const body = text ? (JSON.parse(text) as unknown) : undefined;
        if (body !== undefined) posts.push(body);
        const headers = new Headers();
        for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers.set(k, v);
        const request = new Request(`http://127.0.0.1${req.url}`, { method: req.method, headers, ...(text ? { body: text } : {}) });
        const response = await handle(request, body);
        res.writeHead(response.status, Object.fromEntries(response.headers.entries()));
        res.end(Buffer.from(await response.arrayBuffer()));
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, close: () => server.close(), posts };
}

/** A 2026-07-28 server: `confirm` asks (input_required) whether to go on, `sample` asks the client's model, `where` its roots; `hostile` asks to open a javascript: page. */
async function modernServer() {
  const sdk = await import('@modelcontextprotocol/server');
  const { Server, createMcpHandler, inputRequired, inputResponse } = sdk;
  const factory = () => {
    const server = new Server({ name: 'modern', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', () => ({ tools: ['confirm', 'sample', 'where', 'hostile'].map((name) => ({ name, inputSchema: { type: 'object' as const } })) }));
    server.setRequestHandler('tools/call', (request, ctx) => {
      const responses = ctx.mcpReq.inputResponses;
      switch (request.params.name) {
        case 'confirm': {
          const answer = inputResponse(responses, 'ok');
          if (answer.kind === 'missing') return inputRequired({ inputRequests: { ok: inputRequired.elicit({ message: 'Go on?', requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } }, required: ['go'] } }) } });
          return { content: [{ type: 'text', text: answer.kind === 'elicit' && answer.action === 'accept' ? `go=${String(answer.content?.go)}` : `answered ${answer.kind === 'elicit' ? answer.action : answer.kind}` }] };
        }
        case 'sample': {
          const answer = inputResponse(responses, 's');
          if (answer.kind === 'missing') return inputRequired({ inputRequests: { s: inputRequired.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 50 }) } });
          return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
        }
        case 'where': {
          const answer = inputResponse(responses, 'r');
          if (answer.kind === 'missing') return inputRequired({ inputRequests: { r: inputRequired.listRoots() } });
          return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
        }
        default: {
          const answer = inputResponse(responses, 'page');
          if (answer.kind === 'missing') return inputRequired({ inputRequests: { page: inputRequired.elicitUrl({ message: 'open this', url: 'javascript:alert(1)' }) } });
          return { content: [{ type: 'text', text: 'the page was opened' }] };
        }
      }
    });
    return server;
  };
  const handler = createMcpHandler(factory, { legacy: 'reject' });
  return listen((req, body) => handler.fetch(req, { parsedBody: body }));
}

/** A 2025-11-25 server (the 1.x SDK, stateless Streamable HTTP). */
async function legacyServer() {
  const { Server } = await import('@modelcontextprotocol/sdk/server/index.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { ListToolsRequestSchema, CallToolRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  const posts: unknown[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown) : undefined;
        if (body !== undefined) posts.push(body);
        const s = new Server({ name: 'legacy', version: '1.0.0' }, { capabilities: { tools: {} } });
        s.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' as const } }] }));
        s.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'echoed' }] }));
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await s.connect(transport);
        await transport.handleRequest(req, res, body);
      })().catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, close: () => server.close(), posts };
}

const authority = { capabilities: { network: { hosts: ['127.0.0.1'] } }, cwd: process.cwd(), env: {}, writtenLaunches: new Set<string>() };

test('2026-07-28: the client negotiates the revision, and answers input_required with the operator, the model and the grants, then retries', async () => {
  const served = await modernServer();
  const asked: ElicitationQuestion[] = [];
  const requests: ServerRequests = {
    roots: () => [{ uri: 'file:///granted', name: 'granted' }],
    elicit: async (q) => (asked.push(q), { action: 'accept', content: { go: true } }),
    sample: async (ask) => ({ text: `model saw: ${ask.transcript}`, model: 'mock' }),
  };
  const session = await McpSession.open(serverSpec(served.url), authority, undefined, { requests });
  try {
    assert.equal(session.revision, '2026-07-28');
    assert.deepEqual((await session.listTools()).map((t) => t.name), ['confirm', 'sample', 'where', 'hostile']);
    const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;
    assert.equal(text(await session.callTool('confirm', {})), 'go=true');
    assert.equal(asked.length, 1);
    assert.equal(asked[0].message, 'Go on?');
    assert.match(text(await session.callTool('sample', {})), /model saw: user: Say hi/);
    assert.match(text(await session.callTool('where', {})), /file:\/\/\/granted/);
    // a javascript: page is refused before anyone is asked; the call fails, nothing was answered
    await assert.rejects(session.callTool('hostile', {}), /only http and https pages/);
    assert.equal(asked.length, 1, 'the operator was not asked about the hostile page');
    // every request carried the revision's envelope; none was an initialize
    assert.ok(served.posts.every((p) => (p as { method?: string }).method !== 'initialize'));
  } finally {
    await session.close();
    served.close();
  }
});

test('2026-07-28 without a model: a sampling request embedded in input_required is refused, not answered', async () => {
  const served = await modernServer();
  const session = await McpSession.open(serverSpec(served.url), authority, undefined, { requests: { roots: () => [], elicit: async () => ({ action: 'decline' }) } });
  try {
    await assert.rejects(session.callTool('sample', {}), /no model to sample with/);
  } finally {
    await session.close();
    served.close();
  }
});

test('a 2025-11-25 server is spoken to as before (initialize), after one server/discover it does not know', async () => {
  const served = await legacyServer();
  const session = await McpSession.open(serverSpec(served.url), authority, undefined, {});
  try {
    assert.equal(session.revision, '2025-11-25');
    assert.equal(((await session.callTool('echo', {})).content[0] as { text: string }).text, 'echoed');
    const methods = served.posts.map((p) => (p as { method?: string }).method);
    assert.equal(methods[0], 'server/discover');
    assert.ok(methods.includes('initialize'), methods.join(', '));
  } finally {
    await session.close();
    served.close();
  }
});

test("a durable run's MCP call carries its journal key as turn/idempotency-key; a run without a store sends none", async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const path = await import('node:path');
  const { turnAsync } = await import('../cli/run-cli.js');
  const { NODE } = await import('./servers.js');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-key-'));
  const server = JSON.stringify({ command: NODE, args: [path.join(__dirname, 'fixtures', 'meta-server.mjs')] });
  fs.writeFileSync(path.join(dir, 'key.tn'), `let r = call("mcp_call", null, ${server}, "meta", {}, {});\ncall("echo", r["text"]);\n`);
  const durable = await turnAsync(['run', 'key.tn', '--store', path.join(dir, 'store'), '--allow-run', NODE], { cwd: dir, env: {} });
  assert.equal(durable.code, 0, durable.stderr);
  const key = durable.stdout.trim();
  assert.notEqual(key, 'none');
  // the key a server deduplicates by: printable, at most 256 characters (serve-next/call-key.ts)
  assert.match(key, /^[\x21-\x7e]{1,256}$/);
  const plain = await turnAsync(['run', 'key.tn', '--allow-run', NODE], { cwd: dir, env: {} });
  assert.equal(plain.code, 0, plain.stderr);
  assert.equal(plain.stdout.trim(), 'none');
});
