// End-to-end (issue 44): the Runs view as a console, the run panel's graph of a std/graph program,
// and the missing-credential flow of investment_committee.tn's door (an absorbed OpenAPI client),
// in the packaged .vsix on code-server. Runs made by the `turn` CLI (and a what-if fork made with
// the runtime's forkRun) are in the workspace store before the editor opens. Screenshots:
// test/e2e/artifacts/20-runs-console.png, 21-graph-view.png, 22-missing-credential.png (also in
// docs/images/ as runs-console, graph-view, missing-credential).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import { forkRun, openStore } from '../../runtime/index.js';
import { ROOT, answerInput, codeServerSuite, openFile, panelFrame, row, runCommand, screenshot, showRuns, startCodeServer, toDocs, waitFor, type Session } from './harness.js';

const ASK = 'let x = infer Str { "Say hi."; };\ncall("echo", "asked");\nreturn x;\n';
const OTHER = 'call("echo", "nothing to ask");\nreturn 41 + 1;\n';
const GRAPH = `let graph = use "std/graph";
let review = graph.define({"name": "review", "version": "1", "nodes": {
    "gather": {"after": [], "run": turn(ctx: Map) -> Any { return 3; }},
    "check": {"after": ["gather"], "run": turn(ctx: Map) -> Any { return ctx["results"]["gather"] > 2; }},
    "report": {"after": ["gather", "check"], "run": turn(ctx: Map) -> Any { return "ok"; }}
}});
let out = graph.run(review, "doc");
call("echo", "graph " + out["status"]);
return out["nodes"];
`;
// investment_committee.tn's door: the absorbed market client asked with a bearer identity the vault lacks
const COMMITTEE = `let api = use schema::openapi("market.yaml");
let market = api.client("http://127.0.0.1:9/v1");

let quote = market.get_quote(grant identity::bearer("market"), "ACME");
return quote;
`;

function cli(args: string[], cwd: string): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'bin/turn.js'), ...args], { cwd, encoding: 'utf8', env: { ...process.env, TURN_STORE_DRIVER: '' } });
  assert.equal(r.status, 0, r.stderr);
  return /turn: run (\S+)/.exec(r.stderr)![1];
}

describe('The Runs view as a console, the graph view and a missing credential in code-server', { timeout: 600_000 }, () => {
  let s: Session;
  let asked = '';
  let fork = '';
  let other = '';

  const step = codeServerSuite('console-', {
    start: async () => {
      s = await startCodeServer({
        files: {
          'ask.tn': ASK, 'other.tn': OTHER, 'graph_demo.tn': GRAPH, 'committee.tn': COMMITTEE,
          'market.yaml': readFileSync(join(ROOT, 'examples/market.yaml'), 'utf8'),
          '.vscode/settings.json': JSON.stringify({ 'turn.run.allowNet': ['127.0.0.1:*'], 'turn.model': 'mock' }),
        },
      });
      asked = cli(['run', 'ask.tn', '--store', '.turn', '--model', 'mock'], s.workspace);
      other = cli(['run', 'other.tn', '--store', '.turn'], s.workspace);
      const store = openStore(join(s.workspace, '.turn'));
      try {
        const step = store.readJournal(asked).find((e) => e.kind === 'infer')!.seq;
        fork = forkRun({ store, runId: asked, step, edit: { value: 'edited hello' } }).run.id;
      } finally {
        store.close();
      }
      return s;
    },
  });

  step('the Runs view shows each run\'s columns and the fork under its origin', async () => {
    const { page } = s;
    await showRuns(page);
    const origin = row(page, `ask.tn done run ${asked}`);
    await origin.waitFor({ timeout: 30_000 });
    const forked = row(page, `ask.tn suspended run ${fork}`);
    await forked.waitFor({ timeout: 30_000 });
    assert.equal(await forked.getAttribute('aria-level'), '2', 'the fork is nested under the run it came from');
    assert.equal(await origin.getAttribute('aria-level'), '1');
    assert.match(await forked.innerText(), /suspended · started \d+ \w+ ago · [\d.]+ (ms|s) · 1 model call · fork at step \d+/, "the fork shares its origin's journaled model call");
    assert.match(await origin.innerText(), /done · started \d+ \w+ ago · [\d.]+ (ms|s) · 1 model call · → mock$/, "status, started, duration, model calls and result (the rendered value)");
    const done = row(page, `other.tn done run ${other}`);
    assert.match(await done.innerText(), /→ 42/);
    toDocs(await screenshot(page, '20-runs-console'), 'runs-console');
  });

  step('the filter keeps the runs that match (a fork keeps its origin shown) and Clear brings every run back', async () => {
    const { page } = s;
    await runCommand(page, 'Turn: Filter Runs');
    await answerInput(page, 'is:suspended', 'Words to find');
    await waitFor(async () => (await row(page, `other.tn done run ${other}`).count()) === 0, 15_000, 'other.tn filtered out');
    await row(page, `ask.tn suspended run ${fork}`).waitFor({ timeout: 15_000 });
    await row(page, `ask.tn done run ${asked}`).waitFor({ timeout: 15_000 });
    await page.locator('.part.sidebar', { hasText: 'Showing 2 of 3 runs' }).first().waitFor({ timeout: 15_000 });
    await runCommand(page, 'Turn: Clear Runs Filter');
    await row(page, `other.tn done run ${other}`).waitFor({ timeout: 15_000 });
  });

  step('the graph of a std/graph run names each node by its id; a click opens its detail', async () => {
    const { page } = s;
    await openFile(page, 'graph_demo.tn');
    await runCommand(page, 'Turn: Run File in Panel');
    const panel = await panelFrame(page, 60_000);
    await panel.locator('#status', { hasText: 'done' }).waitFor({ timeout: 60_000 });
    await panel.locator('#graph summary').click();
    for (const node of ['graph review', 'gather', 'check', 'report']) await panel.locator('#graph .graph-node', { hasText: node }).first().waitFor({ timeout: 15_000 });
    assert.ok(!(await panel.locator('#graph .graph-node', { hasText: 'spawned' }).count()), 'no node is named "spawned"');
    assert.ok((await panel.locator('#graph .graph-edge').count()) >= 4, 'spawn edges');
    await panel.locator('#graph .graph-node', { hasText: 'check' }).first().click();
    await panel.locator('.details h2', { hasText: /Context of check #\d+/ }).waitFor({ timeout: 15_000 });
    toDocs(await screenshot(page, '21-graph-view'), 'graph-view');
  });

  step('investment_committee.tn\'s door: a missing credential is said plainly, offered (button and notification), and linked to the call', async () => {
    const { page } = s;
    await openFile(page, 'committee.tn');
    await runCommand(page, 'Turn: Run File in Panel');
    const panel = await panelFrame(page, 60_000);
    // a durable run (the default) refused before sending waits, resumable, rather than failing
    await panel.locator('#status', { hasText: 'waiting' }).waitFor({ timeout: 60_000 });
    const box = panel.locator('.error-box').first();
    await box.locator('button.add-credential').waitFor({ timeout: 15_000 });
    assert.match(await box.innerText(), /The run needs the credential "market", which is not in the Turn vault/);
    assert.equal(await box.locator('a.site').first().innerText(), 'line 4', 'the link is the call, not the use schema line');
    await page.locator('.notifications-toasts', { hasText: 'needs the credential "market"' }).first().waitFor({ timeout: 15_000 });
    toDocs(await screenshot(page, '22-missing-credential'), 'missing-credential');
  });
});
