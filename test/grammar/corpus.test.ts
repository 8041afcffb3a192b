// Runs grammar/test/corpus/*.txt against the committed tree-sitter-turn.wasm through web-tree-sitter —
// the same parser the runtime and the editor load — so the corpus is checked even where the
// tree-sitter CLI is not installed (as in CI).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createParser } from '../../runtime/syntax/parse.js';

const corpusDir = path.join(__dirname, '..', '..', 'grammar', 'test', 'corpus');

interface CorpusCase {
  name: string;
  input: string;
  expected: string;
}

function readCorpus(file: string): CorpusCase[] {
  const text = fs.readFileSync(file, 'utf8');
  const cases: CorpusCase[] = [];
  const header = /^={3,}\n(.+)\n={3,}\n/gm;
  const matches = [...text.matchAll(header)];
  matches.forEach((m, i) => {
    const bodyStart = m.index + m[0].length;
    const bodyEnd = i + 1 < matches.length ? matches[i + 1].index : text.length;
    const [input, expected] = text.slice(bodyStart, bodyEnd).split(/\n-{3,}\n/);
    cases.push({ name: m[1].trim(), input: input.replace(/^\n/, ''), expected: normalize(expected) });
  });
  return cases;
}

/** The corpus format ignores field names when the expectation has none, and all whitespace. */
function normalize(sexp: string): string {
  return sexp.replace(/\b[a-z_]+: /g, '').replace(/\s+/g, ' ').replace(/ \)/g, ')').trim();
}

const files = fs.readdirSync(corpusDir).filter((f) => f.endsWith('.txt'));

test('the corpus has cases', () => {
  assert.ok(files.length >= 2);
});

for (const file of files) {
  for (const c of readCorpus(path.join(corpusDir, file))) {
    test(`corpus ${file}: ${c.name}`, async () => {
      const parser = await createParser();
      const tree = parser.parse(c.input)!;
      try {
        assert.equal(normalize(tree.rootNode.toString()), c.expected);
      } finally {
        tree.delete();
        parser.delete();
      }
    });
  }
}
