// Issue 29: mailbox operations are O(1). Counted, not timed: the element moves a mailbox makes
// (growing its ring, dropping taken holes) stay linear in the messages it queued, whatever the
// pattern; `Array.prototype.shift` moved every waiting message on every receive.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Mailbox } from '../../runtime/vm/mailbox.js';
import { VM } from '../../runtime/vm/index.js';
import { compileFiles } from './harness.js';
import { mockReply } from '../../runtime/infer/mock.js';

test('a mailbox is a FIFO: messages come out in arrival order', () => {
  const m = new Mailbox();
  for (let i = 0; i < 10; i++) m.push(i);
  const out: unknown[] = [];
  for (let i = 0; i < 5; i++) out.push(m.shift());
  for (let i = 10; i < 20; i++) m.push(i);
  while (m.size > 0) out.push(m.shift());
  assert.deepEqual(out, Array.from({ length: 20 }, (_, i) => i));
  assert.equal(m.shift(), undefined);
});

test('fill-then-drain and interleaved send/receive make O(1) moves per message', () => {
  const n = 100_000;
  const m = new Mailbox();
  for (let i = 0; i < n; i++) m.push(i);
  for (let i = 0; i < n; i++) assert.equal(m.shift(), i);
  // a ring that doubles moves each message at most once per doubling it lives through: < 2n in all
  assert.ok(m.moves < 2 * n, `fill+drain of ${n} moved ${m.moves} elements`);
  const k = new Mailbox();
  for (let i = 0; i < n; i++) {
    k.push(i);
    k.push(i);
    k.shift();
  }
  while (k.size > 0) k.shift();
  assert.ok(k.moves < 4 * n, `interleaved traffic of ${2 * n} messages moved ${k.moves} elements`);
});

test('selective take removes the matching message in place, keeping the others in order', () => {
  const m = new Mailbox();
  for (let i = 0; i < 8; i++) m.push(i);
  assert.equal(m.take((v) => v === 5), 5);
  assert.equal(m.take((v) => v === 0), 0);
  assert.equal(m.take((v) => v === 42), undefined);
  assert.equal(m.has((v) => v === 6), true);
  assert.deepEqual(m.toArray(), [1, 2, 3, 4, 6, 7]);
  assert.equal(m.size, 6);
  assert.deepEqual([m.shift(), m.shift(), m.shift(), m.shift(), m.shift(), m.shift()], [1, 2, 3, 4, 6, 7]);
});

test('taking from the back of a long mailbox does not move the messages before it', () => {
  const n = 50_000;
  const m = new Mailbox();
  for (let i = 0; i < n; i++) m.push(i);
  const before = m.moves;
  // take the newest message each time: a copying receive would move all the others every time
  for (let i = n - 1; i >= n / 2; i--) assert.equal(m.take((v) => v === i), i);
  assert.ok(m.moves - before <= n, `taking ${n / 2} messages moved ${m.moves - before} elements`);
  assert.equal(m.size, n / 2);
  assert.equal(m.shift(), 0);
});

test('spawn_link + exit of 20,000 processes: the parent receives every ExitSignal with O(1) moves each', async () => {
  const n = 20_000;
  const bundle = await compileFiles({
    'main.tn': `
      let i = 0;
      while i < ${n} { spawn_link turn() { return 1; }; let i = i + 1; }
      let got = 0;
      while got < ${n} { let m = receive; let got = got + m["result"]; }
      return got;
    `,
  });
  const vm = new VM(bundle, { output: () => {}, infer: async (r) => mockReply(r.schema) }, {});
  const outcome = await vm.run();
  assert.ok(outcome.ok, JSON.stringify(!outcome.ok && outcome.error.message));
  assert.equal(outcome.value, n);
  assert.ok(vm.main.inbox.moves < 2 * n, `the main mailbox moved ${vm.main.inbox.moves} elements for ${n} messages`);
});
