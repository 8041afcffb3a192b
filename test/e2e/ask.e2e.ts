// End-to-end: `ask T { prompt }` in code-server with the packaged .vsix (issue 43). A program run from
// the panel asks a typed question; the answer webview shows the form generated from T; a value of the
// wrong type is refused as it is typed (the field's fault shown, the answer not sent), a right one is
// sent, and the run finishes with it. Screenshot: docs/images/ask-form.png.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { answerFrame } from './answer-frame.js';
import { ARTIFACTS, ROOT, codeServerSuite, openFile, panelFrame, startCodeServer, type Session } from './harness.js';

const PROGRAM = `struct Order { verdict: "approve" | "deny", amount: Num, note: Str? }

turn {
    let o = ask Order { "Approve the order of 12 chairs?"; };
    call("echo", "verdict " + o.verdict);
    return o.verdict + " " + o.amount;
}
`;

describe('ask in code-server: a typed question answered in the form', { timeout: 600_000 }, () => {
  let s: Session;
  const step = codeServerSuite('ask-', {
    start: async () => {
      s = await startCodeServer();
      writeFileSync(join(s.workspace, 'ask_order.tn'), PROGRAM);
      return s;
    },
  });

  step('the form refuses an ill-typed value as it is typed, takes a right one, and the run finishes with it', async () => {
    const { page } = s;
    await openFile(page, 'ask_order.tn');
    await page.locator('.editor-group-container.active .codelens-decoration a', { hasText: 'Run' }).first().click();
    const form = await answerFrame(page, 60_000);
    const answer = form.locator('#turn-answer');
    await answer.locator('h2', { hasText: 'ask Order' }).waitFor({ timeout: 10_000 });
    assert.match(await answer.innerText(), /Approve the order of 12 chairs\?/);
    // ill-typed: an amount that is not a number, refused at its field as it is typed
    await form.locator('input[data-path="/amount"]').fill('twelve');
    await form.locator('.form-issue[data-path="/amount"]', { hasText: 'must be a number' }).waitFor({ timeout: 10_000 });
    await form.locator('button.answer-go', { hasText: 'Answer' }).click();
    await answer.locator('.answer-refused', { hasText: 'fix the fields' }).waitFor({ timeout: 10_000 });
    mkdirSync(ARTIFACTS, { recursive: true });
    const shot = join(ARTIFACTS, 'ask-form.png');
    await (await form.frameElement()).screenshot({ path: shot });
    mkdirSync(join(ROOT, 'docs', 'images'), { recursive: true });
    copyFileSync(shot, join(ROOT, 'docs', 'images', 'ask-form.png'));
    // well-typed: a number, and the verdict chosen from its choices
    await form.locator('input[data-path="/amount"]').fill('12');
    await form.locator('.form-issue').first().waitFor({ state: 'detached', timeout: 10_000 });
    await form.locator('input[type="radio"][aria-label$=": deny"]').check();
    await form.locator('button.answer-go', { hasText: 'Answer' }).click();
    const panel = await panelFrame(page);
    await panel.locator('#status', { hasText: 'done' }).waitFor({ timeout: 60_000 });
    assert.match(await panel.locator('#output').innerText(), /verdict deny/);
    assert.match(await panel.locator('#result').innerText(), /deny 12/);
  });
});
