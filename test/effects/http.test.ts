// The HTTP effect against a local server on 127.0.0.1 (ephemeral port): the credential arrives in
// the header while the request description only ever held the handle.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performHttp, HttpEffectError } from '../../runtime/effects/http.js';
import { EffectDenied, type ApprovalRecord } from '../../runtime/effects/capabilities.js';
import { EnvVault, Redactor } from '../../runtime/effects/vault.js';
import { httpRequest } from '../../runtime/effects/tools.js';
import { granted } from './granted.js';

const SECRET = 'ghp_test_' + Math.random().toString(36).slice(2);
const seen: { url: string; method: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
let server: http.Server;
let base = '';

before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      seen.push({ url: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
      const u = new URL(req.url ?? '/', 'http://x');
      if (u.pathname === '/user') {
        const ok = req.headers.authorization === `Bearer ${SECRET}`;
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        res.end(JSON.stringify(ok ? { login: 'octocat' } : { error: 'bad credentials' }));
      } else if (u.pathname === '/echo') {
        res.writeHead(200, { 'x-echo': String(req.headers.authorization ?? '') });
        res.end(`you sent ${req.headers.authorization}`);
      } else if (u.pathname === '/redirect') {
        res.writeHead(302, { location: u.searchParams.get('to') ?? '/user' });
        res.end();
      } else if (u.pathname === '/slow') {
        setTimeout(() => res.end('late'), 2000).unref();
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ path: u.pathname, query: Object.fromEntries(u.searchParams), body }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

const vault = new EnvVault({ TURN_SECRET_GITHUB: SECRET });
const local = { network: { hosts: ['127.0.0.1:*'] } };

test('the bearer secret from TURN_SECRET_GITHUB reaches the server; the request held only the handle', async () => {
  const request = { method: 'GET', url: `${base}/user`, identity: granted('bearer', 'github') };
  assert.ok(!JSON.stringify(request).includes(SECRET));
  const res = await performHttp(request, { vault, capabilities: local, timeoutMs: 5000 });
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(res.body), { login: 'octocat' });
  assert.equal(seen.at(-1)?.headers.authorization, `Bearer ${SECRET}`);
  assert.ok(!JSON.stringify(res).includes(SECRET));
});

test('a secret echoed back by the server is redacted from the result', async () => {
  const redactor = new Redactor();
  const res = await performHttp({ method: 'GET', url: `${base}/echo`, identity: granted('bearer', 'github') }, { vault, capabilities: local, redactor, timeoutMs: 5000 });
  assert.equal(res.body, 'you sent Bearer «redacted:github»');
  assert.equal(res.headers['x-echo'], 'Bearer «redacted:github»');
  assert.equal(redactor.redact(`log ${SECRET}`), 'log «redacted:github»', 'the shared redactor learned the secret');
});

test('the capability is checked before the secret is resolved or anything is sent', async () => {
  let resolved = 0;
  const spy = { resolve: async () => (resolved++, SECRET), list: async () => [] };
  const before = seen.length;
  await assert.rejects(
    performHttp({ method: 'GET', url: `${base}/user`, identity: granted('bearer', 'github') }, { vault: spy, capabilities: { network: { hosts: ['localhost:*'] } } }),
    (e: Error) => e instanceof EffectDenied && /^network access to 127\.0\.0\.1:\d+ is not granted \(allowed: localhost:\*\)$/.test(e.message),
  );
  assert.equal(resolved, 0, 'the vault was never asked');
  assert.equal(seen.length, before, 'nothing was sent');
});

test('approval is asked first and journaled; a denial sends nothing', async () => {
  const journal: ApprovalRecord[] = [];
  const before = seen.length;
  const caps = { network: { hosts: ['127.0.0.1:*'], approve: true } };
  await assert.rejects(
    performHttp({ method: 'POST', url: `${base}/x`, body: { a: 1 }, identity: granted('bearer', 'github') }, { vault, capabilities: caps, approve: async () => 'deny', journal: (e) => journal.push(e) }),
    /was not approved/,
  );
  assert.equal(seen.length, before);
  const res = await performHttp({ method: 'POST', url: `${base}/x`, body: { a: 1 } }, { vault, capabilities: caps, approve: async () => 'approve', journal: (e) => journal.push(e) });
  assert.equal(res.status, 200);
  assert.deepEqual(journal.map((j) => [j.decision, j.summary]), [
    ['deny', `POST ${base}/x with identity::bearer("github")`],
    ['approve', `POST ${base}/x`],
  ]);
  assert.equal(seen.at(-1)?.headers['content-type'], 'application/json');
  assert.equal(seen.at(-1)?.body, '{"a":1}');
});

test('query parameters, header and query identities', async () => {
  const v = new EnvVault({ TURN_SECRET_STRIPE: 'sk_live_x', TURN_SECRET_MAPS: 'mk' });
  const res = await performHttp(
    { method: 'GET', url: `${base}/q?x=1`, query: { tags: ['a', 'b'], n: 2, skip: null }, headers: { 'X-Trace': 't' }, identity: granted('query', 'key:maps') },
    { vault: v, capabilities: local },
  );
  assert.deepEqual(JSON.parse(res.body).query, { x: '1', tags: 'b', n: '2', key: '«redacted:maps»' });
  assert.match(seen.at(-1)!.url, /tags=a&tags=b/);
  assert.match(seen.at(-1)!.url, /key=mk/);
  assert.equal(seen.at(-1)?.headers['x-trace'], 't');
  await performHttp({ method: 'GET', url: `${base}/h`, identity: granted('header', 'x-api-key:stripe') }, { vault: v, capabilities: local });
  assert.equal(seen.at(-1)?.headers['x-api-key'], 'sk_live_x');
});

test('a missing secret names the variable to set; the error never holds a secret', async () => {
  await assert.rejects(
    performHttp({ method: 'GET', url: `${base}/user`, identity: granted('bearer', 'gitlab-ci') }, { vault, capabilities: local }),
    /the secret "gitlab-ci" for identity::bearer\("gitlab-ci"\) is not set \(set TURN_SECRET_GITLAB_CI/,
  );
});

test('redirects are re-checked, and the credential never follows to another origin', async () => {
  const res = await performHttp({ method: 'GET', url: `${base}/redirect?to=/user`, identity: granted('bearer', 'github') }, { vault, capabilities: local });
  assert.equal(res.status, 200, 'same-origin redirect keeps the credential');
  const other = base.replace('127.0.0.1', 'localhost');
  const res2 = await performHttp(
    { method: 'GET', url: `${base}/redirect?to=${encodeURIComponent(other + '/user')}`, identity: granted('bearer', 'github') },
    { vault, capabilities: { network: { hosts: ['127.0.0.1:*', 'localhost:*'] } } },
  );
  assert.equal(res2.status, 401, 'the other origin got no credential');
  assert.equal(seen.at(-1)?.headers.authorization, undefined);
  await assert.rejects(
    performHttp({ method: 'GET', url: `${base}/redirect?to=${encodeURIComponent('http://example.com/')}` }, { vault, capabilities: local }),
    /redirect refused: network access to example\.com is not granted/,
  );
});

test('timeouts and connection failures are clean errors', async () => {
  await assert.rejects(performHttp({ method: 'GET', url: `${base}/slow` }, { vault, capabilities: local, timeoutMs: 100 }), (e: Error) => e instanceof HttpEffectError && /timed out after 100 ms/.test(e.message));
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  await assert.rejects(performHttp({ method: 'GET', url: `http://127.0.0.1:${port}/` }, { vault, capabilities: local, timeoutMs: 2000 }), /failed: ECONNREFUSED/);
  await assert.rejects(performHttp({ method: 'BREW', url: `${base}/` }, { vault, capabilities: local }), /unsupported HTTP method/);
  await assert.rejects(performHttp({ method: 'GET', url: `http://u:p@127.0.0.1/` }, { vault, capabilities: local }), /credentials in a URL/);
});

test('the http_request tool: an identity handle or a narrowing capability map', async () => {
  const ctx = { vault, capabilities: local, cwd: process.cwd() };
  const res = await httpRequest(ctx, granted('bearer', 'github'), 'GET', `${base}/user`, null);
  assert.equal(res.status, 200);
  const r2 = await httpRequest(ctx, { network: [`127.0.0.1:${new URL(base).port}`] }, 'POST', `${base}/p`, { body: 'raw', headers: { 'content-type': 'text/plain' } });
  assert.equal(JSON.parse(r2.body).body, 'raw');
  await assert.rejects(httpRequest(ctx, { network: ['*'] }, 'GET', `${base}/p`), /http_request: cannot widen network access to \*/);
});
