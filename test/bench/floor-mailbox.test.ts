// The bench's actor floor (bench/actors.ts) receives in O(1) (issue 45): its mailbox was an array
// shifted on every receive, which moves every waiting message, so the spawn_link row at 100,000
// exit signals compared ours with a quadratic floor. Counted, not timed: no Array.prototype.shift,
// and the order of messages is kept across the mailbox's compactions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { floorReceive, floorSend, floorSpawn } from '../../bench/actors.js';

test('the floor mailbox receives 20,000 messages in order without shifting an array', async () => {
  const N = 20_000;
  const original = Array.prototype.shift;
  let shifts = 0;
  Array.prototype.shift = function (this: unknown[]) {
    shifts++;
    return original.call(this);
  };
  let got: unknown[] = [];
  try {
    const parent = floorSpawn(async (self) => {
      const out: unknown[] = [];
      // half arrive before the first receive, half while it receives: the mailbox grows, drains, compacts
      for (let i = 0; i < N / 2; i++) floorSend(self, i);
      for (let i = 0; i < N; i++) {
        if (i === N / 4) for (let j = N / 2; j < N; j++) floorSend(self, j);
        out.push(await floorReceive(self));
      }
      return out;
    });
    got = await parent.done;
  } finally {
    Array.prototype.shift = original;
  }
  assert.equal(shifts, 0, 'Array.prototype.shift calls');
  assert.deepEqual(got, Array.from({ length: N }, (_, i) => i));
});

