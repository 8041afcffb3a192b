// A link binds both ways (docs/language.md, "Processes"): the parent of spawn_link gets the child's
// exit signal, and a parent that fails or is cancelled takes its linked children down with it.
// cancel carries a reason, which reaches monitors and exit signals.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mock, okJson, runWith } from '../infer/helpers.js';

test('a parent that fails takes its linked child down; an unlinked child goes on', async () => {
  const r = await runWith(
    `
    let observer = call("self");
    let parent = spawn turn() {
        let linked = spawn_link turn() { let m = receive; return "linked child finished"; };
        let free = spawn turn() { let m = receive; return "free child finished"; };
        send observer, [linked, free];
        throw "the parent fails";
    };
    let kids = receive;
    call("monitor", kids[0]);
    let down = receive;
    send kids[1], "go on";
    let free = gather [kids[1]];
    return [down["reason"]["type"], down["reason"]["message"], free[0]];
  `,
    mock(),
  );
  const [type, message, free] = okJson(r) as string[];
  assert.equal(type, 'Cancelled');
  assert.match(message, /^cancelled: its linked parent #\d+ failed$/);
  assert.equal(free, 'free child finished');
});

test('a parent that is cancelled takes its linked child down too', async () => {
  const r = await runWith(
    `
    let observer = call("self");
    let parent = spawn turn() {
        let linked = spawn_link turn() { let m = receive; return "finished"; };
        send observer, linked;
        let wait = receive;
    };
    let kid = receive;
    call("monitor", kid);
    call("cancel", parent);
    let down = receive;
    return down["reason"]["message"];
  `,
    mock(),
  );
  assert.match(okJson(r) as string, /^cancelled: its linked parent #\d+ failed$/);
});

test('cancel(pid, reason): the reason reaches the child, its monitors and its parent (exit signal)', async () => {
  const r = await runWith(
    `
    let child = spawn_link turn() {
        try { let m = receive; } catch (e) { throw e; }
    };
    call("monitor", child);
    call("cancel", child, "the operator stopped it");
    let first = receive;
    let second = receive;
    return [first["type"], first["reason"]["message"], second["type"], second["reason"]["message"]];
  `,
    mock(),
  );
  const got = okJson(r) as string[];
  assert.deepEqual(got.slice().sort(), ['Down', 'ExitSignal', 'the operator stopped it', 'the operator stopped it'].sort());
  const bad = await runWith('let c = spawn turn() { let m = receive; };\ncall("cancel", c, 42);\n', mock());
  assert.equal(bad.outcome.ok, false);
});
