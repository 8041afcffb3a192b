import assert from 'node:assert/strict';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { DiagnosticSeverity, TextDocumentSyncKind } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { SourceFile } from '../../runtime/syntax/source.js';
import { onInitialize } from '../../language-server/initialize.js';
import { uriToPath } from '../../language-server/uri.js';
import { validateDocument } from '../../language-server/validate.js';
import type { CheckFn } from '../../language-server/validate.js';

describe('uriToPath', () => {
  it('turns file URIs into paths and leaves other schemes alone', () => {
    const p = path.resolve('/tmp/dir with space/prog.tn');
    assert.equal(uriToPath(pathToFileURL(p).href), p);
    assert.equal(uriToPath('untitled:Untitled-1'), 'untitled:Untitled-1');
  });
});

describe('validateDocument', () => {
  it('passes the path and current text to the checker and converts what it returns', async () => {
    const file = path.resolve('/tmp/prog.tn');
    const doc = TextDocument.create(pathToFileURL(file).href, 'turn', 1, 'let x = ;');
    const calls: [string, string][] = [];
    const check: CheckFn = async (p, text) => {
      calls.push([p, text]);
      return {
        file: new SourceFile(p, text),
        diagnostics: [{ severity: 'error', message: 'expected an expression', code: 'syntax', span: { start: 8, end: 9 } }],
      };
    };
    const out = await validateDocument(doc, check);
    assert.deepEqual(calls, [[file, 'let x = ;']]);
    assert.equal(out.length, 1);
    assert.deepEqual(out[0].range, { start: { line: 0, character: 8 }, end: { line: 0, character: 9 } });
    assert.equal(out[0].code, 'syntax');
  });

  it('sees incremental edits', async () => {
    let doc = TextDocument.create('file:///tmp/p.tn', 'turn', 1, 'let a = 1;\n');
    doc = TextDocument.update(doc, [{ range: { start: { line: 0, character: 8 }, end: { line: 0, character: 9 } }, text: '"s"' }], 2);
    let seen = '';
    await validateDocument(doc, async (p, text) => {
      seen = text;
      return { file: new SourceFile(p, text), diagnostics: [] };
    });
    assert.equal(seen, 'let a = "s";\n');
  });

  it('reports a checker crash as one internal error instead of throwing', async () => {
    const doc = TextDocument.create('untitled:Untitled-1', 'turn', 1, 'x');
    const out = await validateDocument(doc, async () => {
      throw new Error('grammar not loaded');
    });
    assert.equal(out.length, 1);
    assert.equal(out[0].severity, DiagnosticSeverity.Error);
    assert.equal(out[0].code, 'internal');
    assert.equal(typeof out[0].message, 'string');
    assert.match(String(out[0].message), /grammar not loaded/);
  });
});

describe('onInitialize', () => {
  it('asks for incremental sync and names the server', () => {
    const result = onInitialize({ processId: null, rootUri: null, capabilities: {} });
    const sync = result.capabilities.textDocumentSync;
    assert.ok(sync && typeof sync === 'object');
    assert.equal(sync.change, TextDocumentSyncKind.Incremental);
    assert.equal(sync.openClose, true);
    assert.equal(result.serverInfo?.name, 'turn-language-server');
  });
});
