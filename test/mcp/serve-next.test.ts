// The pieces of `turn mcp --store` a hostile client reaches directly (runtime/mcp/serve-next/): the
// idempotency key it names its call with, the fingerprint a reused key is checked against, and the
// signed requestState that names a suspended run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { callFingerprint, callKey, CallKeyError, EXPLICIT_KEY, MAX_KEY_LENGTH, traceOf } from '../../runtime/mcp/serve-next/call-key.js';
import { mintState, openState, RequestStateError, stateSecret, STATE_KEY_FILE, STATE_TTL_SECONDS } from '../../runtime/mcp/serve-next/request-state.js';

test('a client\'s key names its call on every retry; a malformed one is refused; without one, a request id never matches another session\'s', () => {
  assert.equal(callKey({ [EXPLICIT_KEY]: 'order-1' }, 's1', 0), callKey({ [EXPLICIT_KEY]: 'order-1' }, 's2', 7), 'the explicit key alone: a retry comes in another session, with another id');
  for (const bad of ['', 'has space', 'x'.repeat(MAX_KEY_LENGTH + 1), 42, { nested: 'x' }, 'é']) {
    assert.throws(() => callKey({ [EXPLICIT_KEY]: bad }, undefined, 0), CallKeyError, JSON.stringify(bad));
  }
  assert.notEqual(callKey(undefined, 's1', 0), callKey(undefined, 's2', 0));
  assert.notEqual(callKey(undefined, undefined, 0), callKey(undefined, undefined, '0'), 'the id 0 and the id "0" are two requests');
  assert.notEqual(callKey({ [EXPLICIT_KEY]: 'request:x' }, undefined, 0), callKey(undefined, undefined, 0));
});

test('a call\'s fingerprint: key order does not matter, anything else does; a 100,000-deep argument is walked without recursion', () => {
  assert.equal(callFingerprint('t', { a: 1, b: [1, { c: 'x' }] }), callFingerprint('t', { b: [1, { c: 'x' }], a: 1 }));
  assert.notEqual(callFingerprint('t', { a: 1 }), callFingerprint('u', { a: 1 }));
  assert.notEqual(callFingerprint('t', { a: [1, 2] }), callFingerprint('t', { a: [2, 1] }));
  assert.notEqual(callFingerprint('t', { a: '1' }), callFingerprint('t', { a: 1 }));
  // a string cannot pass for the structure around it
  assert.notEqual(callFingerprint('t', { a: ['x', 'y'] }), callFingerprint('t', { a: ['x","y'] }));
  assert.notEqual(callFingerprint('t', { a: 1, b: 2 }), callFingerprint('t', { 'a":1,"b': 2 }));
  let deep: unknown = 'leaf';
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.match(callFingerprint('t', { deep }), /^[0-9a-f]{64}$/);
});

test('requestState: made and opened with the store\'s secret; altered, forged, expired or oversized, it opens nothing', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-state-'));
  const secret = stateSecret(dir);
  assert.equal(fs.statSync(path.join(dir, STATE_KEY_FILE)).mode & 0o777, 0o600);
  assert.deepEqual(stateSecret(dir), secret, 'the same secret after a restart');
  const claim = { run: 'r-1', call: 'f'.repeat(64) };
  const state = mintState(secret, claim, 1000);
  assert.deepEqual(openState(secret, state, 1000), claim);
  const [v, body, mac] = state.split('.');
  const forgedBody = Buffer.from(JSON.stringify({ run: 'someone-else', call: claim.call, exp: 10 ** 12 })).toString('base64url');
  for (const bad of [`${v}.${forgedBody}.${mac}`, `${v}.${body}.${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`, `v2.${body}.${mac}`, `${state}.x`, 'v1..', 'x'.repeat(5000), 17]) {
    assert.throws(() => openState(secret, bad, 1000), RequestStateError, String(bad).slice(0, 40));
  }
  assert.throws(() => openState(Buffer.alloc(32, 1), state, 1000), /does not verify/, 'another server\'s secret');
  assert.throws(() => openState(secret, state, 1000 + STATE_TTL_SECONDS + 1), /expired/);
  // a secret file others can read is refused
  fs.chmodSync(path.join(dir, STATE_KEY_FILE), 0o644);
  assert.throws(() => stateSecret(dir), /accessible to other users/);
});

test('a request\'s W3C trace context is kept when well formed, and ignored otherwise', () => {
  const t = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  assert.equal(traceOf({ traceparent: t }), t);
  for (const bad of [t.toUpperCase(), `${t}\n`, `${t}-x`, '00-xyz', 7, null]) assert.equal(traceOf({ traceparent: bad }), undefined, String(bad));
  assert.equal(traceOf(undefined), undefined);
  assert.equal(traceOf([t]), undefined);
});
