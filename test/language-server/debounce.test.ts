import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { createDebouncer } from '../../language-server/debounce.js';

describe('createDebouncer', () => {
  it('runs once per key after the last schedule, and keys are independent', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const runs: string[] = [];
      const d = createDebouncer<string>(150, (k) => runs.push(k));
      d.schedule('a');
      mock.timers.tick(100);
      d.schedule('a');
      d.schedule('b');
      mock.timers.tick(100);
      assert.deepEqual(runs, []);
      assert.ok(d.pending('a'));
      mock.timers.tick(50);
      assert.deepEqual(runs, ['a', 'b']);
      assert.ok(!d.pending('a'));
    } finally {
      mock.timers.reset();
    }
  });

  it('cancel and dispose drop pending runs', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const runs: string[] = [];
      const d = createDebouncer<string>(150, (k) => runs.push(k));
      d.schedule('a');
      d.schedule('b');
      d.cancel('a');
      mock.timers.tick(200);
      assert.deepEqual(runs, ['b']);
      d.schedule('c');
      d.dispose();
      mock.timers.tick(200);
      assert.deepEqual(runs, ['b']);
    } finally {
      mock.timers.reset();
    }
  });

  it('runNow runs at once and drops the pending run of that key only', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const runs: string[] = [];
      const d = createDebouncer<string>(150, (k) => runs.push(k));
      d.schedule('a');
      d.schedule('b');
      d.runNow('a');
      assert.deepEqual(runs, ['a']);
      assert.ok(!d.pending('a'));
      assert.ok(d.pending('b'));
      mock.timers.tick(200);
      assert.deepEqual(runs, ['a', 'b']);
    } finally {
      mock.timers.reset();
    }
  });
});
