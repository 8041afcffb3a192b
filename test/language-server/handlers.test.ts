// The handlers, called directly on document models opened from cursor-marked fixture files.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CompletionItemKind } from 'vscode-languageserver';
import type { MarkupContent } from 'vscode-languageserver';
import { onCompletion } from '../../language-server/completion.js';
import { onHover } from '../../language-server/hover.js';
import { onDefinition, onPrepareRename, onReferences, onRename } from '../../language-server/navigation.js';
import { at, fixturePath, openFixture, openText, markerOffset, textOf, uriOf, workspace } from './helpers.js';

const doc = (uri: string) => ({ textDocument: { uri } });

async function complete(text: string) {
  const d = await openText(text);
  return onCompletion(d, { ...doc(d.uri), position: at(d) }).items;
}

describe('completion of protocols and policies', () => {
  it('offers every protocol the absorber supports after `schema::`, and the scope policies after `scope`', async () => {
    assert.deepEqual((await complete('let api = use schema::/*|*/')).map((i) => i.label), ['openapi', 'jsonschema', 'graphql', 'mcp']);
    assert.deepEqual((await complete('let r = scope /*|*/')).map((i) => i.label), ['fail_fast', 'wait_all', 'first_success', 'best_effort']);
  });
});

describe('completion of standard module members', () => {
  it('offers what a std module exports after `name.`', async () => {
    assert.deepEqual((await complete('let fs = use "std/fs";\nfs./*|*/')).map((i) => i.label), ['read', 'write', 'append', 'list', 'exists']);
    assert.deepEqual((await complete('let sup = use "std/supervisor";\nsup./*|*/')).map((i) => i.label), ['start', 'run']);
  });
});

describe('completion', () => {
  it('offers struct fields and methods after `.`', async () => {
    const d = await openFixture('shapes.tn');
    const items = onCompletion(d, { ...doc(d.uri), position: at(d, 'methodref') }).items;
    assert.deepEqual(items.map((i) => i.label).sort(), ['norm', 'scaled', 'x', 'y']);
    assert.equal(items.find((i) => i.label === 'norm')?.kind, CompletionItemKind.Method);
    assert.equal(items.find((i) => i.label === 'x')?.detail, 'Point.x: Num');
  });

  it('follows a written chain when the code after the dot does not parse yet', async () => {
    const items = await complete('struct In { v: Num };\nstruct Out { inner: In };\nlet o = Out { inner: In { v: 1 } };\nlet z = o.inner./*|*/\n');
    assert.deepEqual(items.map((i) => i.label), ['v']);
  });

  it('offers the names in scope, innermost first, with structs, keywords and snippets', async () => {
    const items = await complete('let outer = 1;\nlet f = turn(param: Str) {\n    let local = param;\n    /*|*/\n};\n');
    const labels = items.map((i) => i.label);
    for (const l of ['outer', 'f', 'param', 'local', 'let', 'infer', 'while']) assert.ok(labels.includes(l), l);
    assert.ok(items.some((i) => i.kind === CompletionItemKind.Snippet && i.label === 'try'));
    assert.equal(items.find((i) => i.label === 'param')?.detail, 'Str');
  });

  it('does not offer names bound only in another closure', async () => {
    const items = await complete('let a = turn() { let hidden = 1; };\nlet b = turn() {\n    /*|*/\n};\n');
    assert.ok(!items.some((i) => i.label === 'hidden'));
    assert.ok(items.some((i) => i.label === 'a'));
  });

  it('offers receiver fields and self inside an impl method', async () => {
    const items = await complete('struct P { x: Num };\nimpl P {\n    let get = turn() { return /*|*/; };\n}\n');
    const labels = items.map((i) => i.label);
    assert.ok(labels.includes('x') && labels.includes('self'), labels.join(','));
  });

  it('offers struct names after `infer`', async () => {
    const items = await complete('struct Verdict { ok: Bool };\nlet v = infer /*|*/');
    assert.equal(items[0].label, 'Verdict');
    assert.ok(items.some((i) => i.label === 'Str'));
    assert.ok(!items.some((i) => i.kind === CompletionItemKind.Keyword));
  });

  it('offers types in type positions', async () => {
    const items = await complete('struct Box { v: Num };\nlet f = turn(b: /*|*/');
    assert.ok(items.some((i) => i.label === 'Box'));
    assert.ok(items.some((i) => i.label === 'Identity'));
  });

  it('offers identity kinds after `identity::` and nothing inside strings or comments', async () => {
    assert.deepEqual((await complete('let k = grant identity::/*|*/')).map((i) => i.label), ['bearer', 'header', 'basic', 'query', 'cookie', 'oauth', 'network', 'filesystem']);
    assert.deepEqual(await complete('let s = "text /*|*/ more";'), []);
    assert.deepEqual(await complete('// a comment /*|*/\n'), []);
  });
});

describe('hover', () => {
  it('shows the type of a name', async () => {
    const d = await openFixture('shapes.tn');
    const h = onHover(d, { ...doc(d.uri), position: at(d, 'addref') });
    const value = (h?.contents as MarkupContent).value;
    assert.match(value, /let add: \(Num, Num\) -> Num/);
    assert.match(value, /Adds two sizes\./);
    assert.equal(textOf(d, h!.range!), 'add');
  });

  it('shows a field with its struct and type', async () => {
    const d = await openFixture('shapes.tn');
    const h = onHover(d, { ...doc(d.uri), position: at(d, 'memberref') });
    assert.match((h?.contents as MarkupContent).value, /\(field\) Point\.y: Num/);
  });

  it('shows the JSON Schema the model receives for `infer T`', async () => {
    const d = await openFixture('shapes.tn');
    const h = onHover(d, { ...doc(d.uri), position: at(d, 'infer') });
    const value = (h?.contents as MarkupContent).value;
    const json = JSON.parse(/```json\n([\s\S]*)\n```/.exec(value)![1]);
    assert.equal(json.title, 'Labelled');
    assert.deepEqual(json.required, ['label', 'size', 'tags']);
    assert.deepEqual(json.properties.label, { type: 'string', enum: ['small', 'large'] });
    assert.equal(json.additionalProperties, false);
  });
});

describe('definition, references, rename', () => {
  it('goes from a use to the definition: closures, fields, methods, structs, parameters', async () => {
    const d = await openFixture('shapes.tn');
    const def = (marker: string) => {
      const loc = onDefinition(undefined as never, d, { ...doc(d.uri), position: at(d, marker) });
      assert.ok(loc, marker);
      return textOf(d, loc.range) + '@' + d.offsetAt(loc.range.start);
    };
    const text = d.text;
    assert.equal(def('addref'), 'add@' + markerOffset(text, 'adddef'));
    assert.equal(def('fieldread'), 'x@' + text.indexOf('x: Num'));
    assert.equal(def('memberref'), 'y@' + text.indexOf('y: Num'));
    assert.equal(def('sizeref'), 'size@' + markerOffset(text, 'fielddef'));
    assert.equal(def('methodref'), 'norm@' + text.indexOf('norm ='));
    assert.equal(def('structref'), 'Point@' + text.indexOf('Point {'));
    assert.equal(def('paramread'), 'k@' + text.indexOf('k: Num'));
  });

  it('finds every reference of a closure, with or without its declaration', async () => {
    const ws = await workspace();
    const d = await openFixture('shapes.tn');
    const refs = onReferences(ws, d, { ...doc(d.uri), position: at(d, 'addref'), context: { includeDeclaration: true } });
    assert.deepEqual(refs.map((r) => d.offsetAt(r.range.start)), [markerOffset(d.text, 'adddef'), markerOffset(d.text, 'addref'), markerOffset(d.text, 'addref2')]);
    const noDecl = onReferences(ws, d, { ...doc(d.uri), position: at(d, 'addref'), context: { includeDeclaration: false } });
    assert.equal(noDecl.length, 2);
  });

  it('renames a field everywhere it is used, including struct literals', async () => {
    const ws = await workspace();
    const d = await openText('struct P { x: Num };\nlet p = P { x: 1 };\nlet q = p./*|*/x + p.x;\n', 'rename.tn');
    const prep = onPrepareRename(ws, d, { ...doc(d.uri), position: at(d) });
    assert.equal(prep?.placeholder, 'x');
    const edit = onRename(ws, d, { ...doc(d.uri), position: at(d), newName: 'xx' });
    const edits = edit!.changes![d.uri].map((e) => d.offsetAt(e.range.start)).sort((a, b) => a - b);
    assert.equal(edits.length, 4);
    let text = d.text;
    for (const off of [...edits].reverse()) text = text.slice(0, off) + 'xx' + text.slice(off + 1);
    assert.equal(text, 'struct P { xx: Num };\nlet p = P { xx: 1 };\nlet q = p./*|*/xx + p.xx;\n');
  });

  it('renames a variable with every `let` that rebinds it, but not a same-named variable in another closure', async () => {
    const ws = await workspace();
    const d = await openText('let i = 0;\nwhile i < 3 { let i = i + 1; }\nlet f = turn() { let i = 9; return i; };\ncall("echo", /*|*/i);\n', 'rename2.tn');
    const edit = onRename(ws, d, { ...doc(d.uri), position: at(d), newName: 'count' });
    assert.equal(edit!.changes![d.uri].length, 5);
    assert.throws(() => onRename(ws, d, { ...doc(d.uri), position: at(d), newName: 'while' }), /not a valid name/);
  });

  it('follows a module member into the module file, and finds its uses from there', async () => {
    const ws = await workspace();
    const main = await openFixture('modmain.tn');
    const loc = onDefinition(ws, main, { ...doc(main.uri), position: at(main, 'libref') });
    assert.equal(loc?.uri, uriOf(fixturePath('modlib.tn')));
    const lib = ws.byPath(fixturePath('modlib.tn'))!;
    assert.equal(lib.offsetAt(loc.range.start), markerOffset(lib.text, 'libadd'));
    const pathLoc = onDefinition(ws, main, { ...doc(main.uri), position: at(main, 'usepath') });
    assert.equal(pathLoc?.uri, uriOf(fixturePath('modlib.tn')));

    const refs = onReferences(ws, lib, { ...doc(lib.uri), position: lib.file.utf16Position(markerOffset(lib.text, 'libadd')), context: { includeDeclaration: true } });
    assert.ok(refs.some((r) => r.uri === main.uri && main.offsetAt(r.range.start) === markerOffset(main.text, 'libref')), JSON.stringify(refs));
    assert.ok(refs.some((r) => r.uri === lib.uri));
  });
});
