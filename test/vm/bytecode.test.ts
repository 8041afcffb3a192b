import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { compileFiles } from './harness.js';
import { Op, OP_NAMES, OPERANDS, disassemble } from '../../runtime/compile/index.js';

test('the interpreter switch uses the opcode numbers of opcodes.ts', () => {
  const src = readFileSync(path.join(__dirname, '../../runtime/vm/index.ts'), 'utf8');
  const cases = [...src.matchAll(/case (\d+) \/\* ([A-Z_]+) \*\/:/g)].filter(([, , n]) => n in Op);
  const seen = new Set<string>();
  for (const [, num, name] of cases) {
    assert.equal(Number(num), Op[name as keyof typeof Op], `case ${num} /* ${name} */`);
    seen.add(name);
  }
  for (const name of Object.keys(Op)) assert.ok(seen.has(name), `opcode ${name} has no case in the interpreter`);
  for (const v of Object.values(Op)) assert.ok(v in OPERANDS && v in OP_NAMES);
});

test('the counting loop compiles to fused instructions', async () => {
  const b = await compileFiles({ 'main.tn': 'let i = 0; let total = 0; while i < 10 { let total = total + i; let i = i + 1; } return total;' });
  const text = disassemble(b.functions[b.units[0].main]);
  assert.match(text, /ADD_LL_ST 1 1 0/);
  // `let i = i + 1` right before the loop test runs with it in one dispatch (ADD_LC_LOOP)
  assert.match(text, /ADD_LC_LOOP 0 0 \d+\n\s*\d+ LOOP_CMP_LC 0 0/);
});

test('captured variables live in cells; others in plain slots', async () => {
  const b = await compileFiles({ 'main.tn': 'let a = 1; let b = 2; let f = turn() { return a; }; return b;' });
  const text = disassemble(b.functions[b.units[0].main]);
  assert.match(text, /NEW_CELL 0/);
  assert.doesNotMatch(text, /NEW_CELL 1/);
});

test('bundle version: a sha256 that is stable and changes with the code', async () => {
  const a1 = await compileFiles({ 'main.tn': 'return 1 + 2;' });
  const a2 = await compileFiles({ 'main.tn': 'return 1 + 2;' });
  const b = await compileFiles({ 'main.tn': 'return 1 + 3;' });
  assert.match(a1.version, /^[0-9a-f]{64}$/);
  assert.equal(a1.version, a2.version);
  assert.notEqual(a1.version, b.version);
});
