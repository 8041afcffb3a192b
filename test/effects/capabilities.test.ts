import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import {
  CapabilityError, EffectDenied, capabilitiesFromFlags, capabilitiesFromPlain, check, cliApproval, narrow, newUsage, parseApproveFlag, record,
  requireApproval, type ApprovalRecord, type Capabilities,
} from '../../runtime/effects/capabilities.js';
import { parseIdentity, injectIdentity, secretName } from '../../runtime/effects/identity.js';
import { granted } from './granted.js';

const root = path.resolve('/srv/data');
const caps: Capabilities = {
  network: { hosts: ['localhost:*', '*.example.com', 'api.github.com:443'] },
  files: [{ roots: [root], mode: 'read' }, { roots: [path.join(root, 'out')], mode: 'write' }],
  model: { calls: 2, tokens: 100 },
  spawn: { max: 3 },
  env: { names: ['HOME', 'APP_*'] },
};

test('network: host patterns, ports, and the denial message', () => {
  assert.equal(check(caps, { kind: 'network', url: 'http://localhost:8080/x' }).ok, true);
  assert.equal(check(caps, { kind: 'network', url: 'https://a.b.example.com/' }).ok, true);
  assert.equal(check(caps, { kind: 'network', url: 'https://example.com/' }).ok, false, '*.example.com needs a subdomain');
  assert.equal(check(caps, { kind: 'network', url: 'https://api.github.com/repos' }).ok, true);
  assert.equal(check(caps, { kind: 'network', url: 'http://api.github.com/repos' }).ok, false, 'port 80 is not 443');
  assert.deepEqual(check({ network: { hosts: ['localhost:*'] } }, { kind: 'network', url: 'https://api.example.com/v1' }), {
    ok: false,
    message: 'network access to api.example.com is not granted (allowed: localhost:*)',
  });
  assert.deepEqual(check({}, { kind: 'network', url: 'http://127.0.0.1:9/' }), { ok: false, message: 'network access to 127.0.0.1:9 is not granted (allowed: none)' });
  assert.match((check(caps, { kind: 'network', url: 'file:///etc/passwd' }) as { message: string }).message, /only http and https/);
});

test('files: roots and modes; write implies read, read does not imply write', () => {
  assert.equal(check(caps, { kind: 'files', path: path.join(root, 'a.txt'), mode: 'read' }).ok, true);
  assert.equal(check(caps, { kind: 'files', path: path.join(root, 'out', 'r.txt'), mode: 'write' }).ok, true);
  assert.equal(check(caps, { kind: 'files', path: path.join(root, 'out', 'r.txt'), mode: 'read' }).ok, true);
  const denied = check(caps, { kind: 'files', path: path.join(root, 'a.txt'), mode: 'write' });
  assert.equal(denied.ok, false);
  assert.match((denied as { message: string }).message, /^file write access to .*a\.txt is not granted \(allowed: read .*; write .*out\)$/);
  assert.equal(check(caps, { kind: 'files', path: path.join(root, '..', 'etc'), mode: 'read' }).ok, false, '.. out of the root');
  assert.equal(check(caps, { kind: 'files', path: root + '-other/x', mode: 'read' }).ok, false, 'a sibling with the same prefix');
});

test('model and spawn budgets count usage; env never exposes TURN_SECRET_*', () => {
  const u = newUsage();
  assert.equal(check(caps, { kind: 'model', tokens: 60 }, u).ok, true);
  record(u, { kind: 'model' }, 60);
  assert.match((check(caps, { kind: 'model', tokens: 60 }, u) as { message: string }).message, /token budget would be exceeded \(60 of 100/);
  record(u, { kind: 'model' }, 10);
  assert.match((check(caps, { kind: 'model' }, u) as { message: string }).message, /call budget is exhausted \(2 of 2 calls used\)/);
  record(u, { kind: 'spawn', count: 3 });
  assert.match((check(caps, { kind: 'spawn' }, u) as { message: string }).message, /exceed the limit of 3/);
  assert.equal(check(caps, { kind: 'env', name: 'APP_MODE' }).ok, true);
  assert.equal(check(caps, { kind: 'env', name: 'PATH' }).ok, false);
  assert.match((check({ env: { names: ['*'] } }, { kind: 'env', name: 'TURN_SECRET_GITHUB' }) as { message: string }).message, /holds a secret/);
});

test('narrow only shrinks', () => {
  const child = narrow(caps, { network: { hosts: ['api.example.com', 'localhost:8080'] }, files: [{ roots: [path.join(root, 'sub')], mode: 'read' }], model: { calls: 1 } });
  assert.deepEqual(child.network?.hosts, ['api.example.com', 'localhost:8080']);
  assert.deepEqual(child.model, { calls: 1, tokens: 100, approve: false });
  assert.equal(child.spawn, undefined, 'not requested → not passed on');
  assert.equal(check(child, { kind: 'network', url: 'https://x.example.com' }).ok, false, 'the child lost what it did not ask for');
  assert.throws(() => narrow(caps, { network: { hosts: ['*'] } }), /cannot widen network access to \* \(allowed: localhost:\*, \*\.example\.com, api\.github\.com:443\)/);
  assert.throws(() => narrow(caps, { network: { hosts: ['api.github.com'] } }), CapabilityError, 'any port is wider than :443');
  assert.throws(() => narrow(caps, { files: [{ roots: [root], mode: 'write' }] }), /cannot widen file write access/);
  assert.throws(() => narrow(caps, { files: [{ roots: ['/'], mode: 'read' }] }), /cannot widen file read access to \//);
  assert.throws(() => narrow(caps, { model: { calls: 5 } }), /cannot widen the budget of model calls to 5 \(2 left\)/);
  const used = newUsage();
  used.modelCalls = 2;
  assert.throws(() => narrow(caps, { model: { calls: 1 } }, used), /\(0 left\)/);
  assert.throws(() => narrow({}, { spawn: { max: 1 } }), /spawning: it is not granted/);
  assert.throws(() => narrow(caps, { env: { names: ['PATH'] } }), /cannot widen environment access/);
  assert.deepEqual(narrow({ network: { hosts: ['*'], approve: true } }, { network: { hosts: ['a.com'] } }).network, { hosts: ['a.com'], approve: true }, 'approval is kept');
});

test('capability maps from Turn and CLI flags', () => {
  const c = capabilitiesFromPlain({ network: ['localhost:*'], files: { read: ['data'], write: 'out' }, spawn: 2, env: ['HOME'] }, '/w');
  assert.deepEqual(c, { network: { hosts: ['localhost:*'] }, files: [{ roots: ['/w/data'], mode: 'read' }, { roots: ['/w/out'], mode: 'write' }], spawn: { max: 2 }, env: { names: ['HOME'] } });
  assert.throws(() => capabilitiesFromPlain({ disk: 1 }, '/w'), /unknown capability "disk"/);
  assert.throws(() => capabilitiesFromPlain({ network: ['http://x.com/path'] }, '/w'), /not a host pattern/);
  const f = capabilitiesFromFlags({ allowNet: ['127.0.0.1:*'], allowRead: ['.'], maxModelCalls: 4, approve: ['network'] }, '/w');
  assert.deepEqual(f.network, { hosts: ['127.0.0.1:*'], approve: true });
  assert.deepEqual(f.files, [{ roots: ['/w'], mode: 'read', approve: false }]);
  assert.equal(f.model?.calls, 4);
  assert.equal(parseApproveFlag('all'), 'all');
  assert.throws(() => parseApproveFlag('yes'), /--approve expects all, none or ask/);
});

test('approval: --approve all/none, TTY prompt, non-TTY denies, decisions journaled', async () => {
  const req = { effect: 'network' as const, summary: 'GET https://x.example.com/' };
  assert.equal(await cliApproval({ mode: 'all' })(req), 'approve');
  assert.equal(await cliApproval({ mode: 'none' })(req), 'deny');
  const out = new PassThrough();
  let said = '';
  out.on('data', (d) => (said += d));
  const notTty = Object.assign(new PassThrough(), { isTTY: false });
  assert.equal(await cliApproval({ input: notTty, output: out })(req), 'deny');
  assert.match(said, /approval needed for GET https:\/\/x\.example\.com\/; denied \(no terminal/);
  const tty = Object.assign(new PassThrough(), { isTTY: true });
  const asking = cliApproval({ input: tty, output: out });
  const answer = asking(req);
  setImmediate(() => tty.write('y\n'));
  assert.equal(await answer, 'approve');
  const journal: ApprovalRecord[] = [];
  await requireApproval(true, req, async () => 'approve', (e) => journal.push(e));
  await assert.rejects(requireApproval(true, req, async () => 'deny', (e) => journal.push(e)), EffectDenied);
  await assert.rejects(requireApproval(true, req, undefined, (e) => journal.push(e)), /was not approved/);
  assert.deepEqual(journal.map((j) => j.decision), ['approve', 'deny', 'deny']);
  await requireApproval(false, req, undefined, (e) => journal.push(e));
  assert.equal(journal.length, 3, 'nothing asked when not needed');
});

test('identity kinds parse and inject where they say', () => {
  const req = () => ({ url: new URL('https://api.example.com/x?a=1'), headers: {} as Record<string, string> });
  const b = req();
  injectIdentity(b, granted('bearer', 'github'), 'tok');
  assert.equal(b.headers.authorization, 'Bearer tok');
  const h = req();
  injectIdentity(h, granted('header', 'X-Api-Key:stripe'), 'sk');
  assert.equal(h.headers['x-api-key'], 'sk');
  assert.equal(secretName(granted('header', 'X-Api-Key:stripe')), 'stripe');
  const basic = req();
  injectIdentity(basic, granted('basic', 'alice:jira'), 'pw');
  assert.equal(basic.headers.authorization, 'Basic ' + Buffer.from('alice:pw').toString('base64'));
  const q = req();
  injectIdentity(q, granted('query', 'api_key:maps'), 'k&1');
  assert.equal(q.url.searchParams.get('api_key'), 'k&1');
  assert.equal(q.url.searchParams.get('a'), '1');
  assert.match((parseIdentity('header', 'github') as { message: string }).message, /needs "HEADER:SECRET"/);
  assert.match((parseIdentity('header', 'host:x') as { message: string }).message, /cannot carry a secret/);
  assert.match((parseIdentity('telepathy', 'x') as { message: string }).message, /unknown identity kind "telepathy"/);
  assert.throws(() => injectIdentity(req(), granted('basic', 'jira'), 'nocolon'), (e: Error) => /user:password/.test(e.message) && !e.message.includes('nocolon'));
  assert.throws(() => injectIdentity(req(), granted('bearer', 'g'), 'a\r\nX-Evil: 1'), (e: Error) => /line break/.test(e.message) && !e.message.includes('Evil'));
});

test('identity::cookie sends its secret as a cookie, beside the cookies already set, and cannot be made to add another', () => {
  const req = (cookie?: string) => ({ url: new URL('https://api.example.com/x'), headers: (cookie ? { cookie } : {}) as Record<string, string> });
  const alone = req();
  injectIdentity(alone, granted('cookie', 'session:shop'), 's3cr3t');
  assert.equal(alone.headers.cookie, 'session=s3cr3t');
  assert.equal(secretName(granted('cookie', 'session:shop')), 'shop');
  const beside = req('theme=dark');
  injectIdentity(beside, granted('cookie', 'session:shop'), 's3cr3t');
  assert.equal(beside.headers.cookie, 'theme=dark; session=s3cr3t');
  assert.match((parseIdentity('cookie', 'shop') as { message: string }).message, /needs "COOKIE:SECRET"/);
  assert.match((parseIdentity('cookie', 'a b:shop') as { message: string }).message, /not a valid cookie name/);
  // the attack: a secret that would end this cookie and start one of the attacker's choosing
  for (const evil of ['x; admin=1', 'x,admin=1', 'a b', 'q"', 'back\\slash']) {
    assert.throws(() => injectIdentity(req(), granted('cookie', 'session:shop'), evil), (e: Error) => /a cookie cannot carry/.test(e.message) && !e.message.includes(evil));
  }
});
