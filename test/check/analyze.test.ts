import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { checkSource } from '../../runtime/check/index.js';
import { formatDiagnostic } from '../../runtime/diagnostics.js';

async function messages(text: string): Promise<string[]> {
  const r = await checkSource('a.tn', text);
  return r.diagnostics.map((d) => formatDiagnostic(r.file, d));
}

// The project's conformance programs (test/conformance/programs) and the examples: those that
// must not compile (`// exit: 2`) have diagnostics, and every other one has none.
const ROOT = path.join(__dirname, '..', '..');
const PROGRAM_DIRS = [path.join(ROOT, 'test', 'conformance', 'programs'), path.join(ROOT, 'examples')];
// examples/investment_committee.tn absorbs an OpenAPI spec; keep the generated module out of the clone.
process.env.TURN_SCHEMA_DIR ??= fs.mkdtempSync(path.join(os.tmpdir(), 'turn-schemas-'));

test('the conformance programs and examples that should compile have no diagnostics; the others have some', async () => {
  let checked = 0;
  let failing = 0;
  for (const dir of PROGRAM_DIRS) {
    for (const name of fs.readdirSync(dir).filter((f) => f.endsWith('.tn'))) {
      const file = path.join(dir, name);
      const text = fs.readFileSync(file, 'utf8');
      // a program that lists a stdio MCP server's tools at compile time says which command in its header
      const launch = [...text.matchAll(/^\/\/ needs:.*?--allow-run (\S+)/gm)].map((m) => m[1]);
      const r = await checkSource(file, text, launch.length > 0 ? { launch } : {});
      const errors = r.diagnostics.filter((d) => d.severity === 'error');
      const wantsError = /^\/\/ exit: 2/m.test(text);
      assert.equal(errors.length > 0, wantsError, `${name}: ${errors.map((d) => d.message).join('; ')}`);
      checked++;
      if (wantsError) failing++;
    }
  }
  assert.ok(checked >= 20, `only ${checked} programs`);
  assert.ok(failing >= 2, 'no program that must not compile');
});

test('a compile-error program gets exactly the diagnostics it is written to show', async () => {
  const file = path.join(ROOT, 'test', 'conformance', 'programs', 'compile_error_names.tn');
  const r = await checkSource(file, fs.readFileSync(file, 'utf8'));
  assert.deepEqual(
    r.diagnostics.map((d) => formatDiagnostic(r.file, d).replace(file, 'compile_error_names.tn')),
    [
      'compile_error_names.tn:7:16: User has no field `email`',
      'compile_error_names.tn:8:14: undefined name `usr`',
      'compile_error_names.tn:10:1: `greet` takes 1 argument, got 2',
      'compile_error_names.tn:11:14: an identity handle cannot be passed to `echo`: its secret stays with the host',
    ],
  );
});

test('undefined names are reported where they are used', async () => {
  assert.deepEqual(await messages('let a = 1;\ncall("echo", b + a);'), ['a.tn:2:14: undefined name `b`']);
});

test('let binds function-wide: a name defined later in a loop or a closure is not undefined', async () => {
  assert.deepEqual(
    await messages('let f = turn(n: Num) -> Num { if n < 1 { return 0; } return f(n - 1); };\nwhile true { let x = 1; }\ncall("echo", x);'),
    [],
  );
});

test('a closure sees names of the functions around it, but not names of its callers', async () => {
  assert.deepEqual(
    await messages('let g = turn() { return local; };\nlet h = turn() { let local = 1; return g(); };'),
    ['a.tn:1:25: undefined name `local`'],
  );
});

test('struct literals: unknown struct, unknown field with a suggestion, missing fields, field types', async () => {
  const out = await messages(
    'struct Point { x: Num, y: Num };\nlet a = Pointt { x: 1, y: 2 };\nlet b = Point { x: 1, yy: 2 };\nlet c = Point { x: 1 };\nlet d = Point { x: "one", y: 2 };\nlet e = Point { x: 5, ..d };',
  );
  assert.deepEqual(out, [
    'a.tn:2:9: unknown struct `Pointt`',
    'a.tn:3:23: Point has no field `yy` (did you mean `y`?)',
    'a.tn:3:9: missing field `y` in Point',
    'a.tn:4:9: missing field `y` in Point',
    'a.tn:5:20: type mismatch: field `x` of Point is Num, got Str',
  ].sort(byPosition));
});

test('field access and methods on known structs', async () => {
  const out = await messages(
    'struct P { x: Num };\nimpl P { let twice = turn() -> Num { return x * 2; }; };\nlet p = P { x: 1 };\ncall("echo", p.z);\ncall("echo", p.twice(3));\ncall("echo", p.thrice());\ncall("echo", p.twice());',
  );
  assert.deepEqual(out, [
    'a.tn:4:16: P has no field `z`',
    'a.tn:5:14: `P.twice` takes 0 arguments, got 1',
    'a.tn:6:16: P has no method `thrice` (did you mean `twice`?)',
  ]);
});

test('call arity and annotated parameter types, with list spreading through call()', async () => {
  const out = await messages(
    'let add = turn(a: Num, b: Num) -> Num { return a + b; };\nadd(1);\nadd("x", 2);\ncall(add, [1, 2]);\ncall(add, 1, 2, 3);',
  );
  assert.deepEqual(out, [
    'a.tn:2:1: `add` takes 2 arguments, got 1',
    'a.tn:3:5: type mismatch: parameter `a` of `add` is Num, got Str',
    'a.tn:5:1: `add` takes 2 arguments, got 3',
  ]);
});

test('annotated lets and return types are checked', async () => {
  const out = await messages('let n: Num = "five";\nlet f = turn() -> Str { return 1; };\nlet ok: Str = "s" + 1;');
  assert.deepEqual(out, ['a.tn:1:14: type mismatch: `n` is declared Num, got Str', 'a.tn:2:32: type mismatch: the closure returns Str, got Num']);
});

test('unknown types, impl for unknown structs and infer of an unsupported type', async () => {
  const out = await messages('let x: Widget = 1;\nimpl Gadget { };\nlet p = infer Pid { "pid?"; };\nlet q = infer Num { };');
  assert.deepEqual(out, [
    'a.tn:1:8: unknown type `Widget`',
    'a.tn:2:6: `impl` for unknown struct `Gadget`',
    'a.tn:3:15: `infer` cannot produce a Pid: use a struct, Num, Str, Bool, a string enum or a List of them',
    'a.tn:4:19: `infer` needs a prompt: end its block with an expression such as "Summarise this";',
  ]);
});

test('spawn and map take closures of the right arity; arithmetic on strings is rejected', async () => {
  const out = await messages('let p = spawn turn(x: Num) { return x; };\nlet m = map([1], turn(a: Num, b: Num) { return a; });\nlet s = "a" - 1;');
  assert.deepEqual(out, [
    'a.tn:1:15: `spawn` needs a closure of 0 parameters, this one takes 1',
    'a.tn:2:18: `map` needs a closure of 1 parameter, this one takes 2',
    'a.tn:3:9: `-` cannot take a Str',
  ]);
});

test('a missing module is reported at its path', async () => {
  const out = await messages('let m = use "./nowhere";');
  assert.equal(out.length, 1);
  assert.match(out[0], /^a\.tn:1:13: cannot find module `\.\/nowhere`/);
});

test('a syntax error does not also produce a bogus undefined-name error', async () => {
  assert.deepEqual(await messages('let x = ;'), ['a.tn:1:9: syntax error: expected an expression, found `;`']);
});

function byPosition(a: string, b: string): number {
  const pa = a.split(':').slice(1, 3).map(Number);
  const pb = b.split(':').slice(1, 3).map(Number);
  return pa[0] - pb[0] || pa[1] - pb[1];
}

test('comparing two identity handles is reported where the analyzer sees both (issue 26, point 6)', async () => {
  const m = await messages('let a = grant identity::bearer("x");\nlet b = grant identity::bearer("x");\nlet same = a == b;\n');
  assert.deepEqual(m, ['a.tn:3:12: identity handles cannot be compared: a handle is the authority to use a secret, not a value (compare the names you grant instead)']);
});

test('infer options: unknown names (with a suggestion), repeats and values that cannot be the option are located errors', async () => {
  const src = [
    'let s = "x";',
    'let a = infer Str with { max_token: 200, seed: -1, consistency: 40, temperature: "hot", retries: s, seed: 2 } { "x"; };',
    'let b = infer Str with { timeout_ms: 1.5, max_tokens: 0, idle_timeout_ms: null } { "x"; };',
  ].join('\n');
  assert.deepEqual(await messages(src), [
    'a.tn:2:26: unknown infer option `max_token` (did you mean `max_tokens`?); the options are max_tokens, temperature, seed, consistency, retries, timeout_ms, connect_timeout_ms, first_byte_timeout_ms, idle_timeout_ms, max_tool_rounds, max_tool_calls, tools',
    'a.tn:2:48: infer option seed needs a whole number >= 0, got -1',
    'a.tn:2:65: infer option consistency needs a whole number from 1 to 16, got 40',
    'a.tn:2:82: infer option temperature needs a number from 0 to 2, got the Str "hot"',
    'a.tn:2:98: infer option retries needs a whole number from 0 to 20, got a value of type Str',
    'a.tn:2:101: the infer option `seed` is given twice',
    'a.tn:3:38: infer option timeout_ms needs a whole number >= 0, got 1.5',
    'a.tn:3:55: infer option max_tokens needs a whole number >= 1, got 0',
    'a.tn:3:75: infer option idle_timeout_ms needs a whole number >= 0, got null',
  ]);
});

test('infer options: good values, computed ones and names used by the options are accepted; `with` stays a usable name', async () => {
  const src = [
    'let k = 3;',
    'let with = 0.2;',
    'let f = turn(n: Num) -> Num { return n * 2; };',
    'let a = infer Str with { consistency: k, temperature: with, max_tokens: f(100), seed: 0, retries: 0, timeout_ms: 0, connect_timeout_ms: 5000, first_byte_timeout_ms: 600000, idle_timeout_ms: 90000 } { "x"; };',
    'let b = infer Str with {} { "y"; };',
    'call("echo", [a, b]);',
  ].join('\n');
  assert.deepEqual(await messages(src), []);
});
