// Every input the fuzzer ever found failing (test/fuzz/corpus/) runs again here: a fixed crash,
// hang or unlocated message that comes back fails the unit tier.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { targetNamed } from './targets.js';

const CORPUS = path.join(__dirname, 'corpus');
const cases = fs.existsSync(CORPUS) ? fs.readdirSync(CORPUS).filter((f) => f.endsWith('.json')).sort() : [];

for (const name of cases) {
  test(`fuzz corpus: ${name}`, { timeout: 60_000 }, async () => {
    const c = JSON.parse(fs.readFileSync(path.join(CORPUS, name), 'utf8')) as { target: string; input: string; message: string };
    const failure = await targetNamed(c.target).check(c.input);
    assert.equal(failure, null, `first seen as: ${c.message}`);
  });
}
