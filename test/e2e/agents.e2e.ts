// End-to-end (issue 43): Turn agents as tools for VS Code's agent mode, in code-server 4.104 (VS
// Code 1.104). code-server shows no chat without a chat extension (Copilot), so a small test
// extension (agents-extension/, packaged into a .vsix and installed beside Turn's) does what agent
// mode does with a tool: it finds it in `vscode.lm.tools` and calls it with `vscode.lm.invokeTool`.
// First, what code-server does with an extension's MCP servers headless (the evidence behind
// extension/lm/agent-tools.ts): it starts them without a trust prompt, lists their tools in
// vscode.lm.tools and calls them, after a confirmation for a tool that is not read-only; a tool
// whose input schema names JSON Schema draft 2020-12 is left out. Then a workspace file serving a
// closure that calls `infer` is called as a tool: the confirmation names the grants, the run is
// live in the run panel and stored in the Runs view, and the result carries the value and the
// model's confidence.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { codeServerSuite, panelFrame, row, runCommand, screenshot, showRuns, startCodeServer, vscodeVersion, waitFor, type Session } from './harness.js';
import { packTestExtension } from './test-extension.js';

const AGENT = `struct Mood { label: "glad" | "calm" | "tired" | "upset", score: Num };

return {
    /// Rates the mood of a sentence.
    "rate_mood": turn(text: Str) -> Mood {
        call("echo", "rating: " + text);
        return infer Mood { "Rate the mood of: " + text; };
    },
};
`;

interface Note {
  step: string;
  error?: string;
  found?: string | null;
  tools?: { name: string; tags?: string[]; description?: string }[];
  tool?: { name: string; tags?: string[]; description?: string; inputSchema?: Record<string, unknown> };
  parts?: { kind: string; value: string }[];
}

describe("Turn agents as VS Code tools in code-server: vscode.lm.invokeTool runs a Turn closure in the editor's run panel", { timeout: 900_000 }, () => {
  let s: Session;
  let work: string;
  const log = () => join(work, 'agents.jsonl');
  const notes = (): Note[] => readFileSync(log(), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Note);
  const note = (step: string) => notes().find((n) => n.step === step);

  const step = codeServerSuite('agents-', {
    start: async () => {
      work = mkdtempSync(join(tmpdir(), 'turn-e2e-agents-'));
      writeFileSync(log(), '');
      process.env.TURN_E2E_AGENTS_LOG = log();
      process.env.TURN_E2E_AGENTS_TOOL = '_rate_mood';
      process.env.TURN_E2E_AGENTS_INPUT = JSON.stringify({ text: 'Shipped the release, now a long weekend!' });
      const vsix = packTestExtension(join(__dirname, 'agents-extension'), work);
      s = await startCodeServer({ extensions: [vsix], files: { 'mood_agent.tn': AGENT } });
      console.log(`agents.e2e: VS Code ${vscodeVersion()}`);
      return s;
    },
    cleanup: () => rmSync(work, { recursive: true, force: true }),
  });

  /** Runs a test extension's command: right after start-up the Command Palette may not list it yet. */
  const command = (page: Page, title: string) => waitFor(() => runCommand(page, title).then(() => true, () => page.keyboard.press('Escape').then(() => false)), 60_000, `the command ${title}`);
  /** The confirmation VS Code shows before it calls a tool that is not read-only, when it shows. */
  const confirmation = (page: Page) => page.locator('.monaco-dialog-box').filter({ has: page.locator('.monaco-button', { hasText: /^Yes$/ }) }).first();

  step("code-server starts an extension's MCP server without asking, lists its tools in vscode.lm.tools and calls one; a schema naming draft 2020-12 is left out", async () => {
    const { page } = s;
    await command(page, 'Turn e2e: Probe MCP Tools');
    await waitFor(async () => {
      const dialog = confirmation(page);
      if (await dialog.isVisible().catch(() => false)) {
        assert.match(await dialog.innerText(), /Run probe_plain/);
        await dialog.locator('.monaco-button', { hasText: /^Yes$/ }).click();
      }
      return note('probe-done');
    }, 120_000, 'the probe of MCP in code-server');
    const commands = (notes().find((n) => n.step === 'commands') as unknown as { commands: string[] }).commands;
    assert.ok(commands.includes('workbench.mcp.startServer'), commands.join(', '));
    const listed = note('tools-after-wait')!;
    assert.equal(listed.found, 'mcp_probe_probe_plain');
    const names = listed.tools!.map((t) => t.name);
    assert.ok(!names.some((n) => n.includes('probe_2020')), `the tool whose schema names draft 2020-12 is left out: ${names.join(', ')}`);
    assert.deepEqual(note('mcp-call')!.parts, [{ kind: 'text', value: 'probe says hello to Ada' }]);
    // and says so: the tool left out, with its schema, is in the server's output
    const leftOut = page.locator('.notification-toast', { hasText: 'has tools with invalid parameters which will be omitted' }).first();
    await leftOut.waitFor({ timeout: 30_000 });
    await screenshot(page, 'agents-00-schema-left-out');
    await leftOut.hover();
    await leftOut.locator('.codicon-notifications-clear, .codicon-close').first().click();
    await leftOut.waitFor({ state: 'detached', timeout: 10_000 });
  });

  step("a Turn closure called with vscode.lm.invokeTool: the confirmation names the grants, the run is live in the panel and in the Runs view, the result carries the value and the confidence", async () => {
    const { page } = s;
    await command(page, 'Turn e2e: Call a Turn Tool');
    // VS Code confirms the call (Turn's tools are never read-only to it): the description names where it runs and the grants
    const dialog = confirmation(page);
    await waitFor(async () => (await dialog.isVisible().catch(() => false)) || note('call'), 120_000, 'the confirmation of the Turn tool call');
    assert.equal(note('call'), undefined, `the call ended before any confirmation: ${JSON.stringify(note('call'))}`);
    const asked = await dialog.innerText();
    assert.match(asked, /Rates the mood of a sentence/);
    assert.match(asked, /in the editor .*with: net 127\.0\.0\.1:\*; model mock/s);
    await screenshot(page, 'agents-01-confirmation');
    await dialog.locator('.monaco-button', { hasText: /^Yes$/ }).click();

    const called = await waitFor(() => note('call'), 120_000, 'the result of the Turn tool call');
    const tool = note('tool')!.tool!;
    assert.match(tool.name, /^mcp_.*_rate_mood$/);
    assert.deepEqual(tool.tags, ['mcp']);
    assert.deepEqual((tool.inputSchema as { required?: string[] }).required, ['text']);
    assert.equal(called.error, undefined, `the call failed: ${called.error}`);
    assert.equal(called.parts!.length, 1, JSON.stringify(called.parts));
    const result = JSON.parse(called.parts![0].value) as { value: { label: string; score: number }; confidence: number };
    assert.ok(['glad', 'calm', 'tired', 'upset'].includes(result.value.label), JSON.stringify(result));
    assert.equal(typeof result.value.score, 'number');
    assert.equal(result.confidence, 0.9, 'the mock model answers with confidence 0.9');

    // the run was the panel's: it shows the entry (the file and the tool), what it printed, and its end
    let panel: Frame | undefined;
    await waitFor(async () => {
      panel ??= await panelFrame(page, 2_000).catch(() => undefined);
      return panel && (await panel.locator('#status').innerText().catch(() => '')).trim() === 'done';
    }, 60_000, 'the run panel to show the call done');
    await panel!.locator('#output', { hasText: 'rating: Shipped the release, now a long weekend!' }).waitFor({ timeout: 10_000 });
    assert.match(await panel!.locator('#result').innerText(), new RegExp(result.value.label));
    await screenshot(page, 'agents-02-panel');

    // durable (turn.durableRuns, on by default): the Runs view lists it under the file and the tool
    await showRuns(page);
    await row(page, 'mood_agent.tn#rate_mood done').waitFor({ timeout: 30_000 });
    await screenshot(page, 'agents-03-runs-view');
  });
});
