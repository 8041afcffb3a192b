// Completion and hover from the last analysis (language-server/stale.ts): a request right after an
// edit is answered without re-analysing the document, and its answer is the one a fresh analysis
// gives, at positions of the current text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { createConnection, createProtocolConnection, ProposedFeatures, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import type { CompletionItem, CompletionList, Hover, PublishDiagnosticsParams } from 'vscode-languageserver/node';
import { startServer } from '../../language-server/server.js';
import { charToOld, toCurrent } from '../../language-server/stale.js';
import type { TextEdit } from '../../language-server/document.js';

/** A small deterministic generator (mulberry32), so the property test is the same on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('offsets through a series of edits', () => {
  it('map back to the same character of the old text, and forward again (random edits, fixed seed)', () => {
    const next = random(45);
    let mapped = 0;
    for (let round = 0; round < 300; round++) {
      const old = 'let a = 1;\nlet b = a + 2;\ncall("echo", b);\n'.repeat(1 + Math.floor(next() * 4));
      let text = old;
      const edits: TextEdit[] = [];
      for (let e = 0, count = 1 + Math.floor(next() * 6); e < count; e++) {
        const start = Math.floor(next() * (text.length + 1));
        const end = start + Math.floor(next() * Math.min(8, text.length - start + 1));
        const inserted = 'XY\nZ'.slice(0, Math.floor(next() * 5));
        text = text.slice(0, start) + inserted + text.slice(end);
        edits.push({ start, oldEnd: end, length: inserted.length });
      }
      // old text is lower case and edits write upper case: a mapped character must be an old one, the same
      for (let offset = 0; offset < text.length; offset++) {
        const o = charToOld(edits, offset);
        if (o === undefined) continue;
        mapped++;
        assert.equal(text[offset], old[o], `round ${round}, offset ${offset}`);
        assert.equal(toCurrent(edits, o), offset, `round ${round}, offset ${offset}`);
      }
      // and every character no edit wrote nor moved across is found
      const untouched = edits.length === 1 ? [...text].filter((c, i) => i < edits[0].start || i >= edits[0].start + edits[0].length).length : undefined;
      if (untouched !== undefined) {
        let found = 0;
        for (let offset = 0; offset < text.length; offset++) {
          const o = charToOld(edits, offset);
          if (o !== undefined && text[offset] === old[o]) found++;
        }
        assert.ok(found >= untouched, `round ${round}: ${found} < ${untouched}`);
      }
    }
    assert.ok(mapped > 1000, String(mapped));
  });
});

const TEXT = 'struct Point { x: Num, y: Num };\nlet origin = Point { x: 0, y: 0 };\nlet norm = turn(p: Point) -> Num { return p.x + p.y; };\ncall("echo", norm(origin));\n';

describe('completion and hover right after an edit', () => {
  it('are answered from the last analysis, mapped to the current text, without re-analysing', async () => {
    const c2s = new PassThrough();
    const s2c = new PassThrough();
    const server = createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c));
    // the re-check after an edit never runs during the test: only the requests can analyse
    const running = startServer(server, { debounceMs: 3_600_000 });
    const client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
    let opened: () => void = () => undefined;
    const published = new Promise<void>((resolve) => (opened = resolve));
    client.onNotification('textDocument/publishDiagnostics', (_p: PublishDiagnosticsParams) => opened());
    client.listen();
    const uri = 'file:///tmp/stale.tn';
    try {
      await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
      await client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'turn', version: 1, text: TEXT } });
      await published;
      const doc = (await running.workspace).get(uri)!;

      // A line inserted above everything: hover on `norm` (line 3 before, line 4 now).
      await client.sendNotification('textDocument/didChange', {
        textDocument: { uri, version: 2 },
        contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'let extra = 1;\n' }],
      });
      const hover = await client.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 4, character: 15 } });
      assert.equal(doc.analysed, false, 'the hover re-analysed the document');
      assert.ok(hover, 'no hover');
      assert.match(JSON.stringify(hover.contents), /norm/);
      assert.deepEqual(hover.range, { start: { line: 4, character: 13 }, end: { line: 4, character: 17 } });

      // Enter at the end of `norm`'s line, then `origin.` typed on the new line: the fields of Point,
      // from the analysis before either edit.
      const normEnd = TEXT.split('\n')[2].length;
      await client.sendNotification('textDocument/didChange', {
        textDocument: { uri, version: 3 },
        contentChanges: [
          { range: { start: { line: 3, character: normEnd }, end: { line: 3, character: normEnd } }, text: '\n' },
          { range: { start: { line: 4, character: 0 }, end: { line: 4, character: 0 } }, text: 'origin.' },
        ],
      });
      const completion = await client.sendRequest<CompletionItem[] | CompletionList | null>('textDocument/completion', { textDocument: { uri }, position: { line: 4, character: 7 } });
      assert.equal(doc.analysed, false, 'the completion re-analysed the document');
      const items = Array.isArray(completion) ? completion : (completion?.items ?? []);
      assert.deepEqual(items.map((i) => i.label).sort(), ['x', 'y']);

      // Inside what changed the last analysis knows nothing: that hover waits for a fresh analysis.
      const inside = await client.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 5 } });
      assert.equal(doc.analysed, true);
      assert.match(JSON.stringify(inside?.contents), /extra/);
    } finally {
      await client.sendRequest('shutdown');
      client.dispose();
      server.dispose();
    }
  });
});
