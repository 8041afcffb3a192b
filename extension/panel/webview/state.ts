// The webview's state: what it shows and what survives hiding and reloads (vscode.getState/setState).
import { isRunView, type JournalStepView, type RunView, type ScrubView, type VaultEntryView, type WhatIfView } from '../../protocol/panel.js';

export interface State {
  run: RunView | null;
  vault: VaultEntryView[];
  selected: number | null;
  search: string;
  /** the journal of the shown stored run */
  journal: { runId: string; steps: JournalStepView[]; schemas?: Record<string, object> } | null;
  /** the step being edited for a what-if, with the text typed so far (and, for a model reply, its confidence) */
  editing: { step: number; text: string; confidence: string } | null;
  /** a fork is running */
  forking: boolean;
  whatif: WhatIfView | null;
  scrub: ScrubView | null;
  /** the scrubber's position while the host answers */
  scrubStep: number | null;
  notice: string | null;
}

export function restore(saved: Partial<State> | undefined): State {
  return {
    run: saved && isRunView(saved.run) ? saved.run : null,
    vault: Array.isArray(saved?.vault) ? saved.vault.filter((e) => typeof e?.name === 'string').map((e) => ({ name: e.name, source: String(e.source) })) : [],
    selected: typeof saved?.selected === 'number' ? saved.selected : null,
    search: typeof saved?.search === 'string' ? saved.search : '',
    journal: saved?.journal && typeof saved.journal.runId === 'string' && Array.isArray(saved.journal.steps) ? saved.journal : null,
    editing: null,
    forking: false,
    whatif: saved?.whatif ?? null,
    scrub: saved?.scrub ?? null,
    scrubStep: null,
    notice: null,
  };
}
