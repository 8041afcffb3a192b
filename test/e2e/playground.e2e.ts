// End-to-end: the playground in code-server with the packaged .vsix, as a user drives it. The
// Playground lens above a function opens the input form built from its parameters' types; Run
// shows the result pane side by side (the messages with their roles, the request, the raw reply,
// the parsed value with its validation errors and the re-ask, tokens and time); with Re-run on
// save, a save that leaves the prompt as it was replays the recorded replies. A script fixture
// answers (the first reply breaks the type, so there is a re-ask to show).
// Screenshots go to test/e2e/artifacts/ and, for the docs, to docs/images/.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { ARTIFACTS, codeServerSuite, openFile, ROOT, startCodeServer, waitFor, type Session } from './harness.js';

const DOCS_IMAGES = join(ROOT, 'docs', 'images');

const PROGRAM = `// triage one ticket; the playground runs triage alone
struct Triage { category: "billing" | "bug" | "question", urgent: Bool };

let triage = turn(ticket: Str, customer: Str?) -> Triage {
    context.system("You triage customer support tickets.");
    return infer Triage { "Triage this ticket: " + ticket; };
};

return {"triage": triage};
`;

const TESTS = `let lib = use "./play";
return {
    "a crash is a bug": turn() {
        call("assert_eq", lib.triage("The export button crashes on large projects.", "ACME").category, "bug");
    },
};
`;

const REPLIES = {
  replies: [
    // breaks the type: the playground shows the validation error and the re-ask
    { text: '{"value": {"category": "refund", "urgent": false}, "confidence": 0.9}', usage: { input: 120, output: 14 } },
    { value: { category: 'billing', urgent: true }, confidence: 0.92, usage: { input: 170, output: 12 }, repeat: true },
  ],
};

async function playgroundFrame(page: Page): Promise<Frame> {
  return waitFor(async () => {
    for (const f of page.frames()) {
      try {
        if (await f.locator('.play-header').count()) return f;
      } catch {
        // detached meanwhile
      }
    }
    return undefined;
  }, 30_000, 'the Turn playground');
}

async function shot(frame: Frame, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(DOCS_IMAGES, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await (await frame.frameElement()).screenshot({ path: file });
  copyFileSync(file, join(DOCS_IMAGES, `${name}.png`));
}

describe('the playground in code-server: lens, form inputs, side-by-side result', { timeout: 600_000 }, () => {
  let s: Session;
  let play: Frame;
  let model = '';

  const step = codeServerSuite('playground-', {
    start: async () => {
      s = await startCodeServer({ files: { 'play.tn': PROGRAM, 'play_test.tn': TESTS, 'play.replies.json': JSON.stringify(REPLIES) } });
      model = `script:${join(s.workspace, 'play.replies.json')}`;
      const settings = join(s.workspace, '.vscode', 'settings.json');
      const current = JSON.parse(readFileSync(settings, 'utf8')) as Record<string, unknown>;
      writeFileSync(settings, JSON.stringify({ ...current, 'turn.model': model }, null, 2));
      return s;
    },
  });

  step('the Playground lens above a function opens its form; Run shows the messages with roles, the request, the raw reply, the value', async () => {
    const { page } = s;
    await openFile(page, 'play.tn');
    const lens = page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Playground' }).first();
    await lens.waitFor({ timeout: 30_000 });
    await lens.click();
    play = await playgroundFrame(page);
    assert.match(await play.locator('.play-target').innerText(), /triage\(ticket: Str, customer: Str\?\) -> Triage/);
    const ticket = play.locator('.form-input[data-path="/ticket"]');
    await ticket.waitFor({ timeout: 10_000 });
    await ticket.fill('I was charged twice this month.');
    // The workspace setting may reach the extension host a moment after the file was written: run
    // until the pane says the run used the script model.
    await waitFor(async () => {
      await play.locator('button.play-run').click();
      await play.locator('.play-summary').waitFor({ timeout: 60_000 });
      return (await play.locator('table.play-params td').first().innerText()) === model;
    }, 60_000, 'a run with the script model');
    assert.match(await play.locator('.play-summary h2').innerText(), /Value/);
    assert.deepEqual(JSON.parse(await play.locator('pre.play-value').innerText()), { category: 'billing', urgent: true });
    // one infer, two attempts side by side; the second was sent the rejected reply and the feedback
    const attempts = play.locator('.play-infer .play-attempt');
    assert.equal(await attempts.count(), 2);
    assert.deepEqual(await attempts.nth(0).locator('.play-message').evaluateAll((els) => els.map((e) => e.getAttribute('data-role'))), ['system', 'user']);
    assert.deepEqual(await attempts.nth(1).locator('.play-message').evaluateAll((els) => els.map((e) => e.getAttribute('data-role'))), ['system', 'user', 'assistant', 'user']);
    assert.match(await attempts.nth(0).locator('.play-message[data-role="user"] pre').innerText(), /Triage this ticket: I was charged twice this month\./);
    assert.match(await attempts.nth(0).locator('.play-raw-text').innerText(), /"refund"/);
    assert.match(await attempts.nth(0).locator('.play-parsed').innerText(), /rejected: re-asked/);
    assert.ok((await attempts.nth(0).locator('.play-errors li').count()) >= 1, 'the validation error is shown');
    assert.match(await attempts.nth(1).locator('.play-parsed').innerText(), /valid, confidence 0\.92/);
    assert.match(await attempts.nth(1).locator('.play-request').innerText(), /tokens\s+170 in, 12 out/);
    assert.match(await play.locator('.play-totals').innerText(), /1 model call · 290 tokens in, 26 out · \d+ ms/);
    assert.equal(await play.locator('.play-infer details.play-schema').count(), 1, 'the schema once per infer');
    await shot(play, 'playground');
  });

  step('inputs from a test: choosing the test\'s call fills the form with its arguments', async () => {
    const pick = play.locator('select.play-from-test');
    const options = await pick.locator('option').allTextContents();
    assert.deepEqual(options.slice(1), ['a crash is a bug (play_test.tn:4)']);
    await pick.selectOption({ index: 1 });
    assert.equal(await play.locator('.form-input[data-path="/ticket"]').inputValue(), 'The export button crashes on large projects.');
    assert.equal(await play.locator('.form-input[data-path="/customer"]').inputValue(), 'ACME');
  });

  step('Re-run on save: a save that leaves the prompt unchanged runs again from the recording', async () => {
    const { page } = s;
    await play.locator('.form-input[data-path="/ticket"]').fill('I was charged twice this month.');
    await play.locator('button.play-run').click();
    await play.locator('.play-summary').waitFor({ timeout: 60_000 });
    await play.locator('input.play-rerun').check();
    // edit a comment in the editor and save: the prompt is the same, so both replies are replayed
    await page.locator('.editor-group-container .monaco-editor .view-line', { hasText: 'the playground runs triage alone' }).first().click();
    await page.keyboard.press('End');
    await page.keyboard.type(' (edited)');
    await page.keyboard.press('Control+S');
    await play.locator('.play-totals', { hasText: '2 replies replayed' }).waitFor({ timeout: 60_000 });
    assert.match(await play.locator('.play-totals').innerText(), /0 tokens in, 0 out/);
    assert.deepEqual(JSON.parse(await play.locator('pre.play-value').innerText()), { category: 'billing', urgent: true });
  });
});
