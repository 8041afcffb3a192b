// End-to-end (issue 43): VS Code's own language models as Turn models, in code-server 4.104 (VS Code
// 1.104, the chat-provider API final). A small test extension (lm-provider-extension/, packaged
// here into a .vsix and installed beside Turn's) registers a LanguageModelChatProvider backed by the
// model tier's real local model, Gemma 3 270M through node-llama-cpp; with `turn.model` set to
// `vscode:turn-e2e/gemma3`, a program run from the panel asks it through vscode.lm: the request
// reaches the provider (its log), the typed value is bound, the tokens are shown. Skipped, with the
// reason, only when the model file is absent (the model tier's provisioning, test/model/install.mjs,
// installs it).
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { codeServerSuite, openFile, panelFrame, ROOT, runCommand, screenshot, startCodeServer, vscodeVersion, waitFor, type Session } from './harness.js';
import { cacheDir, MODEL_FILE } from '../model/install.mjs';
import { packTestExtension } from './test-extension.js';

const GGUF = process.env.TURN_E2E_GGUF ?? join(cacheDir(), MODEL_FILE);
const LLAMA = join(ROOT, 'node_modules/node-llama-cpp/dist/index.js');
const SPEC = 'vscode:turn-e2e/gemma3';

const PROGRAM = `struct Mood { label: "glad" | "calm" | "tired" | "upset", score: Num };

turn {
    let m = infer Mood { "Rate the mood of: 'Shipped the release, now a long weekend!'"; };
    call("echo", "mood: " + m.label);
}
`;

/** VS Code asks once whether Turn may use another extension's models: allowed, as the user would. */
async function allowModelAccess(page: Page): Promise<boolean> {
  const dialog = page.locator('.monaco-dialog-box');
  if (!(await dialog.isVisible().catch(() => false))) return false;
  const allow = dialog.locator('.monaco-button', { hasText: /^Allow/ }).first();
  if (!(await allow.isVisible().catch(() => false))) return false;
  await allow.click();
  return true;
}

const skip = existsSync(GGUF) ? undefined : `no model file at ${GGUF}: run the model tier's provisioning (node test/model/install.mjs) first`;
if (skip) console.log(`lm.e2e: skipped: ${skip}`);

describe("VS Code's own models in code-server: a vscode: model from another extension answers infer", { timeout: 900_000, skip }, () => {
  let s: Session;
  let work: string;
  const log = () => join(work, 'lm-requests.jsonl');

  const step = codeServerSuite('lm-', {
    start: async () => {
      work = mkdtempSync(join(tmpdir(), 'turn-e2e-lm-'));
      writeFileSync(log(), '');
      process.env.TURN_E2E_GGUF = GGUF;
      process.env.TURN_E2E_LLAMA = LLAMA;
      process.env.TURN_E2E_LM_LOG = log();
      const vsix = packTestExtension(join(__dirname, 'lm-provider-extension'), work);
      s = await startCodeServer({ extensions: [vsix], files: { 'mood.tn': PROGRAM }, settings: { 'turn.model': SPEC } });
      console.log(`lm.e2e: VS Code ${vscodeVersion()}`);
      return s;
    },
    cleanup: () => rmSync(work, { recursive: true, force: true }),
  });

  step('a program run from the panel on vscode:turn-e2e/gemma3: the request went through vscode.lm, the value is bound, tokens shown', async () => {
    const { page } = s;
    await openFile(page, 'mood.tn');
    await runCommand(page, 'Turn: Run File in Panel');
    let panel: Frame | undefined;
    await waitFor(async () => {
      await allowModelAccess(page);
      panel ??= await panelFrame(page, 2_000).catch(() => undefined);
      return panel && /^(done|failed)$/.test((await panel.locator('#status').innerText().catch(() => '')).trim());
    }, 300_000, 'the run on the VS Code model to end');
    assert.ok(panel);
    const status = (await panel.locator('#status').innerText()).trim();
    const lines = readFileSync(log(), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { model?: string; messages?: string[] });
    console.log(`lm.e2e: the provider's log: ${JSON.stringify(lines).slice(0, 4000)}`);
    const requests = lines.filter((l): l is { model: string; messages: string[] } => l.model !== undefined);
    assert.equal(status, 'done', `the run ${status}: ${await panel.locator('#result').innerText().catch(() => '')}; requests: ${JSON.stringify(requests).slice(0, 2000)}`);
    assert.ok(requests.length >= 1, 'the provider received the request through vscode.lm');
    assert.equal(requests[0].model, 'gemma-3-270m');
    assert.match(requests[0].messages[0], /Rate the mood of/);
    assert.match(requests[0].messages[0], /"label":\{"enum":\["glad","calm","tired","upset"\]|"label":\{"type":"string","enum"/);
    await panel.locator('#output', { hasText: /mood: (glad|calm|tired|upset)/ }).waitFor({ timeout: 10_000 });
    assert.match(await panel.locator('header .model').getAttribute('title') ?? '', /vscode:turn-e2e\/gemma3/);
    assert.match(await panel.locator('#tokens').innerText(), /vscode:turn-e2e\/gemma3/);
    await screenshot(page, 'lm-01-vscode-model-run');
  });
});
