import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileFiles } from './harness.js';
import { runBundle } from '../../runtime/vm/index.js';
import { mockReply } from '../../runtime/infer/mock.js';

test('effects resume as they complete: one slow effect never holds up another process', { timeout: 10_000 }, async () => {
  const bundle = await compileFiles({
    'main.tn': `
      let slow = spawn turn() { let t = call("time_now_ms"); call("echo", "slow done"); return t; };
      let fast = spawn turn() { let n = infer Num { "a number"; }; call("echo", "fast done"); return n; };
      gather [slow, fast];`,
  });
  const lines: string[] = [];
  let releaseSlow: () => void = () => {};
  const outcome = await runBundle(bundle, {
    output: (l) => {
      lines.push(l);
      if (l === 'fast done') releaseSlow(); // the slow effect finishes only after the fast one was seen
    },
    infer: async (r) => mockReply(r.schema),
    tool: (request) => {
      assert.equal(request.name, 'time_now_ms');
      return new Promise((resolve) => (releaseSlow = () => resolve(42)));
    },
  });
  assert.ok(outcome.ok, JSON.stringify(outcome));
  assert.deepEqual(lines, ['fast done', 'slow done']);
});

test('a host tool that fails raises a catchable EffectError naming the tool', async () => {
  const bundle = await compileFiles({ 'main.tn': 'try { call("env_get", "HOME"); } catch (e) { return [e["type"], e["tool"], e["message"]]; }' });
  const outcome = await runBundle(bundle, {
    output: () => {},
    infer: async (r) => mockReply(r.schema),
    tool: async () => {
      throw new Error('environment access to HOME is not granted');
    },
  });
  assert.ok(outcome.ok);
  assert.deepEqual(outcome.json, ['EffectError', 'env_get', 'environment access to HOME is not granted']);
});
