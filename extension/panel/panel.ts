// The run panel, extension-host side: one webview panel (strict CSP, a nonce for its one script,
// no remote connections) that starts and stops runs (runner.ts) and receives RunViews over the
// typed protocol of extension/protocol/panel.ts. The webview keeps its state with
// vscode.getState/setState; a WebviewPanelSerializer brings the panel back after a reload.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isWebviewMessage, PROTOCOL_VERSION, type HostMessage, type RunView } from '../protocol/panel.js';
import { Runner } from './runner.js';
import { readRunSettings, runOptionsFromSettings } from '../settings.js';
import { nonce, panelHtml } from './html.js';
import type { TurnVault } from '../vault/vault.js';

export const PANEL_VIEW_TYPE = 'turn.runPanel';

export class RunPanel {
  private static current: RunPanel | undefined;
  private runner: Runner | undefined;
  private runId = 0;
  private lastView: RunView | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  static show(context: vscode.ExtensionContext, vault: TurnVault): RunPanel {
    if (RunPanel.current) {
      RunPanel.current.panel.reveal(vscode.ViewColumn.Beside, true);
      return RunPanel.current;
    }
    const panel = vscode.window.createWebviewPanel(PANEL_VIEW_TYPE, 'Turn Run', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
      enableScripts: true,
      retainContextWhenHidden: false,
      localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview')],
    });
    RunPanel.current = new RunPanel(panel, context, vault);
    return RunPanel.current;
  }

  /** Restores a panel VS Code serialized (reload): its webview state comes back through getState. */
  static revive(panel: vscode.WebviewPanel, context: vscode.ExtensionContext, vault: TurnVault): void {
    RunPanel.current?.dispose();
    RunPanel.current = new RunPanel(panel, context, vault);
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly context: vscode.ExtensionContext,
    private readonly vault: TurnVault,
  ) {
    const webview = panel.webview;
    webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview')] };
    const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview', name)).toString();
    webview.html = panelHtml(webview.cspSource, asset('panel.js'), asset('panel.css'), nonce());
    this.disposables.push(
      webview.onDidReceiveMessage((m: unknown) => this.onMessage(m)),
      panel.onDidDispose(() => this.dispose()),
      vault.onDidChange(() => void this.sendVault()),
    );
  }

  private post(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  private async sendVault(): Promise<void> {
    // Names and sources only: VaultEntryView has no room for a value.
    const entries = (await this.vault.list()).map((e) => ({ name: e.name, source: e.source }));
    this.post({ type: 'vault', v: PROTOCOL_VERSION, entries });
  }

  private onMessage(m: unknown): void {
    if (!isWebviewMessage(m)) return; // not ours, or malformed: dropped
    switch (m.type) {
      case 'ready':
        void this.sendVault();
        if (this.lastView) this.post({ type: 'run', v: PROTOCOL_VERSION, run: this.lastView });
        return;
      case 'start':
        void this.start(m.file ? vscode.Uri.file(m.file) : undefined);
        return;
      case 'stop':
        this.runner?.stop();
        return;
      case 'reveal':
        void reveal(m.path, m.line);
        return;
    }
  }

  /** Runs `uri` (or the active Turn editor's file) in the extension host. */
  async start(uri?: vscode.Uri): Promise<RunView | undefined> {
    const doc = uri ? await vscode.workspace.openTextDocument(uri) : vscode.window.activeTextEditor?.document;
    if (!doc || doc.languageId !== 'turn' || doc.uri.scheme !== 'file') {
      void vscode.window.showErrorMessage('Turn: open a saved .tn file to run it.');
      return undefined;
    }
    if (doc.isDirty && !(await doc.save())) return undefined;
    this.runner?.stop();
    const config = vscode.workspace.getConfiguration('turn', doc.uri);
    const folder = vscode.workspace.getWorkspaceFolder(doc.uri);
    const cwd = folder?.uri.fsPath ?? path.dirname(doc.uri.fsPath);
    const settings = readRunSettings((key, dflt) => config.get(key, dflt));
    const runner = new Runner({
      file: doc.uri.fsPath,
      options: runOptionsFromSettings(settings, cwd, { vault: this.vault, approve: (request) => this.vault.approve(request) }),
      runId: ++this.runId,
      publish: (view) => {
        if (view.runId !== this.runId) return;
        this.lastView = view;
        this.post({ type: 'run', v: PROTOCOL_VERSION, run: view });
      },
    });
    this.runner = runner;
    return runner.start();
  }

  dispose(): void {
    if (RunPanel.current === this) RunPanel.current = undefined;
    this.runner?.stop();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}

async function reveal(file: string, line: number): Promise<void> {
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const at = new vscode.Position(Math.max(0, line - 1), 0);
  await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(at, at) });
}

export function registerRunPanel(context: vscode.ExtensionContext, vault: TurnVault): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('turn.runInPanel', async (uri?: vscode.Uri) => {
      const panel = RunPanel.show(context, vault);
      return panel.start(uri instanceof vscode.Uri ? uri : undefined);
    }),
    vscode.commands.registerCommand('turn.showRunPanel', () => void RunPanel.show(context, vault)),
    vscode.window.registerWebviewPanelSerializer(PANEL_VIEW_TYPE, {
      async deserializeWebviewPanel(panel: vscode.WebviewPanel) {
        RunPanel.revive(panel, context, vault);
      },
    }),
  ];
}
