// An HTTP MCP server that wants a credential: the identity handle's secret goes in Authorization,
// resolved from the vault when the session opens, never shown to the program. The server here is
// the official SDK's Streamable HTTP server transport on 127.0.0.1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { turnAsync } from '../cli/run-cli.js';

test('an identity handle authenticates the MCP session over HTTP; a missing secret is refused before any request', async () => {
  const seen: (string | undefined)[] = [];
  const httpServer = http.createServer((req, res) => {
    void (async () => {
      seen.push(req.headers.authorization);
      if (req.headers.authorization !== 'Bearer sk-mcp-4711') return res.writeHead(401).end();
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString()) as unknown) : undefined;
      const server = new Server({ name: 'guarded', version: '1.0.0' }, { capabilities: { tools: {} } });
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'whoami', inputSchema: { type: 'object' } }] }));
      server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'authenticated' }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      await server.connect(transport);
      await transport.handleRequest(req, res, body);
    })();
  });
  await new Promise<void>((r) => httpServer.listen(0, '127.0.0.1', r));
  const port = (httpServer.address() as AddressInfo).port;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-identity-'));
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(file, `let r = call("mcp_call", grant identity::bearer("mcp"), "http://127.0.0.1:${port}/mcp", "whoami", {}, {});\ncall("echo", r["text"]);\n`);
  try {
    const ok = await turnAsync(['run', file, '--allow-net', `127.0.0.1:${port}`], { cwd: dir, env: { TURN_SECRET_MCP: 'sk-mcp-4711' } });
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout.trim(), 'authenticated');
    assert.ok(seen.length > 0 && seen.every((h) => h === 'Bearer sk-mcp-4711'), 'every request of the session carries it');
    const before = seen.length;
    const missing = await turnAsync(['run', file, '--allow-net', `127.0.0.1:${port}`], { cwd: dir, env: { TURN_SECRET_MCP: undefined } });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /the secret \\"mcp\\" for identity::bearer\(\\"mcp\\"\) is not set/);
    assert.equal(seen.length, before, 'nothing was sent without it');
  } finally {
    httpServer.close();
  }
});
