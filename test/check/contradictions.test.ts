// Every contradiction with a written type is reported by `turn check` (issue 40): literals against
// literal types and string enums, typed maps, comparisons that can never hold, host tools' results,
// and tool names the VM would not know.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSource } from '../../runtime/check/index.js';
import { formatDiagnostic } from '../../runtime/diagnostics.js';

async function messages(text: string): Promise<string[]> {
  const r = await checkSource('a.tn', text);
  return r.diagnostics.map((d) => formatDiagnostic(r.file, d));
}

test('a literal outside a string enum or literal type is reported where it is written', async () => {
  assert.deepEqual(await messages(`
struct Task { title: Str, priority: "low" | "high" };
let t = Task { title: "a", priority: "medium" };
let r: "low" | "high" = "medium";
let f = turn(p: "low" | "high") -> "ok" { return "fine"; };
f("urgent");
let ps: List<"low" | "high"> = ["low", "mid"];
let n: 1 | 2 = 3;
`), [
    'a.tn:3:38: type mismatch: field `priority` of Task is "low" | "high", got "medium"',
    'a.tn:4:25: type mismatch: `r` is declared "low" | "high", got "medium"',
    'a.tn:5:50: type mismatch: the closure returns "ok", got "fine"',
    'a.tn:6:3: type mismatch: parameter `p` of `f` is "low" | "high", got "urgent"',
    'a.tn:7:40: type mismatch: `ps` is List<"low" | "high">, but element 1 is "mid"',
    'a.tn:8:16: type mismatch: `n` is declared 1 | 2, got 3',
  ]);
});

test('the values that fit are accepted, and a Str flows into an enum as before (gradual)', async () => {
  assert.deepEqual(await messages(`
struct Task { title: Str, priority: "low" | "high" };
let t = Task { title: "a", priority: "high" };
let r: "low" | "high" = "low";
let s: Str = "anything";
let u: "low" | "high" = s;
let o: ("low" | "high")? = null;
let m: Map<Num> = {"a": 1, "b": -2};
let m2: Map<Str, List<Num>> = {"a": [1]};
`), []);
});

test("Turn v1's typed maps: a value of another type is reported at that value", async () => {
  assert.deepEqual(await messages(`
let m: Map<Num> = {"a": 1, "b": "two"};
let m2: Map<Str, List<Num>> = {"a": [1, "x"]};
let f = turn(scores: Map<Num>) -> Num { return 0; };
f({"ada": true});
`), [
    'a.tn:2:33: type mismatch: `m` is Map<Str, Num>, but the value of "b" is Str',
    'a.tn:3:41: type mismatch: `m2` (value of "a") is List<Num>, but element 1 is Str',
    'a.tn:5:11: type mismatch: parameter `scores` of `f` is Map<Str, Num>, but the value of "ada" is Bool',
  ]);
});

test('a comparison that can never be true is reported; one that can is not', async () => {
  assert.deepEqual(await messages(`
struct Task { title: Str, priority: "low" | "high" };
let t = Task { title: "a", priority: "low" };
if t.priority == "urgent" { call("echo", 1); }
if t.priority != "urgent" { call("echo", 1); }
let n: Num = 1;
if n == "one" { call("echo", 1); }
if t.priority == "high" { call("echo", 1); }
let s: Str = "x";
if s == "y" { call("echo", 1); }
if 1 == "1" { call("echo", 1); }
let a: Any = 1;
if a == "x" { call("echo", 1); }
`), [
    'a.tn:4:4: this comparison is always false: "low" | "high" and "urgent" have no value in common',
    'a.tn:5:4: this comparison is always true: "low" | "high" and "urgent" have no value in common',
    'a.tn:7:4: this comparison is always false: "one" is never a Num',
  ]);
});

test('host tools: an unknown name is reported with the nearest one, a known result type is checked', async () => {
  assert.deepEqual(await messages(`
call("ech", 1);
call("__sys_fs_read", "notes.txt");
let content: Num = call("fs_read", null, "notes.txt");
let n: Str = call("len", [1]);
let ok: Num = call("len", [1]);
let parts: List<Str> = call("str_split", "a,b", ",");
call("zzzzzzzzzzzz", 1);
`), [
    'a.tn:2:6: unknown host tool `ech` (did you mean `echo`?)',
    'a.tn:3:6: unknown host tool `__sys_fs_read` (a Turn v1 kernel trap): call `fs_read` instead',
    'a.tn:4:20: type mismatch: `content` is declared Num, got Str',
    'a.tn:5:14: type mismatch: `n` is declared Str, got Num',
    'a.tn:8:6: unknown host tool `zzzzzzzzzzzz`',
  ]);
});
