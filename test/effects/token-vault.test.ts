// The vault's writable side, for what the host obtains itself (OAuth tokens, runtime/mcp/oauth):
// the CLI's token file (owner-only, replaced whole), and a chain of vaults that saves to the first
// that can write and reads the saved value back before an older one a vault ahead of it holds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChainVault, EnvVault, MemoryVault, RedactingVault, Redactor, TokenFileVault, VaultError, tokensFile } from '../../runtime/effects/vault.js';

test('the token file is created owner-only in an owner-only folder, replaced whole, and read back', { skip: process.platform === 'win32' ? 'POSIX modes' : false }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-tokens-'));
  const file = path.join(dir, 'state', 'tokens.json');
  const v = new TokenFileVault(file);
  assert.equal(await v.resolve('oauth:svc'), undefined, 'no file: nothing kept');
  await v.save('oauth:svc', '{"v":1}');
  await v.save('oauth:other', 'two');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
  assert.equal(await new TokenFileVault(file).resolve('oauth:svc'), '{"v":1}');
  assert.deepEqual((await v.list()).map((e) => e.name), ['oauth:other', 'oauth:svc']);
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['tokens.json'], 'no temporary file left');
  assert.equal(tokensFile({ TURN_TOKENS_FILE: file }), file);
});

test('attack: a token file other users can read or write is refused, and so is one that is not a JSON object', { skip: process.platform === 'win32' ? 'POSIX modes' : false }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-tokens-'));
  const file = path.join(dir, 'tokens.json');
  fs.writeFileSync(file, '{"oauth:svc": "x"}', { mode: 0o644 });
  fs.chmodSync(file, 0o644);
  await assert.rejects(new TokenFileVault(file).resolve('oauth:svc'), (e: Error) => e instanceof VaultError && /accessible to other users; refusing to use it\. Run: chmod 600/.test(e.message));
  fs.chmodSync(file, 0o600);
  fs.writeFileSync(file, '["oauth:svc"]');
  await assert.rejects(new TokenFileVault(file).resolve('oauth:svc'), /is not a JSON object/);
});

test('a chain saves to its first writable vault and answers the saved value before an older one ahead of it; the redactor learns it', async () => {
  const memory = new MemoryVault({});
  const redactor = new Redactor();
  const chain = new RedactingVault(new ChainVault([new EnvVault({ TURN_SECRET_OAUTH_SVC: 'stale-token-value' }), memory]), redactor);
  await chain.save('oauth:svc', 'fresh-token-value');
  assert.equal(await memory.resolve('oauth:svc'), 'fresh-token-value');
  assert.equal(await chain.resolve('oauth:svc'), 'fresh-token-value');
  assert.equal(redactor.redact('x fresh-token-value y'), 'x «redacted:oauth:svc» y');
  await assert.rejects(new ChainVault([new EnvVault({})]).save('oauth:svc', 'v'), /no vault can keep "oauth:svc"/);
});
