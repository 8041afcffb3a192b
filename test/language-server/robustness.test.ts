// The language server keeps answering whatever a client sends: malformed parameters get an
// InvalidParams error (requests) or are ignored with a log line (notifications), never a crash; a
// document too large to analyse gets one diagnostic and empty features, at once; the outline is
// linear in the size of the program. Drives the real server over an in-memory connection.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import {
  createConnection,
  createProtocolConnection,
  ErrorCodes,
  ProposedFeatures,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
} from 'vscode-languageserver/node';
import type { Connection, DocumentSymbol, LogMessageParams, ProtocolConnection, PublishDiagnosticsParams } from 'vscode-languageserver/node';
import { startServer } from '../../language-server/server.js';
import { MAX_ANALYSED_BYTES } from '../../language-server/document.js';
import { onDocumentSymbol } from '../../language-server/outline.js';
import { openText } from './helpers.js';

const URI = 'file:///tmp/robust.tn';
const TEXT = 'struct Point { x: Num, y: Num };\nlet origin = Point { x: 0, y: 0 };\nlet norm = turn(p: Point) -> Num { return p.x + p.y; };\ncall("echo", norm(origin));\n';
/** Where `norm` is used on the last line. */
const NORM_USE = { line: 3, character: 14 };

interface Harness {
  client: ProtocolConnection;
  server: Connection;
  logs: string[];
  published: PublishDiagnosticsParams[];
  /** Resolves with the next diagnostics published for `uri`. */
  nextPublish(uri: string): Promise<PublishDiagnosticsParams>;
}

async function startHarness(): Promise<Harness> {
  const c2s = new PassThrough();
  const s2c = new PassThrough();
  const server = createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c));
  startServer(server, { debounceMs: 0 });
  const client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
  const logs: string[] = [];
  const published: PublishDiagnosticsParams[] = [];
  const waiters: { uri: string; resolve: (p: PublishDiagnosticsParams) => void }[] = [];
  client.onNotification('window/logMessage', (p: LogMessageParams) => {
    logs.push(p.message);
  });
  client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
    published.push(p);
    for (const w of waiters.filter((x) => x.uri === p.uri)) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(p);
    }
  });
  client.listen();
  await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
  await client.sendNotification('initialized', {});
  return {
    client,
    server,
    logs,
    published,
    nextPublish: (uri) => new Promise((resolve) => waiters.push({ uri, resolve })),
  };
}

/** The request's answer: its result, or the error it answered with. Never hangs: a test timeout would say so. */
async function answer(h: Harness, method: string, params: unknown): Promise<{ result?: unknown; error?: ResponseError<unknown> }> {
  try {
    return { result: await h.client.sendRequest(method, params) };
  } catch (e) {
    assert.ok(e instanceof ResponseError, `${method} answered with ${String(e)}`);
    return { error: e };
  }
}

/** A valid request on the valid document still gets the right answer. */
async function stillAnswers(h: Harness): Promise<void> {
  const hover = await h.client.sendRequest<{ contents: { value: string } } | null>('textDocument/hover', { textDocument: { uri: URI }, position: NORM_USE });
  assert.match(hover?.contents.value ?? '', /norm/);
  const symbols = await h.client.sendRequest<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri: URI } });
  assert.deepEqual(symbols.map((s) => s.name), ['Point', 'origin', 'norm']);
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

describe('the language server under malformed messages', () => {
  let h: Harness;
  before(async () => {
    process.on('unhandledRejection', onUnhandled);
    h = await startHarness();
    const p = h.nextPublish(URI);
    await h.client.sendNotification('textDocument/didOpen', { textDocument: { uri: URI, languageId: 'turn', version: 1, text: TEXT } });
    await p;
  });
  after(() => {
    h.client.dispose();
    h.server.dispose();
    process.off('unhandledRejection', onUnhandled);
  });

  it('ignores malformed notifications with a log line, and the document is unchanged', async () => {
    const bad: [string, unknown][] = [
      ['textDocument/didChange', { textDocument: { uri: URI, version: 2 }, contentChanges: [{ text: 12345 }] }],
      ['textDocument/didChange', { textDocument: { uri: URI, version: 2 }, contentChanges: [{ range: null, text: 'x' }] }],
      ['textDocument/didChange', { textDocument: { uri: URI, version: 2 }, contentChanges: [{ range: { start: { line: -1, character: 0 }, end: { line: 0, character: 0 } }, text: 'x' }] }],
      ['textDocument/didChange', { textDocument: { uri: URI, version: 2 }, contentChanges: [{ range: { start: { line: 'a', character: 0 }, end: { line: 0, character: 0 } }, text: 'x' }] }],
      ['textDocument/didChange', { textDocument: { uri: URI, version: 2 }, contentChanges: null }],
      ['textDocument/didChange', { textDocument: null, contentChanges: [] }],
      ['textDocument/didChange', null],
      ['textDocument/didOpen', { textDocument: { uri: URI, languageId: 'turn', version: 1, text: 12345 } }],
      ['textDocument/didOpen', { textDocument: { uri: 42, languageId: 'turn', version: 1, text: '' } }],
      ['textDocument/didOpen', { textDocument: null }],
      ['textDocument/didOpen', {}],
      ['textDocument/didClose', { textDocument: null }],
      ['textDocument/didClose', { textDocument: { uri: 7 } }],
    ];
    const before = h.logs.length;
    for (const [method, params] of bad) await h.client.sendNotification(method, params);
    await stillAnswers(h);
    const logged = h.logs.slice(before);
    assert.equal(logged.filter((l) => /invalid params/.test(l)).length, bad.length, logged.join('\n'));
    assert.deepEqual(unhandled, [], 'no notification handler rejected');
  });

  it('answers every malformed request with InvalidParams, and later requests still work', async () => {
    const doc = { uri: URI };
    const bad: [string, unknown][] = [
      ['textDocument/hover', { textDocument: doc, position: null }],
      ['textDocument/hover', { textDocument: doc, position: { line: null, character: 0 } }],
      ['textDocument/hover', { textDocument: doc, position: { line: 1.5, character: 0 } }],
      ['textDocument/hover', { textDocument: doc, position: { line: -1, character: 0 } }],
      ['textDocument/hover', { textDocument: null, position: { line: 0, character: 0 } }],
      ['textDocument/hover', { textDocument: { uri: 42 }, position: { line: 0, character: 0 } }],
      ['textDocument/hover', null],
      ['textDocument/completion', { textDocument: doc, position: null }],
      ['textDocument/completion', { textDocument: doc }],
      ['textDocument/definition', { textDocument: doc, position: null }],
      ['textDocument/definition', { textDocument: null, position: NORM_USE }],
      ['textDocument/references', { textDocument: doc, position: NORM_USE, context: null }],
      ['textDocument/prepareRename', { textDocument: doc, position: 'x' }],
      ['textDocument/rename', { textDocument: doc, position: NORM_USE, newName: 5 }],
      ['textDocument/documentSymbol', { textDocument: null }],
      ['textDocument/documentSymbol', {}],
      ['textDocument/documentSymbol', null],
      ['textDocument/semanticTokens/full', { textDocument: 'x' }],
      ['textDocument/foldingRange', { textDocument: null }],
      ['textDocument/selectionRange', { textDocument: doc, positions: null }],
      ['textDocument/selectionRange', { textDocument: doc, positions: [null] }],
      ['textDocument/formatting', { textDocument: doc, options: null }],
      ['textDocument/codeAction', { textDocument: doc, range: null, context: { diagnostics: [] } }],
      ['textDocument/codeAction', { textDocument: doc, range: { start: NORM_USE, end: NORM_USE }, context: { diagnostics: [null] } }],
      ['textDocument/codeAction', { textDocument: doc, range: { start: NORM_USE, end: NORM_USE }, context: null }],
      ['workspace/symbol', { query: null }],
      ['workspace/executeCommand', { command: 5 }],
    ];
    for (const [method, params] of bad) {
      const a = await answer(h, method, params);
      assert.equal(a.error?.code, ErrorCodes.InvalidParams, `${method} ${JSON.stringify(params)} → ${JSON.stringify(a)}`);
      assert.match(a.error.message, /param/i);
    }
    await stillAnswers(h);
    assert.deepEqual(unhandled, []);
  });

  it('answers requests about unknown documents and far-away positions with empty results', async () => {
    const unknown = { uri: 'file:///tmp/never-opened.tn' };
    for (const [method, params] of [
      ['textDocument/hover', { textDocument: unknown, position: { line: 0, character: 0 } }],
      ['textDocument/completion', { textDocument: unknown, position: { line: 0, character: 0 } }],
      ['textDocument/definition', { textDocument: unknown, position: { line: 0, character: 0 } }],
      ['textDocument/documentSymbol', { textDocument: { uri: 'not a uri at all' } }],
      ['textDocument/hover', { textDocument: { uri: URI }, position: { line: 2 ** 31 - 1, character: 2 ** 31 - 1 } }],
      ['textDocument/completion', { textDocument: { uri: URI }, position: { line: 0, character: 100000 } }],
      ['textDocument/selectionRange', { textDocument: { uri: URI }, positions: [{ line: 99, character: 99 }] }],
    ] as const) {
      const a = await answer(h, method, params);
      assert.equal(a.error, undefined, `${method}: ${a.error?.message}`);
    }
    await stillAnswers(h);
  });

  it('keeps its document after a didChange whose text is not a string (it used to be corrupted by one)', async () => {
    await h.client.sendNotification('textDocument/didChange', { textDocument: { uri: URI, version: 3 }, contentChanges: [{ text: 12345 }] });
    await h.client.sendNotification('textDocument/didChange', { textDocument: { uri: URI, version: 3 }, contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: { not: 'text' } }] });
    await stillAnswers(h);
    // And a valid edit after it is applied.
    const p = h.nextPublish(URI);
    await h.client.sendNotification('textDocument/didChange', { textDocument: { uri: URI, version: 4 }, contentChanges: [{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: 'let z = undefined_name;\n' }] });
    const published = await p;
    assert.equal(published.version, 4);
    assert.ok(published.diagnostics.some((d) => d.code === 'undefined-name'), JSON.stringify(published.diagnostics));
    assert.deepEqual(unhandled, []);
  });
});

describe('the server process', () => {
  it('stays up, keeps its document and answers after a didChange whose text is not a string', async () => {
    const root = path.join(__dirname, '..', '..');
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'language-server', 'server.ts'), '--stdio'], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let exitCode: number | null | undefined;
    child.on('exit', (code) => (exitCode = code));
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const client = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
    client.listen();
    try {
      await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
      await client.sendNotification('initialized', {});
      await client.sendNotification('textDocument/didOpen', { textDocument: { uri: URI, languageId: 'turn', version: 1, text: TEXT } });
      await client.sendNotification('textDocument/didChange', { textDocument: { uri: URI, version: 2 }, contentChanges: [{ text: 12345 }] });
      await client.sendNotification('textDocument/didChange', { textDocument: { uri: URI, version: 3 }, contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, text: 12345 }] });
      const hover = await client.sendRequest<{ contents: { value: string } } | null>('textDocument/hover', { textDocument: { uri: URI }, position: NORM_USE });
      assert.match(hover?.contents.value ?? '', /norm/);
      const error = await client.sendRequest('textDocument/hover', { textDocument: { uri: URI }, position: null }).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(error instanceof ResponseError && error.code === ErrorCodes.InvalidParams, String(error));
      assert.equal(exitCode, undefined, stderr);
    } finally {
      client.dispose();
      child.kill();
    }
  });
});

describe('documents too large to analyse', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => {
    h.client.dispose();
    h.server.dispose();
  });

  it('a 2 MB document gets its diagnostics; one over the size cap gets one size diagnostic, its features answer empty, and the server keeps answering', async () => {
    const uri = 'file:///tmp/huge.tn';
    let text = '';
    for (let i = 0; text.length < 2 * 1024 * 1024; i++) text += `let value_${i} = turn(a: Num) -> Num { return a + ${i}; };\n`;
    const lines = text.split('\n').length - 1;
    text += 'call("echo", missing);\n';
    let p = h.nextPublish(uri);
    await h.client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'turn', version: 1, text } });
    const big = await p;
    assert.deepEqual(
      big.diagnostics.map((d) => [d.code, d.range.start.line]),
      [['undefined-name', lines]],
    );
    // Over the cap (the runtime's MAX_SOURCE_BYTES, what `turn check` reads): refused without parsing.
    const over = Array.from({ length: Math.ceil((MAX_ANALYSED_BYTES + 1) / 11) }, (_, i) => `let v${i} = 1;\n`).join('');
    assert.ok(Buffer.byteLength(over) > MAX_ANALYSED_BYTES);
    p = h.nextPublish(uri);
    await h.client.sendNotification('textDocument/didChange', { textDocument: { uri, version: 2 }, contentChanges: [{ text: over }] });
    const published = await p;
    assert.equal(published.diagnostics.length, 1);
    assert.equal(published.diagnostics[0].code, 'too-large');
    assert.match(String(published.diagnostics[0].message), /too large to analyse/);
    const position = { line: 5, character: 6 };
    assert.deepEqual(await h.client.sendRequest('textDocument/documentSymbol', { textDocument: { uri } }), []);
    assert.equal(await h.client.sendRequest('textDocument/hover', { textDocument: { uri }, position }), null);
    assert.equal(await h.client.sendRequest('textDocument/completion', { textDocument: { uri }, position }), null);
    assert.deepEqual(await h.client.sendRequest('textDocument/semanticTokens/full', { textDocument: { uri } }), { data: [] });
    assert.deepEqual(await h.client.sendRequest('textDocument/foldingRange', { textDocument: { uri } }), []);
    // An edit that brings it under the limit: analysed again.
    p = h.nextPublish(uri);
    await h.client.sendNotification('textDocument/didChange', { textDocument: { uri, version: 3 }, contentChanges: [{ range: { start: { line: 10, character: 0 }, end: { line: 1_000_000, character: 0 } }, text: 'call("echo", missing);\n' }] });
    const small = await p;
    assert.ok(small.diagnostics.some((d) => d.code === 'undefined-name'), JSON.stringify(small.diagnostics));
    const symbols = await h.client.sendRequest<DocumentSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
    assert.equal(symbols.length, 10);
  });
});

describe('the outline is linear in the size of the program', () => {
  /** How many times the outline reads an entry of the symbol index, for a program of `n` functions. */
  async function indexReads(n: number): Promise<{ reads: number; symbols: number }> {
    let text = '';
    for (let i = 0; i < n; i++) text += `let f${i} = turn(a: Num) -> Num {\n    let t = a + ${i};\n    return t;\n};\n`;
    const doc = await openText(text, `outline-${n}.tn`);
    const analysis = doc.analysis();
    const { index } = analysis;
    let reads = 0;
    const symbols = new Proxy(index.symbols, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    Object.defineProperty(analysis, 'index', { value: { ...index, symbols } });
    const outline = onDocumentSymbol(doc, { textDocument: { uri: doc.uri } });
    assert.equal(outline.length, n);
    assert.ok(outline.every((s) => s.children?.length === 1 && s.children[0].name === 't'));
    return { reads, symbols: index.symbols.length };
  }

  it('reads each index entry a bounded number of times, whatever the size', async () => {
    const small = await indexReads(200);
    const large = await indexReads(1600);
    // Linear: 8× the program, about 8× the reads (a search per `let` made it 64×).
    const ratio = large.reads / small.reads;
    assert.ok(ratio < 10, `8× the program read the index ${ratio.toFixed(1)}× as often (${small.reads} → ${large.reads})`);
    assert.ok(large.reads <= 2 * large.symbols, `${large.reads} reads of ${large.symbols} entries`);
  });
});
