// The frame of the answer webview (extension/forms/answer-panel.ts: a settle form, a waiting run's
// question), which code-server nests in two iframes like the run panel's.
import type { Frame, Page } from 'playwright-core';
import { waitFor } from './harness.js';

export async function answerFrame(page: Page, ms = 30_000): Promise<Frame> {
  return waitFor(async () => {
    for (const f of page.frames()) {
      try {
        if (await f.locator('#turn-answer .answer-choices').count()) return f;
      } catch {
        // detached meanwhile
      }
    }
    return undefined;
  }, ms, 'the Turn answer form');
}
