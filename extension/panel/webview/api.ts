/// <reference lib="dom" />
// The webview's one handle on VS Code (acquireVsCodeApi may be called once) and the typed post.
import type { WebviewMessage } from '../../protocol/panel.js';

interface VsCodeApi {
  postMessage(m: WebviewMessage): void;
  getState(): unknown;
  setState(s: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

export const vscode = acquireVsCodeApi();

export const post = (m: WebviewMessage): void => vscode.postMessage(m);
