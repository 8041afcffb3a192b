// A server that writes a progress notification and the reply that follows it in one chunk (as a
// fast server does under load): the client still sees the notification. The SDK runs a
// notification's handler a microtask later but settles a reply at once, so handing both to it in one
// go lost the notification (seen as a missing last progress event of server-everything).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { LaunchedStdioTransport } from '../../runtime/mcp/stdio.js';

// Answers initialize, lists one tool, and answers tools/call with two progress notifications and the
// result in a single write.
const SERVER = `
let buf = '';
const send = (...ms) => process.stdout.write(ms.map((m) => JSON.stringify(m) + '\\n').join(''));
process.stdin.on('data', (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'one-chunk', version: '1' } } });
    else if (m.method === 'tools/call') {
      const token = m.params._meta.progressToken;
      send(
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } },
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: 2, total: 2 } },
        { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'done' }] } },
      );
    }
  }
});
`;

test('progress notifications written in the same chunk as the reply all reach the client', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-order-'));
  const script = path.join(dir, 'server.js');
  fs.writeFileSync(script, SERVER);
  const transport = new LaunchedStdioTransport({ file: process.execPath, args: [script], env: {}, cwd: dir });
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(transport);
  try {
    for (let round = 0; round < 5; round++) {
      const seen: number[] = [];
      const r = await client.callTool({ name: 'slow', arguments: {} }, undefined, { onprogress: (p) => seen.push(p.progress) });
      assert.deepEqual(r.content, [{ type: 'text', text: 'done' }]);
      assert.deepEqual(seen, [1, 2], `round ${round}`);
    }
  } finally {
    await client.close();
  }
});
