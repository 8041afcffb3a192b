// The Turn runtime as a library (docs/embedding.md): what an app imports from the package
// (`import { startRun } from 'turn-vscode'`). It is the entry of the library bundles
// (dist/turn-lib.cjs and dist/turn-lib.mjs, scripts/build.mjs) and of their .d.ts types: nothing
// the editor needs, and no way around a run's grants (options.ts).
export { startRun, resumeRun, run, check, compile, TurnRun, type StartOptions, type TurnResult, type Usage, type ProgramFailure, type CheckReport, type CheckDiagnostic } from './run.js';
export { TurnError, type EmbedErrorKind } from './errors.js';
export { openStore, TurnStore, type StoredRun } from './store.js';
export type { TurnOptions, Grants, Budgets, EffectKind, TelemetryOption } from './options.js';
export type { RunEvent, RunEventKind } from '../events/index.js';
export type { ApprovalHook, ApprovalRequest, ApprovalDecision } from '../effects/capabilities.js';
export type { Vault, VaultEntry } from '../effects/vault.js';
export type { RunInspection } from '../durable/inspect.js';
export type { ProcessView } from '../durable/views.js';
export type { RunStatus } from '../store/types.js';
export { callExport, TurnCallError, type CallOptions, type CallResult, type ExportSchemas } from './call.js';

