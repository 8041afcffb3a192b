// `turn mcp` sends a run's value to the client: a secret the program rebuilt from pieces (each
// piece too short to be recognized on its own) was redacted when printed (a log message) but sent
// in clear as the tool's result, in its structured content, and in a failure. Driven with the
// official SDK client, as an MCP host would.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LoggingMessageNotificationSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BIN } from '../cli/run-cli.js';

const SECRET = 'ghp_Zq81vN0pLx5Rt7Wm2Yc4Hb9Kd3Fg6Js';
const OPENAI = 'sk-proj-Mn4Bv7Cx1Zl9Kj3Hg5Fd8Sa2Qw6Er0Ty';
/** `s` as a Turn expression joining pieces of 4 characters (none of them a form the redactor knows). */
const rebuilt = (s: string): string => (s.match(/.{1,4}/g) ?? []).map((p) => JSON.stringify(p)).join(' + ');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-redact-serve-'));
const served = path.join(dir, 'leaky.tn');
fs.writeFileSync(
  served,
  `struct Leak { key: Str, note: Str }

return {
    "leak": turn() -> Str { return "the key: " + ${rebuilt(SECRET)}; },
    "leak_struct": turn() -> Leak { return Leak { key: ${rebuilt(SECRET)}, note: "structured" }; },
    "leak_error": turn() -> Str { throw {"type": "Leak", "message": "failed with " + ${rebuilt(SECRET)}}; },
    "leak_printed": turn() -> Str { call("echo", "printed " + ${rebuilt(SECRET)}); return "ok"; },
    "leak_provider_key": turn() -> Str { return ${rebuilt(OPENAI)}; },
};
`,
);

let client: Client;
const logs: unknown[] = [];
async function connected(): Promise<Client> {
  if (client) return client;
  client = new Client({ name: 'turn-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', served, '--model', 'mock'],
      cwd: dir,
      env: { ...process.env, TURN_SECRET_LEAK: SECRET, OPENAI_API_KEY: OPENAI },
      stderr: 'pipe',
    }),
  );
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params.data));
  return client;
}
after(async () => {
  await client?.close();
});

const call = async (name: string): Promise<CallToolResult> => (await (await connected()).callTool({ name, arguments: {} })) as CallToolResult;
/** Everything the client received for a reply, as one text. */
const all = (r: CallToolResult): string => JSON.stringify(r);

test('a secret rebuilt from pieces reaches the MCP client redacted in a tool\'s result', async () => {
  const r = await call('leak');
  assert.equal(r.isError, undefined);
  assert.deepEqual(r.content, [{ type: 'text', text: 'the key: «redacted:LEAK»' }]);
  assert.ok(!all(r).includes(SECRET));
});

test('... and in its structured content', async () => {
  const r = await call('leak_struct');
  assert.deepEqual(r.structuredContent, { key: '«redacted:LEAK»', note: 'structured' });
  assert.ok(!all(r).includes(SECRET), all(r));
});

test('... and in a failure', async () => {
  const r = await call('leak_error');
  assert.equal(r.isError, true);
  assert.match(all(r), /failed with «redacted:LEAK»/);
  assert.ok(!all(r).includes(SECRET), all(r));
});

test('... and in what the run printed: the reply\'s content and the log messages', async () => {
  const r = await call('leak_printed');
  assert.match(all(r), /printed «redacted:LEAK»/);
  assert.ok(!all(r).includes(SECRET), all(r));
  assert.ok(logs.includes('printed «redacted:LEAK»'), JSON.stringify(logs));
  assert.ok(!JSON.stringify(logs).includes(SECRET));
});

test('a provider\'s key the served program rebuilds is redacted though the model (mock) does not use it', async () => {
  const r = await call('leak_provider_key');
  assert.deepEqual(r.content, [{ type: 'text', text: '«redacted:OPENAI_API_KEY»' }]);
});
