// Outline, workspace symbols, semantic tokens, folding and selection ranges, formatting and quick
// fixes, through their handlers on document models.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SymbolKind } from 'vscode-languageserver';
import type { Diagnostic, DocumentSymbol } from 'vscode-languageserver';
import { FETCH_SCHEMAS_COMMAND, onCodeAction } from '../../language-server/code-actions.js';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { onFormatting } from '../../language-server/formatting.js';
import { onDocumentSymbol, onWorkspaceSymbol } from '../../language-server/outline.js';
import { onFoldingRanges, onSelectionRanges } from '../../language-server/ranges.js';
import { semanticTokens, encodeTokens, onSemanticTokens } from '../../language-server/semantic-tokens.js';
import { documentDiagnostics } from '../../language-server/validate.js';
import type { TurnDocument } from '../../language-server/document.js';
import { at, openFixture, openText, textOf, workspace } from './helpers.js';

const doc = (uri: string) => ({ textDocument: { uri } });

function names(symbols: DocumentSymbol[], prefix = ''): string[] {
  return symbols.flatMap((s) => [prefix + s.name, ...names(s.children ?? [], prefix + s.name + '/')]);
}

function fixesFor(d: TurnDocument, code: string) {
  const diagnostic = documentDiagnostics(d).find((x) => x.code === code) as Diagnostic;
  assert.ok(diagnostic, `no ${code} diagnostic`);
  return onCodeAction(d, { ...doc(d.uri), range: diagnostic.range, context: { diagnostics: [diagnostic] } });
}

function applyFirst(d: TurnDocument, actions: ReturnType<typeof onCodeAction>): string {
  const edits = actions[0].edit!.changes![d.uri];
  let text = d.text;
  for (const e of [...edits].sort((a, b) => d.offsetAt(b.range.start) - d.offsetAt(a.range.start))) {
    text = text.slice(0, d.offsetAt(e.range.start)) + e.newText + text.slice(d.offsetAt(e.range.end));
  }
  return text;
}

describe('document and workspace symbols', () => {
  it('outlines structs with fields, impls with methods, closures with their locals, and the entry block', async () => {
    const d = await openFixture('shapes.tn');
    const outline = onDocumentSymbol(d, doc(d.uri));
    const all = names(outline);
    for (const n of ['Point', 'Point/x', 'Labelled/size', 'Size', 'impl Point', 'impl Point/norm', 'impl Point/scaled', 'add', 'add/total', 'origin', 'describe/inner', 'turn { }/verdict']) {
      assert.ok(all.includes(n), `${n} missing from ${all.join(', ')}`);
    }
    const add = outline.find((s) => s.name === 'add')!;
    assert.equal(add.kind, SymbolKind.Function);
    assert.equal(add.detail, '(Num, Num) -> Num');
    assert.equal(textOf(d, add.selectionRange), 'add');
  });

  it('finds symbols across the workspace folder with a fuzzy query', async () => {
    const ws = await workspace();
    const found = onWorkspaceSymbol(ws, { query: 'lbld' });
    assert.ok(found.some((s) => s.name === 'Labelled' && s.location.uri.endsWith('shapes.tn')));
    const adds = onWorkspaceSymbol(ws, { query: 'add' }).map((s) => s.location.uri.split('/').pop());
    assert.ok(adds.includes('modlib.tn') && adds.includes('shapes.tn'), adds.join(','));
  });
});

describe('semantic tokens', () => {
  it('classifies names by what they are', async () => {
    const d = await openText('struct P { x: Num };\nlet f = turn(a: P) -> Num { return a.x; };\nlet k = grant identity::bearer("t");\n', 'tokens.tn');
    const shown = semanticTokens(d).map((t) => `${d.text.slice(d.offsetAt(t), d.offsetAt(t) + t.length)}:${t.type}${t.modifiers & 1 ? '+decl' : ''}`);
    assert.deepEqual(shown, ['P:struct+decl', 'x:property+decl', 'Num:type', 'f:function+decl', 'a:parameter+decl', 'P:struct', 'Num:type', 'a:parameter', 'x:property', 'k:variable+decl', 'bearer:enumMember']);
    const data = onSemanticTokens(d, doc(d.uri)).data;
    assert.equal(data.length, shown.length * 5);
    assert.deepEqual(data.slice(0, 5), encodeTokens(semanticTokens(d)).slice(0, 5));
    assert.deepEqual(data.slice(0, 5), [0, 7, 1, 2, 1]);
  });
});

describe('folding and selection ranges', () => {
  it('folds blocks, struct declarations, multi-line lists and comment runs, keeping closing lines visible', async () => {
    const d = await openText('// one\n// two\nstruct P {\n    x: Num\n};\nlet f = turn() {\n    return [\n        1\n    ];\n};\n', 'fold.tn');
    const folds = onFoldingRanges(d, doc(d.uri)).map((f) => `${f.startLine}-${f.endLine}${f.kind ? ':' + f.kind : ''}`);
    assert.deepEqual(folds, ['0-1:comment', '2-3', '5-8', '6-7']);
  });

  it('expands the selection from a name outwards through the syntax tree', async () => {
    const d = await openText('let v = call("echo", 1 + /*|*/two);\n', 'select.tn');
    const [sel] = onSelectionRanges(d, { ...doc(d.uri), positions: [at(d)] });
    const chain: string[] = [];
    for (let s: typeof sel | undefined = sel; s; s = s.parent) chain.push(textOf(d, s.range));
    assert.deepEqual(chain.slice(0, 4), ['two', '1 + /*|*/two', '("echo", 1 + /*|*/two)', 'call("echo", 1 + /*|*/two)']);
    assert.equal(chain.at(-1), d.text);
  });
});

describe('formatting', () => {
  it('returns one whole-document edit, none when already formatted or when the file has syntax errors', async () => {
    const d = await openText('let a=[1,2];\n', 'fmt.tn');
    const edits = onFormatting(d, { ...doc(d.uri), options: { tabSize: 4, insertSpaces: true } });
    assert.equal(edits.length, 1);
    assert.equal(edits[0].newText, 'let a = [1, 2];\n');
    const clean = await openText('let a = [1, 2];\n', 'fmt2.tn');
    assert.deepEqual(onFormatting(clean, { ...doc(clean.uri), options: { tabSize: 4, insertSpaces: true } }), []);
    const broken = await openText('let a = ;\n', 'fmt3.tn');
    assert.deepEqual(onFormatting(broken, { ...doc(broken.uri), options: { tabSize: 4, insertSpaces: true } }), []);
  });
});

describe('quick fixes', () => {
  it('changes an unknown struct field to the one it probably meant', async () => {
    const d = await openText('struct P { name: Str };\nlet p = P { name: "a" };\ncall("echo", p.nmae);\n', 'fix1.tn');
    const actions = fixesFor(d, 'unknown-field');
    assert.equal(actions[0].title, 'Change to `name`');
    assert.equal(applyFirst(d, actions), 'struct P { name: Str };\nlet p = P { name: "a" };\ncall("echo", p.name);\n');
  });

  it('changes an undefined name to a similar name in scope', async () => {
    const d = await openText('let counter = 1;\ncall("echo", countr);\n', 'fix2.tn');
    const actions = fixesFor(d, 'undefined-name');
    assert.equal(applyFirst(d, actions), 'let counter = 1;\ncall("echo", counter);\n');
  });

  it('adds the missing fields of a struct literal', async () => {
    const d = await openText('struct P { x: Num, y: Num };\nlet p = P { x: 1 };\n', 'fix3.tn');
    const fixed = applyFirst(d, fixesFor(d, 'missing-field'));
    assert.equal(fixed, 'struct P { x: Num, y: Num };\nlet p = P { x: 1, y: null };\n');
    const again = await openText(fixed, 'fix3b.tn');
    assert.ok(!documentDiagnostics(again).some((x) => x.code === 'missing-field'));
  });
});

describe('quick fixes: standard modules and credential handles', () => {
  it('adds the use of a standard module named but not in scope', async () => {
    const d = await openText('// notes\nlet text = fs.read(null, "a.txt");\n', 'fix5.tn');
    const actions = fixesFor(d, 'undefined-name');
    assert.equal(actions[0].title, 'Add `let fs = use "std/fs";`');
    const fixed = applyFirst(d, actions);
    assert.equal(fixed, '// notes\nlet fs = use "std/fs";\nlet text = fs.read(null, "a.txt");\n');
    assert.ok(!documentDiagnostics(await openText(fixed, 'fix5b.tn')).some((x) => x.code === 'undefined-name'));
  });

  it('offers no std use for a name that is not a standard module', async () => {
    const d = await openText('call("echo", frobnicator);\n', 'fix6.tn');
    assert.ok(!fixesFor(d, 'undefined-name').some((a) => a.title.startsWith('Add `let')));
  });

  it('removes a statement that would leak an identity handle', async () => {
    const d = await openText('let gh = grant identity::bearer("github");\ncall("echo", "token " + gh);\ncall("echo", "ok");\n', 'fix7.tn');
    const actions = fixesFor(d, 'identity-leak');
    assert.equal(actions[0].title, 'Remove the statement that would leak a credential handle');
    const fixed = applyFirst(d, actions);
    assert.equal(fixed, 'let gh = grant identity::bearer("github");\ncall("echo", "ok");\n');
    assert.ok(!documentDiagnostics(await openText(fixed, 'fix7b.tn')).some((x) => x.code === 'identity-leak'));
  });
});

describe('quick fixes: schemas from a URL', () => {
  it('offers to fetch a spec that is not cached; once fetched, its structs are known', async () => {
    const spec = fs.readFileSync(path.join(__dirname, '..', 'absorb', 'fixtures', 'petstore.yaml'), 'utf8');
    let requests = 0;
    const server = http.createServer((_req, res) => {
      requests++;
      res.end(spec);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const saved = process.env.TURN_SCHEMA_DIR;
    process.env.TURN_SCHEMA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-lsp-schemas-'));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/petstore.yaml`;
      const d = await openText(`let pets = use schema::openapi("${url}");\nlet p: Pet = null;\n`, 'fix8.tn');
      await d.prepareSchemas();
      assert.equal(requests, 0, 'the editor does not fetch on its own');
      const actions = fixesFor(d, 'schema');
      assert.equal(actions[0].command?.command, FETCH_SCHEMAS_COMMAND);
      assert.deepEqual(actions[0].command?.arguments, [d.uri]);
      await d.prepareSchemas({ fetch: true, refresh: true }); // what the command runs
      assert.equal(requests, 1);
      const codes = documentDiagnostics(d).map((x) => x.code);
      assert.ok(!codes.includes('schema') && !codes.includes('unknown-type'), codes.join());
    } finally {
      process.env.TURN_SCHEMA_DIR = saved;
      server.close();
    }
  });
});

describe('quick fixes: a stdio MCP server', () => {
  it('never launches it on its own: the diagnostic offers the fix, which lists its tools', async () => {
    const saved = process.env.TURN_SCHEMA_DIR;
    process.env.TURN_SCHEMA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-lsp-mcp-'));
    try {
      const server = path.join(__dirname, '..', '..', 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
      const launch = JSON.stringify({ command: process.execPath, args: [server, 'stdio'] });
      const d = await openText(`let everything = use schema::mcp(${launch});\nlet w: GetStructuredContentResult = null;\n`, 'fix9.tn');
      await d.prepareSchemas();
      const diagnostics = documentDiagnostics(d);
      assert.ok(diagnostics.some((x) => x.code === 'schema' && /is not cached/.test(String(x.message))), 'not launched: not cached');
      const actions = fixesFor(d, 'schema');
      assert.equal(actions[0].command?.command, FETCH_SCHEMAS_COMMAND);
      await d.prepareSchemas({ fetch: true, refresh: true, launch: true }); // what the command runs
      const codes = documentDiagnostics(d).map((x) => x.code);
      assert.ok(!codes.includes('schema') && !codes.includes('unknown-type'), codes.join());
    } finally {
      process.env.TURN_SCHEMA_DIR = saved;
    }
  });
});

describe('quick fixes: did-you-mean from the analyzer', () => {
  it('uses the analyzer’s suggestion when its message has one', async () => {
    const d = await openText('struct P { name: Str };\nlet p = P { nme: "a" };\n', 'fix4.tn');
    const actions = fixesFor(d, 'unknown-field');
    assert.equal(applyFirst(d, actions), 'struct P { name: Str };\nlet p = P { name: "a" };\n');
  });
});
