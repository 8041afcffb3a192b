// A publish checks a document once: setting its module context (which the server does before every
// publish) keeps the analysis of a file that uses no module, and re-makes that of a file that does.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { PassThrough } from 'node:stream';
import { createConnection, createProtocolConnection, ProposedFeatures, StreamMessageReader, StreamMessageWriter } from 'vscode-languageserver/node';
import type { PublishDiagnosticsParams } from 'vscode-languageserver/node';
import { startServer } from '../../language-server/server.js';

async function openAndPublish(file: string, text: string) {
  const c2s = new PassThrough();
  const s2c = new PassThrough();
  const connection = createConnection(ProposedFeatures.all, new StreamMessageReader(c2s), new StreamMessageWriter(s2c));
  const running = startServer(connection, { indexIdleMs: 3_600_000 });
  const client = createProtocolConnection(new StreamMessageReader(s2c), new StreamMessageWriter(c2s));
  const uri = `file://${file}`;
  const published = new Promise<PublishDiagnosticsParams>((resolve) => client.onNotification('textDocument/publishDiagnostics', resolve));
  client.listen();
  await client.sendRequest('initialize', { processId: null, rootUri: null, capabilities: {} });
  await client.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'turn', version: 1, text } });
  const diagnostics = (await published).diagnostics;
  const doc = (await running.workspace).get(uri)!;
  return {
    diagnostics,
    doc,
    close: async () => {
      await client.sendRequest('shutdown');
      client.dispose();
      connection.dispose();
    },
  };
}

describe('publishing diagnostics', () => {
  it('analyses a file that uses no module once', async () => {
    const text = 'struct P { x: Num };\nlet p = P { x: 1 };\nlet q = p.x + "s";\ncall("echo", q);\n';
    const s = await openAndPublish('/tmp/one-check.tn', text);
    try {
      // a second analysis would have reused every statement of the first one's lowering
      assert.deepEqual(s.doc.loweringReuse, { reused: 0, lowered: 4 });
    } finally {
      await s.close();
    }
  });

  it('re-analyses a file that uses a module with what the module exports', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-one-check-'));
    fs.writeFileSync(path.join(dir, 'lib.tn'), 'struct Money { cents: Num };\nreturn {"unit": "EUR"};\n');
    const main = path.join(dir, 'main.tn');
    const text = 'let lib = use "./lib";\nlet m = Money { cents: "ten" };\ncall("echo", m.cents);\n';
    fs.writeFileSync(main, text);
    const s = await openAndPublish(main, text);
    try {
      // only an analysis with the module's context knows `Money` and its field's type
      assert.deepEqual(s.diagnostics.map((d) => d.message), ['type mismatch: field `cents` of Money is Num, got Str']);
      assert.equal(s.doc.loweringReuse.reused, 3, 'the file was not re-analysed with its module context');
    } finally {
      await s.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
