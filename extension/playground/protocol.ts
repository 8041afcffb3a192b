// The playground's messages between the extension host (panel.ts) and its webview
// (webview/main.ts). Types only, plus the command's name: the webview bundle imports nothing else.
import type { InferView, PlayableParam } from '../../runtime/index.js';

export const PLAYGROUND_RUN_COMMAND = 'turn.playground.run';
export const PLAYGROUND_VIEW_TYPE = 'turn.playground';

/** What the playground runs: a function with arguments, or a test case. */
export type PlayTargetRef = { kind: 'function'; name: string } | { kind: 'test'; name: string };

/** The run's request parameters: the run's sampling settings (each infer's own options are per attempt). */
export interface PlayParameters {
  model: string;
  temperature?: number;
  maxTokens?: number;
  seed?: number;
  inferRetries?: number;
  consistency?: number;
}

export interface PlayResultView {
  status: 'done' | 'failed' | 'refused' | 'stopped' | 'waiting' | 'suspended' | 'aborted';
  /** the value as JSON, pretty-printed, when done */
  value?: string;
  /** the value as Turn shows it (`Triage { ... }`) */
  rendered?: string;
  confidence?: number;
  /** why it has no value: a located message */
  error?: string;
  output: string[];
  infers: InferView[];
  parameters: PlayParameters;
  tokens: { input: number; output: number; cached: number };
  durationMs: number;
  /** model requests answered from the last run's recording (re-run on save) */
  replayed: number;
}

export type PlayHostMessage =
  | {
      type: 'target';
      /** the file as shown (relative to the workspace) */
      file: string;
      target: PlayTargetRef;
      /** a function's parameters, and the schema of its arguments (an object by name) the input form is built from; null for a test */
      params: PlayableParam[];
      schema: object | null;
      returns?: string;
      /** the arguments to start from (the last ones used, else an example from the types) */
      args: string;
      /** inputs taken from the literal calls of the function in its test file's cases */
      fromTests: { label: string; args: string }[];
      rerunOnSave: boolean;
    }
  | { type: 'running' }
  | { type: 'result'; view: PlayResultView };

export type PlayWebviewMessage =
  | { type: 'ready' }
  | { type: 'run'; args: string }
  | { type: 'rerunOnSave'; on: boolean };

export function isPlayWebviewMessage(m: unknown): m is PlayWebviewMessage {
  if (m === null || typeof m !== 'object') return false;
  const o = m as Record<string, unknown>;
  switch (o.type) {
    case 'ready':
      return true;
    case 'run':
      return typeof o.args === 'string';
    case 'rerunOnSave':
      return typeof o.on === 'boolean';
    default:
      return false;
  }
}
