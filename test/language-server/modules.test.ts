// Programs of many files in the language server, driven over LSP: a document is checked against
// the modules it uses (typed calls, members, shared structs), re-checked when one of them changes
// (edited in the editor, or on disk through workspace/didChangeWatchedFiles), shows module cycles
// and broken modules at the `use`, and hover, completion, definition, references and rename reach
// across files.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createConnection, createProtocolConnection, ProposedFeatures, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import type { CompletionList, Hover, Location, ProtocolConnection, PublishDiagnosticsParams, RegistrationParams, WorkspaceEdit } from 'vscode-languageserver/node';
import { startServer } from '../../language-server/server.js';

const MONEY = [
  'struct Money { cents: Num, currency: "EUR" | "USD" };',
  'let fmt = turn(m: Money) -> Str { return m.currency + " " + m.cents; };',
  'let add = turn(a: Money, b: Money) -> Money { return Money { cents: a.cents + b.cents, currency: a.currency }; };',
  'return {"fmt": fmt, "add": add, "zero": Money { cents: 0, currency: "EUR" }};',
  '',
].join('\n');
const LEDGER = 'let money = use "./money";\nlet total = turn(items: List<Money>) -> Money { return money.zero; };\nreturn {"total": total};\n';
const MAIN = [
  'let money = use "./money";',
  'let ledger = use "./ledger";',
  'let coffee = Money { cents: 250, currency: "EUR" };',
  'call("echo", money.fmt(money.add(coffee, coffee)));',
  'call("echo", money.fmt(ledger.total([coffee])));',
  '',
].join('\n');

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-lsp-modules-'));
const file = (name: string) => path.join(dir, name);
const uri = (name: string) => pathToFileURL(file(name)).href;

let client: ProtocolConnection;
const published: PublishDiagnosticsParams[] = [];
const waiters: { uri: string; test: (p: PublishDiagnosticsParams) => boolean; resolve: (p: PublishDiagnosticsParams) => void }[] = [];
const registrations: RegistrationParams[] = [];

/** The next diagnostics published for `u` that pass `test` (event-driven: no polling, no sleep). */
function diagnosticsOf(u: string, test: (p: PublishDiagnosticsParams) => boolean = () => true): Promise<PublishDiagnosticsParams> {
  return new Promise((resolve) => waiters.push({ uri: u, test, resolve }));
}

const messages = (p: PublishDiagnosticsParams) => p.diagnostics.map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.message}`);

async function open(name: string, text: string, version = 1): Promise<PublishDiagnosticsParams> {
  const published = diagnosticsOf(uri(name));
  await client.sendNotification('textDocument/didOpen', { textDocument: { uri: uri(name), languageId: 'turn', version, text } });
  return published;
}

before(async () => {
  fs.writeFileSync(file('money.tn'), MONEY);
  fs.writeFileSync(file('ledger.tn'), LEDGER);
  fs.writeFileSync(file('main.tn'), MAIN);
  const c2s = new PassThrough();
  const s2c = new PassThrough();
  startServer(createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c)), { debounceMs: 0 });
  client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
  client.onNotification('textDocument/publishDiagnostics', (p: PublishDiagnosticsParams) => {
    published.push(p);
    for (const w of waiters.filter((x) => x.uri === p.uri && x.test(p))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(p);
    }
  });
  const registered = new Promise<void>((resolve) => {
    client.onRequest('client/registerCapability', (p: RegistrationParams) => {
      registrations.push(p);
      resolve();
      return null;
    });
  });
  client.listen();
  await client.sendRequest('initialize', { processId: null, rootUri: pathToFileURL(dir).href, capabilities: { workspace: { didChangeWatchedFiles: { dynamicRegistration: true } } } });
  await client.sendNotification('initialized', {});
  await registered;
});

after(() => {
  client.dispose();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('modules in the language server', () => {
  it('watches Turn files and turn.json when the client lets it register', () => {
    const watchers = registrations.flatMap((r) => r.registrations).filter((r) => r.method === 'workspace/didChangeWatchedFiles');
    assert.equal(watchers.length, 1);
    assert.deepEqual((watchers[0].registerOptions as { watchers: { globPattern: string }[] }).watchers.map((w) => w.globPattern), ['**/*.tn', '**/turn.json']);
  });

  it('checks a document against its modules: a clean program of three files, then wrong calls and members', async () => {
    assert.deepEqual(messages(await open('main.tn', MAIN)), []);
    const changed = diagnosticsOf(uri('main.tn'), (p) => p.version === 2);
    await client.sendNotification('textDocument/didChange', {
      textDocument: { uri: uri('main.tn'), version: 2 },
      contentChanges: [{ text: MAIN + 'money.fmt(5);\nmoney.fmtt(coffee);\nlet c = Money { cents: "1", currency: "EUR" };\n' }],
    });
    assert.deepEqual(messages(await changed), [
      '6:11: type mismatch: parameter `m` of `fmt` is Money, got Num',
      '7:7: module `./money` has no member `fmtt` (did you mean `fmt`?) (it exports fmt, add, zero)',
      '8:24: type mismatch: field `cents` of Money is Num, got Str',
    ]);
    const restored = diagnosticsOf(uri('main.tn'), (p) => p.version === 3);
    await client.sendNotification('textDocument/didChange', { textDocument: { uri: uri('main.tn'), version: 3 }, contentChanges: [{ text: MAIN }] });
    assert.deepEqual(messages(await restored), []);
  });

  it('hovers a module member with its signature, and a struct of another file with its fields', async () => {
    const hover = await client.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri: uri('main.tn') }, position: { line: 3, character: 20 } });
    assert.match((hover?.contents as { value: string }).value, /\(module \.\/money\) fmt\(m: Money\) -> Str/);
    const struct = await client.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri: uri('main.tn') }, position: { line: 2, character: 15 } });
    const text = (struct?.contents as { value: string }).value;
    assert.match(text, /struct Money \{ cents: Num, currency: "EUR" \| "USD" \}/);
    assert.match(text, /from .*money\.tn/);
  });

  it('goes to the definition of a struct declared in a module', async () => {
    const def = await client.sendRequest<Location | null>('textDocument/definition', { textDocument: { uri: uri('main.tn') }, position: { line: 2, character: 15 } });
    assert.equal(def?.uri, uri('money.tn'));
    assert.deepEqual(def?.range, { start: { line: 0, character: 7 }, end: { line: 0, character: 12 } });
  });

  it("completes a module's members and the fields of a module's struct", async () => {
    const edited = diagnosticsOf(uri('main.tn'), (p) => p.version === 4);
    await client.sendNotification('textDocument/didChange', { textDocument: { uri: uri('main.tn'), version: 4 }, contentChanges: [{ text: MAIN + 'money.;\ncoffee.;\n' }] });
    await edited;
    const members = await client.sendRequest<CompletionList>('textDocument/completion', { textDocument: { uri: uri('main.tn') }, position: { line: 5, character: 6 } });
    assert.deepEqual(
      members.items.map((i) => `${i.label} ${i.detail}`),
      ['fmt ./money: fmt(m: Money) -> Str', 'add ./money: add(a: Money, b: Money) -> Money', 'zero ./money: zero: Money'],
    );
    const fields = await client.sendRequest<CompletionList>('textDocument/completion', { textDocument: { uri: uri('main.tn') }, position: { line: 6, character: 7 } });
    assert.deepEqual(fields.items.map((i) => i.label).sort(), ['cents', 'currency']);
    const restored = diagnosticsOf(uri('main.tn'), (p) => p.version === 5);
    await client.sendNotification('textDocument/didChange', { textDocument: { uri: uri('main.tn'), version: 5 }, contentChanges: [{ text: MAIN }] });
    await restored;
  });

  it('finds the references of an exported closure in the files that use it, and renames it without touching their member names', async () => {
    await open('money.tn', MONEY);
    const refs = await client.sendRequest<Location[]>('textDocument/references', { textDocument: { uri: uri('money.tn') }, position: { line: 2, character: 5 }, context: { includeDeclaration: true } });
    const where = refs.map((r) => `${path.basename(new URL(r.uri).pathname)}:${r.range.start.line + 1}:${r.range.start.character + 1}`).sort();
    assert.deepEqual(where, ['main.tn:4:30', 'money.tn:3:5', 'money.tn:4:28']);
    const edit = await client.sendRequest<WorkspaceEdit | null>('textDocument/rename', { textDocument: { uri: uri('money.tn') }, position: { line: 2, character: 5 }, newName: 'plus' });
    assert.deepEqual(Object.keys(edit?.changes ?? {}), [uri('money.tn')]);
    assert.equal(edit?.changes?.[uri('money.tn')].length, 2);
  });

  it('re-checks a document when a module it uses is edited in the editor: a renamed member', async () => {
    const recheck = diagnosticsOf(uri('main.tn'), (p) => p.diagnostics.length > 0);
    await client.sendNotification('textDocument/didChange', {
      textDocument: { uri: uri('money.tn'), version: 2 },
      contentChanges: [{ text: MONEY.replace('"fmt": fmt', '"format": fmt') }],
    });
    assert.deepEqual(messages(await recheck), [
      '4:20: module `./money` has no member `fmt` (it exports format, add, zero)',
      '5:20: module `./money` has no member `fmt` (it exports format, add, zero)',
    ]);
    // closing the module's document: the file on disk (with `fmt`) stands for it again
    const back = diagnosticsOf(uri('main.tn'), (p) => p.diagnostics.length === 0);
    await client.sendNotification('textDocument/didClose', { textDocument: { uri: uri('money.tn') } });
    await back;
  });

  it('re-checks a document when a module it uses changes on disk, and names a module that does not parse at its use', async () => {
    const broken = diagnosticsOf(uri('main.tn'), (p) => p.diagnostics.length > 0);
    fs.writeFileSync(file('ledger.tn'), 'let money = use "./money";\nlet total = ;\nreturn {"total": total};\n');
    // a later mtime than the copy the server read, whatever the clock's resolution
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file('ledger.tn'), later, later);
    await client.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('ledger.tn'), type: 2 }] });
    assert.deepEqual(messages(await broken), ['2:18: module ledger.tn does not parse: ' + file('ledger.tn') + ':2:13: syntax error: expected an expression, found `;`']);
    const fixed = diagnosticsOf(uri('main.tn'), (p) => p.diagnostics.length === 0);
    fs.writeFileSync(file('ledger.tn'), LEDGER);
    const later2 = new Date(Date.now() + 10000);
    fs.utimesSync(file('ledger.tn'), later2, later2);
    await client.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('ledger.tn'), type: 2 }] });
    await fixed;
  });

  it("finds a module's struct wherever the files using it name it, and renames it in all of them from a using file", async () => {
    const refs = await client.sendRequest<Location[]>('textDocument/references', { textDocument: { uri: uri('main.tn') }, position: { line: 2, character: 15 }, context: { includeDeclaration: true } });
    const count = (name: string) => refs.filter((r) => r.uri === uri(name)).length;
    assert.deepEqual([count('money.tn'), count('ledger.tn'), count('main.tn')], [7, 2, 1]);
    const prepared = await client.sendRequest<{ placeholder: string } | null>('textDocument/prepareRename', { textDocument: { uri: uri('main.tn') }, position: { line: 2, character: 15 } });
    assert.equal(prepared?.placeholder, 'Money');
    const edit = await client.sendRequest<WorkspaceEdit | null>('textDocument/rename', { textDocument: { uri: uri('main.tn') }, position: { line: 2, character: 15 }, newName: 'Amount' });
    const changes = edit?.changes ?? {};
    assert.deepEqual(Object.keys(changes).sort(), [uri('ledger.tn'), uri('main.tn'), uri('money.tn')].sort());
    assert.deepEqual(
      changes[uri('ledger.tn')].map((e) => `${e.range.start.line + 1}:${e.range.start.character + 1} ${e.newText}`),
      ['2:30 Amount', '2:41 Amount'],
    );
    assert.equal(changes[uri('money.tn')].length, 7);
  });

  it('shows a module cycle at the use in the open document, with the files relative to the workspace', async () => {
    fs.writeFileSync(file('b.tn'), 'let a = use "./a";\nreturn {"y": 1};\n');
    fs.writeFileSync(file('a.tn'), 'let b = use "./b";\nreturn {"x": 1};\n');
    const p = await open('a.tn', 'let b = use "./b";\nreturn {"x": 1};\n');
    assert.equal(p.diagnostics.length, 1);
    assert.match(String(p.diagnostics[0].message), /^module cycle: a\.tn → b\.tn → a\.tn/);
    assert.deepEqual(p.diagnostics[0].range.start, { line: 0, character: 12 });
  });

  it('names a module that is not text at its use, with the reason', async () => {
    fs.writeFileSync(file('blob.tn'), Buffer.from([0x41, 0x00, 0xff]));
    const p = await open('uses-blob.tn', 'let b = use "./blob";\n');
    assert.deepEqual(messages(p), [`1:13: cannot use this module: ${file('blob.tn')}: not a text file (binary data at byte 1)`]);
  });

  it('ignores a watched-files notification of the wrong shape, and keeps answering', async () => {
    await client.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: 5, type: 'changed' }] });
    await client.sendNotification('workspace/didChangeWatchedFiles', null);
    const hover = await client.sendRequest<Hover | null>('textDocument/hover', { textDocument: { uri: uri('main.tn') }, position: { line: 3, character: 20 } });
    assert.match((hover?.contents as { value: string }).value, /fmt\(m: Money\) -> Str/);
  });
});
