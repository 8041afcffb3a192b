// A check does not hold back an answer already computed (server.ts, `afterPendingRequests`): the
// connection writes each answer from a `setImmediate`, and a check that starts in between (here the
// one a didOpen starts at once) is synchronous for seconds on a large file. So a check starts only once
// the requests received before it are answered and their answers written.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { createConnection, createProtocolConnection, ProposedFeatures, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import type { PublishDiagnosticsParams } from 'vscode-languageserver/node';
import { startServer } from '../../language-server/server.js';
import { SourceFile } from '../../runtime/index.js';

const TEXT = 'struct Point { x: Num, y: Num };\nlet origin = Point { x: 0, y: 0 };\norigin.\n';

describe('a check and the requests before it', () => {
  it('starts after their answers are written', async () => {
    const c2s = new PassThrough();
    const s2c = new PassThrough();
    let written = '';
    const write = s2c.write.bind(s2c) as (chunk: unknown, ...rest: unknown[]) => boolean;
    s2c.write = ((chunk: unknown, ...rest: unknown[]) => {
      written += String(chunk);
      return write(chunk, ...rest);
    }) as typeof s2c.write;
    // what had been written when each check began, by file
    const seenAtCheck = new Map<string, string>();
    const check = async (path: string, text: string) => {
      seenAtCheck.set(path, written);
      return { file: new SourceFile(path, text), diagnostics: [] };
    };
    const connection = createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c));
    startServer(connection, { check, debounceMs: 3_600_000 });
    const client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
    const published = new Set<string>();
    const waiters = new Map<string, () => void>();
    client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      published.add(p.uri);
      waiters.get(p.uri)?.();
    });
    const publishedFor = (uri: string) => (published.has(uri) ? Promise.resolve() : new Promise<void>((resolve) => waiters.set(uri, resolve)));
    client.listen();
    try {
      await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
      const first = 'file:///tmp/requests-first-a.tn';
      await client.sendNotification('textDocument/didOpen', { textDocument: { uri: first, languageId: 'turn', version: 1, text: TEXT } });
      await publishedFor(first);
      // a completion (which analyses the first file), then at once the open of a second file
      const second = 'file:///tmp/requests-first-b.tn';
      const completion = client.sendRequest('textDocument/completion', { textDocument: { uri: first }, position: { line: 2, character: 7 } });
      void client.sendNotification('textDocument/didOpen', { textDocument: { uri: second, languageId: 'turn', version: 1, text: 'let b = 1;\n' } });
      await completion;
      await publishedFor(second);
      assert.match(seenAtCheck.get('/tmp/requests-first-b.tn') ?? '', /"label":"x"/, 'the second file was checked before the completion was written');
    } finally {
      await client.sendRequest('shutdown');
      client.dispose();
      connection.dispose();
    }
  });
});
