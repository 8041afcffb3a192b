// 2026-07-28 over stdio, Turn's client side (runtime/mcp/stdio-revision.ts, session.ts): a launch
// map's `"protocol": "auto"` asks the launched server `server/discover` and speaks 2026-07-28 to one
// that offers it (the official 2.x SDK's stdio entry, fixtures/modern-stdio-server.mjs, as a real
// child process), 2025-11-25 to any other on the same process (one that exits on the question is
// launched again; one that never answers is waited for only the probe's bound); `"2026-07-28"`
// pins it and refuses a server that does not offer it; no `protocol` asks nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { capabilitiesFromFlags } from '../../runtime/effects/capabilities.js';
import { McpSession, type ServerRequests } from '../../runtime/mcp/session.js';
import { McpError, serverSpec } from '../../runtime/mcp/server.js';

const NODE = process.execPath;
const MODERN = path.join(__dirname, 'fixtures', 'modern-stdio-server.mjs');
const LEGACY = path.join(__dirname, 'fixtures', 'hostile-server.mjs'); // the 1.x SDK's server: "method not found" before initialize
const authority = { capabilities: capabilitiesFromFlags({ allowRun: [NODE] }, process.cwd()), cwd: process.cwd(), env: {}, writtenLaunches: { has: () => true } };
const text = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

/** A hand-written 2025-11-25 server (no SDK): `silent` ignores a request it does not know, `exits` ends on one before initialize. */
function handWritten(kind: 'silent' | 'exits'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-stdio-revision-'));
  const file = path.join(dir, 'server.cjs');
  fs.writeFileSync(
    file,
    `const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
let buf = '';
process.stdin.on('data', (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buf.slice(0, i)); buf = buf.slice(i + 1);
    if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'old', version: '1' } } });
    else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'pid', inputSchema: { type: 'object' } }] } });
    else if (m.method === 'tools/call') send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: String(process.pid) }] } });
    else if (${JSON.stringify(kind)} === 'exits' && m.id !== undefined) process.exit(1);
  }
});
`,
  );
  return file;
}

test('"protocol": "auto" speaks 2026-07-28 to the 2.x SDK\'s stdio server: tools listed and called, input_required answered by the operator and retried', async () => {
  const asked: string[] = [];
  const requests: ServerRequests = { roots: () => [], elicit: async (q) => (asked.push(q.message), { action: 'accept', content: { go: true } }) };
  const session = await McpSession.open(serverSpec({ command: NODE, args: [MODERN], protocol: 'auto' }), authority, undefined, { requests });
  try {
    assert.equal(session.revision, '2026-07-28');
    assert.deepEqual((await session.listTools()).map((t) => t.name), ['echo', 'confirm', 'pid']);
    assert.equal(text(await session.callTool('echo', { text: 'hi' })), 'hi (on 2026-07-28)');
    assert.equal(text(await session.callTool('confirm', {})), 'go=true');
    assert.deepEqual(asked, ['Go on?']);
    assert.equal(text(await session.callTool('pid', {})), String(session.pid), 'one process: the one the question was asked of');
  } finally {
    await session.close();
  }
  // pinned, the same
  const pinned = await McpSession.open(serverSpec({ command: NODE, args: [MODERN], protocol: '2026-07-28' }), authority);
  assert.equal(pinned.revision, '2026-07-28');
  await pinned.close();
});

test('"protocol": "auto" speaks 2025-11-25 to a server that does not offer 2026-07-28: an SDK 1.x server on the same process, a silent one after the probe\'s bound, one that exits on the question launched again', async () => {
  const legacy = await McpSession.open(serverSpec({ command: NODE, args: [LEGACY], protocol: 'auto' }), authority);
  try {
    assert.equal(legacy.revision, '2025-11-25');
    assert.equal(text(await legacy.callTool('pid', {})), String(legacy.pid), 'the process asked is the one used');
  } finally {
    await legacy.close();
  }
  for (const kind of ['silent', 'exits'] as const) {
    const session = await McpSession.open(serverSpec({ command: NODE, args: [handWritten(kind)], protocol: 'auto' }), authority, undefined, { stdioProbeTimeoutMs: 300 });
    try {
      assert.equal(session.revision, '2025-11-25', kind);
      assert.equal(text(await session.callTool('pid', {})), String(session.pid), kind);
    } finally {
      await session.close();
    }
  }
});

test('attack: "protocol": "2026-07-28" refuses a server that does not offer it, naming why; the default asks nothing; an unknown protocol is refused', async () => {
  await assert.rejects(McpSession.open(serverSpec({ command: NODE, args: [LEGACY], protocol: '2026-07-28' }), authority), (e: Error) => e instanceof McpError && /its launch map asks for protocol 2026-07-28, and the server does not offer it \(server\/discover\)$/.test(e.message));
  await assert.rejects(McpSession.open(serverSpec({ command: NODE, args: [handWritten('exits')], protocol: '2026-07-28' }), authority, undefined, { stdioProbeTimeoutMs: 300 }), /the server exited when asked server\/discover/);
  // no protocol: 2025-11-25 at once, even to a server that would speak 2026-07-28
  const plain = await McpSession.open(serverSpec({ command: NODE, args: [MODERN] }), authority);
  assert.equal(plain.revision, '2025-11-25');
  assert.equal(text(await plain.callTool('echo', { text: 'old' })), 'old (on 2025-11-25)');
  await plain.close();
  assert.throws(() => serverSpec({ command: NODE, args: [MODERN], protocol: '2027-01-01' }), /"protocol" of an MCP launch map must be one of "2025-11-25", "2026-07-28", "auto"/);
});
