// End-to-end: the packaged .vsix in a real VS Code (code-server) driven by chromium, checked as a
// user would. Screenshots go to test/e2e/artifacts/. Run with `npm run test:e2e`
// (scripts/e2e.mjs packages the .vsix first); provisioning: scripts/provision-e2e.sh.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe } from 'node:test';
import { answerInput, codeServerSuite, openFile, panelFrame, reloadWindow, runCommand, screenshot, startCodeServer, toggleBreakpointAt, waitFor, webviewHtml, type Session } from './harness.js';

const SECRET = 's3cret-e2e-value-7f3a';

describe('Turn in code-server', { timeout: 600_000 }, () => {
  let s: Session;
  let api: Server;
  const seenAuth: string[] = [];

  const step = codeServerSuite('', {
    start: async () => {
      // The service the vault example calls: it answers only to the bearer token stored in the vault.
      api = createServer((req, res) => {
        seenAuth.push(String(req.headers.authorization ?? ''));
        const ok = req.headers.authorization === `Bearer ${SECRET}`;
        res.writeHead(ok ? 200 : 401, { 'content-type': 'text/plain' });
        res.end(ok ? 'hello, authorized caller' : 'who are you?');
      });
      await new Promise<void>((r) => api.listen(0, '127.0.0.1', r));
      const port = (api.address() as { port: number }).port;
      return (s = await startCodeServer({ substitutions: { __PORT__: String(port) } }));
    },
    cleanup: () => api?.close(),
  });

  step('diagnostics appear for a file with an error', async () => {
    const { page } = s;
    await openFile(page, 'broken.tn');
    await page.locator('.monaco-editor .squiggly-error').first().waitFor({ timeout: 60_000 });
    // The status bar shows the server's health.
    await page.locator('.statusbar-item', { hasText: 'Turn' }).first().waitFor({ timeout: 30_000 });
    await runCommand(page, 'View: Focus Problems');
    await page.locator('.markers-panel .monaco-list-row', { hasText: 'missing_value' }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, '01-diagnostics');
  });

  step('completion offers struct fields', async () => {
    const { page } = s;
    await openFile(page, 'fields.tn');
    await page.locator('.editor-group-container.active .monaco-editor .view-line', { hasText: 'call("echo", t.title);' }).first().click();
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('t.');
    await page.keyboard.press('Control+Space');
    const widget = page.locator('.suggest-widget.visible');
    await widget.waitFor({ timeout: 30_000 });
    await waitFor(async () => {
      const labels = await widget.locator('.monaco-list-row').allTextContents();
      return labels.some((l) => l.includes('title')) && labels.some((l) => l.includes('priority'));
    }, 30_000, 'the fields title and priority in the suggestions');
    await screenshot(page, '02-completion');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+Z'); // leave the file as it was
    await page.keyboard.press('Control+Z');
  });

  step('the Run CodeLens runs the agent; the panel shows the actor tree and context tiers', async () => {
    const { page } = s;
    await openFile(page, 'triage_agent.tn');
    const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Run' }).first();
    await lens.waitFor({ timeout: 30_000 });
    await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Debug' }).first().waitFor({ timeout: 10_000 });
    await lens.click();
    const panel = await panelFrame(page);
    await panel.locator('#status', { hasText: 'done' }).waitFor({ timeout: 60_000 });
    // main + one worker per ticket
    await waitFor(async () => (await panel.locator('.actor').count()) >= 4, 30_000, 'four actors in the tree');
    const tree = await panel.locator('#actors').innerText();
    assert.match(tree, /#1/);
    assert.match(tree, /done/);
    // Select a worker: its context tiers, with token counts.
    await panel.locator('.actor', { hasText: '#2' }).first().click();
    await panel.locator('.tier-P0', { hasText: 'You triage customer support tickets' }).waitFor({ timeout: 10_000 });
    await panel.locator('.tier-P1', { hasText: 'Ticket:' }).waitFor({ timeout: 10_000 });
    assert.match(await panel.locator('#context').innerText(), /tokens/);
    await panel.locator('.infer').first().waitFor({ timeout: 10_000 });
    await screenshot(page, '03-run-panel');
  });

  step('a credential stored through the vault is used by a program; the webview never receives it', async () => {
    const { page } = s;
    await runCommand(page, 'Turn: Add Credential');
    await answerInput(page, 'e2e-token', 'A name for the credential');
    await answerInput(page, SECRET, 'The secret for identity handles named "e2e-token"');
    await page.locator('.notifications-toasts', { hasText: 'e2e-token' }).first().waitFor({ timeout: 15_000 });
    await openFile(page, 'vault_agent.tn');
    await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Run' }).first().click();
    const panel = await panelFrame(page);
    await panel.locator('#output', { hasText: 'server says: hello, authorized caller' }).waitFor({ timeout: 60_000 });
    assert.ok(seenAuth.includes(`Bearer ${SECRET}`), 'the service received the vault secret');
    // The vault list in the panel shows the name only.
    await panel.locator('#vault', { hasText: 'e2e-token' }).waitFor({ timeout: 10_000 });
    await screenshot(page, '04-vault');
    const html = await webviewHtml(page);
    assert.ok(html.length > 0);
    assert.ok(!html.includes(SECRET), 'no webview ever holds the secret');
  });

  step('the run panel comes back with its state after a window reload', async () => {
    const { page } = s;
    // what brings the run back: the view the extension host kept on disk (VS Code's own save of the
    // webview's state at a reload does not always land on a busy machine)
    const keptVaultRun = () => findFiles(join(s.root, 'user-data'), 'run-panel-view.json').some((f) => readFileSync(f, 'utf8').includes('server says: hello, authorized caller'));
    await waitFor(async () => keptVaultRun() || undefined, 10_000, "the vault run's view kept in the extension's storage");
    await reloadWindow(page);
    const panel = await panelFrame(page, 60_000);
    await panel.locator('#output', { hasText: 'server says: hello, authorized caller' }).waitFor({ timeout: 30_000 });
    await panel.locator('#status', { hasText: 'done' }).waitFor({ timeout: 10_000 });
    await screenshot(page, '05-panel-after-reload');
  });

  step('the debugger stops at a breakpoint', async () => {
    const { page } = s;
    await openFile(page, 'debug_me.tn');
    // Breakpoint on line 3 (`let doubled = n * 2;`): cursor there, F9.
    await toggleBreakpointAt(page, 'let doubled = n * 2;');
    await page.locator('.codicon-debug-breakpoint').first().waitFor({ timeout: 10_000 });
    await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Debug' }).first().click();
    await page.locator('.debug-toolbar').first().waitFor({ timeout: 30_000 });
    await page.locator('.monaco-editor .debug-top-stack-frame-line').first().waitFor({ timeout: 30_000 });
    // The Variables view shows the local `n` = 20.
    await waitFor(async () => /\bn\s*[=:]\s*20\b/.test(await page.locator('.part.sidebar').first().innerText().catch(() => '')), 30_000, 'n = 20 in Variables');
    assert.match(await page.locator('.part.sidebar').first().innerText(), /double[\s\S]*main/, 'the call stack shows double() called from main');
    await screenshot(page, '06-debugger');
    await page.keyboard.press('F5');
    await page.locator('.debug-toolbar').first().waitFor({ state: 'hidden', timeout: 30_000 });
  });
});

/** The files named `name` under `dir`, at any depth. */
function findFiles(dir: string, name: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => basename(f) === name).map((f) => join(dir, f));
}
