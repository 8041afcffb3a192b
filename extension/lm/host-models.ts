// The editor's host models (RunOptions.hostModels) as every run the editor starts gets them: set
// once at activation (extension/lm/register.ts) and read where run options are made
// (extension/settings.ts, the debugger, the Test Explorer). No `vscode` import here, so
// settings.ts stays testable outside the editor.
import type { HostModels } from '../../runtime/index.js';

let current: HostModels | undefined;

export function setHostModels(models: HostModels | undefined): void {
  current = models;
}

/** `{ hostModels }` when the editor has registered its models, else `{}` (to spread into run options). */
export function hostModelsOption(): { hostModels?: HostModels } {
  return current ? { hostModels: current } : {};
}
