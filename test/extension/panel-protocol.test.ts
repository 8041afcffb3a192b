// The run panel's protocol (both sides validate with it), its HTML/CSP, and the runner that feeds
// it: actors, context tiers, inferences, the timeline — and never a secret.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { emptyRun, isHostMessage, isRunView, isWebviewMessage, type RunView } from '../../extension/protocol/panel.js';
import { editorGrantText, grantSetting } from '../../extension/protocol/panel.js';
import { panelHtml } from '../../extension/panel/html.js';
import { Runner } from '../../extension/panel/runner.js';
import { MemoryVault } from '../../runtime/effects/vault.js';
import { checkCredentialName, keyringErrorMessage } from '../../extension/vault/names.js';

const ROOT = join(__dirname, '../..');

describe('panel protocol', () => {
  test('accepts well-formed messages on both sides', () => {
    assert.ok(isWebviewMessage({ type: 'ready', v: 1 }));
    assert.ok(isWebviewMessage({ type: 'start', v: 1, file: null }));
    assert.ok(isWebviewMessage({ type: 'reveal', v: 1, path: '/a.tn', line: 3 }));
    assert.ok(isHostMessage({ type: 'run', v: 1, run: emptyRun(1, '/a.tn') }));
    assert.ok(isHostMessage({ type: 'vault', v: 1, entries: [{ name: 'github', source: 'vscode:SecretStorage' }] }));
  });

  test('rejects malformed, unknown, wrong-version messages and vault entries with extra fields', () => {
    for (const m of [null, 1, 'ready', {}, { type: 'ready' }, { type: 'ready', v: 2 }, { type: 'nope', v: 1 },
      { type: 'reveal', v: 1, path: '/a.tn', line: 0 }, { type: 'reveal', v: 1, path: 3, line: 1 }, { type: 'start', v: 1, file: 4 }]) {
      assert.equal(isWebviewMessage(m), false, JSON.stringify(m));
    }
    assert.equal(isHostMessage({ type: 'vault', v: 1, entries: [{ name: 'github', source: 'x', secret: 'ghp_x' }] }), false);
    assert.equal(isHostMessage({ type: 'run', v: 1, run: { ...emptyRun(), status: 'exploded' } }), false);
    assert.equal(isHostMessage({ type: 'run', v: 1, run: { ...emptyRun(), actors: [{ pid: 1 }] } }), false);
  });
});

describe('panel HTML', () => {
  test('a strict CSP: no default sources, the script only by nonce, no connections', () => {
    const html = panelHtml('vscode-resource:', 'vscode-resource:/panel.js', 'vscode-resource:/panel.css', 'N0NCE');
    const csp = /content="([^"]+)"/.exec(html)![1];
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'nonce-N0NCE'/);
    assert.match(csp, /connect-src 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|https?:/);
    assert.match(html, /<script nonce="N0NCE" src="vscode-resource:\/panel.js"><\/script>/);
    assert.equal((html.match(/<script/g) ?? []).length, 1);
  });
});

describe('runner', () => {
  test('the triage example: four actors, context tiers with tokens, three inferences, a timeline', async () => {
    const views: RunView[] = [];
    const runner = new Runner({ file: join(ROOT, 'examples/triage_agent.tn'), options: { model: 'mock', cwd: ROOT, authority: { vault: new MemoryVault({}) } }, publish: (v) => views.push(structuredClone(v)), throttleMs: 5 });
    const view = await runner.start();
    assert.equal(view.status, 'done', JSON.stringify(view.error));
    assert.ok(isRunView(view));
    assert.ok(isHostMessage({ type: 'run', v: 1, run: view }));
    assert.equal(view.actors.length, 4);
    const worker = view.actors.find((a) => a.pid === 2)!;
    assert.equal(worker.parent, 1);
    assert.equal(worker.status, 'done');
    assert.equal(worker.context.P0[0].text, 'You triage customer support tickets. Be precise and brief.');
    assert.ok(worker.context.P0[0].tokens > 0);
    assert.match(worker.context.P1[0].text, /^Ticket: /);
    assert.deepEqual(worker.memory.map((m) => m.key), ['last']);
    assert.equal(view.infers.length, 3);
    const i = view.infers[0];
    assert.equal(i.state, 'ok');
    assert.equal(i.type, 'Triage');
    assert.equal(i.site?.line, 22);
    assert.ok(i.attempts[0].raw);
    assert.ok(i.attempts[0].schema);
    assert.ok(view.timeline.some((t) => t.kind === 'process.spawn'));
    assert.ok(view.timeline.every((t) => t.state === 'done'));
    assert.match(view.output.join('\n'), /urgent tickets: 3 of 3/);
    assert.ok(views.length >= 1);
  });

  test('an infer\'s own options show on its timeline item, as the program writes them', async () => {
    const view = await new Runner({ file: join(ROOT, 'examples/review_vote.tn'), options: { model: 'mock', cwd: ROOT, authority: { vault: new MemoryVault({}) } }, publish: () => {} }).start();
    assert.equal(view.status, 'done', JSON.stringify(view.error));
    const asked = view.timeline.filter((t) => t.kind === 'infer.request').map((t) => t.summary);
    assert.deepEqual(asked, ['infer Verdict with {temperature: 0.8, seed: 11, consistency: 5} (attempt 1)', 'infer Str with {max_tokens: 60, retries: 0} (attempt 1)']);
  });

  test('a supervisor restarting a crashing child shows its restarts; the crashes are failed actors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turn-panel-'));
    writeFileSync(join(dir, 'sup.tn'), `let supervisor = use "std/supervisor";
let flaky = turn() { throw "crash"; };
try { supervisor.run({"children": [flaky], "intensity": 2, "period": 60000}); } catch (e) { call("echo", e["type"]); }
`);
    const view = await new Runner({ file: join(dir, 'sup.tn'), options: { model: 'mock', cwd: dir, authority: { vault: new MemoryVault({}) } }, publish: () => {} }).start();
    assert.equal(view.status, 'done', JSON.stringify(view.error));
    assert.deepEqual(view.output, ['SupervisorStopped']);
    const main = view.actors.find((a) => a.pid === 1)!;
    assert.equal(main.restarts, 2);
    assert.equal(view.actors.filter((a) => a.status === 'failed').length, 3);
  });

  test('compile errors are reported with their line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'turn-panel-'));
    writeFileSync(join(dir, 'bad.tn'), 'let x = 1;\nlet y = nope;\n');
    const view = await new Runner({ file: join(dir, 'bad.tn'), options: { model: 'mock', cwd: dir, authority: { vault: new MemoryVault({}) } }, publish: () => {} }).start();
    assert.equal(view.status, 'failed');
    assert.equal(view.error?.site?.line, 2);
  });

  test('a vault secret is used for the request and never appears in any published view', async () => {
    const SECRET = 'tok-1234567890-secret';
    const server = createServer((req, res) => {
      res.end(req.headers.authorization === `Bearer ${SECRET}` ? `ok, you sent ${req.headers.authorization}` : 'denied');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const dir = mkdtempSync(join(tmpdir(), 'turn-panel-'));
    writeFileSync(join(dir, 'agent.tn'), `let net = use "std/net";\nlet t = grant identity::bearer("api");\nlet r = net.get(t, "http://127.0.0.1:${port}/");\ncall("echo", r["body"]);\nreturn r["body"];\n`);
    const published: string[] = [];
    try {
      const view = await new Runner({
        file: join(dir, 'agent.tn'), options: { model: 'mock', cwd: dir, authority: { vault: new MemoryVault({ api: SECRET }), allowNet: ['127.0.0.1:*'] } }, throttleMs: 1,
        publish: (v) => published.push(JSON.stringify({ type: 'run', v: 1, run: v })),
      }).start();
      assert.equal(view.status, 'done', JSON.stringify(view.error));
      // the server echoed the header back: the runner redacted it
      assert.match(view.output.join('\n'), /ok, you sent Bearer «redacted:api»/);
      assert.ok(published.length > 0);
      for (const m of published) assert.ok(!m.includes(SECRET), 'a published view holds the secret');
    } finally {
      server.close();
    }
  });
});

describe('vault names', () => {
  test('credential names', () => {
    assert.equal(checkCredentialName('github'), undefined);
    assert.equal(checkCredentialName('my-api.key:v2'), undefined);
    assert.ok(checkCredentialName(''));
    assert.ok(checkCredentialName('has space'));
    assert.ok(checkCredentialName('-leading'));
  });
  test('a missing OS keyring gives a clear error', () => {
    const m = keyringErrorMessage(new Error('Cannot create an item in a locked collection: org.freedesktop.secrets not provided'));
    assert.match(m, /no OS keyring is available/);
    assert.match(m, /TURN_SECRET_<NAME>/);
    assert.equal(keyringErrorMessage(new Error('boom')), 'Turn vault: boom');
  });
});

describe('a missing grant names the editor setting', () => {
  test('the runtime\'s refusals map to the turn.run.allow* setting that grants them; a setting message validates only for those', async () => {
    const { check } = await import('../../runtime/effects/capabilities.js');
    const refused = (effect: Parameters<typeof check>[1]) => {
      const r = check({}, effect);
      assert.equal(r.ok, false);
      return (r as { message: string }).message;
    };
    assert.equal(grantSetting(refused({ kind: 'files', mode: 'write', path: '/w/out/log.txt' })), 'turn.run.allowWrite');
    assert.equal(grantSetting(refused({ kind: 'files', mode: 'read', path: '/w/in.txt' })), 'turn.run.allowRead');
    assert.equal(grantSetting(refused({ kind: 'network', url: 'https://api.example.com/x' })), 'turn.run.allowNet');
    assert.equal(grantSetting(refused({ kind: 'env', name: 'HOME' })), 'turn.run.allowEnv');
    assert.equal(grantSetting('division by zero'), null);
    const knowledge = 'knowledge_put: the knowledge store in /w/.turn needs write access to its folder (--allow-write /w/.turn, or --allow-knowledge): denied';
    assert.equal(grantSetting(knowledge), 'turn.run.allowWrite');
    assert.match(editorGrantText(knowledge), /\(the turn\.run\.allowWrite setting \/w\/\.turn, or --allow-knowledge\)/);
    assert.doesNotMatch(editorGrantText(knowledge), /--allow-write/);
    assert.equal(isWebviewMessage({ type: 'setting', v: 1, key: 'turn.run.allowWrite' }), true);
    assert.equal(isWebviewMessage({ type: 'setting', v: 1, key: 'workbench.colorTheme' }), false, 'only grant settings');
  });
});
