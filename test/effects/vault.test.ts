import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  ChainVault, EnvVault, FileVault, MemoryVault, RedactingVault, Redactor, SecretStorageVault, VaultError, parseSecretsFile, secretEnvName,
} from '../../runtime/effects/vault.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-vault-'));

test('secretEnvName upper-cases and writes every non letter/digit as _', () => {
  assert.equal(secretEnvName('github'), 'TURN_SECRET_GITHUB');
  assert.equal(secretEnvName('my-api.key'), 'TURN_SECRET_MY_API_KEY');
  assert.equal(secretEnvName('Open AI 2'), 'TURN_SECRET_OPEN_AI_2');
  assert.equal(secretEnvName('café'), 'TURN_SECRET_CAF_');
});

test('EnvVault resolves TURN_SECRET_<NAME> and lists names, never values', async () => {
  const v = new EnvVault({ TURN_SECRET_GITHUB: 'ghp_abc', TURN_SECRET_MY_KEY: 'k', TURN_SECRET_EMPTY: '', HOME: '/h' });
  assert.equal(await v.resolve('github'), 'ghp_abc');
  assert.equal(await v.resolve('my-key'), 'k');
  assert.equal(await v.resolve('empty'), undefined, 'an empty variable is unset');
  assert.equal(await v.resolve('home'), undefined);
  const list = await v.list();
  assert.deepEqual(list, [{ name: 'GITHUB', source: 'env:TURN_SECRET_GITHUB' }, { name: 'MY_KEY', source: 'env:TURN_SECRET_MY_KEY' }]);
  assert.ok(!JSON.stringify(list).includes('ghp_abc'));
});

test('FileVault reads JSON and dotenv files and matches names like the env rule', async () => {
  const json = path.join(dir, 's.json');
  fs.writeFileSync(json, JSON.stringify({ github: 'from-json', 'TURN_SECRET_STRIPE': 'sk' }), { mode: 0o600 });
  const a = await FileVault.open(json);
  assert.equal(await a.resolve('github'), 'from-json');
  assert.equal(await a.resolve('GITHUB'), 'from-json');
  assert.equal(await a.resolve('stripe'), 'sk');
  assert.equal(await a.resolve('nothing'), undefined);
  assert.deepEqual((await a.list()).map((e) => e.name), ['TURN_SECRET_STRIPE', 'github']);

  const env = path.join(dir, 's.env');
  fs.writeFileSync(env, '# comment\nexport GITHUB=tok1 # trailing\nQUOTED="a b\\nc"\nSINGLE=\'x#y\'\n\n', { mode: 0o600 });
  const b = await FileVault.open(env);
  assert.equal(await b.resolve('github'), 'tok1');
  assert.equal(await b.resolve('quoted'), 'a b\nc');
  assert.equal(await b.resolve('single'), 'x#y');
});

test('FileVault refuses a file other users can read, and says how to fix it', { skip: process.platform === 'win32' }, async () => {
  const f = path.join(dir, 'open.env');
  fs.writeFileSync(f, 'GITHUB=secret-value\n');
  fs.chmodSync(f, 0o644);
  await assert.rejects(FileVault.open(f), (e: Error) => {
    assert.ok(e instanceof VaultError);
    assert.match(e.message, /accessible to other users \(mode 644\).*chmod 600/);
    assert.ok(!e.message.includes('secret-value'));
    return true;
  });
  const lazy = new FileVault(f);
  await assert.rejects(lazy.resolve('github'), VaultError);
  assert.equal(await new FileVault(f, { allowInsecure: true }).resolve('github'), 'secret-value');
  fs.chmodSync(f, 0o600);
  assert.equal(await (await FileVault.open(f)).resolve('github'), 'secret-value');
  await assert.rejects(FileVault.open(path.join(dir, 'missing')), /cannot read secrets file/);
});

test('malformed secrets files are errors that never quote a value', () => {
  assert.throws(() => parseSecretsFile('{"a": 1}'), /value of "a" must be a string/);
  assert.throws(() => parseSecretsFile('{"a": "sec'), (e: Error) => !e.message.includes('sec') || /not valid JSON/.test(e.message));
  assert.throws(() => parseSecretsFile('OK=1\nthis is not a pair\n', 'f.env'), /f\.env:2: expected NAME=value/);
});

test('ChainVault: first vault wins; list merges by normalized name', async () => {
  const c = new ChainVault([new EnvVault({ TURN_SECRET_GITHUB: 'env' }), new MemoryVault({ github: 'mem', other: 'o' })]);
  assert.equal(await c.resolve('github'), 'env');
  assert.equal(await c.resolve('other'), 'o');
  assert.equal(await c.resolve('none'), undefined);
  assert.deepEqual((await c.list()).map((e) => e.source), ['env:TURN_SECRET_GITHUB', 'memory']);
});

test('SecretStorageVault reads turn.secret.<name> from a SecretStorage-like object', async () => {
  const store = new Map([['turn.secret.github', 'ss'], ['other.key', 'x']]);
  const v = new SecretStorageVault({ get: async (k) => store.get(k), keys: async () => [...store.keys()] });
  assert.equal(await v.resolve('github'), 'ss');
  assert.deepEqual(await v.list(), [{ name: 'github', source: 'vscode:SecretStorage' }]);
});

test('Redactor replaces every resolved secret, longest first, in strings and JSON values', async () => {
  const r = new Redactor();
  assert.equal(r.redact('nothing yet'), 'nothing yet');
  const vault = new RedactingVault(new MemoryVault({ github: 'ghp_123', long: 'ghp_123456', re: 'a.b*c' }), r);
  await vault.resolve('github');
  await vault.resolve('long');
  await vault.resolve('re');
  assert.equal(r.redact('token ghp_123456 and ghp_123 and a.b*c, not axbbc'), 'token «redacted:long» and «redacted:github» and «redacted:re», not axbbc');
  assert.deepEqual(r.redactDeep({ h: ['Bearer ghp_123'], n: 1, ghp_123: true }), { h: ['Bearer «redacted:github»'], n: 1, '«redacted:github»': true });
});

test('Redactor redacts a secret in every encoding it travels in: base64 at any offset, URL-encoding, JSON and HTML escapes', () => {
  const r = new Redactor();
  const S = 'q"u\\o t+e/d-tn41';
  r.add('sp', S);
  r.add('jira', 'tn-basic-9f3a7c1e55');
  r.add('jira', 'alice:tn-basic-9f3a7c1e55');
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  for (const form of [
    S,
    JSON.stringify(S),
    JSON.stringify(JSON.stringify(S)),
    JSON.stringify(S).replace(/\//g, '\\/'),
    'q\\u0022u\\u005Co\\u0020t\\u002be\\u002fd\\u002dtn41',
    encodeURIComponent(S),
    encodeURIComponent(encodeURIComponent(S)),
    new URLSearchParams({ k: S }).toString().slice(2),
    encodeURIComponent(S).toLowerCase().replace(/tn41$/, 'tn41'),
    'q&quot;u\\o&#32;t&#x2B;e/d-tn41',
  ]) {
    const out = r.redact(`before ${form} after`);
    assert.match(out, /«redacted:sp»/, form);
    assert.ok(!out.includes('tn41'), `${form} → ${out}`);
  }
  assert.equal(r.redact(`Basic ${b64('alice:tn-basic-9f3a7c1e55')}`), 'Basic «redacted:jira»');
  for (const prefix of ['', 'x', 'xy', 'xyz', '{"h":"Basic ']) {
    const text = b64(`${prefix}tn-basic-9f3a7c1e55 and more`);
    const out = r.redact(text);
    assert.match(out, /«redacted:jira»/, `base64 with ${prefix.length} bytes before the secret`);
    assert.ok(!Buffer.from(out.replace(/«redacted:jira»/, ''), 'base64').toString('latin1').includes('9f3a7c'), out);
  }
  assert.equal(r.redact(Buffer.from('tn-basic-9f3a7c1e55').toString('base64url')), '«redacted:jira»');
  // ordinary text, and text with the same characters escaped that is not the secret, is left alone
  assert.equal(r.redact('q\\"u\\\\o t+e/d-tn42 and %22 and YWxpY2U='), 'q\\"u\\\\o t+e/d-tn42 and %22 and YWxpY2U=');
});

test('the vaults tell the redactor the secrets they hold in memory, and name the files that hold secrets', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-vault-ready-'));
  const file = path.join(dir, 'secrets.env');
  fs.writeFileSync(file, 'DEPLOY=from-the-file-123\n', { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  const r = new Redactor();
  const vault = new RedactingVault(new ChainVault([new EnvVault({ TURN_SECRET_GITHUB: 'from-the-env-456', OTHER: 'not-a-secret' }), await FileVault.open(file)]), r);
  assert.deepEqual(vault.files(), [file]);
  await vault.registerReady();
  assert.equal(r.redact('from-the-env-456 from-the-file-123 not-a-secret'), '«redacted:GITHUB» «redacted:DEPLOY» not-a-secret');
  // a vault that must ask (the editor's SecretStorage) is not asked up front
  let asked = 0;
  const ss = new RedactingVault(new SecretStorageVault({ get: async () => (asked++, 'x') }), new Redactor());
  await ss.registerReady();
  assert.equal(asked, 0);
});

test('a text holding hundreds of thousands of secret pieces is redacted (no call takes them all as arguments)', () => {
  const r = new Redactor();
  const key = 'ghp_Zq81vN0pLx5Rt7Wm2Yc4Hb9Kd3Fg6Js';
  r.addKnown('K', key);
  const text = `${key.slice(0, 20)} `.repeat(300_000);
  const out = r.redact(text);
  assert.equal(out, '«redacted:K» '.repeat(300_000));
});
