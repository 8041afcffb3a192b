// The checker on Turn v1's forms: its calling convention, infer blocks' own scope, its identity
// kinds, and typed list elements.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSource } from '../../runtime/check/index.js';
import { formatDiagnostic } from '../../runtime/diagnostics.js';

async function messages(text: string): Promise<string[]> {
  const r = await checkSource('a.tn', text);
  return r.diagnostics.map((d) => formatDiagnostic(r.file, d));
}

test("call(f, x) with one argument follows Turn v1's calling convention", async () => {
  assert.deepEqual(await messages(`
let main = turn { return 1; };
call(main, null);
call(main, {});
let area = turn(w: Num, h: Num) -> Num { return w * h; };
call(area, {"w": 1, "h": 2});
call(area, [1, 2]);
let twice = turn(x: Num) -> Num { return x * 2; };
call(twice, {"x": 1});
call(twice, [1]);
let size = turn(xs: List<Num>) -> Num { return 0; };
call(size, [1]);
call(size, [[1, 2]]);
let keys = turn(m: Map) -> Any { return null; };
call(keys, {"k": 1});
`), []);
  assert.deepEqual(await messages(`
let twice = turn(x: Num) -> Num { return x * 2; };
call(twice, {"x": "ten"});
call(twice, ["ten"]);
call(twice, {"y": 1});
let area = turn(w: Num, h: Num) -> Num { return w * h; };
call(area, {"w": "wide", "h": 2});
call(area, 1);
`), [
    'a.tn:3:19: type mismatch: parameter `x` of `twice` is Num, got Str',
    'a.tn:4:14: type mismatch: parameter `x` of `twice` is Num, got Str',
    'a.tn:5:13: type mismatch: parameter `x` of `twice` is Num, got Map',
    'a.tn:7:18: type mismatch: parameter `w` of `area` is Num, got Str',
    'a.tn:8:1: `area` takes 2 arguments, got 1',
  ]);
});

test('an infer block has its own scope: its names are unknown after it, outer names are seen in it', async () => {
  assert.deepEqual(await messages(`
let topic = "x";
let n = infer Num {
    let inner = "about " + topic;
    inner;
};
call("echo", inner);
`), ['a.tn:7:14: undefined name `inner`']);
});

test("Turn v1's identity kinds are known; an unknown one is located", async () => {
  assert.deepEqual(await messages(`
let a = grant identity::network("market");
let b = grant identity::oauth("google");
let c = grant identity::filesystem("workspace");
let d = grant identity::telepathy("x");
`), ['a.tn:5:25: unknown identity kind `telepathy`: use bearer, header, basic, query, cookie, oauth, network, filesystem']);
});

test('a list literal where List<T> is declared must hold Ts, element by element', async () => {
  assert.deepEqual(await messages(`
let xs: List<Num> = [1, "two", 3];
let f = turn(names: List<Str>) -> List<List<Num>> { return [[1], ["x"]]; };
f(["a", 2]);
let ok: List<Num> = [1, 2];
`), [
    'a.tn:2:25: type mismatch: `xs` is List<Num>, but element 1 is Str',
    'a.tn:3:66: type mismatch: the result is List<List<Num>>, but element 1 is List<Str>',
    'a.tn:4:9: type mismatch: parameter `names` of `f` is List<Str>, but element 1 is Num',
  ]);
});
