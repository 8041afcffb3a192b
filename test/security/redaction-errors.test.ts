// The CLI's own error messages (a usage error, an internal error) quote what they failed on; a
// provider key pasted in the wrong place was printed back in clear on standard error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { turnAsync } from '../cli/run-cli.js';

const KEY = 'sk-ant-api03-Wq3Er5Ty7Ui9Op1As';

test('a usage error quoting a provider key (or a TURN_SECRET_*) prints it redacted', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-redact-errors-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), 'return 1;\n');
  const r = await turnAsync(['run', 'p.tn', '--max-steps', KEY], { cwd: dir, env: { ANTHROPIC_API_KEY: KEY } });
  assert.equal(r.code, 64, r.stderr);
  assert.match(r.stderr, /--max-steps needs a whole number >= 0, got `«redacted:ANTHROPIC_API_KEY»`/);
  assert.ok(!r.stderr.includes(KEY), r.stderr);
  const s = await turnAsync(['run', 'p.tn', '--tool-timeout', `x${KEY}x`], { cwd: dir, env: { TURN_SECRET_VENDOR: KEY } });
  assert.match(s.stderr, /«redacted:VENDOR»/);
  assert.ok(!s.stderr.includes(KEY), s.stderr);
});
