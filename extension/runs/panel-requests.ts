// What the Runs view asks the run panel to do with a stored run, instead of starting its file
// afresh: resume it (optionally moved to the current code) or show it as the store has it. The
// Runs view calls RunPanel.openStored (extension/panel/panel.ts) with it, which hands it to the
// panel's Runner (extension/panel/runner.ts). No `vscode` import.
export type PanelRequest =
  | { kind: 'resume'; runId: string; storeDir: string; migrate?: boolean }
  | { kind: 'show'; runId: string; storeDir: string };
