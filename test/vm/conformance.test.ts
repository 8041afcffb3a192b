// The project's conformance programs (test/conformance/programs) run in-process through the
// compiler and the VM, with the mock model, and must print exactly their NAME.out — the same
// expectation test/conformance/run.sh checks through the `turn` command. Programs that need more
// than the VM alone (modules, the standard library, a script fixture, granted authority) or that
// must not compile run only through the command (test/cli/programs.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { compileFiles } from './harness.js';
import { runBundle } from '../../runtime/vm/index.js';
import { mockReply } from '../../runtime/infer/mock.js';

const dir = join(__dirname, '..', 'conformance', 'programs');

interface Program {
  name: string;
  text: string;
  exit: number;
  args: string[];
}

const all: Program[] = readdirSync(dir)
  .filter((f) => f.endsWith('.tn'))
  .sort()
  .map((name) => {
    const text = readFileSync(join(dir, name), 'utf8');
    return {
      name,
      text,
      exit: Number(/^\/\/ exit: *(\d+)/m.exec(text)?.[1] ?? 0),
      args: /^\/\/ args: *(.*)$/m.exec(text)?.[1].split(/\s+/).filter(Boolean) ?? [],
    };
  });

/** Runs in the VM alone: no `use`, no arguments but the mock model or --json, and it compiles. */
const inVm = all.filter((p) => p.exit !== 2 && !/\buse\s+("|schema)/.test(p.text) && p.args.every((a) => a === '--json' || a === '--model' || a === 'mock'));

test('most conformance programs run in the VM alone', () => {
  const names = inVm.map((p) => p.name);
  for (const name of ['values.tn', 'control_flow.tn', 'closures.tn', 'structs.tn', 'errors.tn', 'memory.tn', 'actors.tn', 'scopes.tn', 'infer_mock.tn', 'runtime_error_exit.tn']) {
    assert.ok(names.includes(name), `${name} no longer runs in the VM alone`);
  }
});

for (const p of inVm) {
  test(`conformance ${p.name} in the VM`, async () => {
    let want = readFileSync(join(dir, p.name.replace(/\.tn$/, '.out')), 'utf8');
    // `--json` prints the result as a last line; the VM returns it as the outcome instead.
    if (p.args.includes('--json')) want = want.replace(/[^\n]*\n$/, '');
    const bundle = await compileFiles({ [p.name]: p.text }, p.name);
    const lines: string[] = [];
    const outcome = await runBundle(bundle, { output: (l) => lines.push(l), infer: async (r) => mockReply(r.schema) });
    assert.equal(lines.map((l) => l + '\n').join(''), want);
    assert.equal(outcome.ok, p.exit === 0, outcome.ok ? '' : outcome.error.message);
  });
}

test('runtime_error_exit.tn: the uncaught error is located where it happened, with the error value', async () => {
  const p = all.find((x) => x.name === 'runtime_error_exit.tn')!;
  const bundle = await compileFiles({ [p.name]: p.text }, p.name);
  const outcome = await runBundle(bundle, { output: () => {}, infer: async (r) => mockReply(r.schema) });
  assert.equal(outcome.ok, false);
  if (outcome.ok) return;
  assert.equal(outcome.error.path, p.name);
  // `return row["price"] * 2;` with row = null (the missing "coffee" row)
  assert.equal(outcome.error.line, 6);
  assert.equal(outcome.error.column, 16);
  assert.match(outcome.error.message, /cannot index Null/);
});
