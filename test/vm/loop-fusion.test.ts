// The counted loop's back edge (issue 17): `let i = i + k` right before a `while i CMP k` test
// compiles to ADD_LC_LOOP, which runs the add and the test in one dispatch. Whatever the values,
// the fused loop must behave as the two instructions it replaces.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileFiles, fails, ok } from './harness.js';
import { disassemble } from '../../runtime/compile/index.js';

test('a loop ending in `let i = i + k` fuses the add with its test; others do not', async () => {
  const fused = await compileFiles({ 'main.tn': 'let i = 0; while i < 10 { let i = i + 1; } return i;' });
  assert.match(disassemble(fused.functions[fused.units[0].main]), /ADD_LC_LOOP 0 0 \d+\n\s*\d+ LOOP_CMP_LC 0 0/);
  // the add is not the body's last instruction: nothing to fuse
  const notLast = await compileFiles({ 'main.tn': 'let i = 0; let t = 0; while i < 10 { let i = i + 1; let t = t + i; } return t;' });
  assert.doesNotMatch(disassemble(notLast.functions[notLast.units[0].main]), /ADD_LC_LOOP/);
});

test('fused loops count and compare as before, for every comparison', async () => {
  assert.equal((await ok('let i = 0; let t = 0; while i < 1000 { let t = t + i; let i = i + 1; } return t;')).value, 499500);
  assert.deepEqual((await ok('let i = 10; let n = 0; while i > 0 { let n = n + 1; let i = i + -1; } return [i, n];')).json, [0, 10]);
  assert.deepEqual((await ok('let i = 0; let n = 0; while i <= 9 { let n = n + 1; let i = i + 3; } return [i, n];')).json, [12, 4]);
  assert.deepEqual((await ok('let i = 9; let n = 0; while i >= 0 { let n = n + 1; let i = i + -2; } return [i, n];')).json, [-1, 5]);
  // the test fails on entry: the body never runs
  assert.equal((await ok('let i = 5; while i < 5 { let i = i + 1; } return i;')).value, 5);
});

test('a fused loop over values that are not plain numbers takes the general path', async () => {
  // a number with a confidence below 1 keeps it through the add and the compare
  const infer = async () => ({ value: 0, confidence: 0.5 });
  const c = await ok('let i = infer Num { "start"; }; while i < 3 { let i = i + 1; } return [i, confidence i];', { infer });
  assert.deepEqual(c.json, [3, 0.5]);
  // text: `+` joins, then the loop test fails as usual, at the `while` line
  const e = await fails('let i = 0;\nwhile i < 3 {\n  let i = "b";\n  let i = i + 1;\n}');
  assert.equal(e.error.message, 'cannot compare Str and Num');
  assert.equal(e.error.line, 2);
});

test('a fused loop spends one step per iteration, like the loop it replaces', async () => {
  const { error } = await fails('let i = 0;\nwhile i < 100000 {\n  let i = i + 1;\n}', { maxSteps: 1000 });
  assert.equal(error.message, 'step budget of 1000 exhausted; raise it with --max-steps');
  assert.equal((await ok('let i = 0; while i < 999 { let i = i + 1; } return i;', { maxSteps: 1000 })).value, 999);
});
