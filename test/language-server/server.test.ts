// Drives startServer() over in-memory streams with a fake checker: initialize, open, edit, close.
// Skipped until runtime/check (imported by server.ts) exists.
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import {
  createConnection,
  createProtocolConnection,
  ProposedFeatures,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver/node';
import type { PublishDiagnosticsParams } from 'vscode-languageserver/node';
import { SourceFile } from '../../runtime/syntax/source.js';
import type { CheckFn } from '../../language-server/validate.js';

type ServerModule = typeof import('../../language-server/server.js');

async function loadServer(): Promise<ServerModule | undefined> {
  try {
    return await import('../../language-server/server.js');
  } catch (err) {
    if (/Cannot find module|ERR_MODULE_NOT_FOUND/.test(String(err))) return undefined;
    throw err;
  }
}

describe('startServer', () => {
  it('publishes debounced diagnostics for open documents and clears them on close', async (t) => {
    const server = await loadServer();
    if (!server) {
      t.skip('runtime/check/index.ts does not exist yet');
      return;
    }
    const c2s = new PassThrough();
    const s2c = new PassThrough();
    const checked: string[] = [];
    // One diagnostic per `?` in the text.
    const check: CheckFn = async (path, text) => {
      checked.push(text);
      const diagnostics = [...text.matchAll(/\?/g)].map((m) => ({
        severity: 'error' as const,
        message: 'unexpected ?',
        code: 'syntax',
        span: { start: m.index ?? 0, end: (m.index ?? 0) + 1 },
      }));
      return { file: new SourceFile(path, text), diagnostics };
    };
    const serverConnection = createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c));
    server.startServer(serverConnection, { check, debounceMs: 20 });

    const client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
    const published: PublishDiagnosticsParams[] = [];
    const waiters: (() => void)[] = [];
    client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      published.push(p);
      waiters.splice(0).forEach((w) => w());
    });
    const nextPublish = () => new Promise<void>((resolve) => waiters.push(resolve));
    client.listen();
    try {
      const init = (await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} })) as {
        capabilities: { textDocumentSync: { change: number } };
      };
      assert.equal(init.capabilities.textDocumentSync.change, 2);
      await client.sendNotification('initialized', {});

      const uri = 'file:///tmp/prog.tn';
      let p = nextPublish();
      await client.sendNotification('textDocument/didOpen', {
        textDocument: { uri, languageId: 'turn', version: 1, text: 'let a = ?;' },
      });
      await p;
      assert.equal(published.at(-1)?.diagnostics.length, 1);
      assert.deepEqual(published.at(-1)?.diagnostics[0].range.start, { line: 0, character: 8 });

      // A burst of incremental edits is checked once, on the last text.
      p = nextPublish();
      for (let v = 2; v <= 4; v++) {
        await client.sendNotification('textDocument/didChange', {
          textDocument: { uri, version: v },
          contentChanges: [{ range: { start: { line: 0, character: 9 }, end: { line: 0, character: 9 } }, text: '?' }],
        });
      }
      await p;
      assert.deepEqual(checked, ['let a = ?;', 'let a = ????;']);
      assert.equal(published.at(-1)?.version, 4);
      assert.equal(published.at(-1)?.diagnostics.length, 4);

      p = nextPublish();
      await client.sendNotification('textDocument/didClose', { textDocument: { uri } });
      await p;
      assert.deepEqual(published.at(-1), { uri, diagnostics: [] });
    } finally {
      client.dispose();
      serverConnection.dispose();
    }
  });

  it('checks with the runtime checker by default', async (t) => {
    const server = await loadServer();
    if (!server) {
      t.skip('runtime/check/index.ts does not exist yet');
      return;
    }
    const c2s = new PassThrough();
    const s2c = new PassThrough();
    const serverConnection = createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c));
    server.startServer(serverConnection, { debounceMs: 0 });
    const client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
    const published = new Promise<PublishDiagnosticsParams>((resolve) =>
      client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => resolve(p)),
    );
    client.listen();
    try {
      await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
      await client.sendNotification('initialized', {});
      await client.sendNotification('textDocument/didOpen', {
        textDocument: { uri: 'file:///tmp/undefined-name.tn', languageId: 'turn', version: 1, text: 'let x = 1;\ncall("echo", y);\n' },
      });
      const p = await published;
      const undefinedName = p.diagnostics.find((d) => d.code === 'undefined-name');
      assert.ok(undefinedName, JSON.stringify(p.diagnostics));
      assert.equal(undefinedName.source, 'turn');
      assert.deepEqual(undefinedName.range, { start: { line: 1, character: 13 }, end: { line: 1, character: 14 } });
    } finally {
      client.dispose();
      serverConnection.dispose();
    }
  });
});
