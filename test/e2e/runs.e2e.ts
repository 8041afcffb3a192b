// End-to-end: durable runs in the packaged .vsix on code-server's Node 20 (no node:sqlite, no native
// module: the store runs on node-sqlite3-wasm). A run from the panel stops at `suspend;` and shows as
// suspended; the Runs view (Turn activity-bar container) lists it; after a window reload the Runs view
// resumes it in the panel. A run the `turn` CLI started and that was killed while its file append ran
// waits on an unknown outcome: the Runs view shows the append's request, settles it (retry), and
// resumes the run, which appends exactly once. A run the CLI writes while the view shows appears
// without a refresh (the store is watched). With turn.restate.ingressUrl set, the view lists a real
// restate-server's runs under a second root and resumes one there (an unreachable server first shows
// as one row). Screenshots: test/e2e/artifacts/07-runs-view.png, 09-runs-view-restate.png (also in docs/images/
// as runs-view, runs-view-restate).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
// @ts-expect-error: a plain .mjs helper without types
import { listVsix } from '../../scripts/vsix.mjs';
import { waitForRun } from '../../runtime/index.js';
import { NO_SERVER, freePort, startRestateServer, startWorkerProcess, turn, type RestateServer, type WorkerProcess } from '../restate/harness.js';
import { answerFrame } from './answer-frame.js';
import { ROOT, VSIX, codeServerSuite, inlineAction, openFile, panelFrame, reloadWindow, row, screenshot, showRuns, startCodeServer, toDocs, waitFor, type Session } from './harness.js';

/**
 * Runs a Restate row's inline action until `done()`. While the view re-lists the Restate server (a
 * network call) VS Code has no element for the row, and an action clicked then reaches its command
 * without it: the command asks "Which run?" of the local runs. That is dismissed and clicked again.
 */
async function restateAction(page: Page, label: string, action: string, done: () => Promise<boolean>, clickFirst = true): Promise<void> {
  if (clickFirst) await inlineAction(page, label, action);
  const picker = page.locator('.quick-input-widget input[placeholder="Which run?"]');
  await waitFor(async () => {
    if (await picker.isVisible().catch(() => false)) {
      await page.keyboard.press('Escape');
      await inlineAction(page, label, action);
      return false;
    }
    return done().catch(() => false);
  }, 60_000, `${action} on ${label}`);
}

describe('Durable runs and the Runs view in code-server', { timeout: 600_000 }, () => {
  let s: Session;
  let interruptedId = '';
  let restate: RestateServer | undefined;
  let worker: WorkerProcess | undefined;

  const step = codeServerSuite('runs-', {
    start: async () => {
      const files = (listVsix(VSIX) as { name: string }[]).map((e) => e.name);
      assert.ok(files.includes('extension/dist/node-sqlite3-wasm.wasm'), 'the .vsix ships the WebAssembly SQLite');
      s = await startCodeServer();
      // A run the CLI started, killed (SIGKILL) right after the journal recorded its append's intent.
      mkdirSync(join(s.workspace, 'out'));
      const r = spawnSync(process.execPath, [join(ROOT, 'bin/turn.js'), 'run', 'interrupted.tn', '--store', '.turn', '--allow-write', 'out', '--allow-read', 'out'], {
        cwd: s.workspace,
        encoding: 'utf8',
        env: { ...process.env, TURN_CRASH_AT: '1:after', TURN_STORE_DRIVER: '' },
      });
      assert.equal(r.signal, 'SIGKILL', r.stderr);
      interruptedId = /turn: run (\S+)/.exec(r.stderr)![1];
      assert.ok(!existsSync(join(s.workspace, 'out', 'log.txt')), 'the append never ran');
      return s;
    },
    cleanup: async () => {
      worker?.child.kill('SIGKILL');
      await worker?.exited;
      await restate?.stop();
    },
  });

  step('a durable run from the panel stops at suspend; and shows as suspended', async () => {
    const { page } = s;
    await openFile(page, 'suspend_me.tn');
    await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Run' }).first().click();
    const panel = await panelFrame(page);
    await panel.locator('#output', { hasText: 'before the suspend' }).waitFor({ timeout: 60_000 });
    await panel.locator('#status', { hasText: 'suspended' }).waitFor({ timeout: 30_000 });
    assert.doesNotMatch(await panel.locator('#output').innerText(), /after the resume/);
    assert.ok(existsSync(join(s.workspace, '.turn', 'store.db')), 'the run is in the workspace store');
  });

  step('the Runs view lists the store\'s runs with their status and the unknown outcome', async () => {
    const { page } = s;
    await showRuns(page);
    await row(page, 'suspend_me.tn suspended').waitFor({ timeout: 30_000 });
    await row(page, `interrupted.tn waiting on an unknown outcome run ${interruptedId}`).waitFor({ timeout: 30_000 });
    await row(page, 'step 1 tool fs_append unknown outcome').waitFor({ timeout: 30_000 });
    // widen the side bar (its sash) so the screenshot shows each run's status in full
    const bar = await page.locator('.part.sidebar').first().boundingBox();
    if (bar) {
      await page.mouse.move(bar.x + bar.width + 1, bar.y + 300);
      await page.mouse.down();
      await page.mouse.move(bar.x + bar.width + 240, bar.y + 300, { steps: 8 });
      await page.mouse.up();
    }
    toDocs(await screenshot(page, '07-runs-view'), 'runs-view');
  });

  step('after a window reload, the Runs view resumes the suspended run in the panel', async () => {
    const { page } = s;
    await reloadWindow(page);
    await showRuns(page);
    await inlineAction(page, 'suspend_me.tn suspended', 'Resume Run');
    const panel = await panelFrame(page, 60_000);
    await panel.locator('#output', { hasText: 'after the resume' }).waitFor({ timeout: 60_000 });
    await panel.locator('#status', { hasText: 'done' }).waitFor({ timeout: 30_000 });
    assert.match(await panel.locator('#turn-panel').innerText(), /resumed/);
    assert.doesNotMatch(await panel.locator('#output').innerText(), /before the suspend/, 'the replayed part does not print again');
    await row(page, 'suspend_me.tn done').waitFor({ timeout: 30_000 });
  });

  step('an unknown outcome is settled from the Runs view, with the effect\'s request shown, and the run resumes', async () => {
    const { page } = s;
    await showRuns(page);
    await inlineAction(page, 'step 1 tool fs_append unknown outcome', 'Settle Unknown Outcome');
    // the settle form (extension/forms/): what is known about the effect, its request readably, the choices in order
    const form = await answerFrame(page);
    const text = await waitFor(async () => {
      const t = await form.locator('#turn-answer').innerText();
      return /fs_append/.test(t) && /out\/log\.txt/.test(t) ? t : null;
    }, 10_000, 'the request in the settle form');
    assert.match(text, /Sent at: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    assert.match(text, /Last journaled step: /);
    assert.match(text, /Idempotency key: \S+/);
    assert.doesNotMatch(text, /\\"|"args"/, 'no double-escaped JSON, not the raw envelope');
    assert.deepEqual(await form.locator('input[name="choice"]').evaluateAll((rs) => rs.map((r) => (r as HTMLInputElement).value)), ['result', 'error', 'retry']);
    await screenshot(page, '08-settle-unknown');
    // run it again, settled and resumed as one action
    await form.locator('input[data-choice="retry"]').check();
    await form.locator('button.answer-go', { hasText: 'Settle and resume' }).click();
    const panel = await panelFrame(page);
    await panel.locator('#output', { hasText: 'appended' }).waitFor({ timeout: 60_000 });
    await panel.locator('#status', { hasText: 'done' }).waitFor({ timeout: 30_000 });
    await row(page, `interrupted.tn done run ${interruptedId}`).waitFor({ timeout: 30_000 });
    assert.equal(readFileSync(join(s.workspace, 'out', 'log.txt'), 'utf8'), 'A\n', 'the retried append ran once');
    await waitFor(() => !existsSync(join(s.workspace, '.turn', 'store.db.lock')), 10_000, 'the editor to let go of the store when idle');
  });

  step('a run the turn CLI writes appears in the Runs view without a refresh (the store is watched)', async () => {
    const { page } = s;
    await showRuns(page);
    const r = spawnSync(process.execPath, [join(ROOT, 'bin/turn.js'), 'run', 'suspend_me.tn', '--store', '.turn'], { cwd: s.workspace, encoding: 'utf8', env: { ...process.env, TURN_STORE_DRIVER: '' } });
    assert.equal(r.status, 0, r.stderr);
    const id = /turn: run (\S+)/.exec(r.stderr)![1];
    await row(page, `suspend_me.tn suspended run ${id}`).waitFor({ timeout: 30_000 });
  });

  test('with turn.restate.ingressUrl, the Runs view lists a Restate server\'s runs, resumes one and opens it in the panel (an unreachable server is one row)', { skip: NO_SERVER }, async () => {
    try {
      const { page } = s;
      restate = await startRestateServer();
      worker = await startWorkerProcess(['--restate-admin', restate.admin, '--port', String(await freePort())]);
      const sub = await turn(['submit', 'suspend_me.tn', '--restate', restate.ingress], s.workspace);
      assert.equal(sub.code, 0, sub.stderr);
      const id = sub.stdout.trim();
      assert.equal((await waitForRun(restate.ingress, id)).status, 'suspended');
      await showRuns(page);
      mkdirSync(join(s.workspace, '.vscode'), { recursive: true });
      const dead = await freePort();
      writeFileSync(join(s.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'turn.restate.ingressUrl': `http://127.0.0.1:${dead}`, 'turn.restate.adminUrl': `http://127.0.0.1:${dead}` }));
      await row(page, `cannot reach the Restate admin API at http://127.0.0.1:${dead}`).waitFor({ timeout: 30_000 });
      writeFileSync(join(s.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'turn.restate.ingressUrl': restate.ingress, 'turn.restate.adminUrl': restate.admin }));
      await row(page, `Restate server ${restate.ingress}`).waitFor({ timeout: 30_000 });
      await row(page, `suspend_me.tn suspended on Restate run ${id}`).waitFor({ timeout: 30_000 });
      toDocs(await screenshot(page, '09-runs-view-restate'), 'runs-view-restate');
      await restateAction(page, `suspend_me.tn suspended on Restate run ${id}`, 'Resume Run', () => page.locator('.notifications-toasts', { hasText: `run ${id} is done` }).first().isVisible());
      await row(page, `suspend_me.tn done on Restate run ${id}`).waitFor({ timeout: 30_000 });
      // Open in Panel: the run as the server has it, with what it printed there
      await inlineAction(page, `suspend_me.tn done on Restate run ${id}`, 'Open Run in Panel');
      const panel = await panelFrame(page);
      await restateAction(page, `suspend_me.tn done on Restate run ${id}`, 'Open Run in Panel', () => panel.locator('#output', { hasText: `run ${id} on the Restate server` }).isVisible(), false);
      assert.match(await panel.locator('#output').innerText(), /before the suspend[\s\S]*after the resume/);
      await panel.locator('#status', { hasText: 'done' }).waitFor({ timeout: 30_000 });
    } catch (e) {
      await screenshot(s.page, 'failed-runs-restate').catch(() => {});
      throw e;
    }
  });
});
