// End-to-end (issue 26): examples/research_agent.tn — the knowledge store and the task graph — run
// from the run panel, and its tests from the Test Explorer, in code-server's extension host
// (Node 20 here: the knowledge store runs on the WebAssembly SQLite driver, not node:sqlite). The
// example's files are copied unchanged into the workspace. Its `turn {` is at line 67, below the
// first screen: the Run CodeLens at the top of the file is the one clicked.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { ROOT, codeServerNode, codeServerSuite, openFile, panelFrame, runCommand, screenshot, startCodeServer, waitFor, type Session } from './harness.js';

const EXAMPLE = ['research_agent.tn', 'research_agent_test.tn', 'research_agent_test.cassette.json'];

describe('the research agent example in the editor', { timeout: 600_000 }, () => {
  let s: Session;
  const step = codeServerSuite('research-', {
    start: async () =>
      (s = await startCodeServer({
        files: {
          ...Object.fromEntries(EXAMPLE.map((f) => [f, readFileSync(join(ROOT, 'examples', f), 'utf8')])),
          // the example's store grant (`--allow-write .turn`, as its header says), as the editor's setting
          '.vscode/settings.json': JSON.stringify({ 'turn.run.allowWrite': ['.turn'] }),
        },
      })),
  });

  step('Run from the CodeLens at the top of the file: the graph runs to its end, the store keeps its objects', async () => {
    const { page } = s;
    const node = spawnSync(codeServerNode(), ['--version'], { encoding: 'utf8' }).stdout.trim();
    console.log(`e2e: code-server (and its extension host) runs on node ${node}`);
    await openFile(page, 'research_agent.tn');
    // the file is open at its top: the lens above line 1 is in view (the entry's own, at line 67, is not)
    const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Run' }).first();
    await lens.waitFor({ timeout: 30_000 });
    // (Monaco draws spaces as no-break spaces)
    const top = (await page.locator('.editor-group-container.active .monaco-editor .view-line').first().innerText()).replace(/\u00a0/g, ' ');
    assert.match(top, /A research agent on the symbolic environment/, 'the editor shows the top of the file');
    await lens.click();
    const panel = await panelFrame(page);
    await panel.locator('#status', { hasText: 'done' }).waitFor({ timeout: 120_000 });
    const output = await panel.locator('#output').innerText();
    assert.match(output, /claim\/4: rejected by date_in_source@1/);
    assert.match(output, /committed 3, kept as drafts 2/);
    // the model's two findings were asked in the panel's run
    await waitFor(async () => (await panel.locator('.infer').count()) >= 2, 30_000, 'two inferences listed');
    assert.ok(existsSync(join(s.workspace, '.turn/knowledge.db')), 'the knowledge store is in the workspace');
    await screenshot(page, 'research-01-run-panel');
  });

  step('its tests pass in the Test Explorer', async () => {
    const { page } = s;
    const file = 'research_agent_test.tn';
    await openFile(page, file);
    await page.locator('.activitybar .action-item a[aria-label^="Testing"]').first().click();
    await page.locator('.test-explorer .monaco-list-row', { hasText: file }).first().waitFor({ timeout: 60_000 });
    await openFile(page, file); // the editor again: "current file" is the test file
    await runCommand(page, 'Test: Run Tests in Current File');
    const fileRow = (state: 'passed' | 'failed') => page.locator('.test-explorer .monaco-list-row', { hasText: file }).filter({ has: page.locator(`.codicon-testing-${state}-icon`) });
    await Promise.race([
      fileRow('passed').first().waitFor({ timeout: 120_000 }),
      fileRow('failed').first().waitFor({ timeout: 120_000 }).then(() => assert.fail('the research agent tests failed in the Test Explorer')),
    ]);
    await page.locator('.test-explorer .monaco-list-row', { hasText: file }).first().click();
    await page.keyboard.press('ArrowRight');
    for (const name of ['the task graph runs to its end', 'the check rejects findings whose date is not in the material', 'the program and its materials are committed']) {
      await page.locator('.test-explorer .monaco-list-row', { hasText: name }).filter({ has: page.locator('.codicon-testing-passed-icon') }).first().waitFor({ timeout: 30_000 });
    }
    await screenshot(page, 'research-02-tests-passed');
  });
});
