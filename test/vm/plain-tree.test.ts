// toJson (`--json`) and toHostArg (host tools' arguments) share one walk: a `__proto__` key is data in
// both (it was dropped from --json output when the JSON object was built by assignment).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdentityVal, StructVal, toJson, type Value } from '../../runtime/values/index.js';
import { toHostArg } from '../../runtime/vm/host-tools.js';
import { isHandle } from '../../runtime/effects/identity.js';

test('a __proto__ key survives both conversions as an own property', () => {
  const v: Value = new Map<string, Value>([['__proto__', 1], ['s', new StructVal('P', new Map<string, Value>([['x', NaN]]))]]);
  assert.equal(JSON.stringify(toJson(v)), '{"__proto__":1,"s":{"x":null}}');
  const arg = toHostArg(v) as Record<string, unknown>;
  assert.ok(Object.prototype.hasOwnProperty.call(arg, '__proto__'));
  assert.equal(Object.getPrototypeOf(arg), Object.prototype);
});

test('an identity is a handle for a host tool and never its secret in --json', () => {
  const id = new IdentityVal('bearer', 'svc');
  const [handle] = toHostArg([id]) as unknown[];
  assert.ok(isHandle(handle), 'the host handle minted for the grant');
  assert.equal(JSON.stringify(handle), '{"kind":"bearer","name":"svc"}');
  assert.equal(typeof (toJson([id]) as unknown[])[0], 'string');
});
