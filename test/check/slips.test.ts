// A newcomer's slips (issue 40): each gets a located error at the token at fault and a short
// second line saying what Turn writes instead; no message names a grammar node.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkSource } from '../../runtime/check/index.js';
import { formatDiagnostic } from '../../runtime/diagnostics.js';

async function messages(text: string): Promise<string[]> {
  const r = await checkSource('a.tn', text);
  return r.diagnostics.map((d) => formatDiagnostic(r.file, d));
}

test('`x = 2`: Turn updates a variable with let', async () => {
  assert.deepEqual(await messages('let x = 1;\nx = 2;\n'), ['a.tn:2:3: syntax error: unexpected `=`\nhint: Turn updates a variable with `let x = ...;`']);
});

test('`x += 1`: reported at the operator, with the let form', async () => {
  assert.deepEqual(await messages('let total = 1;\ntotal += 1;\n'), ['a.tn:2:7: syntax error: unexpected `+=`\nhint: Turn has no `+=`: write `let total = total + ...;`']);
  assert.deepEqual(await messages('let n = 4;\nn *= 2;\n'), ['a.tn:2:3: syntax error: unexpected `*=`\nhint: Turn has no `*=`: write `let n = n * ...;`']);
});

test('`echo("hi")` and `print("hi")`: host tools are called by name', async () => {
  assert.deepEqual(await messages('echo("hi");\n'), ['a.tn:1:1: undefined name `echo`\nhint: host tools are called by name: `call("echo", ...)`']);
  assert.deepEqual(await messages('print("hi");\n'), ['a.tn:1:1: undefined name `print`\nhint: Turn prints with `call("echo", ...)`']);
  // a name bound by the program is the program's: no hint, no error
  assert.deepEqual(await messages('let echo = turn(s: Str) { return s; };\necho("hi");\n'), []);
  // an undefined name that is no slip keeps the plain message
  assert.deepEqual(await messages('frobnicate(1);\n'), ['a.tn:1:1: undefined name `frobnicate`']);
});

test('`xs.length`: the length is call("len", xs)', async () => {
  assert.deepEqual(await messages('let xs = [1, 2];\nlet n = xs.length;\n'), ['a.tn:2:12: a List<Num> has no field `length`\nhint: the length of a list, a map or a string is `call("len", xs)`']);
  assert.deepEqual(await messages('let s: Str = "abc";\nlet n = s.size;\n'), ['a.tn:2:11: a Str has no field `size`\nhint: the length of a list, a map or a string is `call("len", s)`']);
});

test('a ternary: reported at the `?`, saying Turn has no conditional expression', async () => {
  const [m, ...rest] = await messages('let a = 1;\nlet b = a > 0 ? "pos" : "neg";\n');
  assert.deepEqual(rest, []);
  assert.equal(m, 'a.tn:2:15: syntax error: unexpected `?`\nhint: Turn has no conditional expression (`c ? a : b`): write `if c { let x = a; } else { let x = b; }`');
});

test('`{name: "Ada"}`: reported at the bare key, which a map writes as a string', async () => {
  assert.deepEqual(await messages('let p = {name: "Ada"};\n'), ['a.tn:1:10: syntax error: a map key is a string: write `"name": ...`\nhint: a struct\'s value is written with its name, `Person { name: ... }`']);
});

test('`infer { ... }` without a type: said in words, never a grammar node name', async () => {
  const all = await messages('let s = infer { "hi"; };\n');
  assert.deepEqual(all, ['a.tn:1:14: syntax error: `infer` needs the type of its answer\nhint: write it before the block: `infer Str { ... }` (or Num, Bool, a struct, a List of them)']);
  assert.ok(!all.join('\n').includes('_identifier'));
});

test('a missing `;` is reported after the statement it should end, not at the next line', async () => {
  assert.deepEqual(await messages('let a = 1\nlet b = 2;\n'), ['a.tn:1:10: syntax error: expected `;` after `1`\nhint: each statement ends with `;`']);
  assert.deepEqual(await messages('let a = call("len", [1])   \n\nlet b = 2;\n'), ['a.tn:1:25: syntax error: expected `;` after `call("len", [1])`\nhint: each statement ends with `;`']);
});
