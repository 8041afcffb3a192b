// Text nested too deep for tree-sitter's WebAssembly stack is refused before it is parsed. The
// fuzzer found that 3,000 `!` before an unclosed `{` (and, measured, 300) overflow the parser's
// stack: the parse failed with "memory access out of bounds" and left the module's memory corrupt,
// so every later parse in the process failed — `turn check` of the next file, and a language
// server that stopped answering (test/fuzz/corpus/lsp-f869718a9914.json replays that through the
// server). runtime/syntax/nesting.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatSource, nestingBeyond, parseSource } from '../../runtime/index.js';

const hostile = [
  'let v = spawn infer ' + '!'.repeat(3000) + ' Str with { max_token: 100 } {',
  'let v = ' + '!'.repeat(300) + ' Str {',
  'let v = ' + '- '.repeat(400) + '1;',
];

test('text nested past the parser\'s stack is a located nesting error, and the parser still works after it', async () => {
  for (const text of hostile) {
    const r = await parseSource('deep.tn', text);
    assert.equal(r.diagnostics[0]?.code, 'nesting', text.slice(0, 40));
    assert.ok(r.diagnostics[0].span.start > 0 && r.diagnostics[0].span.start < text.length);
    const formatted = await formatSource(text);
    assert.equal(formatted.ok, false);
  }
  // the same parser, afterwards: a plain program parses
  const ok = await parseSource('ok.tn', 'let answer = 42;\ncall("echo", answer);\n');
  assert.deepEqual(ok.diagnostics, []);
  assert.equal(ok.program.body.length, 2);
});

test('what real programs hold is let through: strings, comments, `!=`, minus signs and brackets', () => {
  assert.equal(nestingBeyond('let a = !(!b) != -(-1); // ' + '('.repeat(5000) + '\nlet s = "' + '!'.repeat(5000) + '";\n'), -1);
  assert.equal(nestingBeyond('let v = ' + '('.repeat(5000) + '1' + ')'.repeat(5000) + ';'), -1, 'deep brackets parse: lowering reports them');
  assert.equal(nestingBeyond('let v = ' + '!'.repeat(200) + 'x;'), -1);
  assert.ok(nestingBeyond('let v = ' + '!'.repeat(201) + 'x;') > 0);
});
