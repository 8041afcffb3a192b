// The document model: incremental sync (LSP edits → tree-sitter edits → incremental re-parse),
// positions in UTF-16 code units through tree-sitter, the parse time cap, and freeing old trees.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Node as CstNode } from 'web-tree-sitter';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver';
import { TurnDocument, pointAt } from '../../language-server/document.js';
import { createParser } from '../../runtime/syntax/parse.js';
import { workspace } from './helpers.js';

function leaves(node: CstNode, out: CstNode[] = []): CstNode[] {
  if (node.childCount === 0) out.push(node);
  for (const c of node.children) if (c) leaves(c, out);
  return out;
}

/** A document's tree must equal a fresh parse of its text: same shape, same positions. */
async function assertSameAsFreshParse(doc: TurnDocument): Promise<void> {
  const parser = await createParser();
  const fresh = parser.parse(doc.text)!;
  try {
    assert.equal(doc.tree!.rootNode.toString(), fresh.rootNode.toString());
    const a = leaves(doc.tree!.rootNode).map((n) => `${n.type}@${n.startIndex}-${n.endIndex}:${n.startPosition.row},${n.startPosition.column}`);
    const b = leaves(fresh.rootNode).map((n) => `${n.type}@${n.startIndex}-${n.endIndex}:${n.startPosition.row},${n.startPosition.column}`);
    assert.deepEqual(a, b);
  } finally {
    fresh.delete();
    parser.delete();
  }
}

const range = (sl: number, sc: number, el: number, ec: number) => ({ start: { line: sl, character: sc }, end: { line: el, character: ec } });

describe('incremental sync', () => {
  it('turns LSP edits into tree-sitter edits whose re-parse equals a fresh parse', async () => {
    const ws = await workspace();
    const doc = ws.openDocument('file:///tmp/inc.tn', 'let a = 1;\nlet b = a + 2;\ncall("echo", b);\n', 1);
    const edits: TextDocumentContentChangeEvent[][] = [
      [{ range: range(0, 8, 0, 9), text: '41' }],
      [{ range: range(1, 12, 1, 13), text: '"two"' }],
      [{ range: range(2, 0, 2, 0), text: 'let c = turn(x: Num) {\n    return x;\n};\n' }],
      // several changes in one notification, applied in order
      [
        { range: range(0, 4, 0, 5), text: 'alpha' },
        { range: range(1, 8, 1, 9), text: 'alpha' },
      ],
      [{ range: range(2, 0, 5, 0), text: '' }],
    ];
    let version = 1;
    for (const change of edits) {
      doc.applyChanges(change, ++version);
      await assertSameAsFreshParse(doc);
    }
    assert.equal(doc.text, 'let alpha = 41;\nlet b = alpha + "two";\ncall("echo", b);\n');
    assert.equal(doc.version, 6);
  });

  it('round-trips positions with emoji and CJK text: LSP characters are tree-sitter columns', async () => {
    const ws = await workspace();
    const text = 'let 名前 = "😀 世界";\nlet x = 名前 + "🎉";\n';
    const doc = ws.openDocument('file:///tmp/uni.tn', text, 1);
    for (const n of leaves(doc.tree!.rootNode)) {
      assert.deepEqual(n.startPosition, pointAt(doc.file, n.startIndex), n.type);
      assert.equal(doc.offsetAt({ line: n.startPosition.row, character: n.startPosition.column }), n.startIndex);
      assert.equal(text.slice(n.startIndex, n.endIndex), n.text);
    }
    // `x` on line 1 is after two CJK characters: UTF-16 column 4.
    const x = leaves(doc.tree!.rootNode).find((n) => n.text === 'x')!;
    assert.deepEqual(x.startPosition, { row: 1, column: 4 });
    // An edit after the emoji (a surrogate pair: two code units) lands where LSP says.
    doc.applyChanges([{ range: range(0, 13, 0, 15), text: '世界!' }], 2);
    assert.equal(doc.text.split('\n')[0], 'let 名前 = "😀 世界!";');
    await assertSameAsFreshParse(doc);
    doc.applyChanges([{ range: range(1, 14, 1, 16), text: '🎉🎉' }], 3);
    assert.equal(doc.text.split('\n')[1], 'let x = 名前 + "🎉🎉";');
    await assertSameAsFreshParse(doc);
  });

  it('replaces the whole text on a change without a range', async () => {
    const ws = await workspace();
    const doc = ws.openDocument('file:///tmp/full.tn', 'let a = 1;', 1);
    doc.applyChanges([{ text: 'let b = ;' }], 2);
    assert.equal(doc.text, 'let b = ;');
    assert.equal(doc.analysis().diagnostics[0].code, 'syntax');
    await assertSameAsFreshParse(doc);
  });

  it('frees the old tree after each re-parse', async () => {
    const ws = await workspace();
    const doc = ws.openDocument('file:///tmp/free.tn', 'let a = 1;', 1);
    const deleted: unknown[] = [];
    const old = doc.tree!;
    const original = old.delete.bind(old);
    old.delete = () => {
      deleted.push(old);
      original();
    };
    doc.applyChanges([{ range: range(0, 8, 0, 9), text: '2' }], 2);
    assert.deepEqual(deleted, [old]);
    assert.notEqual(doc.tree, old);
  });

  it('gives up a parse that passes the time cap and says so', async () => {
    const parser = await createParser();
    try {
      const big = 'let a = [' + '1, '.repeat(200_000) + '];\n';
      const doc = TurnDocument.open('file:///tmp/big.tn', '/tmp/big.tn', big, 1, parser, 0);
      assert.equal(doc.tree, null);
      assert.equal(doc.parseTimedOut, true);
      assert.equal(doc.analysis().diagnostics[0].code, 'parse-timeout');
      doc.dispose();
    } finally {
      parser.delete();
    }
  });
});
