// End-to-end: typed forms in code-server with the packaged .vsix (issues 43/44). A what-if edit of
// a model reply is the form of the reply's type: an ill-typed edit is refused at its field (the
// fork button waits), a well-typed one forks and the fork's result differs, the banner naming the
// changed field. A run the `turn` CLI left waiting on an unknown outcome is answered through the
// settle form ("it happened: enter its result", settle and resume as one action) and finishes.
// Screenshots: test/e2e/artifacts/forms-*.png, copied to docs/images/.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import type { Frame } from 'playwright-core';
import { answerFrame } from './answer-frame.js';
import { ARTIFACTS, ROOT, codeServerSuite, inlineAction, openFile, panelFrame, row, screenshot, showRuns, startCodeServer, type Session } from './harness.js';

const DOCS_IMAGES = join(ROOT, 'docs', 'images');

/** A picture of one webview frame, into the artifacts and docs/images/. */
async function frameShot(frame: Frame, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(DOCS_IMAGES, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await (await frame.frameElement()).screenshot({ path: file });
  copyFileSync(file, join(DOCS_IMAGES, `${name}.png`));
}

// The mock model (the editor's default) answers an enum with its first value: the verdict is "spam".
const TRIAGE = `struct Triage { verdict: "spam" | "ham", score: Num }

turn {
    let t = infer Triage { "Triage: you won a prize"; };
    call("echo", "verdict " + t.verdict);
    return t.verdict;
}
`;

// Killed by the test right after its append's intent is journaled (TURN_CRASH_AT): its outcome is unknown.
const WAITING = `let fs = use "std/fs";

turn {
    fs.append(null, "out/forms.txt", "A\\n");
    call("echo", "appended");
    return "answered";
}
`;

describe('typed forms in code-server: what-if and a waiting run', { timeout: 600_000 }, () => {
  let s: Session;
  let waitingId = '';

  const step = codeServerSuite('forms-', {
    start: async () => {
      s = await startCodeServer();
      writeFileSync(join(s.workspace, 'forms_triage.tn'), TRIAGE);
      writeFileSync(join(s.workspace, 'forms_wait.tn'), WAITING);
      mkdirSync(join(s.workspace, 'out'), { recursive: true });
      const r = spawnSync(process.execPath, [join(ROOT, 'bin/turn.js'), 'run', 'forms_wait.tn', '--store', '.turn', '--allow-write', 'out', '--allow-read', 'out'], {
        cwd: s.workspace,
        encoding: 'utf8',
        env: { ...process.env, TURN_CRASH_AT: '1:after', TURN_STORE_DRIVER: '' },
      });
      assert.equal(r.signal, 'SIGKILL', r.stderr);
      waitingId = /turn: run (\S+)/.exec(r.stderr)![1];
      return s;
    },
  });

  step('what-if: an ill-typed edit is refused at its field; a well-typed one forks and the result differs', async () => {
    const { page } = s;
    await openFile(page, 'forms_triage.tn');
    await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Run' }).first().click();
    const panel = await panelFrame(page);
    await panel.locator('#status', { hasText: 'done' }).waitFor({ timeout: 60_000 });
    assert.match(await panel.locator('#result').innerText(), /spam/);
    const reply = panel.locator('#journal .step.forkable', { hasText: 'model reply (Triage)' }).first();
    await reply.waitFor({ timeout: 30_000 });
    await reply.locator('button.what-if').click();
    const form = panel.locator('#journal .typed-form');
    await form.locator('legend', { hasText: 'Triage' }).waitFor({ timeout: 10_000 });
    const fork = panel.locator('#journal button.fork-run');
    assert.equal(await fork.isEnabled(), true, 'the journaled reply is a Triage');
    // ill-typed at a field: a score that is not a number
    await form.locator('input[data-path="/score"]').fill('high');
    await form.locator('.form-issue[data-path="/score"]', { hasText: 'must be a number' }).waitFor({ timeout: 10_000 });
    assert.equal(await fork.isEnabled(), false, 'an ill-typed edit cannot be forked');
    await form.locator('input[data-path="/score"]').fill('0.25');
    await form.locator('.form-issue').first().waitFor({ state: 'detached', timeout: 10_000 });
    // ill-typed in the JSON view: a verdict the type does not have
    await form.locator('button.form-json-toggle').click();
    const json = form.locator('textarea.form-json');
    await json.fill('{"verdict": "maybe", "score": 0.25}');
    await form.locator('.form-issue[data-path="/verdict"]', { hasText: 'must be one of "spam", "ham"' }).waitFor({ timeout: 10_000 });
    assert.equal(await fork.isEnabled(), false);
    await frameShot(panel, 'forms-whatif-refused');
    // well-typed, back in the form: the verdict chosen from its choices
    await json.fill('{"verdict": "spam", "score": 0.25}');
    await form.locator('button.form-json-toggle').click();
    await form.locator('input[type="radio"][aria-label$=": ham"]').check();
    assert.equal(await fork.isEnabled(), true);
    await fork.click();
    const forked = panel.locator('#whatif .side-fork');
    await forked.waitFor({ timeout: 60_000 });
    await forked.locator('.result', { hasText: 'ham' }).waitFor({ timeout: 30_000 });
    assert.match(await panel.locator('#whatif .side-original .result').innerText(), /spam/);
    assert.match(await forked.locator('.output').innerText(), /verdict ham/);
    const banner = await panel.locator('#whatif .whatif-banner').innerText();
    assert.match(banner, /changed 2 fields|verdict: "spam" → "ham"/);
    assert.match(await panel.locator('#whatif').innerText(), /verdict: "spam" → "ham"/, 'the banner names the changed field, old → new');
    await panel.locator('#whatif').scrollIntoViewIfNeeded();
    await frameShot(panel, 'forms-whatif');
  });

  step('a run waiting on an unknown outcome is answered through the form and finishes', async () => {
    const { page } = s;
    await showRuns(page);
    await row(page, `forms_wait.tn waiting on an unknown outcome run ${waitingId}`).waitFor({ timeout: 30_000 });
    await inlineAction(page, `forms_wait.tn waiting on an unknown outcome run ${waitingId}`, 'Settle Unknown Outcome');
    const form = await answerFrame(page);
    const answer = form.locator('#turn-answer');
    await answer.locator('.answer-headline', { hasText: 'fs_append' }).waitFor({ timeout: 10_000 });
    assert.match(await answer.innerText(), /out\/forms\.txt/);
    // it happened: its result (fs_append returns null) through the form; settle and resume as one action
    assert.equal(await form.locator('input[data-choice="result"]').isChecked(), true, 'the first choice');
    await answer.locator('.typed-form .form-summary', { hasText: 'ok' }).waitFor({ timeout: 10_000 });
    await frameShot(form, 'forms-settle');
    await form.locator('button.answer-go', { hasText: 'Settle and resume' }).click();
    const panel = await panelFrame(page);
    await panel.locator('#output', { hasText: 'appended' }).waitFor({ timeout: 60_000 });
    await panel.locator('#status', { hasText: 'done' }).waitFor({ timeout: 30_000 });
    assert.match(await panel.locator('#result').innerText(), /answered/);
    await row(page, `forms_wait.tn done run ${waitingId}`).waitFor({ timeout: 30_000 });
    assert.ok(!existsSync(join(s.workspace, 'out', 'forms.txt')), 'settled as done: the append is not run again');
    await screenshot(page, 'forms-waiting-run-done');
  });
});
