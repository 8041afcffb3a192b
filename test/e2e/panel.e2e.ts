// End-to-end: the run panel's timeline, what-if fork and journal scrubber in code-server with the
// packaged .vsix, as a user drives them. A local model and lookup service (team-server.ts) answer
// research_team.tn; the run is durable (the workspace's .turn/ store, the editor's default).
// Screenshots go to test/e2e/artifacts/ and, for the docs, to docs/images/.
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import type { Frame } from 'playwright-core';
import { ARTIFACTS, codeServerSuite, openFile, panelFrame, ROOT, runCommand, startCodeServer, waitFor, type Session } from './harness.js';
import { teamServer, type TeamServer } from './team-server.js';

const DOCS_IMAGES = join(ROOT, 'docs', 'images');

/** A picture of the panel's webview alone, into the artifacts and docs/images/. */
async function panelShot(panel: Frame, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  mkdirSync(DOCS_IMAGES, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await (await panel.frameElement()).screenshot({ path: file });
  copyFileSync(file, join(DOCS_IMAGES, `${name}.png`));
}

describe('the run panel in code-server: timeline, what-if, scrubber', { timeout: 600_000 }, () => {
  let s: Session;
  let srv: TeamServer;
  let panel: Frame;

  const step = codeServerSuite('panel-', {
    start: async () => {
      srv = await teamServer();
      process.env.TURN_E2E_MODEL_KEY = 'e2e-key'; // the model spec reads its key from here (code-server inherits it)
      s = await startCodeServer({ substitutions: { __PORT__: String(srv.port) } });
      // this file's runs use the local model: a workspace setting, read when a run starts
      const settings = join(s.workspace, '.vscode', 'settings.json');
      const current = JSON.parse(readFileSync(settings, 'utf8')) as Record<string, unknown>;
      writeFileSync(settings, JSON.stringify({ ...current, 'turn.model': srv.model }, null, 2));
      return s;
    },
    cleanup: () => srv?.close(),
  });

  step('a durable run of research_team.tn draws its timeline: lanes named by function, bars for model calls, effects and waits', async () => {
    const { page } = s;
    await openFile(page, 'research_team.tn');
    // The workspace setting may reach the extension host a moment after the file was written: run
    // until the panel says the run used the local model.
    await waitFor(async () => {
      await page.locator('.editor-group-container .codelens-decoration a', { hasText: 'Run' }).first().click();
      panel = await panelFrame(page);
      await panel.locator('#status', { hasText: /^(done|failed)$/ }).waitFor({ timeout: 60_000 });
      return (await panel.locator('header .model').getAttribute('title'))?.startsWith('openai:gpt-e2e') ?? false;
    }, 60_000, 'a run with the local model');
    await panel.locator('#status', { hasText: 'done' }).waitFor({ timeout: 10_000 });
    await panel.locator('#stored-run').waitFor({ timeout: 10_000 });
    assert.match(await panel.locator('#result').innerText(), /upbeat/);
    const labels = await panel.locator('svg.timeline .lane-label').allTextContents();
    assert.deepEqual(labels, ['main #1', 'research #2', 'research #3', 'research #4']);
    assert.equal(await panel.locator('svg.timeline .bar.kind-model').count(), 4, 'the plan and three summaries');
    assert.equal(await panel.locator('svg.timeline .bar.kind-effect').count(), 3, 'three lookups');
    assert.ok((await panel.locator('svg.timeline .bar.kind-wait').count()) >= 1, 'main waits on its gather');
    assert.match(await panel.locator('svg.timeline .bar.kind-model title').first().textContent() ?? '', /infer Plan .*: \d/);
    assert.equal(await panel.locator('svg.tokens-chart .tier-name').count(), 12, 'three tiers for each of four actors');
    // The journal is there for the what-if and the scrubber.
    await panel.locator('#journal .step.forkable').first().waitFor({ timeout: 30_000 });
    // the panel's editor group gets the window for the pictures
    await page.locator('.tab', { hasText: 'Turn Run' }).first().click();
    await runCommand(page, 'View: Close Primary Side Bar');
    await runCommand(page, 'View: Maximize Editor Group');
    await waitFor(async () => ((await (await panel.frameElement()).boundingBox())?.width ?? 0) > 1000, 15_000, 'the panel to fill the window');
    await panelShot(panel, 'panel-timeline');
  });

  step('what-if: fork at the plan reply with an edited value; both runs side by side, the original untouched', async () => {
    const plan = panel.locator('#journal .step.forkable', { hasText: 'model reply (Plan)' }).first();
    await plan.locator('button.what-if').click();
    // the typed form (forms.e2e.ts drives its fields): here its JSON view takes the whole value
    await panel.locator('#journal button.form-json-toggle').click();
    await panel.locator('#journal textarea.form-json').fill('{"topics": ["timelines"], "tone": "sober"}');
    // a model reply's edited value has a confidence: 1 unless one says otherwise
    const confidence = panel.locator('#journal input.edit-confidence');
    assert.equal(await confidence.inputValue(), '1');
    await confidence.fill('0.9');
    await panel.locator('#journal button.fork-run').click();
    const fork = panel.locator('#whatif .side-fork');
    await fork.waitFor({ timeout: 60_000 });
    await fork.locator('.result', { hasText: 'sober' }).waitFor({ timeout: 10_000 });
    assert.match(await fork.locator('.result').innerText(), /timelines: /);
    assert.match(await fork.locator('.output').innerText(), /plan: 1 topics, tone sober/);
    assert.match(await panel.locator('#whatif').innerText(), /\(confidence 0\.9\)/, 'the fork says which confidence it used');
    const original = panel.locator('#whatif .side-original');
    assert.match(await original.locator('.result').innerText(), /upbeat/);
    assert.match(await original.locator('.output').innerText(), /plan: 3 topics, tone upbeat/);
    assert.notEqual(await fork.getAttribute('data-run'), await original.getAttribute('data-run'));
    assert.equal(await fork.locator('.step.edited').count(), 1);
    assert.equal(await fork.locator('svg.timeline .lane-label').count(), 2, 'the fork has main and one researcher');
    assert.ok(srv.asked.some((p) => p.includes('Summarise timelines')), 'the fork went on live from the edited value');
    await panel.locator('#whatif').scrollIntoViewIfNeeded();
    await panelShot(panel, 'panel-whatif');
  });

  step('the journal scrubber shows every process at the chosen step', async () => {
    const slider = panel.locator('#scrub');
    await panel.locator('#scrubber').evaluate((el) => el.scrollIntoView());
    const steps = Number(await slider.getAttribute('max'));
    assert.ok(steps >= 7, `the journal has ${steps} steps`);
    await slider.evaluate((el: HTMLInputElement) => {
      el.value = '9';
      el.dispatchEvent(new Event('input'));
      el.dispatchEvent(new Event('change'));
    });
    const scrubber = panel.locator('#scrubber');
    await scrubber.locator('h2', { hasText: 'Processes at step' }).waitFor({ timeout: 30_000 });
    const tree = await scrubber.locator('#scrub-actors').innerText();
    assert.match(tree, /main #1 waiting/);
    assert.match(tree, /research #2/);
    assert.match(await scrubber.locator('h2', { hasText: 'Processes at step' }).innerText(), /step 9\b/);
    await scrubber.locator('.tier-P0', { hasText: 'You lead a research team' }).waitFor({ timeout: 10_000 });
    // a researcher at that step: its own tiers
    await scrubber.locator('#scrub-actors .actor-name', { hasText: 'research #2' }).click(); // the name, not the line link beside it
    await scrubber.locator('.tier-P0', { hasText: 'You are a careful researcher' }).waitFor({ timeout: 10_000 });
    await scrubber.locator('.tier-P1', { hasText: 'Topic: ' }).waitFor({ timeout: 10_000 });
    await panelShot(panel, 'panel-scrubber');
  });

  step('clicking a bar opens its source line', async () => {
    const { page } = s;
    const bar = panel.locator('svg.timeline .lane[data-pid="1"] .bar.kind-model').first();
    await bar.scrollIntoViewIfNeeded();
    await bar.click();
    // line 22: `let plan = infer Plan { ... }`
    await waitFor(async () => /Ln 22\b/.test(await page.locator('.statusbar').innerText().catch(() => '')), 15_000, 'the cursor on line 22');
    await page.locator('.tab.active[aria-label^="research_team.tn"]').first().waitFor({ timeout: 10_000 });
    await runCommand(page, 'View: Close All Editors');
  });
});
