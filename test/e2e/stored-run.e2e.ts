// End-to-end: a stored run shows what a live run shows (issue 44), and the panel fits a narrow side
// panel. A run the `turn` command ran to its end (no snapshot: its processes come from the journal's
// spawn and name entries), opened from the Runs view: its lanes are named by function and by
// `process_name` (`judge #2`, `tally 7 #4`), not `#2`, a worker that took no step has its lane, and
// its actors and model calls are counted. Then the window is narrowed until the panel is about 300 px
// wide: the page does not scroll sideways, the lanes fit, and the time axis's labels do not overlap.
// Screenshots: test/e2e/artifacts/stored-run-lanes.png, stored-run-narrow.png (also in docs/images/).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe } from 'node:test';
import type { Frame } from 'playwright-core';
import { ARTIFACTS, ROOT, codeServerSuite, inlineAction, panelFrame, showRuns, startCodeServer, waitFor, type Session } from './harness.js';

const PROGRAM = `// judges ask the model; the tally names itself; the anonymous one takes no step (test/e2e/stored-run.e2e.ts)
struct Verdict { ok: Bool, note: Str };
let judge = turn(n: Num) -> Verdict {
    return infer Verdict { "Judge item " + n + "."; };
};
let tally = turn(n: Num) -> Num {
    call("process_name", "tally " + n);
    return n;
};
turn {
    let verdicts = gather spawn_each([1, 2], judge);
    let counted = gather spawn_each([7], tally);
    let quiet = gather spawn_each([5], turn(x: Num) -> Num { return x; });
    return call("len", verdicts) + counted[0] + quiet[0];
}
`;

/** The panel's webview alone, into the artifacts and docs/images/. */
async function picture(panel: Frame, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, `${name}.png`);
  await (await panel.frameElement()).screenshot({ path: file });
  mkdirSync(join(ROOT, 'docs', 'images'), { recursive: true });
  copyFileSync(file, join(ROOT, 'docs', 'images', `${name}.png`));
}

/** How far the webview's page and its lanes reach past its width (0: no sideways scroll). */
const OVERFLOW = `(() => {
  const doc = document.scrollingElement || document.documentElement;
  const panel = document.getElementById('turn-panel');
  const widest = Math.max(...Array.from(document.querySelectorAll('svg.timeline, svg.timeline-axis-svg, svg.tokens-chart')).map((s) => s.getBoundingClientRect().right), 0);
  // what reaches past the width, for the message when something does
  const past = Array.from(document.querySelectorAll('#turn-panel *')).filter((e) => e.getBoundingClientRect().right > doc.clientWidth + 1 && e.getClientRects().length > 0)
    .slice(0, 6).map((e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (typeof e.className === 'string' && e.className ? '.' + e.className.split(' ').join('.') : '') + ' ' + Math.round(e.getBoundingClientRect().right));
  return { page: doc.scrollWidth - doc.clientWidth, panel: panel.scrollWidth - panel.clientWidth, lanes: Math.max(0, widest - doc.clientWidth), width: doc.clientWidth, past };
})()`;

describe('a stored run that ran to its end, opened from the Runs view, in a wide and a narrow panel', { timeout: 600_000 }, () => {
  let s: Session;
  let runId = '';

  const step = codeServerSuite('stored-', {
    start: async () => {
      s = await startCodeServer();
      writeFileSync(join(s.workspace, 'judges.tn'), PROGRAM);
      const r = spawnSync(process.execPath, [join(ROOT, 'bin/turn.js'), 'run', 'judges.tn', '--store', '.turn', '--model', 'mock'], { cwd: s.workspace, encoding: 'utf8', env: { ...process.env, TURN_STORE_DRIVER: '' }, timeout: 120_000 });
      assert.equal(r.status, 0, r.stderr);
      runId = /turn: run (\S+)/.exec(r.stderr)![1];
      return s;
    },
  });

  let panel: Frame;

  step('its lanes are named by function and process_name, and its actors and model calls are counted', async () => {
    const { page } = s;
    await showRuns(page);
    await inlineAction(page, `judges.tn done run ${runId}`, 'Open Run in Panel');
    panel = await panelFrame(page, 60_000);
    await panel.locator('#actors h2', { hasText: 'Actors (5)' }).waitFor({ timeout: 60_000 });
    await panel.locator('h2', { hasText: 'Inferences (2)' }).waitFor({ timeout: 30_000 });
    const labels = await panel.locator('svg.timeline .lane-label').allTextContents();
    assert.deepEqual(labels, ['main #1', 'judge #2', 'judge #3', 'tally 7 #4', 'spawned #5']);
    assert.equal(await panel.locator('svg.timeline .bar.kind-model').count(), 2, 'the two judges\' model calls');
    await picture(panel, 'stored-run-lanes');
  });

  step('in a 300 px side panel nothing scrolls sideways: the lanes and token rows take the width there is', async () => {
    const { page } = s;
    const full = (await (await panel.frameElement()).boundingBox())!.width;
    const viewport = page.viewportSize()!;
    // the window narrowed by what makes the panel about 300 px wide (the workbench's parts keep theirs)
    await page.setViewportSize({ width: Math.max(400, Math.round(viewport.width - (full - 300))), height: viewport.height });
    try {
      let last: unknown = null;
      const narrow = await waitFor(async () => {
        const w = (await (await panel.frameElement()).boundingBox())?.width ?? full;
        last = { frame: w };
        if (w > 320) return false;
        const o = await panel.evaluate<{ page: number; panel: number; lanes: number; width: number; past: string[] }>(OVERFLOW);
        last = o;
        // the webview redrew at its new width (a resize redraws on the next frame)
        return o.lanes <= 1 && o.page <= 1 && o.panel <= 1 ? o : false;
      }, 30_000, 'the narrow panel to fit its width').catch((e: Error) => {
        throw new Error(`${e.message}: ${JSON.stringify(last)}`);
      });
      assert.ok(narrow.width <= 320, `the panel is ${narrow.width} px wide`);
      // the time axis labels only the ticks there is room for: no two labels overlap
      const ticks = await panel.locator('svg.timeline-axis-svg text.tick').evaluateAll((els) => els.map((e) => { const r = e.getBoundingClientRect(); return [r.left, r.right]; }));
      assert.ok(ticks.length >= 2, `${ticks.length} tick labels`);
      for (let i = 1; i < ticks.length; i++) assert.ok(ticks[i][0] >= ticks[i - 1][1], `tick labels ${i - 1} and ${i} overlap: ${JSON.stringify(ticks)}`);
      const labels = await panel.locator('svg.timeline .lane-label').allTextContents();
      assert.equal(labels.length, 5);
      assert.ok(labels.includes('judge #2'), labels.join(', '));
      await picture(panel, 'stored-run-narrow');
    } finally {
      await page.setViewportSize(viewport);
    }
  });
});
