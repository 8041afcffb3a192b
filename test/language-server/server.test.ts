// Drives startServer() over in-memory streams with a fake checker: initialize, open, edit, close.
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
      const init = await client.sendRequest<{ capabilities: { textDocumentSync: { change: number } } }>('initialize', { processId: null, rootUri: null, capabilities: {} });
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

describe('startServer, opening a document', () => {
  it('publishes its diagnostics at once, without waiting for the edit debounce', async () => {
    const server = await loadServer();
    assert.ok(server);
    const c2s = new PassThrough();
    const s2c = new PassThrough();
    const checked: string[] = [];
    const check: CheckFn = async (path, text) => {
      checked.push(text);
      return { file: new SourceFile(path, text), diagnostics: [] };
    };
    const serverConnection = createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c));
    // a debounce no test waits out: a publish that arrives came from the open itself
    server.startServer(serverConnection, { check, debounceMs: 10 * 60_000 });
    const client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
    const published = new Promise<PublishDiagnosticsParams>((resolve) =>
      client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => resolve(p)),
    );
    client.listen();
    let guard: ReturnType<typeof setTimeout> | undefined;
    try {
      await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
      await client.sendNotification('initialized', {});
      const uri = 'file:///tmp/opened.tn';
      await client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'turn', version: 3, text: 'let a = 1;' } });
      const p = await Promise.race([
        published,
        new Promise<never>((_, reject) => {
          guard = setTimeout(() => reject(new Error('no diagnostics for an opened document: the open waited for the debounce')), 60_000);
        }),
      ]);
      assert.equal(p.uri, uri);
      assert.equal(p.version, 3);
      assert.deepEqual(checked, ['let a = 1;']);
    } finally {
      clearTimeout(guard);
      await client.sendRequest('shutdown').catch(() => {});
      client.dispose();
      serverConnection.dispose();
    }
  });
});

describe('startServer, every feature over the protocol', () => {
  it('syncs incremental edits and answers completion, hover, definition, symbols, tokens and formatting', async () => {
    const server = await loadServer();
    assert.ok(server);
    const { readFileSync } = await import('node:fs');
    const { fixturePath, uriOf, markerOffset } = await import('./helpers.js');
    const c2s = new PassThrough();
    const s2c = new PassThrough();
    const serverConnection = createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c));
    server.startServer(serverConnection, { debounceMs: 0 });
    const client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
    const published: PublishDiagnosticsParams[] = [];
    let waiter: (() => void) | undefined;
    client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
      published.push(p);
      waiter?.();
    });
    const nextPublish = () => new Promise<void>((resolve) => (waiter = resolve));
    client.listen();
    try {
      const init = await client.sendRequest<{ capabilities: Record<string, unknown> }>('initialize', { processId: null, rootUri: uriOf(fixturePath('')), capabilities: {} });
      for (const cap of ['completionProvider', 'hoverProvider', 'definitionProvider', 'referencesProvider', 'renameProvider', 'documentSymbolProvider', 'workspaceSymbolProvider', 'semanticTokensProvider', 'foldingRangeProvider', 'selectionRangeProvider', 'documentFormattingProvider', 'codeActionProvider']) {
        assert.ok(init.capabilities[cap], cap);
      }
      await client.sendNotification('initialized', {});
      const uri = uriOf(fixturePath('shapes.tn'));
      const text = readFileSync(fixturePath('shapes.tn'), 'utf8');
      const file = new SourceFile('shapes.tn', text);
      const pos = (name: string) => file.utf16Position(markerOffset(text, name));
      let p = nextPublish();
      await client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'turn', version: 1, text } });
      await p;
      assert.deepEqual(published.at(-1)?.diagnostics, []);

      const completion = await client.sendRequest<{ items: { label: string }[] }>('textDocument/completion', { textDocument: { uri }, position: pos('methodref') });
      assert.deepEqual(completion.items.map((i) => i.label).sort(), ['norm', 'scaled', 'x', 'y']);
      const hover = await client.sendRequest<{ contents: { value: string } }>('textDocument/hover', { textDocument: { uri }, position: pos('addref') });
      assert.match(hover.contents.value, /let add/);
      const def = await client.sendRequest<{ range: { start: unknown } }>('textDocument/definition', { textDocument: { uri }, position: pos('addref') });
      assert.deepEqual(def.range.start, pos('adddef'));
      const symbols = await client.sendRequest<{ name: string }[]>('textDocument/documentSymbol', { textDocument: { uri } });
      assert.ok(symbols.some((s) => s.name === 'Point'));
      const tokens = await client.sendRequest<{ data: number[] }>('textDocument/semanticTokens/full', { textDocument: { uri } });
      assert.ok(tokens.data.length > 0 && tokens.data.length % 5 === 0);
      const formatting = await client.sendRequest<unknown[]>('textDocument/formatting', { textDocument: { uri }, options: { tabSize: 4, insertSpaces: true } });
      assert.ok(Array.isArray(formatting));

      // An incremental edit that introduces an unknown field: diagnostics follow, and requests see the new text.
      const at = pos('memberref');
      p = nextPublish();
      await client.sendNotification('textDocument/didChange', {
        textDocument: { uri, version: 2 },
        contentChanges: [{ range: { start: at, end: { line: at.line, character: at.character + 1 } }, text: 'z' }],
      });
      await p;
      assert.equal(published.at(-1)?.version, 2);
      const unknown = published.at(-1)?.diagnostics.find((d) => d.code === 'unknown-field');
      assert.ok(unknown, JSON.stringify(published.at(-1)));
      assert.deepEqual(unknown.range.start, at);
      const actions = await client.sendRequest<{ title: string }[]>('textDocument/codeAction', { textDocument: { uri }, range: unknown.range, context: { diagnostics: [unknown] } });
      assert.ok(actions.some((a) => a.title === 'Change to `y`' || a.title === 'Change to `x`'), JSON.stringify(actions));
    } finally {
      client.dispose();
      serverConnection.dispose();
    }
  });
});
