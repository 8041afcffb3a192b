// The run panel's work per update at scale (issue 44): the Runner rebuilds the row of an actor
// that changed (an event of its own, a new status or mailbox count) and a few others in turn, not
// every actor's row each update; the delta producer skips a row it has sent (the same object). Here
// 300 workers wait on their mailboxes while main makes 60 effects: each update changes main alone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Runner } from '../../extension/panel/runner.js';
import { MemoryVault } from '../../runtime/index.js';
import type { ActorView } from '../../extension/protocol/panel.js';

const program = `
turn {
    let ws = [];
    let k = 0;
    while k < 300 {
        let ws = call("list_push", ws, spawn turn() { let m = receive; return m; });
        let k = k + 1;
    }
    let i = 0;
    while i < 60 {
        call("sleep", 3);
        call("echo", "tick " + i);
        let i = i + 1;
    }
    let j = 0;
    while j < 300 {
        send ws[j], 1;
        let j = j + 1;
    }
    let j = 0;
    while j < 300 {
        call("wait", ws[j]);
        let j = j + 1;
    }
    return 0;
}
`;

test('300 waiting workers while main makes effects: an update rebuilds a few rows, not all 301; the end shows every actor as it is', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'turn-proportional-'));
  const file = join(dir, 'waiting.tn');
  writeFileSync(file, program);
  let previous = new Map<number, ActorView>();
  const rebuilt: number[] = [];
  const view = await new Runner({
    file,
    options: { model: 'mock', cwd: dir, authority: { vault: new MemoryVault({}) } },
    throttleMs: 1,
    publish: (v) => {
      // only updates of the tick phase, where main alone changes: after `tick 59` main sends to all 300
      // workers, which then change at once (a loaded machine publishes in the middle of that)
      const tick = Number(/^tick (\d+)$/.exec(v.output.at(-1) ?? '')?.[1] ?? -1);
      const ticking = tick >= 0 && tick < 59;
      if (v.status === 'running' && ticking && v.actors.length === 301 && previous.size === 301) rebuilt.push(v.actors.filter((a) => previous.get(a.pid) !== a).length);
      previous = new Map(v.actors.map((a) => [a.pid, a]));
    },
  }).start();
  assert.equal(view.status, 'done', JSON.stringify(view.error));
  assert.equal(view.actors.length, 301);
  assert.ok(view.actors.every((a) => a.status === 'done'), 'the end reads every actor again');
  assert.ok(rebuilt.length >= 3, `updates while 301 actors ran: ${rebuilt.length}`);
  const most = Math.max(...rebuilt);
  // main, the workers its events touched, and the 64 read again in turn (ACTORS_REREAD_PER_PUBLISH)
  assert.ok(most <= 80, `rows rebuilt per update: ${rebuilt.join(', ')}`);
});
