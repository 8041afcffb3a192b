import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ok, fails } from './harness.js';

test('let updates the function scope; blocks do not scope', async () => {
  const r = await ok(`
    let i = 0;
    while i < 3 { let j = i * 2; let i = i + 1; }
    call("echo", j);
    if true { let k = "in"; }
    call("echo", k);
    return i;
  `);
  assert.deepEqual(r.lines, ['4', 'in']);
  assert.equal(r.value, 3);
});

test('while with generic conditions, else-if chains', async () => {
  const r = await ok(`
    let xs = [1, 2, 3];
    let n = 0;
    while n < call("len", xs) and n != 5 { let n = n + 1; }
    let classify = turn(x: Num) -> Str {
      if x < 0 { return "neg"; } else if x == 0 { return "zero"; } else { return "pos"; }
    };
    call("echo", n);
    call("echo", call(classify, -1) + call(classify, 0) + call(classify, 9));
    let s = "";
    let k = 10;
    while k > 7 { let s = s + k; let k = k - 1; }
    call("echo", s);
  `);
  assert.deepEqual(r.lines, ['3', 'negzeropos', '1098']);
});

test('closures capture by reference; recursion through let', async () => {
  const r = await ok(`
    let count = 0;
    let inc = turn() { let unused = 1; return count + 1; };
    let count = 5;
    call("echo", inc());
    let fact = turn(n: Num) -> Num { if n <= 1 { return 1; } return n * fact(n - 1); };
    call("echo", fact(10));
    let make_counter = turn() -> Any {
      let c = 0;
      return {"inc": turn() { let c = c + 1; return c; }, "get": turn() { return c; }};
    };
    let ctr = make_counter();
    call("echo", ctr.inc());
    call("echo", ctr.get());
  `);
  // inc reads the current count (by reference); a closure's own let shadows, initialized from outside
  assert.deepEqual(r.lines, ['6', '3628800', '1', '0']);
});

test('nested closures reach variables two levels up', async () => {
  const r = await ok(`
    let base = 100;
    let outer = turn(a: Num) -> Any {
      return turn(b: Num) -> Any { return turn(c: Num) -> Num { return base + a + b + c; }; };
    };
    return outer(1)(2)(3);
  `);
  assert.equal(r.value, 106);
});

test('call(): closures, list spreading, tools', async () => {
  const r = await ok(`
    let add3 = turn(a, b, c) { return a + b + c; };
    call("echo", call(add3, [1, 2, 3]));
    let id = turn(x) { return x; };
    call("echo", call(id, [1, 2]));
    call("echo", call("list_push", [1], 2));
    call("echo", call("list_contains", [1, 2], 2));
    call("echo", call("len", "héllo"));
    call("echo", call("len", {"a": 1, "b": 2}));
    call("echo", call("str_split", "a,b", ","));
    call("echo", call("str_join", ["a", "b"], "-"));
    call("echo", call("to_string", 5) + call("to_number", "2"));
    call("echo", call("keys", {"x": 1, "y": 2}));
    call("echo", call("json_stringify", {"a": [1, true, null]}));
    call("echo", call("json_parse", "{\\"b\\": [1, 2]}")["b"][1]);
  `);
  assert.deepEqual(r.lines, ['6', '[1, 2]', '[1, 2]', 'true', '5', '2', '["a", "b"]', 'a-b', '52', '["x", "y"]', '{"a":[1,true,null]}', '2']);
});

test('unknown tool, arity mismatch, typed parameters, calling a non-closure', async () => {
  assert.equal((await fails('call("nope", 1);')).error.message, 'unknown tool "nope"');
  const a = await fails('let f = turn(a, b) { return a; };\nf(1);');
  assert.equal(a.error.message, 'f expects 2 arguments, got 1');
  assert.equal(a.error.line, 2);
  const t = await fails('let f = turn(a: Num) { return a; };\nf("x");');
  assert.equal(t.error.message, 'parameter a of f expects Num, got Str');
  assert.match((await fails('let x = 3; x(1);')).error.message, /cannot call a Num/);
  // untyped and Any parameters are not checked
  assert.equal((await ok('let f = turn(a, b: Any) { return b; }; return f(1, "s");')).value, 's');
});

test('runtime errors are catchable as RuntimeError maps', async () => {
  const r = await ok(`
    try {
      let x = [1][5];
    } catch (e) {
      call("echo", e["type"]);
      call("echo", e["line"]);
      call("echo", e["message"]);
    }
    let f = turn(a: Str) { return a; };
    try { f(1); } catch (e) { call("echo", e["message"]); }
    try { call("nope"); } catch (e) { call("echo", e["message"]); }
  `);
  assert.deepEqual(r.lines, ['RuntimeError', '3', 'index 5 out of range (length 1)', 'parameter a of f expects Str, got Num', 'unknown tool "nope"']);
});

test('errors cross frames; return inside try drops its handler', async () => {
  const r = await ok(`
    let inner = turn() { throw {"code": 7}; };
    let middle = turn() { inner(); return "no"; };
    let early = turn() { try { return "early"; } catch (e) { return "bad"; } };
    call("echo", early());
    try { middle(); } catch (e) { call("echo", e["code"]); }
    let after = turn() { throw "after"; };
    try { after(); } catch (e) { call("echo", e); }
  `);
  assert.deepEqual(r.lines, ['early', '7', 'after']);
});

test('an uncaught error reports the throw site and the call stack', async () => {
  const { error, lines } = await fails('call("echo", "a");\nlet f = turn() {\n  throw "deep";\n};\nlet g = turn() { return f(); };\ng();\n');
  assert.deepEqual(lines, ['a']);
  assert.equal(error.line, 3);
  assert.equal(error.column, 3);
  assert.equal(error.value, 'deep');
  assert.deepEqual(error.stack.map((s) => [s.fn, s.line]), [['f', 3], ['g', 5], ['main', 6]]);
});

test('deep recursion is a clean call-depth error, catchable', async () => {
  const { error } = await fails('let r = turn(n) { return r(n + 1); };\nr(0);');
  assert.equal(error.message, 'call depth limit exceeded');
  assert.equal(error.line, 1);
  const c = await ok('let r = turn(n) { return r(n + 1); };\ntry { r(0); } catch (e) { return e["message"]; }');
  assert.equal(c.value, 'call depth limit exceeded');
});

test('step budget', async () => {
  const { error } = await fails('let i = 0;\nwhile true {\n  let i = i + 1;\n}', { maxSteps: 1000 });
  assert.equal(error.message, 'step budget of 1000 exhausted; raise it with --max-steps');
  assert.ok(error.line >= 2 && error.line <= 3, `line ${error.line}`);
  const rec = await fails('let r = turn(n) { if n == 0 { return 0; } return r(n - 1); };\nr(5000);', { maxSteps: 100 });
  assert.match(rec.error.message, /step budget of 100 exhausted/);
  assert.equal((await ok('let i = 0; while i < 50000 { let i = i + 1; } return i;', { maxSteps: 0 })).value, 50000);
});

test('undefined names raise at run time', async () => {
  const { error } = await fails('call("echo", 1);\nreturn nope + 1;');
  assert.equal(error.message, 'undefined name nope');
  assert.equal(error.line, 2);
});

test('map and filter run closures without re-entering the interpreter', async () => {
  const r = await ok(`
    let xs = [1, 2, 3, 4, 5];
    let k = 10;
    let ys = map(xs, turn(x) { return x * k; });
    let evens = filter(xs, turn(x) { return x / 2 == call("floor", x / 2); });
    let nested = map([[1, 2], [3]], turn(l) { return map(l, turn(y) { return y + 1; }); });
    call("echo", ys);
    call("echo", evens);
    call("echo", nested);
    call("echo", map([], turn(x) { return x; }));
    try { map(1, turn(x) { return x; }); } catch (e) { call("echo", e["message"]); }
    try { map([1], turn(x) { throw "in map " + x; }); } catch (e) { call("echo", e); }
  `);
  assert.deepEqual(r.lines, ['[10, 20, 30, 40, 50]', '[2, 4]', '[[2, 3], [4]]', '[]', 'expected a List, got Num', 'in map 1']);
});

test('top-level turn { } entry block shares the main scope; top-level return', async () => {
  const r = await ok('let x = 1;\nturn {\n  let x = x + 1;\n  call("echo", x);\n}\nreturn x;');
  assert.deepEqual(r.lines, ['2']);
  assert.equal(r.value, 2);
});

// issue 26, point 6: `==` compared handles by kind and name, so two grants of the same name were
// equal and a handle of the same secret under another kind was not; handles are now never compared
test('two identity handles are never compared: == and != on them, or on structures holding them, are located errors', async () => {
  for (const src of [
    'let a = grant identity::bearer("X"); let b = a; let x = [a][0]; return x == b;',
    'let a = grant identity::bearer("X"); let x = [a][0]; return x != grant identity::bearer("X");',
    'let a = grant identity::bearer("X"); let x = [a][0]; return {"k": x} == {"k": grant identity::header("x-k:X")};',
    'let a = grant identity::bearer("X"); let x = [a][0]; return call("list_contains", [x], a);',
  ]) {
    const r = await fails(src);
    assert.match(r.error.message, /identity handles cannot be compared/, src);
    assert.ok(r.error.line !== undefined && r.error.line >= 1, JSON.stringify(r.error));
  }
});

test('suspend without a store is a clear error', async () => {
  assert.match((await fails('suspend;')).error.message, /suspend needs a store/);
});

test('grant yields an opaque handle: kind and name, never a secret', async () => {
  const r = await ok('let k = grant identity::bearer("X"); return call("type_of", k);');
  assert.equal(r.json, 'Identity');
  assert.match((await fails('let k = grant identity::bearer(""); return 1;')).error.message, /identity needs a name/);
});
