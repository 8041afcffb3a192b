import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ok, fails } from './harness.js';

test('struct literals keep declared field order; spread; missing and unknown fields fail', async () => {
  const r = await ok(`
    struct P { x: Num, y: Num };
    let p = P { y: 2, x: 1 };
    call("echo", p);
    let q = P { x: 9, ..p };
    call("echo", q);
    try { let bad = P { x: 1 }; } catch (e) { call("echo", e["message"]); }
    try { let bad = P { x: 1, y: 2, z: 3 }; } catch (e) { call("echo", e["message"]); }
    try { call("echo", p.z); } catch (e) { call("echo", e["message"]); }
    call("echo", p["y"]);
  `);
  assert.deepEqual(r.lines, ['P { x: 1, y: 2 }', 'P { x: 9, y: 2 }', 'P literal is missing field y', 'P has no field z', 'P has no field z', '2']);
});

test('generic structs ignore their type parameters at run time', async () => {
  const r = await ok('struct Box<T> { item: T };\nlet b = Box { item: "x" };\nreturn b.item;');
  assert.equal(r.value, 'x');
});

test('methods: fields as names, locals shadow fields, self, closures inside methods', async () => {
  const r = await ok(`
    let x = "outer";
    struct V { x: Num, y: Num };
    impl V {
      let len2 = turn() -> Num { return x * x + y * y; };
      let shifted = turn(d: Num) -> V { let x = x + d; return V { x: x, y: y }; };
      let me = turn() -> V { return self; };
      let adder = turn() -> Any { return turn(k: Num) -> Num { return x + k; }; };
      let plus = turn(o: V) -> V { return V { x: x + o.x, y: y + o.y }; };
    };
    let v = V { x: 3, y: 4 };
    call("echo", v.len2());
    call("echo", v.shifted(10));
    call("echo", v.me() == v);
    let f = v.adder();
    call("echo", f(100));
    call("echo", v.plus(V { x: 1, y: 1 }).len2());
    call("echo", x);
    try { v.nope(); } catch (e) { call("echo", e["message"]); }
    try { v.len2(1); } catch (e) { call("echo", e["message"]); }
  `);
  assert.deepEqual(r.lines, ['25', 'V { x: 13, y: 4 }', 'true', '103', '41', 'outer', 'V has no method nope', 'V.len2 expects 0 arguments, got 1']);
});

test('a closure held in a map entry or struct field is callable as a method', async () => {
  const r = await ok(`
    struct H { run: Any };
    let m = {"double": turn(x) { return x * 2; }};
    let h = H { run: turn(s) { return s + "!"; } };
    call("echo", m.double(4));
    call("echo", h.run("go"));
    try { m.missing(1); } catch (e) { call("echo", e["message"]); }
  `);
  assert.deepEqual(r.lines, ['8', 'go!', 'Map has no method missing']);
});

test('modules: evaluated once in a fresh scope, cached, module pattern', async () => {
  const r = await ok({
    'main.tn': `
      let secret = "main's";
      let m = use "lib.tn";
      let again = use "lib.tn";
      call("echo", m.greet("Ada"));
      call("echo", again.count());
      call("echo", m.count());
      return secret;
    `,
    'lib.tn': `
      call("echo", "loading lib");
      let secret = "lib's";
      let n = 0;
      let greet = turn(name: Str) -> Str { let n = n + 1; return "hi " + name + " from " + secret; };
      return {"greet": greet, "count": turn() { return n; }};
    `,
  });
  assert.deepEqual(r.lines, ['loading lib', "hi Ada from lib's", '0', '0']);
  assert.equal(r.value, "main's");
});

test('module cycles are runtime errors; a module error propagates to the user', async () => {
  const { error } = await fails({ 'main.tn': 'let a = use "a.tn";', 'a.tn': 'let b = use "b.tn"; return 1;', 'b.tn': 'let a = use "a.tn"; return 2;' });
  assert.match(error.message, /module cycle: a\.tn -> b\.tn -> a\.tn/);
  const e2 = await fails({ 'main.tn': 'let a = use "bad.tn";', 'bad.tn': 'call("echo", 1);\nthrow "bad module";' });
  assert.equal(e2.error.path, 'bad.tn');
  assert.equal(e2.error.line, 2);
  const caught = await ok({ 'main.tn': 'try { let a = use "bad.tn"; } catch (e) { return e; }', 'bad.tn': 'throw "bad module";' });
  assert.equal(caught.value, 'bad module');
  assert.match((await fails('let x = use "missing.tn";')).error.message, /module "missing.tn" is not available/);
});
