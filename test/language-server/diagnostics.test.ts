import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DiagnosticSeverity } from 'vscode-languageserver';
import type { Diagnostic } from '../../runtime/diagnostics.js';
import { SourceFile } from '../../runtime/syntax/source.js';
import { spanToRange, toLspDiagnostic, toLspDiagnostics, toLspSeverity } from '../../language-server/diagnostics.js';

const diag = (start: number, end: number, extra: Partial<Diagnostic> = {}): Diagnostic => ({
  severity: 'error',
  message: 'boom',
  code: 'syntax',
  span: { start, end },
  ...extra,
});

describe('Diagnostic → LSP diagnostic', () => {
  it('maps severities', () => {
    assert.equal(toLspSeverity('error'), DiagnosticSeverity.Error);
    assert.equal(toLspSeverity('warning'), DiagnosticSeverity.Warning);
    assert.equal(toLspSeverity('info'), DiagnosticSeverity.Information);
  });

  it('converts a span on one line to 0-based positions and keeps message, code and source', () => {
    const file = new SourceFile('a.tn', 'let x = ;\nlet y = 2;');
    const text = file.text;
    const start = text.indexOf(';');
    const d = toLspDiagnostic(file, diag(start, start + 1, { message: 'expected an expression', code: 'syntax' }));
    assert.deepEqual(d, {
      range: { start: { line: 0, character: 8 }, end: { line: 0, character: 9 } },
      severity: DiagnosticSeverity.Error,
      code: 'syntax',
      source: 'turn',
      message: 'expected an expression',
    });
  });

  it('converts spans across lines, and on later lines', () => {
    const file = new SourceFile('a.tn', 'turn {\n  let y = z;\n}\n');
    const z = file.text.indexOf('z');
    assert.deepEqual(toLspDiagnostic(file, diag(z, z + 1, { severity: 'warning' })).range, {
      start: { line: 1, character: 10 },
      end: { line: 1, character: 11 },
    });
    assert.deepEqual(toLspDiagnostic(file, diag(0, file.text.length - 1)).range, {
      start: { line: 0, character: 0 },
      end: { line: 2, character: 1 },
    });
  });

  it('counts UTF-16 code units, as LSP does (astral characters are two)', () => {
    const text = 'let s = "😀é"; let t = u;';
    const file = new SourceFile('a.tn', text);
    const u = text.lastIndexOf('u');
    const range = toLspDiagnostic(file, diag(u, u + 1)).range;
    // 😀 is two code units, é one: the JS string index is the LSP character.
    assert.equal(range.start.character, u);
    assert.equal(range.start.character, 23);
  });

  it('handles CRLF line ends', () => {
    const file = new SourceFile('a.tn', 'let a = 1;\r\nlet b = c;\r\n');
    const c = file.text.indexOf('c;');
    assert.deepEqual(toLspDiagnostic(file, diag(c, c + 1)).range.start, { line: 1, character: 8 });
  });

  it('clamps spans out of the text and never ends before it starts', () => {
    const file = new SourceFile('a.tn', 'let a = 1;\nlet b');
    const eof = { line: 1, character: 5 };
    assert.deepEqual(spanToRange(file, 100, 200), { start: eof, end: eof });
    assert.deepEqual(spanToRange(file, -5, 3), { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } });
    assert.deepEqual(spanToRange(file, 4, 2), { start: { line: 0, character: 4 }, end: { line: 0, character: 4 } });
    assert.deepEqual(spanToRange(file, Number.NaN, 1), { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } });
  });

  it('converts a list in order, and an empty file', () => {
    const file = new SourceFile('a.tn', 'x y');
    const out = toLspDiagnostics(file, [diag(2, 3, { message: 'second', severity: 'info' }), diag(0, 1, { message: 'first' })]);
    assert.deepEqual(
      out.map((d) => [d.message, d.severity, d.range.start.character]),
      [
        ['second', DiagnosticSeverity.Information, 2],
        ['first', DiagnosticSeverity.Error, 0],
      ],
    );
    const empty = new SourceFile('e.tn', '');
    assert.deepEqual(toLspDiagnostic(empty, diag(0, 0)).range, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
  });
});
