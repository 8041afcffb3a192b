// End-to-end: the Turn debugger in code-server with the packaged .vsix — a breakpoint in code three
// actors run, finished with F5; stepping back (time travel) and forward again. Screenshots go to
// test/e2e/artifacts/. Run: see test/e2e/harness.ts.
import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { Page } from 'playwright-core';
import { codeServerSuite, openFile, screenshot, startCodeServer, toggleBreakpointAt, waitFor, type Session } from './harness.js';

/** The Run and Debug side bar's text (threads, stack, variables). */
async function sidebar(page: Page): Promise<string> {
  return page.locator('.part.sidebar').first().innerText().catch(() => '');
}

/** Opens `file`, puts a breakpoint on the line showing `text` and starts debugging from the Debug CodeLens. */
async function debugWithBreakpoint(page: Page, file: string, text: string): Promise<void> {
  await openFile(page, file);
  await toggleBreakpointAt(page, text);
  await page.locator('.codicon-debug-breakpoint').first().waitFor({ timeout: 10_000 });
  await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Debug' }).first().click();
  await page.locator('.debug-toolbar').first().waitFor({ timeout: 30_000 });
}

/** The line the top stack frame of a thread running `fn` stands on, as the Call Stack view shows it. */
async function frameLine(page: Page, fn: string, file: string): Promise<number | undefined> {
  const m = new RegExp(`\\b${fn}\\s+${file.replace('.', '\\.')}\\s+(\\d+):\\d+`).exec(await sidebar(page));
  return m ? Number(m[1]) : undefined;
}

describe('the Turn debugger in code-server', { timeout: 600_000 }, () => {
  let s: Session;
  const step = codeServerSuite('debug-', { start: async () => (s = await startCodeServer()) });

  step('a breakpoint three actors hit: F5 stops in each once, then the run ends', async () => {
    const { page } = s;
    await debugWithBreakpoint(page, 'three_actors.tn', 'let sq = n * n;');
    const toolbar = page.locator('.debug-toolbar').first();
    // each stop: a different `square` actor stands on line 3; F5 goes on
    const stoppedIn: string[] = [];
    for (let presses = 0; presses < 6; presses++) {
      const stopped = await waitFor(async () => {
        if (!(await toolbar.isVisible().catch(() => false))) return 'ended';
        const text = await sidebar(page);
        const m = /#(\d+) square[^\n]*\n\s*breakpoint at line 3/i.exec(text); // the stopped actor's badge: the stop's description
        return m && !stoppedIn.includes(m[1]) && (await frameLine(page, 'square', 'three_actors.tn')) === 3 ? m[1] : undefined;
      }, 30_000, 'a stop in another actor, or the end of the run');
      if (stopped === 'ended') break;
      stoppedIn.push(stopped);
      if (stoppedIn.length === 1) {
        // the threads are the actors, named by the function they run
        const text = await sidebar(page);
        assert.match(text, /#1 main/);
        assert.ok((text.match(/#\d+ square/g) ?? []).length >= 3, text);
        await screenshot(page, 'debug-01-three-actors');
      }
      await page.keyboard.press('F5');
    }
    await toolbar.waitFor({ state: 'hidden', timeout: 30_000 });
    assert.equal(stoppedIn.length, 3, `stopped in actors ${stoppedIn.join(', ')}`);
    assert.equal(new Set(stoppedIn).size, 3);
    await toggleBreakpointAt(page, 'let sq = n * n;'); // remove it again
  });

  step('step back: to the previous line, in the state it had; forward again', async () => {
    const { page } = s;
    await debugWithBreakpoint(page, 'time_travel.tn', 'call("echo", "results "');
    await waitFor(async () => (await frameLine(page, 'main', 'time_travel.tn')) === 19, 30_000, 'main stopped on line 19');
    await waitFor(async () => /results\s*[=:]?\s*\[10, 20, 30\]/.test(await sidebar(page)), 30_000, 'results = [10, 20, 30] in Variables');
    // Step Back (the debugger supports it: the toolbar shows the button)
    const back = page.locator('.debug-toolbar .codicon-debug-step-back').first();
    await back.waitFor({ timeout: 10_000 });
    await back.click();
    await waitFor(async () => (await frameLine(page, 'main', 'time_travel.tn')) === 18, 30_000, 'main back on line 18');
    await waitFor(async () => /stepped back to step \d+/i.test(await sidebar(page)), 10_000, 'the stop says it stepped back');
    await screenshot(page, 'debug-02-stepped-back');
    // forward again: line 19, the same results
    await page.keyboard.press('F10');
    await waitFor(async () => (await frameLine(page, 'main', 'time_travel.tn')) === 19, 30_000, 'main forward on line 19');
    await waitFor(async () => /results\s*[=:]?\s*\[10, 20, 30\]/.test(await sidebar(page)), 30_000, 'results = [10, 20, 30] again');
    // Reverse Continue goes back to the breakpoint's earlier visit: there is none, so to the start
    await page.locator('.debug-toolbar .codicon-debug-reverse-continue').first().click();
    await waitFor(async () => (await frameLine(page, 'main', 'time_travel.tn')) === 3, 30_000, 'main back at the start (line 3)');
    await page.keyboard.press('F5');
    await waitFor(async () => (await frameLine(page, 'main', 'time_travel.tn')) === 19, 30_000, 'main on line 19 again');
    await page.keyboard.press('F5');
    await page.locator('.debug-toolbar').first().waitFor({ state: 'hidden', timeout: 30_000 });
  });
});
