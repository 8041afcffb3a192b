// A stdio MCP server whose reply to a call is JSON with the call's id but not a JSON-RPC response
// (its `result` a list, a string, null): the SDK drops such a line, so the call used to wait for the
// tool's time limit (30 s) and fail with "took longer than 30 s". It fails at once now, with an error
// that says what the server sent, and the program can catch it. Found by the mcp-result fuzz target.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRun } from '../../runtime/index.js';

const SERVER = `const result = JSON.parse(process.argv[2]);
let buf = '';
const send = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
process.stdin.on('data', (d) => {
  buf += d;
  let i;
  while ((i = buf.indexOf('\\n')) >= 0) {
    const m = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bad', version: '1' } } });
    else if (m.method === 'tools/call') send({ jsonrpc: '2.0', id: m.id, result });
    else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, result: {} });
  }
});
`;

for (const [what, result] of [
  ['a list', [false, null, 1]],
  ['a string', 'done'],
  ['null', null],
] as const) {
  test(`a tool reply whose result is ${what} fails the call at once, catchable, saying what the server sent`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-mcp-malformed-'));
    try {
      const server = path.join(dir, 'server.cjs');
      fs.writeFileSync(server, SERVER);
      const file = path.join(dir, 'p.tn');
      const launch = JSON.stringify({ command: process.execPath, args: [server, JSON.stringify(result)] });
      fs.writeFileSync(file, `try { call("mcp_call", null, ${launch}, "t", {}); } catch (e) { call("echo", e["type"] + ": " + e["message"]); }\n`);
      const lines: string[] = [];
      const t0 = performance.now();
      const run = await startRun({ file, cwd: dir, model: 'mock', fetchSchemas: false, authority: { allowRun: [process.execPath] }, toolTimeoutMs: 20_000, onOutput: (l) => lines.push(l) });
      const outcome = await run.start();
      assert.equal(outcome.kind, 'done', JSON.stringify(outcome).slice(0, 300));
      assert.equal(lines.length, 1, lines.join('\n'));
      assert.match(lines[0], /^EffectError: tools\/call t on .* failed: .*the server's reply is not a valid JSON-RPC response/);
      assert.ok(lines[0].includes(JSON.stringify(result)), lines[0]);
      // well inside the 20 s tool limit the call would otherwise have waited for
      assert.ok(performance.now() - t0 < 10_000, `took ${Math.round(performance.now() - t0)} ms`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}
