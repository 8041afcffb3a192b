// The project's own conformance programs (test/conformance/programs) through the real `turn`
// command, with the contract of test/conformance/run.sh: NAME.out is the expected standard output,
// `// exit: N` the expected exit code (0 when absent), `// args: ...` extra arguments (paths in them
// are relative to the project root, where the programs run). The examples: test/examples/.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { JS_STACK, ROOT, turn } from './run-cli.js';

const programsDir = path.join(ROOT, 'test', 'conformance', 'programs');
const programs = fs.readdirSync(programsDir).filter((f) => f.endsWith('.tn')).sort();

test('the conformance programs cover the language', () => {
  for (const name of ['values', 'control_flow', 'closures', 'structs', 'errors', 'memory', 'actors', 'scopes', 'infer_mock', 'infer_script', 'authority', 'stdlib', 'modules', 'compile_error_syntax', 'runtime_error_exit']) {
    assert.ok(programs.includes(`${name}.tn`), `${name}.tn is missing`);
  }
});

for (const name of programs) {
  test(`program ${name}`, () => {
    const file = path.join(programsDir, name);
    const text = fs.readFileSync(file, 'utf8');
    const exit = Number(/^\/\/ exit: *(\d+)/m.exec(text)?.[1] ?? 0);
    const args = /^\/\/ args: *(.*)$/m.exec(text)?.[1].split(/\s+/).filter(Boolean) ?? [];
    const r = turn(['run', file, ...args]);
    assert.equal(r.code, exit, r.stderr);
    assert.equal(r.stdout, fs.readFileSync(file.replace(/\.tn$/, '.out'), 'utf8'));
    // A compile error (2) or a run-time error (1) is located in the program, never a crash.
    if (exit === 2 || exit === 1) assert.match(r.stderr, new RegExp(`${name}:\\d+:\\d+: `));
    assert.doesNotMatch(r.stderr, JS_STACK);
  });
}
