// The redirect's end: a one-shot listener on 127.0.0.1 that takes only the redirect carrying the
// sign-in's state, and gives up at its time limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openLoopback } from '../../../runtime/mcp/oauth/loopback.js';

test('attack: a redirect with another state is refused and the wait goes on; the right one gives the code; then the listener is gone', async () => {
  const loop = await openLoopback();
  assert.match(loop.redirectUrl, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  const code = loop.code('the-state', 5000);
  const forged = await fetch(`${loop.redirectUrl}?code=stolen&state=guess`);
  assert.equal(forged.status, 400);
  assert.equal((await fetch(`${loop.redirectUrl.replace('/callback', '/other')}?code=x&state=the-state`)).status, 404);
  const real = await fetch(`${loop.redirectUrl}?code=the-code&state=the-state`);
  assert.equal(real.status, 200);
  assert.equal(await code, 'the-code');
  loop.close();
  await assert.rejects(fetch(`${loop.redirectUrl}?code=late&state=the-state`), /fetch failed/);
});

test('a refusal from the authorization server ends the wait with its error (cut, no control characters); nobody signing in ends it at the time limit', async () => {
  const loop = await openLoopback();
  const refused = assert.rejects(loop.code('s1', 5000), (e: Error) => /refused the sign-in \(access_denied: no way!+\)$/.test(e.message) && e.message.length < 300);
  await fetch(`${loop.redirectUrl}?error=access_denied&error_description=${encodeURIComponent('no\nway'.padEnd(500, '!'))}&state=s1`);
  await refused;
  await assert.rejects(loop.code('s2', 50), /nobody signed in within 0 s/);
  loop.close();
});

test('attack: a redirect whose iss is not the expected issuer is refused (400) naming both; a missing one where it is required too; the right one gives the code', async () => {
  const loop = await openLoopback();
  try {
  const expected = { issuer: 'https://as.example', required: true };
  const wrong = assert.rejects(loop.code('s1', 5000, undefined, expected), (e: Error) => e.message.includes('names the issuer https://evil.example\u0020x, not https://as.example whose metadata'));
  const page = await fetch(`${loop.redirectUrl}?code=c1&state=s1&iss=${encodeURIComponent('https://evil.example\nx')}`);
  assert.equal(page.status, 400);
  assert.match(await page.text(), /did not come from the authorization server Turn asked/);
  await wrong;
  const missing = assert.rejects(loop.code('s2', 5000, undefined, expected), /this answer has no iss: refused \(RFC 9207\)/);
  assert.equal((await fetch(`${loop.redirectUrl}?code=c2&state=s2`)).status, 400);
  await missing;
  const right = loop.code('s3', 5000, undefined, expected);
  assert.equal((await fetch(`${loop.redirectUrl}?code=c3&state=s3&iss=${encodeURIComponent('https://as.example')}`)).status, 200);
  assert.equal(await right, 'c3');
  } finally {
    loop.close();
  }
});
