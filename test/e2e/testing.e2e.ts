// End-to-end: Turn tests in VS Code's Test Explorer (extension/testing/controller.ts), in a real
// code-server driven by chromium. A test file of the workspace fails at its assert; fixed on disk,
// the same test passes. Run with scripts/e2e.mjs (it packages the .vsix first).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { codeServerSuite, openFile, runCommand, screenshot, startCodeServer, waitFor, type Session } from './harness.js';

const FILE = 'greet_test.tn';
const TEST = 'greets by name';

describe('Turn tests in the Test Explorer', { timeout: 600_000 }, () => {
  let s: Session;
  const step = codeServerSuite('testing-', { start: async () => (s = await startCodeServer()) });

  /** The Test Explorer's row of the test file, once it shows `state`. */
  const row = (state: 'passed' | 'failed') => s.page.locator('.test-explorer .monaco-list-row', { hasText: FILE }).filter({ has: s.page.locator(`.codicon-testing-${state}-icon`) });

  step('a test fails at its assert, then passes once fixed', async () => {
    const { page } = s;
    await openFile(page, FILE);
    await page.locator('.activitybar .action-item a[aria-label^="Testing"]').first().click();
    await page.locator('.test-explorer .monaco-list-row', { hasText: FILE }).first().waitFor({ timeout: 60_000 });
    await runCommand(page, 'Test: Run All Tests');
    // the failure, with the assert's message, where the assert stands
    await row('failed').first().waitFor({ timeout: 60_000 });
    // shown inline at the assert (line 8, column 9) and in the results
    await page.getByText('greet_test.tn:8:9: assertion failed: the greeting: expected "Hello, Ada?"').first().waitFor({ timeout: 30_000 });
    // the file's test is listed under it
    await page.locator('.test-explorer .monaco-list-row', { hasText: FILE }).first().click();
    await page.keyboard.press('ArrowRight');
    await page.locator('.test-explorer .monaco-list-row', { hasText: TEST }).filter({ has: page.locator('.codicon-testing-failed-icon') }).first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'testing-01-failed');

    const file = join(s.workspace, FILE);
    writeFileSync(file, readFileSync(file, 'utf8').replace('"Hello, Ada?"', '"Hello, Ada!"'));
    await waitFor(async () => (await page.locator('.monaco-editor .view-line', { hasText: '"Hello, Ada!", "the greeting"' }).count()) > 0, 30_000, 'the editor to show the fixed file');
    await runCommand(page, 'Test: Run All Tests');
    await row('passed').first().waitFor({ timeout: 60_000 });
    await page.locator('.test-explorer .monaco-list-row', { hasText: TEST }).filter({ has: page.locator('.codicon-testing-passed-icon') }).first().waitFor({ timeout: 30_000 });
    assert.equal(await row('failed').count(), 0);
    await screenshot(page, 'testing-02-passed');
  });

  step('a stale recording is shown with its diff; its Re-record action records the test again', async () => {
    const { page } = s;
    const file = 'recorded_test.tn';
    const cassette = join(s.workspace, 'recorded_test.cassette.json');
    const recordedRow = (state: 'passed' | 'failed') =>
      page.locator('.test-explorer .monaco-list-row', { hasText: file }).filter({ has: page.locator(`.codicon-testing-${state}-icon`) });
    await openFile(page, file);
    await runCommand(page, 'Test: Run Tests in Current File');
    await recordedRow('failed').first().waitFor({ timeout: 60_000 });
    await page.getByText('recorded_test.tn:4:5: stale recording: the program now sends a request the recording does not hold').first().waitFor({ timeout: 30_000 });
    assert.match(readFileSync(cassette, 'utf8'), /legs has a cat\?/);
    await screenshot(page, 'testing-03-stale');
    // the Test Results show the message: the readable difference (the prompt changed: its line
    // recorded against now), then both whole requests side by side, and its Re-record action
    const tree = page.locator('.test-output-peek-tree');
    await tree.locator('.monaco-list-row', { hasText: 'asks the model' }).first().click();
    // (the peek is an editor: its spaces are no-break spaces, which getByText with a string normalizes)
    await page.getByText('The request differs from the recording in its prompt').first().waitFor({ timeout: 30_000 });
    await page.getByText('recorded: How many legs has a cat?').first().waitFor({ timeout: 30_000 });
    await page.getByText('now: How many legs has a dog?').first().waitFor({ timeout: 30_000 });
    await screenshot(page, 'testing-03-stale-readable');
    await tree.locator('.monaco-list-row', { hasText: 'the whole requests' }).first().click();
    await page.getByText('prompt: How many legs has a cat?').first().waitFor({ timeout: 30_000 });
    await page.getByText('prompt: How many legs has a dog?').first().waitFor({ timeout: 30_000 });
    await page.getByText('Re-record', { exact: true }).first().click({ timeout: 30_000 });
    await recordedRow('passed').first().waitFor({ timeout: 60_000 });
    await waitFor(() => /legs has a dog\?/.test(readFileSync(cassette, 'utf8')), 30_000, 'the recording to be rewritten');
    await screenshot(page, 'testing-04-rerecorded');
  });
});
