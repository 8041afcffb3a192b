import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ok, fails } from './harness.js';

test('spawned closures get a snapshot of captured variables; nothing mutable is shared', async () => {
  const r = await ok(`
    let list = [1];
    let n = 1;
    let child = spawn_link turn() {
      let n = n + 100;
      return n;
    };
    let n = 2;
    let sig = receive;
    call("echo", sig["result"]);
    call("echo", n);
    return sig["pid"] == child;
  `);
  assert.deepEqual(r.lines, ['101', '2']);
  assert.equal(r.value, true);
});

test('messages arrive in mailbox order', async () => {
  const r = await ok(`
    let collector = spawn turn() {
      let got = [];
      let m = receive;
      while m != "stop" { let got = call("list_push", got, m); let m = receive; }
      return got;
    };
    send collector, "a";
    send collector, {"n": 1};
    send collector, [2];
    send collector, "stop";
    return gather [collector];
  `);
  assert.equal(r.rendered, '[["a", {"n": 1}, [2]]]');
});

test('messages are copies: the sender cannot observe changes', async () => {
  const r = await ok(`
    let c = spawn turn() { let l = receive; return map(l, turn(x) { return x + 1; }); };
    let data = [1, 2];
    send c, data;
    let out = gather [c];
    return [data, out[0]];
  `);
  assert.equal(r.rendered, '[[1, 2], [2, 3]]');
});

test('a pid sent as a message identifies the sender', async () => {
  const r = await ok(`
    let server = spawn turn() {
      let req = receive;
      send req["reply_to"], req["n"] * 2;
      return null;
    };
    let me = spawn turn() { return 0; };
    let worker = spawn_link turn() {
      return 1;
    };
    send server, {"reply_to": worker, "n": 21};
    let sig = receive;
    return sig["type"];
  `);
  assert.equal(r.value, 'ExitSignal');
});

test('gather keeps input order; a failed child contributes its error; crash isolation', async () => {
  const r = await ok(`
    let slow = turn(n: Num) -> Num { let i = 0; while i < n * 30000 { let i = i + 1; } return n; };
    let pids = spawn_each([3, 1, 2], slow);
    call("echo", gather pids);
    let bad = spawn_each([1, 0], turn(x) { return 10 / x; });
    let res = gather bad;
    call("echo", res[0]);
    call("echo", res[1]["type"]);
    call("echo", res[1]["message"]);
    call("echo", "still running");
  `);
  assert.deepEqual(r.lines, ['[3, 1, 2]', '10', 'RuntimeError', 'division by zero', 'still running']);
});

test('spawn_link delivers the failure reason', async () => {
  const r = await ok('let c = spawn_link turn() { throw {"why": "broken"}; };\nlet s = receive;\nreturn s["reason"]["why"];');
  assert.equal(r.value, 'broken');
});

test('memory is per process', async () => {
  const r = await ok(`
    remember("k", 1);
    let p = spawn_link turn() { remember("k", 2); return recall("k"); };
    let s = receive;
    return [recall("k"), s["result"], recall("missing")];
  `);
  assert.equal(r.rendered, '[1, 2, null]');
});

test('deadlock is reported on the main process line', async () => {
  const { error } = await fails('call("echo", 1);\nlet x = receive;\n');
  assert.equal(error.message, 'deadlock: every process is waiting');
  assert.equal(error.line, 2);
  const g = await fails('let c = spawn turn() { let m = receive; return m; };\nreturn gather [c];');
  assert.equal(g.error.message, 'deadlock: every process is waiting');
});

test('the run ends when main ends; other processes are abandoned', async () => {
  const r = await ok('let c = spawn turn() { while true { let x = 1; } return 1; };\nreturn "main done";');
  assert.equal(r.value, 'main done');
});

test('scheduling is fair: a busy process does not starve the others', async () => {
  const r = await ok(`
    let spinner = spawn turn() { let i = 0; while true { let i = i + 1; } return null; };
    let worker = spawn turn() { let i = 0; while i < 100000 { let i = i + 1; } return i; };
    return gather [worker];
  `);
  assert.equal(r.rendered, '[100000]');
});

test('spawn and spawn_each check their arguments', async () => {
  assert.match((await fails('spawn 5;')).error.message, /spawn expects a closure/);
  assert.match((await fails('spawn_each(3, turn(x) { return x; });')).error.message, /spawn_each expects a List/);
  assert.match((await fails('spawn_each([1], turn(a, b) { return a; });')).error.message, /expects 2 arguments, got 1/);
  assert.match((await fails('send 1, 2;')).error.message, /send expects a pid/);
});

test('send to a finished process is dropped', async () => {
  const r = await ok('let c = spawn turn() { return 1; };\nlet r = gather [c];\nsend c, "late";\nreturn r;');
  assert.equal(r.rendered, '[1]');
});
