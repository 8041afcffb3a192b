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
