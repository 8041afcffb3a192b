// The symbol index is built when the document is quiet (server.ts, INDEX_IDLE_MS): a completion right
// after an edit answers from the last indexed analysis instead of waiting for a pass over the newest
// one, and once the document has been quiet the newest analysis answers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { createConnection, createProtocolConnection, ProposedFeatures, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import type { CompletionItem, CompletionList, PublishDiagnosticsParams } from 'vscode-languageserver/node';
import { startServer, type ServerOptions } from '../../language-server/server.js';

const TEXT = 'struct Point { x: Num, y: Num };\nlet origin = Point { x: 0, y: 0 };\ncall("echo", origin.x);\n';

/** A server on in-memory streams; `published(v)` and `indexed(v)` resolve when version v was published / indexed. */
function serve(options: ServerOptions) {
  const c2s = new PassThrough();
  const s2c = new PassThrough();
  const waiting = new Map<string, () => void>();
  const done = new Set<string>();
  const signal = (key: string) => {
    done.add(key);
    waiting.get(key)?.();
  };
  const when = (key: string) => (done.has(key) ? Promise.resolve() : new Promise<void>((resolve) => waiting.set(key, resolve)));
  const connection = createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c));
  const running = startServer(connection, { ...options, onIndexed: (_uri, v) => signal(`indexed ${v}`) });
  const client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
  client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => signal(`published ${p.version}`));
  client.listen();
  const uri = 'file:///tmp/index-idle.tn';
  let version = 1;
  return {
    running,
    uri,
    published: (v: number) => when(`published ${v}`),
    indexed: (v: number) => when(`indexed ${v}`),
    async open(): Promise<void> {
      await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
      await client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'turn', version, text: TEXT } });
    },
    /** Inserts `text` at (line, 0); returns the new version. */
    async insert(line: number, text: string): Promise<number> {
      version++;
      await client.sendNotification('textDocument/didChange', {
        textDocument: { uri, version },
        contentChanges: [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, text }],
      });
      return version;
    },
    async labels(line: number, character: number): Promise<string[]> {
      const r = await client.sendRequest<CompletionItem[] | CompletionList | null>('textDocument/completion', { textDocument: { uri }, position: { line, character } });
      return (Array.isArray(r) ? r : (r?.items ?? [])).map((i) => i.label).sort();
    },
    async close(): Promise<void> {
      await client.sendRequest('shutdown');
      client.dispose();
      connection.dispose();
    },
  };
}

describe('the symbol index of a published analysis', () => {
  it('is not built while edits keep coming: completion answers from the last indexed analysis', async () => {
    // re-checks run at once; the document is never quiet long enough for an index to be built
    const s = serve({ debounceMs: 0, indexIdleMs: 3_600_000 });
    try {
      await s.open();
      await s.published(1);
      const doc = (await s.running.workspace).get(s.uri)!;
      // `origin.` typed on a new line under `origin`'s declaration: this first request builds an index
      const v2 = await s.insert(2, 'origin.\n');
      assert.deepEqual(await s.labels(2, 7), ['x', 'y']);
      await s.published(v2);
      const indexed = doc.lastAnalysis?.analysis;
      assert.equal(indexed?.indexed, true);
      // two more edits, each re-checked and published before the request that follows it
      const v3 = await s.insert(0, 'let extra = 1;\n');
      await s.published(v3);
      const checked = doc.analysis(); // the analysis of version 3, as published
      const v4 = await s.insert(0, 'let more = 2;\n');
      await s.published(v4);
      const newest = doc.analysis();
      assert.deepEqual(await s.labels(4, 7), ['x', 'y']);
      assert.equal(checked.indexed, false, 'a request built the index of a newer analysis');
      assert.equal(newest.indexed, false, 'a request built the index of the newest analysis');
      assert.equal(doc.lastAnalysis?.analysis, indexed, 'requests no longer answer from the indexed analysis');
      assert.equal(doc.lastAnalysis?.edits.length, 2);
    } finally {
      await s.close();
    }
  });

  it('is built once the document is quiet, and then answers with what the edits declared', async () => {
    const s = serve({ debounceMs: 0, indexIdleMs: 1 });
    try {
      await s.open();
      await s.indexed(1);
      const v2 = await s.insert(0, 'struct Pair { a: Num, b: Num };\nlet pp = Pair { a: 1, b: 2 };\n');
      await s.indexed(v2);
      const doc = (await s.running.workspace).get(s.uri)!;
      assert.equal(doc.lastAnalysis?.edits.length, 0, 'the newest analysis is not the one requests answer from');
      // `pp.` typed after the edit: only an analysis of version 2 knows `pp`
      await s.insert(2, 'pp.\n');
      assert.deepEqual(await s.labels(2, 3), ['a', 'b']);
    } finally {
      await s.close();
    }
  });
});
