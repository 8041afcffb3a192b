// Keeps the language reference honest: every ```turn example of docs/language.md that shows its
// output with `// prints: ...` comments runs through the real `turn` command and prints exactly
// that (a trailing remark in parentheses, like "(input order)", is not part of the output).
// An example whose first line is `// NAME.tn` is saved under that name, so others can `use` it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JS_STACK, ROOT, turn } from '../cli/run-cli.js';

const doc = fs.readFileSync(path.join(ROOT, 'docs', 'language.md'), 'utf8');
const blocks = [...doc.matchAll(/```turn\n([\s\S]*?)```/g)].map((m, i) => {
  const text = m[1];
  const named = /^\/\/ ([\w-]+\.tn)\n/.exec(text)?.[1];
  const line = doc.slice(0, m.index).split('\n').length + 1;
  return { name: named ?? `example_${i}.tn`, text, line };
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-language-doc-'));
for (const b of blocks) fs.writeFileSync(path.join(dir, b.name), b.text);

/** The expected output lines: each `// prints: X` (a comment of its own line or after code). */
function expected(text: string): string[] {
  return [...text.matchAll(/\/\/ prints: (.*)$/gm)].map((m) => m[1]);
}

test('the language reference has examples that show their output', () => {
  assert.ok(blocks.length >= 15, `only ${blocks.length} examples`);
  assert.ok(blocks.filter((b) => expected(b.text).length > 0).length >= 15);
});

for (const b of blocks.filter((x) => expected(x.text).length > 0)) {
  test(`docs/language.md:${b.line} (${b.name}) prints what it says`, () => {
    const r = turn(['run', path.join(dir, b.name)], { cwd: dir, env: { TURN_STORE_DIR: path.join(dir, '.turn'), TURN_MODEL: undefined } });
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, JS_STACK);
    const got = r.stdout.replace(/\n$/, '').split('\n');
    const want = expected(b.text);
    assert.equal(got.length, want.length, `printed:\n${r.stdout}`);
    want.forEach((w, i) => {
      const bare = w.replace(/ \([^()]*\)$/, '');
      assert.ok(got[i] === w || got[i] === bare, `line ${i + 1}: printed ${JSON.stringify(got[i])}, the page says ${JSON.stringify(w)}`);
    });
  });
}
