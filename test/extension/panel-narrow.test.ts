// The run panel in a narrow side panel (issue 44): beside the editor the panel is about 300 px
// wide, and its two columns (actors and output; details, inferences, journal, events) were about 130
// and 300 px, so output wrapped per word. Under 600 px the stylesheet stacks them, each the full width.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const css = fs.readFileSync(path.join(__dirname, '..', '..', 'extension', 'panel', 'webview', 'panel.css'), 'utf8');

/** The rules inside `@media (max-width: Npx) { ... }` blocks, with N. */
function narrowBlocks(text: string): { max: number; body: string }[] {
  const out: { max: number; body: string }[] = [];
  const re = /@media\s*\(max-width:\s*(\d+)px\)\s*\{/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    let depth = 1;
    let i = re.lastIndex;
    for (; i < text.length && depth > 0; i++) depth += text[i] === '{' ? 1 : text[i] === '}' ? -1 : 0;
    out.push({ max: Number(m[1]), body: text.slice(re.lastIndex, i - 1) });
  }
  return out;
}

test('at 300 px the panel\'s columns stack (full width each), and long text breaks anywhere rather than widen the page', () => {
  const at300 = narrowBlocks(css).filter((b) => b.max >= 300);
  assert.ok(at300.length > 0, 'a max-width breakpoint that applies at 300 px');
  const body = at300.map((b) => b.body).join('\n');
  assert.match(body, /\.columns\s*\{[^}]*flex-direction:\s*column/);
  assert.match(body, /\.col,\s*\.col\.wide\s*\{[^}]*width:\s*100%/);
  assert.match(body, /overflow-wrap:\s*anywhere/);
  // the breakpoint is above the width at which two columns still fit (2 × ~280 px plus the gap)
  assert.ok(at300.some((b) => b.max >= 560), `breakpoint ${at300.map((b) => b.max).join(', ')} px`);
});

// The lanes and token rows took at least 360 px with a 150 px label column, so at 300 px the panel
// scrolled sideways (issue 44). They take the width they are given now, their labels shrinking.
import { drawWidth, fitLabel, labelWidth, MIN_DRAW_W } from '../../extension/panel/webview/narrow.js';

test('the drawings fit a 300 px side panel: the width given, a label column that shrinks, labels cut to fit', () => {
  for (const available of [296, 280, 240, MIN_DRAW_W]) {
    const W = drawWidth(available);
    assert.equal(W, available, `drawn ${W} px wide in ${available} px`);
    const label = labelWidth(W);
    assert.ok(label >= 64 && label <= W * 0.35, `label column ${label} px of ${W}`);
    assert.ok(W - label >= 120, 'most of the width is left for the bars');
    const cut = fitLabel('a-very-long-process-name-from-std-graph #1234', label);
    assert.ok(cut.length * 6.6 <= label, `"${cut}" fits ${label} px`);
    assert.ok(cut.endsWith('…'));
  }
  assert.equal(labelWidth(drawWidth(900)), 150, 'a wide panel keeps the 150 px label column');
  assert.equal(fitLabel('research #2', 150), 'research #2');
  assert.equal(drawWidth(Number.NaN), MIN_DRAW_W);
  assert.equal(drawWidth(20), MIN_DRAW_W, 'narrower than any side panel: a floor, and the panel scrolls');
});

test('the panel, the lanes and the token rows draw at the width they are given (no 360 px floor)', () => {
  const webview = path.join(__dirname, '..', '..', 'extension', 'panel', 'webview');
  for (const file of ['main.ts', 'timeline.ts', 'tokens.ts']) {
    const text = fs.readFileSync(path.join(webview, file), 'utf8');
    assert.doesNotMatch(text, /Math\.max\(\s*360/, `${file} has no floor of its own`);
    assert.match(text, /drawWidth\(/, `${file} takes its width from narrow.ts`);
  }
});
