// A missing credential from every door (issue 44): std/net, an absorbed OpenAPI client and an MCP
// server over HTTP all fail with the error the panel recognises (its Add Credential button and
// notification: missingCredential), located at the program's call — not at the `use schema` line
// nor inside a standard module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { MemoryVault } from '../../runtime/index.js';
import { Runner } from '../../extension/panel/runner.js';
import { readRunSettings, runOptionsFromSettings } from '../../extension/settings.js';
import { missingCredential } from '../../extension/protocol/panel.js';

const SPEC = fs.readFileSync(path.join(__dirname, '..', '..', 'examples', 'market.yaml'), 'utf8');

async function runFails(program: string): Promise<{ name: string | null; line: number | undefined; file: string | undefined; message: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-doors-'));
  try {
    fs.writeFileSync(path.join(dir, 'p.tn'), program);
    fs.writeFileSync(path.join(dir, 'market.yaml'), SPEC);
    const values: Record<string, unknown> = { 'run.allowNet': ['127.0.0.1:*'], durableRuns: false };
    const options = runOptionsFromSettings(readRunSettings(<T>(k: string, d: T) => (k in values ? (values[k] as T) : d)), dir, { vault: new MemoryVault({}) });
    const view = await new Runner({ file: path.join(dir, 'p.tn'), options, publish: () => {} }).start();
    assert.equal(view.status, 'failed', JSON.stringify(view.error));
    const message = view.error?.message ?? '';
    return { name: missingCredential(message), line: view.error?.site?.line, file: view.error?.site ? path.basename(view.error.site.path) : undefined, message };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('std/net: the missing secret is named, at the line of the call', async () => {
  const r = await runFails('let net = use "std/net";\nlet gh = grant identity::bearer("github");\n\nlet me = net.get(gh, "http://127.0.0.1:9/user");\nreturn me;\n');
  assert.equal(r.name, 'github', r.message);
  assert.deepEqual([r.file, r.line], ['p.tn', 4]);
});

test('an absorbed OpenAPI client (investment_committee.tn\'s door): the secret is named and the link is the call, not `use schema`', async () => {
  const r = await runFails('let api = use schema::openapi("market.yaml");\nlet market = api.client("http://127.0.0.1:9/v1");\n\n\nlet quote = market.get_quote(grant identity::bearer("market"), "ACME");\nreturn quote;\n');
  assert.equal(r.name, 'market', r.message);
  assert.deepEqual([r.file, r.line], ['p.tn', 5]);
});

test('an MCP server over HTTP: the secret is named, at the line of the call', async () => {
  const r = await runFails('let mcp = use "std/mcp";\n\nlet docs = mcp.resources(grant identity::bearer("docs_server"), "http://127.0.0.1:9/mcp");\nreturn docs;\n');
  assert.equal(r.name, 'docs_server', r.message);
  assert.deepEqual([r.file, r.line], ['p.tn', 3]);
});

test('an error that only quotes such a sentence as data is not taken for a missing credential', () => {
  assert.equal(missingCredential('uncaught error: the secret "x y" is not set'), null, 'not a credential name');
  assert.equal(missingCredential('the secret "github"\nwas rotated; it is not set here'), null, 'the words on another line');
  assert.equal(missingCredential(`${'a'.repeat(5000)} the secret "github" is not set`), null, 'past the first 4 KiB');
});

test('the panel says a missing credential in plain words: the name, where, the button and the variable — not the escaped error value', async () => {
  const { credentialErrorText } = await import('../../extension/protocol/credential-text.js');
  const raw = 'uncaught error: {"type": "EffectError", "tool": "http_request", "message": "the secret \\"market\\" for identity::bearer(\\"market\\") is not set (set TURN_SECRET_MARKET or add it to the --secrets file)", "line": 58} (in `get_quote` of the API absorbed at investment_committee.tn:27)';
  assert.equal(credentialErrorText(raw),
    'The run needs the credential "market", which is not in the Turn vault (`get_quote` of the API absorbed at investment_committee.tn:27). Add it with Add Credential…, or set TURN_SECRET_MARKET in the environment the editor was started from, then run again.');
  assert.match(credentialErrorText('the secret "my-api.key" for identity::bearer("my-api.key") is not set') ?? '', /TURN_SECRET_MY_API_KEY/);
  assert.equal(credentialErrorText('division by zero'), null);
  const long = credentialErrorText(`the secret "k" for x is not set (in ${'f'.repeat(500)})`) ?? '';
  assert.ok(long.length < 300 && !long.includes('fff'), 'a long "where" is left out');
});

test('a durable panel run (the default) refused for a missing secret waits, resumable, and says so with the credential\'s name at the call', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-doors-'));
  try {
    fs.writeFileSync(path.join(dir, 'p.tn'), 'let api = use schema::openapi("market.yaml");\nlet market = api.client("http://127.0.0.1:9/v1");\n\nlet quote = market.get_quote(grant identity::bearer("market"), "ACME");\nreturn quote;\n');
    fs.writeFileSync(path.join(dir, 'market.yaml'), SPEC);
    const values: Record<string, unknown> = { 'run.allowNet': ['127.0.0.1:*'] };
    const options = runOptionsFromSettings(readRunSettings(<T>(k: string, d: T) => (k in values ? (values[k] as T) : d)), dir, { vault: new MemoryVault({}) });
    const view = await new Runner({ file: path.join(dir, 'p.tn'), options, publish: () => {} }).start();
    assert.equal(view.status, 'waiting');
    assert.ok(view.stored, 'durable');
    assert.equal(missingCredential(view.error?.message ?? ''), 'market', view.error?.message);
    assert.doesNotMatch(view.error?.message ?? '', /unknown outcome/, 'nothing was sent: no decision to make');
    assert.equal(view.error?.site?.line, 4, 'the call\'s line');
    const { credentialErrorText } = await import('../../extension/protocol/credential-text.js');
    assert.match(credentialErrorText(view.error?.message ?? '') ?? '', /then resume the run from the Runs view\.$/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
