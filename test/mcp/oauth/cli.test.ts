// The CLI's sign-in: `turn run` prints the authorization URL and opens it with TURN_BROWSER (here
// test/mcp/conformance/browser.mjs, which follows the redirect to Turn's loopback listener as a
// browser would), and keeps the tokens in the token file (TURN_TOKENS_FILE), owner-only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, turnAsync } from '../../cli/run-cli.js';
import { authServer, mcpServer } from './servers.js';

test('turn run signs in through TURN_BROWSER, prints the URL, keeps the tokens in the token file and never prints one', async () => {
  const as = await authServer();
  const rs = await mcpServer(as);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-oauth-cli-'));
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(file, `let svc = grant identity::oauth("svc");\nlet r = call("mcp_call", svc, "${rs.url}/mcp", "whoami", {}, {});\ncall("echo", r["text"]);\n`);
  const tokens = path.join(dir, 'state', 'tokens.json');
  try {
    const r = await turnAsync(['run', file, '--allow-net', '127.0.0.1:*'], {
      cwd: dir,
      env: { TURN_BROWSER: JSON.stringify([process.execPath, path.join(ROOT, 'test', 'mcp', 'conformance', 'browser.mjs')]), TURN_TOKENS_FILE: tokens },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), 'you sent Bearer «redacted:oauth:svc»');
    assert.match(r.stderr, new RegExp(`turn: sign in to continue: ${as.url.replace(/\./g, '\\.')}/authorize\\?`));
    const token = [...as.issued.keys()][0];
    assert.ok(!r.stdout.includes(token) && !r.stderr.includes(token));
    assert.equal(fs.statSync(tokens).mode & 0o777, 0o600);
    assert.match(fs.readFileSync(tokens, 'utf8'), new RegExp(token));
  } finally {
    as.close();
    rs.close();
  }
});
