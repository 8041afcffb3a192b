// A closure that appends to `context`, called more than once in one process, is warned about in
// `turn check` and the language server, with `invoke` as the quick fix (issue 40).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Diagnostic } from 'vscode-languageserver';
import { checkSource } from '../../runtime/check/index.js';
import { formatDiagnostic } from '../../runtime/diagnostics.js';
import { onCodeAction } from '../../language-server/code-actions.js';
import { documentDiagnostics } from '../../language-server/validate.js';
import { openText } from '../language-server/helpers.js';

async function warnings(text: string): Promise<string[]> {
  const r = await checkSource('a.tn', text);
  return r.diagnostics.filter((d) => d.code === 'closure-context').map((d) => formatDiagnostic(r.file, d).split('\n')[0]);
}

const SUMMARIZE = 'let summarize = turn(doc: Str) -> Str {\n    context.append(doc);\n    return infer Str { "Summarise the document."; };\n};\n';

test('two plain calls in one process are each warned about, with the invoke hint', async () => {
  const r = await checkSource('a.tn', SUMMARIZE + 'let a = summarize("one");\nlet b = summarize("two");\n');
  const shown = r.diagnostics.map((d) => formatDiagnostic(r.file, d));
  assert.deepEqual(shown, [
    'a.tn:5:9: warning: `summarize` appends to `context`, and it is called more than once in this process: each call keeps its text in the context the next call sees\nhint: `invoke summarize(...)` gives each call a context of its own',
    'a.tn:6:9: warning: `summarize` appends to `context`, and it is called more than once in this process: each call keeps its text in the context the next call sees\nhint: `invoke summarize(...)` gives each call a context of its own',
  ]);
});

test('one call in a loop is warned about; call(f, x) counts as a call', async () => {
  assert.deepEqual(await warnings(SUMMARIZE + 'let i = 0;\nwhile i < 3 {\n    let s = summarize("x");\n    let i = i + 1;\n}\n'), ['a.tn:7:13: warning: `summarize` appends to `context`, and it is called more than once in this process: each call keeps its text in the context the next call sees']);
  assert.equal((await warnings(SUMMARIZE + 'call(summarize, "a");\nsummarize("b");\n')).length, 2);
});

test('no warning: one call, calls under invoke, calls in separate processes, a closure that does not append', async () => {
  assert.deepEqual(await warnings(SUMMARIZE + 'let a = summarize("one");\n'), []);
  assert.deepEqual(await warnings(SUMMARIZE + 'let a = invoke summarize("one");\nlet b = invoke summarize("two");\n'), []);
  assert.deepEqual(await warnings(SUMMARIZE + 'let p = spawn turn() { summarize("one"); };\nlet q = spawn turn() { summarize("two"); };\n'), []);
  assert.deepEqual(await warnings('let f = turn(doc: Str) -> Str { return doc; };\nf("a");\nf("b");\n'), []);
  // a closure inside it appending is its own: the outer one does not append
  assert.deepEqual(await warnings('let f = turn() { let g = turn() { context.append("x"); }; return 1; };\nf();\nf();\n'), []);
});

test('the language server offers `invoke` as the fix, and the fixed text has no warning', async () => {
  const d = await openText(SUMMARIZE + 'let a = summarize("one");\nlet b = summarize("two");\n', 'ctx.tn');
  const diagnostics: Diagnostic[] = documentDiagnostics(d).filter((x) => x.code === 'closure-context');
  assert.equal(diagnostics.length, 2);
  let text = d.text;
  for (const diagnostic of [...diagnostics].reverse()) {
    const actions = onCodeAction(d, { textDocument: { uri: d.uri }, range: diagnostic.range, context: { diagnostics: [diagnostic] } });
    assert.equal(actions[0].title, `Use \`invoke ${d.text.slice(d.offsetAt(diagnostic.range.start), d.offsetAt(diagnostic.range.end))}\`: a context of its own`);
    const [edit] = actions[0].edit!.changes![d.uri];
    text = text.slice(0, d.offsetAt(edit.range.start)) + edit.newText + text.slice(d.offsetAt(edit.range.end));
  }
  assert.match(text, /let a = invoke summarize\("one"\);\nlet b = invoke summarize\("two"\);/);
  assert.deepEqual(await warnings(text), []);
});
