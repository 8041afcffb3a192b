// End-to-end: the run panel at the scale of real agents (issue 27). Two stored runs of the same
// program, made by the `turn` CLI: 1,000 workers with 20 journaled steps each (20,000 journal
// entries, 1,001 processes in the snapshot, each remembering 20 values) and 10 workers (200
// entries). Each is opened in the panel from the Runs view, and the same interactions are measured
// on both in the same session: selecting an actor, scrolling the journal to its middle, a keystroke
// in the memory search, and a Command Palette round trip. The note gets the ratios (printed here);
// the assertions are on what the DOM holds (windowed lists draw the rows in view, so the big run's
// page is about as large as the small one's) and a generous ratio bound, no absolute times.
// Also: a memory value opens as a value tree. Screenshot: panel-scale (also in docs/images/).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { ARTIFACTS, ROOT, codeServerSuite, inlineAction, panelFrame, showRuns, startCodeServer, waitFor, type Session } from './harness.js';

const program = (workers: number) => `// ${workers} workers with 20 journaled steps each (test/e2e/panel-scale.e2e.ts)
let worker = turn(n: Num) -> Num {
    let i = 0;
    while i < 20 {
        let t = call("now");
        remember("step " + i, {"worker": n, "at": t, "note": "value of step " + i + " of worker " + n});
        let i = i + 1;
    }
    return n;
};

turn {
    let ns = [];
    let k = 0;
    while k < ${workers} {
        let ns = call("list_push", ns, k);
        let k = k + 1;
    }
    let results = gather spawn_each(ns, worker);
    suspend;
    return call("len", results);
}
`;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Measures {
  select: number;
  scroll: number;
  search: number;
  palette: number;
  nodes: number;
  actorRows: number;
  journalRows: number;
}

/**
 * Milliseconds from an action in the webview to the frame after its update (two animation frames).
 * The page script is text: tsx would wrap named functions in a helper the page does not have.
 */
const ACTIONS: Record<string, string> = {
  select: `const rows = Array.from(document.querySelectorAll('#actors .actor')); rows[ARG % rows.length].click();`,
  scroll: `const list = document.querySelector('#journal .vlist'); list.scrollTop = ARG * (list.scrollHeight - list.clientHeight); list.dispatchEvent(new Event('scroll'));`,
  search: `const input = document.querySelector('#memory-search'); input.focus(); input.value = ARG; input.dispatchEvent(new InputEvent('input', { bubbles: true, data: String(ARG).slice(-1), inputType: 'insertText' }));`,
};

async function inPage(panel: Frame, action: string, arg: number | string): Promise<number> {
  const body = ACTIONS[action].replace(/ARG/g, JSON.stringify(arg));
  return panel.evaluate<number>(`(async () => {
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
    await frames();
    const t0 = performance.now();
    ${body}
    await frames();
    return performance.now() - t0;
  })()`);
}

async function paletteRoundTrip(page: Page): Promise<number> {
  const t0 = Date.now();
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ timeout: 30_000 });
  await input.fill('>Turn: Refresh');
  await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Refresh' }).first().waitFor({ timeout: 30_000 });
  await page.keyboard.press('Escape');
  await input.waitFor({ state: 'hidden', timeout: 30_000 });
  return Date.now() - t0;
}

async function measure(page: Page, panel: Frame): Promise<Measures> {
  const select: number[] = [];
  const scroll: number[] = [];
  const search: number[] = [];
  const palette: number[] = [];
  for (let i = 0; i < 5; i++) {
    select.push(await inPage(panel, 'select', i + 2));
    scroll.push(await inPage(panel, 'scroll', [0.5, 0.25, 0.75, 0.1, 0.9][i]));
    search.push(await inPage(panel, 'search', 'step 1'.slice(0, i + 2)));
    palette.push(await paletteRoundTrip(page));
  }
  await inPage(panel, 'search', '');
  const dom = await panel.evaluate<{ nodes: number; actorRows: number; journalRows: number }>(`({
    nodes: document.getElementsByTagName('*').length,
    actorRows: document.querySelectorAll('#actors .actor').length,
    journalRows: document.querySelectorAll('#journal .step').length,
  })`);
  return { select: median(select), scroll: median(scroll), search: median(search), palette: median(palette), ...dom };
}

describe('the run panel at scale: 1,000 actors and 20,000 journal entries against 10 actors', { timeout: 900_000 }, () => {
  let s: Session;
  const runs: Record<string, string> = {};

  const step = codeServerSuite('scale-', {
    start: async () => {
      s = await startCodeServer();
      for (const [name, workers] of [['wide.tn', 1000], ['narrow.tn', 10]] as const) {
        writeFileSync(join(s.workspace, name), program(workers));
        const r = spawnSync(process.execPath, [join(ROOT, 'bin/turn.js'), 'run', name, '--store', '.turn'], { cwd: s.workspace, encoding: 'utf8', env: { ...process.env, TURN_STORE_DRIVER: '' }, timeout: 300_000 });
        assert.equal(r.status, 0, r.stderr);
        runs[name] = /turn: run (\S+)/.exec(r.stderr)![1];
      }
      return s;
    },
  });

  const results: Record<string, Measures> = {};

  for (const [name, actors, steps] of [['narrow.tn', 11, 200], ['wide.tn', 1001, 20_000]] as const) {
    step(`${name}: opened from the Runs view, its ${actors} actors and ${steps} journal entries are selected, scrolled and searched`, async () => {
      const { page } = s;
      await showRuns(page);
      await inlineAction(page, `${name} suspended run ${runs[name]}`, 'Open Run in Panel');
      const panel = await panelFrame(page, 60_000);
      await panel.locator('#actors h2', { hasText: `Actors (${actors})` }).waitFor({ timeout: 120_000 });
      await panel.locator('#journal h2', { hasText: new RegExp(`\\(${steps + 1} steps`) }).waitFor({ timeout: 120_000 });
      results[name] = await measure(page, panel);
      // what a selection shows: the actor's memory, a value of it as a tree
      await panel.locator('#actors .actor[data-pid="3"] .actor-name').click();
      await panel.locator('#memory h2', { hasText: /#3 \(20\)/ }).waitFor({ timeout: 30_000 });
      await panel.locator('#memory .memory-row', { hasText: 'step 7' }).first().click();
      const tree = panel.locator('#memory .memory-value .value-tree');
      await tree.waitFor({ timeout: 10_000 });
      assert.deepEqual(await tree.locator('.v-key').allTextContents(), ['"worker"', '"at"', '"note"']);
      assert.match(await tree.locator('.v-string').first().innerText(), /value of step 7 of worker 1/);
      await tree.locator('button.copy-json').waitFor({ timeout: 10_000 });
      // the journal scrolled to its middle shows the steps there (windowed: they are drawn on demand)
      await panel.evaluate(`(() => { const list = document.querySelector('#journal .vlist'); list.scrollTop = (list.scrollHeight - list.clientHeight) / 2; })()`);
      await waitFor(async () => {
        const seqs: number[] = await panel.locator('#journal .step').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-seq'))));
        return seqs.some((q) => Math.abs(q - steps / 2) < 40);
      }, 10_000, 'the middle of the journal');
      if (name === 'wide.tn') {
        mkdirSync(ARTIFACTS, { recursive: true });
        const file = join(ARTIFACTS, 'panel-scale.png');
        await (await panel.frameElement()).screenshot({ path: file });
        mkdirSync(join(ROOT, 'docs', 'images'), { recursive: true });
        copyFileSync(file, join(ROOT, 'docs', 'images', 'panel-scale.png'));
      }
    });
  }

  step('the 1,000-actor run costs about what the 10-actor run costs (ratios in the log)', async () => {
    const small = results['narrow.tn'];
    const big = results['wide.tn'];
    assert.ok(small && big, 'both runs were measured');
    const ratio = (k: keyof Measures) => big[k] / Math.max(small[k], 1);
    const line = (k: keyof Measures) => `${k}: 10 actors ${small[k].toFixed(1)}, 1,000 actors ${big[k].toFixed(1)}, ratio ${ratio(k).toFixed(2)}`;
    console.log(['panel-scale (ms, medians of 5; nodes: DOM elements):', ...(['select', 'scroll', 'search', 'palette', 'nodes', 'actorRows', 'journalRows'] as const).map(line)].join('\n  '));
    // windowed: the big run draws about as many rows as fit, not one per actor or step
    assert.ok(big.actorRows <= 40, `${big.actorRows} actor rows in the DOM for 1,001 actors`);
    assert.ok(big.journalRows <= 40, `${big.journalRows} journal rows in the DOM for 20,001 steps`);
    assert.ok(big.nodes < small.nodes * 3, `DOM elements: ${big.nodes} (1,000 actors) against ${small.nodes} (10 actors)`);
    // a generous bound: the same interaction within a small multiple (the machine is shared and busy)
    for (const k of ['select', 'scroll', 'search'] as const) assert.ok(ratio(k) < 30, line(k));
  });
});
