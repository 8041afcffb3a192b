// A status bar item showing the language server's state; clicking it restarts the server.
import * as vscode from 'vscode';
import { State } from 'vscode-languageclient/node';
import type { LanguageClient } from 'vscode-languageclient/node';
import { presentStatus } from './status-model.js';
import type { ServerStatus } from './status-model.js';

export function statusOf(state: State): ServerStatus {
  switch (state) {
    case State.Starting:
      return 'starting';
    case State.Running:
      return 'ready';
    case State.Stopped:
    default:
      return 'stopped';
  }
}

export class ServerStatusItem implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private subscription: vscode.Disposable | undefined;

  constructor() {
    this.item = vscode.window.createStatusBarItem('turn.serverStatus', vscode.StatusBarAlignment.Left, 0);
    this.item.name = 'Turn Language Server';
    this.item.command = 'turn.restartServer';
    this.set('stopped');
    this.item.show();
  }

  set(status: ServerStatus, detail?: string): void {
    const { text, tooltip } = presentStatus(status, detail);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor =
      status === 'stopped' && detail ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  /** Follows `client`'s state from now on (replacing any previous client). */
  follow(client: LanguageClient): void {
    this.subscription?.dispose();
    this.set(statusOf(client.state));
    this.subscription = client.onDidChangeState((e) => this.set(statusOf(e.newState)));
  }

  dispose(): void {
    this.subscription?.dispose();
    this.item.dispose();
  }
}
