// `turn fmt` leaves a short one-line struct declaration, map or `infer` block alone, and keeps the
// alignment of trailing comments on lines it did not change (issue 40: it reformatted the README's
// own first snippet). A long one, or one with a comment inside, is still laid out.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { formatSource } from '../../runtime/format/index.js';

async function fmt(text: string): Promise<string> {
  const r = await formatSource(text);
  if (!r.ok) throw new Error(r.message);
  return r.text;
}

test("the README's first snippet is left as it is", async () => {
  const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8');
  const start = readme.indexOf('```turn\n') + '```turn\n'.length;
  const snippet = readme.slice(start, readme.indexOf('```', start));
  assert.match(snippet, /^struct Verdict \{ approved: Bool, score: Num, note: Str \};\n/);
  assert.equal(await fmt(snippet), snippet);
});

test('short one-line structs, maps and infer blocks stay; aligned trailing comments stay aligned', async () => {
  const text = [
    'struct P { x: Num, y: Num };',
    'let m = {"a": 1, "b": 2};      // a map',
    'let v = infer P { "a point"; }; // a model call',
    '',
  ].join('\n');
  assert.equal(await fmt(text), text);
});

test('a long one-line struct, or one holding a comment, is laid out one field per line', async () => {
  const long = 'struct Order { id: Str, customer: Str, items: List<Str>, total: Num, currency: Str, note: Str? };\n';
  assert.equal(await fmt(long), 'struct Order {\n    id: Str,\n    customer: Str,\n    items: List<Str>,\n    total: Num,\n    currency: Str,\n    note: Str?\n};\n');
  assert.equal(await fmt('struct P { x: Num /* metres */, y: Num };\n'), 'struct P {\n    x: Num /* metres */,\n    y: Num\n};\n');
  // a comment's alignment is kept only where the line before it is unchanged
  assert.equal(await fmt('let add=turn(a:Num)->Num{ return a; };   // adds\n'), 'let add = turn(a: Num) -> Num {\n    return a;\n}; // adds\n');
  // a closure written on one line is still laid out: only infer blocks stay
  assert.equal(await fmt('let f = turn() { return 1; };\n'), 'let f = turn() {\n    return 1;\n};\n');
});
