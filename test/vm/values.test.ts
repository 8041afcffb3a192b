import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ok, fails } from './harness.js';
import { ClosureVal, PidVal, StructVal, Uncertain, equals, isolate, render, truthy, Cell } from '../../runtime/vm/index.js';

test('render: strings raw at top level, quoted inside containers', () => {
  assert.equal(render('a'), 'a');
  assert.equal(render([1, 'a', null, true]), '[1, "a", null, true]');
  assert.equal(render(new Map([['k', 1]])), '{"k": 1}');
  assert.equal(render(new StructVal('Point', new Map([['x', 3], ['y', 4]]))), 'Point { x: 3, y: 4 }');
  assert.equal(render(new ClosureVal(0, [], 'f')), '<closure f>');
  assert.equal(render(new PidVal(3)), '<pid 3>');
  assert.equal(render(new Uncertain(5, 0.5)), '5');
  assert.equal(render(0.1 + 0.2), '0.30000000000000004');
});

test('truthiness follows Turn v1', () => {
  for (const v of [false, null, 0, '', [], new Map()]) assert.equal(truthy(v as never), false, render(v as never));
  for (const v of [true, 1, 'x', [0], new Map([['a', 1]])]) assert.equal(truthy(v as never), true);
});

test('equality is structural', () => {
  assert.ok(equals([1, [2]], [1, [2]]));
  assert.ok(!equals([1], ['1']));
  assert.ok(equals(new Map([['a', 1]]), new Map([['a', 1]])));
  assert.ok(equals(new Uncertain(1, 0.5), 1));
});

test('isolate copies cells and keeps sharing inside the copy', () => {
  const cell = new Cell([1]);
  const a = new ClosureVal(0, [cell], 'a');
  const b = new ClosureVal(1, [cell], 'b');
  const [ca, cb] = isolate([a, b]) as ClosureVal[];
  assert.notEqual(ca.cells[0], cell);
  assert.equal(ca.cells[0], cb.cells[0]);
  assert.notEqual(ca.cells[0].v, cell.v);
  assert.deepEqual(ca.cells[0].v, [1]);
});

test('operators and concatenation', async () => {
  const r = await ok(`
    call("echo", 5.5 + 1);
    call("echo", "n=" + 2.5);
    call("echo", 1 + "x");
    call("echo", "v: " + null);
    call("echo", "l: " + [1, "a"]);
    call("echo", [1] + [2]);
    call("echo", 7 / 2);
    call("echo", 2 - 5);
    call("echo", -3 * 2);
    call("echo", "a" < "b");
    call("echo", 3 >= 3);
    call("echo", [1, 2] == [1, 2]);
    call("echo", {"a": 1} != {"a": 2});
    call("echo", 1 == "1");
    call("echo", !0);
    call("echo", null or "x");
    call("echo", 1 and 0);
  `);
  assert.deepEqual(r.lines, ['6.5', 'n=2.5', '1x', 'v: null', 'l: [1, "a"]', '[1, 2]', '3.5', '-3', '-6', 'true', 'true', 'true', 'true', 'false', 'true', 'true', 'false']);
});

test('and/or short-circuit', async () => {
  const r = await ok(`
    let f = turn() { call("echo", "evaluated"); return true; };
    let a = false and f();
    let b = true or f();
    call("echo", a);
    call("echo", b);
    let c = true and f();
  `);
  assert.deepEqual(r.lines, ['false', 'true', 'evaluated']);
});

test('type errors are runtime errors with a Turn location', async () => {
  const { error } = await fails('let x = 1;\nlet y = x - "a";\n');
  assert.equal(error.message, 'cannot apply - to Num and Str');
  assert.equal(error.line, 2);
  assert.equal(error.column, 9);
  assert.equal(error.path, 'main.tn');
});

test('division by zero and comparison of mixed types fail cleanly', async () => {
  assert.match((await fails('return 1 / 0;')).error.message, /division by zero/);
  assert.match((await fails('return 1 < "a";')).error.message, /cannot compare Num and Str/);
});

test('columns count code points', async () => {
  const { error } = await fails('let s = "語😀"; let y = s - 1;');
  assert.equal(error.line, 1);
  assert.equal(error.column, 23);
});

test('program result: rendered and json', async () => {
  const r = await ok('struct P { x: Num }; return [P { x: 1 }, {"a": null}, "s"];');
  assert.equal(r.rendered, '[P { x: 1 }, {"a": null}, "s"]');
  assert.deepEqual(r.json, [{ x: 1 }, { a: null }, 's']);
  const n = await ok('let x = 1;');
  assert.equal(n.value, null);
});

test('indexing: lists, maps, strings and errors', async () => {
  const r = await ok(`
    let l = [10, 20, 30];
    call("echo", l[2]);
    let m = {"k": 1};
    call("echo", m["k"]);
    call("echo", m["nope"]);
    call("echo", "abc"[1]);
    try { call("echo", l[3]); } catch (e) { call("echo", e["message"]); }
    try { call("echo", l[-1]); } catch (e) { call("echo", e["type"]); }
  `);
  assert.deepEqual(r.lines, ['30', '1', 'null', 'b', 'index 3 out of range (length 3)', 'RuntimeError']);
});
