// The shared conformance programs that run through the VM (c09 is a compile error, not ours).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { compileFiles } from './harness.js';
import { runBundle } from '../../runtime/vm/index.js';
import { mockReply } from '../../runtime/infer/mock.js';

const dir = '/work/shared/conformance';
const programs = existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.tn') && !f.startsWith('c09')) : [];

for (const name of programs) {
  test(`conformance ${name}`, async () => {
    const text = readFileSync(`${dir}/${name}`, 'utf8');
    const want = readFileSync(`${dir}/${name.replace(/\.tn$/, '.out')}`, 'utf8');
    const wantExit = Number(/^\/\/ exit: *(\d+)/m.exec(text)?.[1] ?? 0);
    const bundle = await compileFiles({ [name]: text }, name);
    const lines: string[] = [];
    const outcome = await runBundle(bundle, { output: (l) => lines.push(l), infer: async (r) => mockReply(r.schema) });
    assert.equal(lines.map((l) => l + '\n').join(''), want);
    assert.equal(outcome.ok, wantExit === 0);
  });
}

test('c10: the uncaught throw is located at the throw statement', async () => {
  const name = 'c10_runtime_error.tn';
  if (!existsSync(`${dir}/${name}`)) return;
  const bundle = await compileFiles({ [name]: readFileSync(`${dir}/${name}`, 'utf8') }, name);
  const outcome = await runBundle(bundle, { output: () => {}, infer: async (r) => mockReply(r.schema) });
  assert.equal(outcome.ok, false);
  if (outcome.ok) return;
  assert.equal(outcome.error.path, name);
  assert.equal(outcome.error.line, 4);
  assert.equal(outcome.error.column, 1);
  assert.equal(outcome.error.value, 'boom');
  assert.match(outcome.error.message, /boom/);
});
