// The std modules written in Turn: all parse and check cleanly; the parts that use only the
// Turn v1 tools run today (the others need the host tools listed in docs/authority.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkSource, stdDirectory } from '../../runtime/check/index.js';
import { runProgram } from '../actors/run-program.js';

const MODULES = ['math', 'json', 'regex', 'time', 'env', 'fs', 'net'];

for (const m of MODULES) {
  test(`std/${m} parses and checks without errors`, async () => {
    const file = path.join(stdDirectory(), `${m}.tn`);
    const r = await checkSource(file, fs.readFileSync(file, 'utf8'));
    const errors = r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message);
    assert.deepEqual(errors, []);
  });
}

test('std/math and std/json run on the existing tools', async () => {
  const { outcome } = await runProgram(`
    let math = use "std/math";
    let json = use "std/json";
    let v = json.parse("{\\"a\\": [1, {\\"b\\": 7}]}");
    return [math.clamp(15, 0, 10), math.sum([1, 2, 3.5]), math.min(3, -1), math.abs(-2), json.get(v, ["a", 1, "b"]), json.get(v, ["a", 9]), json.stringify([1, "x"])];
  `);
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error.message);
  if (outcome.ok) assert.deepEqual(outcome.json, [10, 6.5, -1, 2, 7, null, '[1,"x"]']);
});
