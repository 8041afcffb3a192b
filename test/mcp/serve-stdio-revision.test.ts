// 2026-07-28 over stdio, the server side: `turn mcp FILE` on standard input/output serves the
// revision the client opens with (runtime/mcp/serve/stdio-opening.ts): the official 2.x SDK client
// pinned to 2026-07-28 (its stdio transport, `turn mcp` a real child process) discovers it and
// calls a tool; the 1.x client's `initialize` is served on 2025-11-25 as before; and Turn's own
// client with `"protocol": "auto"` finds 2026-07-28 there. Arguments are validated on both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { capabilitiesFromFlags } from '../../runtime/effects/capabilities.js';
import { McpSession } from '../../runtime/mcp/session.js';
import { serverSpec } from '../../runtime/mcp/server.js';
import { BIN } from '../cli/run-cli.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-serve-stdio-revision-'));
const served = path.join(dir, 'served.tn');
fs.writeFileSync(
  served,
  `struct Sum {
    total: Num
}

return {
    /// Adds two numbers.
    "add": turn(a: Num, b: Num) -> Sum {
        return Sum { total: a + b };
    }
};
`,
);
const text = (r: { content?: unknown }) => ((r.content as Array<{ text?: string }>)[0]?.text ?? '');

test('turn mcp over stdio: the 2.x SDK client pinned to 2026-07-28 discovers it and calls its tool (bad arguments an invalid-params error); the 1.x client is served 2025-11-25', async () => {
  const { Client, ProtocolError } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const client = new Client({ name: 'sdk2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', served], cwd: dir, stderr: 'pipe' }));
  try {
    assert.deepEqual((await client.listTools()).tools.map((t) => t.name), ['add']);
    const r = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    assert.deepEqual(r.structuredContent, { total: 5 });
    await assert.rejects(client.callTool({ name: 'add', arguments: { a: 'two', b: 3 } }), (e: Error) => e instanceof ProtocolError && e.code === -32602 && /\/a/.test(e.message));
  } finally {
    await client.close();
  }
  // and the 1.x client's initialize, on the same command, is served on 2025-11-25 as before
  const legacy = new LegacyClient({ name: 'sdk1', version: '1.0.0' });
  await legacy.connect(new LegacyStdio({ command: process.execPath, args: [BIN, 'mcp', served], cwd: dir, stderr: 'pipe' }));
  try {
    assert.equal(legacy.getServerVersion()?.name, 'turn:served.tn');
    const r = await legacy.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
    assert.deepEqual(r.structuredContent, { total: 2 });
  } finally {
    await legacy.close();
  }
});

test('Turn\'s client with "protocol": "auto" finds 2026-07-28 on turn mcp over stdio', async () => {
  const authority = { capabilities: capabilitiesFromFlags({ allowRun: [process.execPath] }, dir), cwd: dir, env: {}, writtenLaunches: { has: () => true } };
  const session = await McpSession.open(serverSpec({ command: process.execPath, args: [BIN, 'mcp', served], protocol: 'auto' }), authority);
  try {
    assert.equal(session.revision, '2026-07-28');
    assert.match(text(await session.callTool('add', { a: 20, b: 22 })), /42/);
  } finally {
    await session.close();
  }
});
