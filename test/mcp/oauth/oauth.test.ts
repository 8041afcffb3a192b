// OAuth 2.1 for MCP servers over HTTP (runtime/mcp/oauth): the sign-in driven without a person (a
// headless "browser" follows the authorization server's redirect to Turn's loopback listener),
// tokens kept in the vault, refresh, step-up; and the attacks: a token endpoint on another host,
// an authorization server for another resource or another issuer, a stored token offered to
// another authorization server, oversized and silent metadata, a forged redirect.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capabilitiesFromFlags } from '../../../runtime/effects/capabilities.js';
import { MemoryVault, Redactor } from '../../../runtime/effects/vault.js';
import { McpSession, type SessionAuthority } from '../../../runtime/mcp/session.js';
import { serverSpec } from '../../../runtime/mcp/server.js';
import type { OAuthOptions } from '../../../runtime/mcp/oauth/index.js';
import { granted } from '../../effects/granted.js';
import { authServer, headlessBrowser, listen, mcpServer, type AuthServer, type McpServer } from './servers.js';

function authority(vault: MemoryVault, oauth: OAuthOptions, redactor = new Redactor()): SessionAuthority {
  return { capabilities: capabilitiesFromFlags({ allowNet: ['127.0.0.1:*'] }, process.cwd()), cwd: process.cwd(), vault, redactor, oauth };
}

async function servers(o: { callScope?: string; never?: boolean } = {}): Promise<{ as: AuthServer; rs: McpServer; close(): void }> {
  const as = await authServer();
  const rs = await mcpServer(as, o);
  return { as, rs, close: () => (as.close(), rs.close()) };
}

/** The vault's record of identity::oauth("svc") for `rs`. */
function record(vault: MemoryVault, rs: McpServer): { client?: Record<string, unknown>; tokens?: Record<string, unknown> } {
  return (JSON.parse((vault as unknown as { secrets: Record<string, string> }).secrets['oauth:svc']) as { servers: Record<string, never> }).servers[`${rs.url}/mcp`] ?? {};
}

async function open(rs: McpServer, a: SessionAuthority): Promise<McpSession> {
  return McpSession.open(serverSpec(`${rs.url}/mcp`), a, granted('oauth', 'svc'));
}

test('a 401 signs in without a person: discovery, registration, PKCE S256, state, a loopback redirect; the tokens go to the vault and the next session needs no browser', async () => {
  const { as, rs, close } = await servers();
  const vault = new MemoryVault({});
  const opened: string[] = [];
  try {
    const s = await open(rs, authority(vault, { openUrl: headlessBrowser(opened) }));
    assert.deepEqual((await s.listTools()).map((t) => t.name), ['whoami']);
    await s.close();
    assert.equal(opened.length, 1);
    const asked = as.seen.find((x) => x.path === '/authorize')!;
    assert.equal(asked.query.code_challenge_method, 'S256');
    assert.match(asked.query.redirect_uri, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.equal(asked.query.resource, `${rs.url}/mcp`);
    assert.ok(asked.query.state.length >= 40, 'an unguessable state');
    const kept = record(vault, rs);
    assert.match(String(kept.tokens?.access_token), /^at-/);
    assert.equal(kept.tokens?.issuer, as.url);
    assert.equal(kept.client?.client_id, 'client-1');
    // a second session (a later run) uses what the vault keeps
    const again = await open(rs, authority(vault, { openUrl: headlessBrowser(opened) }));
    await again.listTools();
    await again.close();
    assert.equal(opened.length, 1, 'no second sign-in');
    assert.equal(as.seen.filter((x) => x.path === '/authorize').length, 1);
  } finally {
    close();
  }
});

test('an access token about to expire is refreshed before it is sent, with no browser', async () => {
  const { as, rs, close } = await servers();
  const vault = new MemoryVault({});
  const opened: string[] = [];
  try {
    await (await open(rs, authority(vault, { openUrl: headlessBrowser(opened) }))).close();
    const r = JSON.parse((vault as unknown as { secrets: Record<string, string> }).secrets['oauth:svc']) as { servers: Record<string, { tokens: { expires_at: number } }> };
    r.servers[`${rs.url}/mcp`].tokens.expires_at = Date.now() - 1000;
    await vault.save('oauth:svc', JSON.stringify(r));
    const s = await open(rs, authority(vault, { openUrl: headlessBrowser(opened) }));
    await s.listTools();
    await s.close();
    assert.equal(opened.length, 1, 'no new sign-in');
    const refreshes = as.seen.filter((x) => x.path === '/token' && x.body.grant_type === 'refresh_token');
    assert.equal(refreshes.length, 1);
    assert.ok((record(vault, rs).tokens?.expires_at as number) > Date.now());
  } finally {
    close();
  }
});

test('attack: metadata that points the token endpoint at another host never receives the refresh token', async () => {
  const { as, rs, close } = await servers();
  const evil = await listen((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('{"access_token":"evil","token_type":"Bearer"}'));
  const vault = new MemoryVault({});
  try {
    await (await open(rs, authority(vault, { openUrl: headlessBrowser([]) }))).close();
    // the token expires; meanwhile the authorization server's metadata names another token endpoint
    const r = JSON.parse((vault as unknown as { secrets: Record<string, string> }).secrets['oauth:svc']) as { servers: Record<string, { tokens: { expires_at: number } }> };
    r.servers[`${rs.url}/mcp`].tokens.expires_at = Date.now() - 1000;
    await vault.save('oauth:svc', JSON.stringify(r));
    as.metadata.token_endpoint = `${evil.url}/token`;
    await assert.rejects(open(rs, authority(vault, { openUrl: headlessBrowser([]) })), /sends the client's credentials to http:\/\/127\.0\.0\.1:\d+, not to its issuer/);
    assert.equal(evil.seen.length, 0, 'the other host got nothing');
  } finally {
    close();
    evil.close();
  }
});

test('attack: a stored token is never offered to another authorization server; the server naming one gets a sign-in of its own', async () => {
  const { as, rs, close } = await servers();
  const other = await authServer(as.issued); // the MCP server accepts what either issues
  const vault = new MemoryVault({});
  try {
    await (await open(rs, authority(vault, { openUrl: headlessBrowser([]) }))).close();
    const held = record(vault, rs).tokens!;
    // the token is refused (revoked) and the server now names another authorization server
    as.issued.delete(String(held.access_token));
    rs.resource.authorization_servers = [other.url];
    const s = await open(rs, authority(vault, { openUrl: headlessBrowser([]) }));
    await s.listTools();
    await s.close();
    const sent = JSON.stringify(other.seen);
    assert.ok(!sent.includes(String(held.refresh_token)) && !sent.includes(String(held.access_token)), 'the other authorization server never saw the first one\'s tokens');
    assert.ok(other.seen.some((x) => x.path === '/register') && other.seen.some((x) => x.path === '/authorize'), 'it registered and signed in afresh there');
    assert.equal(record(vault, rs).tokens?.issuer, other.url);
  } finally {
    close();
    other.close();
  }
});

test('attack: an authorization server for another resource, or metadata naming another issuer, is refused before any sign-in', async () => {
  const { as, rs, close } = await servers();
  const opened: string[] = [];
  try {
    rs.resource.resource = 'https://evil.example.com/mcp';
    await assert.rejects(open(rs, authority(new MemoryVault({}), { openUrl: headlessBrowser(opened) })), /Protected resource https:\/\/evil\.example\.com\/mcp does not match/);
    delete rs.resource.resource;
    as.metadata.issuer = 'https://issuer.example.com';
    await assert.rejects(open(rs, authority(new MemoryVault({}), { openUrl: headlessBrowser(opened) })), /names another issuer \(https:\/\/issuer\.example\.com\): refused/);
    delete as.metadata.issuer;
    as.metadata.authorization_endpoint = 'http://sign-in.example.com/authorize';
    await assert.rejects(open(rs, authority(new MemoryVault({}), { openUrl: headlessBrowser(opened) })), /endpoint that is not https/);
    assert.equal(opened.length, 0, 'no browser was opened');
    assert.ok(!as.seen.some((x) => x.path === '/register' || x.path === '/authorize' || x.path === '/token'));
  } finally {
    close();
  }
});

test('step-up: a 403 insufficient_scope signs in again for the wider scope; a server never satisfied gets at most 3 sign-ins', async () => {
  const { as, rs, close } = await servers({ callScope: 'write' });
  const opened: string[] = [];
  try {
    const s = await open(rs, authority(new MemoryVault({}), { openUrl: headlessBrowser(opened) }));
    const reply = await s.callTool('whoami', {});
    await s.close();
    assert.match(JSON.stringify(reply.content), /you sent Bearer at-/);
    const scopes = as.seen.filter((x) => x.path === '/authorize').map((x) => x.query.scope);
    assert.deepEqual(scopes, [undefined, 'write']);
  } finally {
    close();
  }
  const never = await servers({ never: true });
  const count: string[] = [];
  try {
    const s = await open(never.rs, authority(new MemoryVault({}), { openUrl: headlessBrowser(count) }));
    await assert.rejects(s.callTool('whoami', {}), /still refuses the request after 3 sign-ins \(403 insufficient_scope, scope "admin"\)/);
    await s.close();
    assert.equal(count.length, 4, 'the first sign-in and 3 step-ups, then it stops');
  } finally {
    never.close();
  }
});

test('attack: oversized or silent metadata is refused within its bounds', async () => {
  const big = await listen((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ issuer: 'x', pad: 'p'.repeat(70_000) })));
  let hold: (() => void) | undefined;
  const silent = await listen((_req, res) => void (hold = () => res.end()));
  // MCP servers whose protected resource metadata names them as the authorization server
  const protectedBy = (as: { url: string }) =>
    listen((req, res, seen) => {
      if (seen.path.startsWith('/.well-known/oauth-protected-resource')) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ resource: `http://${req.headers.host}/mcp`, authorization_servers: [as.url] }));
      res.writeHead(401, { 'www-authenticate': 'Bearer' }).end();
    });
  const rsBig = await protectedBy(big);
  const rsSilent = await protectedBy(silent);
  try {
    await assert.rejects(McpSession.open(serverSpec(`${rsBig.url}/mcp`), authority(new MemoryVault({}), {}), granted('oauth', 'svc')), /the reply of http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server is over 65,536 bytes: refused/);
    await assert.rejects(McpSession.open(serverSpec(`${rsSilent.url}/mcp`), authority(new MemoryVault({}), { requestTimeoutMs: 200 }), granted('oauth', 'svc')), /http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-authorization-server did not answer within 0\.2 s/);
  } finally {
    hold?.();
    for (const s of [big, silent, rsBig, rsSilent]) s.close();
  }
});

test('a pre-registered client (the vault\'s svc.client) signs in without registering, and its secret stays where the operator put it', async () => {
  const { as, rs, close } = await servers();
  as.metadata.token_endpoint_auth_methods_supported = ['client_secret_post'];
  const vault = new MemoryVault({ 'svc.client': 'pre-id:pre-secret-value' });
  const redactor = new Redactor();
  try {
    const s = await open(rs, authority(vault, { openUrl: headlessBrowser([]) }, redactor));
    await s.listTools();
    await s.close();
    assert.ok(!as.seen.some((x) => x.path === '/register'), 'no registration');
    assert.equal(as.seen.find((x) => x.path === '/authorize')?.query.client_id, 'pre-id');
    const token = as.seen.find((x) => x.path === '/token')!;
    assert.equal(token.body.client_id, 'pre-id');
    assert.equal(token.body.client_secret, 'pre-secret-value');
    assert.ok(!(vault as unknown as { secrets: Record<string, string> }).secrets['oauth:svc'].includes('pre-secret-value'), 'not copied into the token record');
    assert.equal(redactor.redact('pre-secret-value'), '«redacted:svc.client»');
  } finally {
    close();
  }
});

test('a machine client (svc.client_credentials) gets its token with the client credentials grant: no browser, no redirect listener', async () => {
  const { as, rs, close } = await servers();
  as.metadata.token_endpoint_auth_methods_supported = ['client_secret_basic'];
  const opened: string[] = [];
  try {
    const s = await open(rs, authority(new MemoryVault({ 'svc.client_credentials': 'm2m:m2m-secret-value' }), { openUrl: headlessBrowser(opened) }));
    assert.deepEqual((await s.listTools()).map((t) => t.name), ['whoami']);
    await s.close();
  } finally {
    close();
  }
  const token = as.seen.find((x) => x.path === '/token')!;
  assert.equal(token.body.grant_type, 'client_credentials');
  assert.equal(token.authorization, `Basic ${Buffer.from('m2m:m2m-secret-value').toString('base64')}`);
  assert.equal(opened.length, 0);
  assert.ok(!as.seen.some((x) => x.path === '/authorize' || x.path === '/register'));
});
