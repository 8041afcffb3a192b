// The sign-in from a Turn program through the run API, driven without a person (the editor passes
// its opener the same way): the program holds `identity::oauth("svc")` only; the token is kept in
// the vault and never reaches the program, its output or the trace, even when the server echoes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRun } from '../../../runtime/run/index.js';
import { MemoryVault } from '../../../runtime/effects/vault.js';
import { authServer, headlessBrowser, mcpServer } from './servers.js';

test('a program signs in with identity::oauth through the run API\'s opener; the token never reaches its output or its events', async () => {
  const as = await authServer();
  const rs = await mcpServer(as);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-oauth-run-'));
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(file, `let svc = grant identity::oauth("svc");\nlet r = call("mcp_call", svc, "${rs.url}/mcp", "whoami", {}, {});\ncall("echo", r["text"]);\nreturn r["text"];\n`);
  const vault = new MemoryVault({});
  const opened: string[] = [];
  const lines: string[] = [];
  const events: string[] = [];
  try {
    const run = await startRun({ file, cwd: dir, model: 'mock', fetchSchemas: false, authority: { allowNet: ['127.0.0.1:*'], vault, oauth: { openUrl: headlessBrowser(opened) } }, onOutput: (l) => lines.push(l), onEvent: (e) => events.push(JSON.stringify(e)) });
    const result = await run.start();
    assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 400));
    assert.equal(opened.length, 1);
    const token = [...as.issued.keys()][0];
    assert.match(token, /^at-/);
    assert.deepEqual(lines, ['you sent Bearer «redacted:oauth:svc»']);
    const everything = JSON.stringify(result) + lines.join('\n') + events.join('\n');
    assert.ok(!everything.includes(token), 'the token is nowhere the program or the trace can show');
    assert.ok(events.length > 0);
    assert.match((vault as unknown as { secrets: Record<string, string> }).secrets['oauth:svc'], new RegExp(token));
  } finally {
    as.close();
    rs.close();
  }
});

test('the time a person takes to sign in does not count against the tool call\'s time limit', async () => {
  const as = await authServer();
  const rs = await mcpServer(as);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-oauth-run-'));
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(file, `let r = call("mcp_call", grant identity::oauth("svc"), "${rs.url}/mcp", "whoami", {}, {});\ncall("echo", r["text"]);\n`);
  const lines: string[] = [];
  // the person takes twice the limit before the browser comes back
  const slowPerson = async (url: string) => {
    await new Promise((r) => setTimeout(r, 4000));
    await headlessBrowser([])(url);
  };
  try {
    const run = await startRun({ file, cwd: dir, model: 'mock', fetchSchemas: false, toolTimeoutMs: 2000, authority: { allowNet: ['127.0.0.1:*'], vault: new MemoryVault({}), oauth: { openUrl: slowPerson } }, onOutput: (l) => lines.push(l) });
    const result = await run.start();
    assert.equal(result.kind, 'done', JSON.stringify(result).slice(0, 400));
    assert.deepEqual(lines, ['you sent Bearer «redacted:oauth:svc»']);
  } finally {
    as.close();
    rs.close();
  }
});
