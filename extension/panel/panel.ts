// The run panel, extension-host side: one webview panel (strict CSP, a nonce for its one script,
// no remote connections) that starts and stops runs (runner.ts) and receives RunViews over the
// typed protocol of extension/protocol/panel.ts. The webview keeps its state with
// vscode.getState/setState; a WebviewPanelSerializer brings the panel back after a reload, with the
// run it last showed from a file of the extension's storage (kept-view.ts says why).
// The Runs view opens stored runs here directly: `openStored` (resume or show a run of the
// workspace store) and `showView` (a run on a Restate server, built by extension/runs/).
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isWebviewMessage, missingCredential, PROTOCOL_VERSION, type HostMessage, type RunView, type StoredRunView } from '../protocol/panel.js';
import { Runner } from './runner.js';
import { priceTableFromSettings, readRunSettings, runOptionsFromSettings } from '../settings.js';
import type { PriceTable, Run, RunResult } from '../../runtime/index.js';
import { nonce, panelHtml } from './html.js';
import type { TurnVault } from '../vault/vault.js';
import { journalForm, runWhatIf, withStore } from './whatif.js';
import { answerElicitation, answerAsk } from '../forms/answer-panel.js';
import { scrubAt } from './scrub.js';
import { KeptView } from './kept-view.js';
import { RunDeltaProducer } from '../protocol/run-delta.js';
import { calibrationMapView } from './calibration.js';
import { KeptMedia } from './media.js';
import { hostLoadProbe } from './host-load.js';
import type { PanelRequest } from '../runs/panel-requests.js';

export const PANEL_VIEW_TYPE = 'turn.runPanel';

export class RunPanel {
  private static current: RunPanel | undefined;
  private runner: Runner | undefined;
  private runId = 0;
  private lastView: RunView | undefined;
  /** the stored run whose journal the webview has (sent once its run has ended) */
  private journalOf: string | undefined;
  /** the run whose missing credential was offered already */
  private offered: number | undefined;
  /** the stored run whose wait for a decision was offered already */
  private offeredWait: string | undefined;
  /** names of the actors the panel saw run, by pid (a finished process has no frames to name it by) */
  private readonly names = new Map<number, string | null | undefined>();
  private readonly disposables: vscode.Disposable[] = [];
  /** what the webview holds of the shown run: each update sends only what changed since */
  private readonly deltas = new RunDeltaProducer();

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

  /**
   * Restores a panel VS Code serialized (reload): its webview state comes back through getState,
   * and the run it last showed from the kept view, sent once the webview is ready.
   */
  static revive(panel: vscode.WebviewPanel, context: vscode.ExtensionContext, vault: TurnVault): void {
    RunPanel.current?.dispose();
    const revived = new RunPanel(panel, context, vault);
    const kept = revived.kept.load();
    if (kept) {
      revived.runId = kept.runId;
      revived.lastView = kept;
    }
    RunPanel.current = revived;
  }

  private readonly kept: KeptView;
  /** the images and documents the shown run's prompts sent, by hash (thumbnails) */
  private readonly media = new KeptMedia();

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly context: vscode.ExtensionContext,
    private readonly vault: TurnVault,
  ) {
    this.kept = new KeptView((context.storageUri ?? context.globalStorageUri).fsPath);
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
        if (this.lastView) this.post(this.deltas.full(this.lastView));
        this.journalOf = undefined; // a reloaded webview asks again
        if (this.lastView) this.observe(this.lastView);
        return;
      case 'resync':
        if (this.lastView) this.post(this.deltas.full(this.lastView));
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
      case 'fork':
        void this.fork(m.runId, m.step, m.value, m.confidence);
        return;
      case 'scrub':
        void this.scrub(m.runId, m.step);
        return;
      case 'command':
        void vscode.commands.executeCommand(m.command);
        return;
      case 'setting':
        void vscode.commands.executeCommand('workbench.action.openSettings', m.key);
        return;
      case 'calibrationMap': {
        // the map that calibrated a confidence of the shown run, from the calibration file its runs read
        const file = this.lastView?.file;
        const found = file ? calibrationMapView(this.optionsFor(file), m.map) : { view: null, message: `map ${m.map}: no run is shown` };
        this.post({ type: 'calibrationMap', v: PROTOCOL_VERSION, map: m.map, ...found });
        return;
      }
      case 'media':
        // an image or document of the shown run's prompts, only when the webview shows it
        this.post({ type: 'media', v: PROTOCOL_VERSION, sha256: m.sha256, ...this.media.item(m.sha256) });
        return;
    }
  }

  private notice(e: unknown): void {
    this.post({ type: 'notice', v: PROTOCOL_VERSION, message: e instanceof Error ? e.message : String(e) });
  }

  /** The settings' run options for the file the panel shows (a fork and a scrub use them too). */
  private optionsFor(file: string) {
    const uri = vscode.Uri.file(file);
    const config = vscode.workspace.getConfiguration('turn', uri);
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const cwd = folder?.uri.fsPath ?? path.dirname(file);
    const settings = readRunSettings((key, dflt) => config.get(key, dflt));
    // an MCP server's OAuth sign-in opens in the user's browser through VS Code (runtime/mcp/oauth)
    const openUrl = async (url: string): Promise<void> => void (await vscode.env.openExternal(vscode.Uri.parse(url, true)));
    // an MCP server's question (elicitation) is answered in the typed form (extension/forms/)
    return { ...runOptionsFromSettings(settings, cwd, { vault: this.vault, approve: (request) => this.vault.approve(request), oauth: { openUrl } }), elicit: answerElicitation, ask: answerAsk };
  }

  /** The price table of `turn.pricesFile` for the file's workspace; one that cannot be read is a notice, and the run goes unpriced. */
  private pricesFor(file: string): PriceTable | undefined {
    const uri = vscode.Uri.file(file);
    const config = vscode.workspace.getConfiguration('turn', uri);
    const cwd = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? path.dirname(file);
    try {
      return priceTableFromSettings(readRunSettings((key, dflt) => config.get(key, dflt)), cwd);
    } catch (e) {
      this.notice(e);
      return undefined;
    }
  }

  /** Once a stored run has ended, the webview gets its journal (what-if and the scrubber work on it). */
  private async sendJournal(stored: StoredRunView): Promise<void> {
    const key = `${stored.storeDir}\u0000${stored.runId}`;
    if (this.journalOf === key) return;
    this.journalOf = key;
    try {
      const { steps, schemas } = await withStore(stored.storeDir, (store) => journalForm(store, stored.runId));
      this.post({ type: 'journal', v: PROTOCOL_VERSION, runId: stored.runId, steps, schemas });
    } catch (e) {
      this.notice(e);
    }
  }

  private async fork(runId: string, step: number, value: string, confidence?: number): Promise<void> {
    const view = this.lastView;
    if (!view?.stored || view.stored.runId !== runId || !view.file) return this.notice(`run ${runId} is not the run this panel shows`);
    try {
      const whatif = await runWhatIf({ storeDir: view.stored.storeDir, runId, step, value, ...(confidence !== undefined ? { confidence } : {}), options: this.optionsFor(view.file), originalOutput: view.output });
      this.post({ type: 'whatif', v: PROTOCOL_VERSION, view: whatif });
    } catch (e) {
      this.notice(e);
    }
  }

  private async scrub(runId: string, step: number): Promise<void> {
    const stored = this.lastView?.stored;
    if (!stored || stored.runId !== runId) return this.notice(`run ${runId} is not the run this panel shows`);
    try {
      this.post({ type: 'scrub', v: PROTOCOL_VERSION, view: await scrubAt({ storeDir: stored.storeDir, runId, step, names: this.names }) });
    } catch (e) {
      this.notice(e);
    }
  }

  /** What the panel does with each view besides showing it: names, the journal, a missing credential's offer. */
  private observe(view: RunView): void {
    for (const a of view.actors) if (a.name) this.names.set(a.pid, a.name);
    if (view.status === 'running' || view.status === 'idle') return;
    if (view.stored) void this.sendJournal(view.stored);
    const name = (view.status === 'failed' || view.status === 'waiting') && view.error ? missingCredential(view.error.message) : null;
    // a run that waits on a person: the notification offers the settle form (the Runs view's action);
    // a durable run refused for a missing credential also waits, but what it needs is the credential
    if (name === null && view.status === 'waiting' && view.stored && this.offeredWait !== view.stored.runId) {
      this.offeredWait = view.stored.runId;
      void vscode.window.showWarningMessage(`Turn: run ${view.stored.runId} waits for a decision about an unknown outcome.`, 'Settle…').then((pick) => {
        if (pick) void vscode.commands.executeCommand('turn.runs.settle');
      });
    }
    if (name !== null && this.offered !== view.runId) {
      this.offered = view.runId;
      void vscode.window.showErrorMessage(`Turn: the run needs the credential "${name}", which is not in the vault.`, 'Add Credential').then((pick) => {
        if (pick === 'Add Credential') void vscode.commands.executeCommand('turn.vault.add');
      });
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
    return this.launch(doc.uri.fsPath);
  }

  /**
   * Opens stored run `request.runId` (the Runs view's actions): resumed in the panel (moved to the
   * current code of `file` with `migrate`), or shown as its store has it. Only a migration reads
   * `file` (an unsaved edit is saved first); a resume runs the sources the store recorded.
   */
  async openStored(file: string, request: PanelRequest): Promise<RunView | undefined> {
    if (request.kind === 'resume' && request.migrate) {
      const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && path.resolve(d.uri.fsPath) === path.resolve(file));
      if (open?.isDirty && !(await open.save())) return undefined;
    }
    return this.launch(file, request);
  }

  /** Shows a run's view built elsewhere (a run on a Restate server: extension/runs/restate-model.ts); no live run stands behind it. */
  showView(view: RunView): void {
    this.runner?.stop();
    this.runner = undefined;
    this.names.clear();
    this.journalOf = undefined;
    const shown = { ...view, runId: ++this.runId };
    this.lastView = shown;
    this.kept.keep(shown);
    this.post(this.deltas.full(shown));
    this.observe(shown);
  }

  /**
   * Runs one call of a served closure for agent mode (extension/lm/register.ts): `entryText` is the
   * entry, named `name` (the served file and the tool), shown here like any run; stopped when
   * `signal` aborts. Resolves with the final view, and the run's result when it started.
   */
  async runCall(name: string, entryText: string, signal: AbortSignal): Promise<{ view: RunView; settled?: { result: RunResult; run: Run } }> {
    let settled: { result: RunResult; run: Run } | undefined;
    const view = await this.launch(name, undefined, { entryText, signal, onSettled: (result, run) => void (settled = { result, run }) });
    return settled ? { view, settled } : { view };
  }

  private launch(file: string, request?: PanelRequest, call?: { entryText: string; signal: AbortSignal; onSettled: (result: RunResult, run: Run) => void }): Promise<RunView> {
    this.runner?.stop();
    this.media.clear();
    const load = hostLoadProbe();
    const runner = new Runner({
      file,
      options: { ...this.optionsFor(file), onMedia: (media) => this.media.keep(media), ...(call ? { entryText: call.entryText } : {}) },
      ...(call ? { onSettled: call.onSettled } : {}),
      runId: ++this.runId,
      ...(() => {
        const prices = this.pricesFor(file);
        return prices ? { prices } : {};
      })(),
      ...(request ? { request } : {}),
      publish: (view) => load.publishing(() => {
        if (view.runId !== this.runId) return;
        this.lastView = view;
        this.kept.keep(view);
        // the runner publishes at most every 100 ms; a new run's first view goes whole, then deltas
        const message = this.deltas.next(view);
        if (message) this.post(message);
        this.observe(view);
      }),
    });
    this.runner = runner;
    this.names.clear();
    this.journalOf = undefined;
    call?.signal.addEventListener('abort', () => runner.stop(), { once: true });
    return runner.start().then((view) => {
      load.end({ runId: view.runId, file: path.basename(file), status: view.status, actors: view.actors.length, events: view.timeline.length });
      return view;
    });
  }

  dispose(): void {
    if (RunPanel.current === this) RunPanel.current = undefined;
    this.runner?.stop();
    this.kept.flush();
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
