// Turn v1's identity kinds against a local server on 127.0.0.1: identity::oauth and
// identity::network send a bearer token; identity::network without a secret sends no credential;
// identity::filesystem is a file authority that no HTTP request accepts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performHttp, HttpEffectError } from '../../runtime/effects/http.js';
import { EnvVault } from '../../runtime/effects/vault.js';
import { parseIdentity, IDENTITY_KINDS } from '../../runtime/effects/identity.js';
import { granted } from './granted.js';

const seen: (string | undefined)[] = [];
let server: http.Server;
let base = '';
before(async () => {
  server = http.createServer((req, res) => {
    seen.push(req.headers.authorization);
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const vault = new EnvVault({ TURN_SECRET_GOOGLE: 'ya29.token', TURN_SECRET_MARKET: 'mk-1' });
const ctx = { vault, capabilities: { network: { hosts: ['127.0.0.1:*'] } }, timeoutMs: 5000 };

test("Turn v1's kinds are known identity kinds", () => {
  for (const kind of ['network', 'oauth', 'filesystem']) {
    assert.ok(IDENTITY_KINDS.includes(kind as never));
    assert.equal(parseIdentity(kind, 'name').ok, true);
    assert.equal(parseIdentity(kind, 'bad name!').ok, false);
  }
});

test('identity::oauth and identity::network send their secret as a bearer token', async () => {
  await performHttp({ method: 'GET', url: `${base}/a`, identity: granted('oauth', 'google') }, ctx);
  assert.equal(seen.at(-1), 'Bearer ya29.token');
  await performHttp({ method: 'GET', url: `${base}/b`, identity: granted('network', 'market') }, ctx);
  assert.equal(seen.at(-1), 'Bearer mk-1');
});

test('identity::network without a secret sends the request without a credential; oauth needs its secret', async () => {
  const res = await performHttp({ method: 'GET', url: `${base}/c`, identity: granted('network', 'public') }, ctx);
  assert.equal(res.status, 200);
  assert.equal(seen.at(-1), undefined);
  const before = seen.length;
  await assert.rejects(
    performHttp({ method: 'GET', url: `${base}/d`, identity: granted('oauth', 'missing') }, ctx),
    (e: Error) => e instanceof HttpEffectError && /the secret "missing" .* is not set/.test(e.message),
  );
  assert.equal(seen.length, before, 'nothing was sent');
});

test('identity::filesystem cannot authenticate an HTTP request', async () => {
  const before = seen.length;
  await assert.rejects(
    performHttp({ method: 'GET', url: `${base}/e`, identity: granted('filesystem', 'workspace') }, ctx),
    (e: Error) => e instanceof HttpEffectError && /identity::filesystem\("workspace"\) is a file authority/.test(e.message),
  );
  assert.equal(seen.length, before);
});
