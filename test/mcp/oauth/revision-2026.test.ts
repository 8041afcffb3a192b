// What the 2026-07-28 revision adds to the client's sign-in (runtime/mcp/oauth), driven without a
// person as oauth.test.ts is: registration says the client is a native application (SEP-837);
// the authorization answer's `iss` is compared, as a string, with the issuer whose metadata the
// sign-in used (SEP-2468, RFC 9207), so a code from another authorization server (a mix-up) is
// never exchanged; and a server whose protected resource metadata now names another authorization
// server gets a registration there, never the previous one's client (SEP-2352).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capabilitiesFromFlags } from '../../../runtime/effects/capabilities.js';
import { MemoryVault, Redactor } from '../../../runtime/effects/vault.js';
import { McpSession, type SessionAuthority } from '../../../runtime/mcp/session.js';
import { serverSpec } from '../../../runtime/mcp/server.js';
import { granted } from '../../effects/granted.js';
import { authServer, headlessBrowser, mcpServer } from './servers.js';

function authority(vault: MemoryVault, opened: string[]): SessionAuthority {
  return { capabilities: capabilitiesFromFlags({ allowNet: ['127.0.0.1:*'] }, process.cwd()), cwd: process.cwd(), vault, redactor: new Redactor(), oauth: { openUrl: headlessBrowser(opened) } };
}

/** Signs in to a fresh pair of servers whose authorization server advertises `advertised` and answers with `iss`; what it saw. */
async function signIn(advertised: boolean | undefined, iss: string | ((issuer: string) => string) | undefined): Promise<{ error?: Error; tokenRequests: number; issuer: string; registered: Record<string, string> | undefined }> {
  const as = await authServer();
  const rs = await mcpServer(as);
  if (advertised !== undefined) as.metadata.authorization_response_iss_parameter_supported = advertised;
  if (iss !== undefined) as.answer.iss = typeof iss === 'function' ? iss(as.url) : iss;
  try {
    const s = await McpSession.open(serverSpec(`${rs.url}/mcp`), authority(new MemoryVault({}), []), granted('oauth', 'svc'));
    await s.listTools();
    await s.close();
    return { tokenRequests: as.seen.filter((x) => x.path === '/token').length, issuer: as.url, registered: as.seen.find((x) => x.path === '/register')?.body };
  } catch (e) {
    return { error: e as Error, tokenRequests: as.seen.filter((x) => x.path === '/token').length, issuer: as.url, registered: as.seen.find((x) => x.path === '/register')?.body };
  } finally {
    as.close();
    rs.close();
  }
}

test('dynamic registration says application_type "native" (SEP-837): a loopback redirect on the operator\'s machine', async () => {
  const r = await signIn(undefined, undefined);
  assert.equal(r.error, undefined);
  assert.equal(r.registered?.application_type, 'native');
});

test('attack: an authorization answer from another issuer (a mix-up) is refused naming both issuers, and its code is never exchanged, advertised or not; the issuer\'s own is accepted', async () => {
  for (const [advertised, iss] of [[true, 'issuer'], [undefined, undefined], [false, 'issuer']] as const) {
    const r = await signIn(advertised, iss);
    assert.equal(r.error, undefined, `advertised ${String(advertised)}, iss ${String(iss)}: accepted`);
    assert.equal(r.tokenRequests, 1);
  }
  for (const advertised of [true, undefined]) {
    const r = await signIn(advertised, 'https://evil.example.com');
    assert.ok(r.error, `advertised ${String(advertised)}: refused`);
    assert.ok(r.error.message.includes('the authorization answer names the issuer https://evil.example.com, not ' + r.issuer + ' whose metadata this sign-in used: refused (RFC 9207'), r.error.message);
    assert.equal(r.tokenRequests, 0, 'no token request');
  }
});

test('attack: iss is compared as a string: the issuer with a trailing "/" is another one; a server that advertises iss and omits it is refused', async () => {
  const slash = await signIn(true, (issuer) => `${issuer}/`);
  assert.ok(slash.error?.message.includes(`names the issuer ${slash.issuer}/, not ${slash.issuer} `), slash.error?.message);
  assert.equal(slash.tokenRequests, 0);
  const missing = await signIn(true, undefined);
  assert.match(missing.error?.message ?? '', /the authorization server http:\/\/127\.0\.0\.1:\d+ says it names itself in its answers \(authorization_response_iss_parameter_supported\), but this answer has no iss: refused \(RFC 9207\)/);
  assert.equal(missing.tokenRequests, 0);
});

test('SEP-2352: when the protected resource metadata names another authorization server mid-session, the client registers there and never presents the previous client', async () => {
  const first = await authServer(undefined, 'first');
  const rs = await mcpServer(first);
  const second = await authServer(first.issued, 'second'); // the server trusts what either issues
  const opened: string[] = [];
  try {
    const s = await McpSession.open(serverSpec(`${rs.url}/mcp`), authority(new MemoryVault({}), opened), granted('oauth', 'svc'));
    await s.listTools();
    // the resource moves to the second authorization server; the first is decommissioned and its tokens no longer accepted
    rs.resource.authorization_servers = [second.url];
    first.issued.clear();
    first.close();
    const reply = await s.callTool('whoami', {});
    await s.close();
    assert.match(JSON.stringify(reply.content), /you sent Bearer at-/);
    assert.ok(second.seen.some((x) => x.path === '/register'), 'registered at the new authorization server');
    const presented = second.seen.flatMap((x) => [x.query.client_id, x.body.client_id]).filter(Boolean);
    assert.ok(presented.length > 0 && presented.every((id) => id.startsWith('second-')), `only the new client is presented: ${presented.join(', ')}`);
    assert.equal(opened.length, 2, 'a sign-in at each');
  } finally {
    first.close();
    second.close();
    rs.close();
  }
});
