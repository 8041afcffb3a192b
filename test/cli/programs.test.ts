// The project's own conformance programs (test/conformance/programs) and the examples, run through
// the real `turn` command with the shared contract: NAME.out is the expected standard output,
// `// exit: N` the expected exit code, `// args: ...` extra arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROOT, turn } from './run-cli.js';

const programsDir = path.join(ROOT, 'test', 'conformance', 'programs');

for (const name of fs.readdirSync(programsDir).filter((f) => f.endsWith('.tn')).sort()) {
  test(`program ${name}`, () => {
    const file = path.join(programsDir, name);
    const text = fs.readFileSync(file, 'utf8');
    const exit = Number(/^\/\/ exit: *(\d+)/m.exec(text)?.[1] ?? 0);
    const args = /^\/\/ args: *(.*)$/m.exec(text)?.[1].split(/\s+/).filter(Boolean) ?? [];
    const r = turn(['run', file, ...args]);
    assert.equal(r.code, exit, r.stderr);
    assert.equal(r.stdout, fs.readFileSync(file.replace(/\.tn$/, '.out'), 'utf8'));
    if (exit === 2) assert.match(r.stderr, new RegExp(`${name}:\\d+:\\d+: `));
  });
}

// Examples that need a server or other setup say so in a `// needs:` line and have their own test.
const selfContained = (name: string) => !/^\/\/ needs:/m.test(fs.readFileSync(path.join(ROOT, 'examples', name), 'utf8'));

for (const name of fs.readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.tn') && selfContained(f))) {
  test(`example ${name} runs with the mock model`, () => {
    const r = turn(['run', path.join('examples', name)]);
    assert.equal(r.code, 0, r.stderr);
    assert.notEqual(r.stdout, '');
  });
}
