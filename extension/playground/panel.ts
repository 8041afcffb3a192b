// The playground panel (docs/editor.md, *Playground*): one webview beside the editor that the Run
// lens of a function or a test case opens (codelens.ts). It shows the target's input form, runs it
// under the `turn.*` settings (session.ts), and shows the result pane; with "Re-run on save" on, a
// save of the file runs it again with the same inputs, replaying the replies whose request did
// not change. The webview is untrusted: its messages are checked (protocol.ts), its arguments
// checked again by the runtime against the parameters' types.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { argumentsSchema, InputError, inputsFromTests, readSourceText, TEST_FILE_SUFFIX, type PlayableFunction, type ReplyRecording } from '../../runtime/index.js';
import { nonce, panelHtml } from '../panel/html.js';
import { readRunSettings, runOptionsFromSettings } from '../settings.js';
import type { TurnVault } from '../vault/vault.js';
import { isPlayWebviewMessage, PLAYGROUND_RUN_COMMAND, PLAYGROUND_VIEW_TYPE, type PlayHostMessage, type PlayTargetRef } from './protocol.js';
import { play } from './session.js';
import { playTargets } from './targets.js';

export class Playground {
  private static current: Playground | undefined;
  private file = '';
  private target: PlayTargetRef | undefined;
  private ready = false;
  private pendingTarget: PlayHostMessage | undefined;
  private rerunOnSave = false;
  /** the arguments last run, by file and function: the form starts from them */
  private readonly lastArgs = new Map<string, string>();
  private recording: ReplyRecording | undefined;
  /** the model the recording's replies came from: another model's are never replayed */
  private recordingModel: string | undefined;
  private running: AbortController | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  static async open(context: vscode.ExtensionContext, vault: TurnVault, uri: vscode.Uri, kind: PlayTargetRef['kind'], name: string): Promise<void> {
    if (!Playground.current) {
      const panel = vscode.window.createWebviewPanel(PLAYGROUND_VIEW_TYPE, 'Turn Playground', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
        enableScripts: true,
        localResourceRoots: [vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview')],
      });
      Playground.current = new Playground(panel, context, vault);
    } else Playground.current.panel.reveal(vscode.ViewColumn.Beside, true);
    await Playground.current.show(uri, { kind, name });
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    context: vscode.ExtensionContext,
    private readonly vault: TurnVault,
  ) {
    const webview = panel.webview;
    const asset = (n: string) => webview.asWebviewUri(vscode.Uri.joinPath(context.extensionUri, 'dist', 'webview', n)).toString();
    webview.html = panelHtml(webview.cspSource, asset('playground.js'), asset('playground.css'), nonce());
    this.disposables.push(
      webview.onDidReceiveMessage((m: unknown) => this.onMessage(m)),
      panel.onDidDispose(() => this.dispose()),
      vscode.workspace.onDidSaveTextDocument((doc) => {
        if (this.rerunOnSave && this.target && doc.uri.fsPath === this.file) void this.run(this.lastArgs.get(this.argsKey()) ?? '{}');
      }),
    );
  }

  private argsKey(): string {
    return `${this.file}\0${this.target?.kind ?? ''}\0${this.target?.name ?? ''}`;
  }

  private post(m: PlayHostMessage): void {
    void this.panel.webview.postMessage(m);
  }

  private async show(uri: vscode.Uri, target: PlayTargetRef): Promise<void> {
    const doc = await vscode.workspace.openTextDocument(uri);
    const found = (await playTargets(doc.getText(), uri.fsPath)).find((t) => t.kind === target.kind && t.name === target.name);
    if (!found) {
      void vscode.window.showErrorMessage(`Turn: ${path.basename(uri.fsPath)} has no ${target.kind === 'function' ? 'top-level function' : 'test'} named ${target.name}`);
      return;
    }
    if (this.file !== uri.fsPath || this.target?.kind !== target.kind || this.target.name !== target.name) this.recording = undefined;
    this.running?.abort();
    this.file = uri.fsPath;
    this.target = target;
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    const message: PlayHostMessage = {
      type: 'target',
      file: folder ? path.relative(folder.uri.fsPath, uri.fsPath) : path.basename(uri.fsPath),
      target,
      params: found.kind === 'function' ? found.fn.params : [],
      schema: found.kind === 'function' ? argumentsSchema(found.fn) : null,
      ...(found.kind === 'function' && found.fn.returns ? { returns: found.fn.returns } : {}),
      args: this.lastArgs.get(this.argsKey()) ?? '',
      fromTests: found.kind === 'function' ? await this.fromTests(uri.fsPath, found.fn) : [],
      rerunOnSave: this.rerunOnSave,
    };
    if (this.ready) this.post(message);
    else this.pendingTarget = message;
    // a test takes no inputs: it runs at once
    if (target.kind === 'test') void this.run('{}');
  }

  /** The inputs the function's test cases call it with: in this file when it is a test file, and in its `NAME_test.tn` beside it. */
  private async fromTests(file: string, fn: PlayableFunction): Promise<{ label: string; args: string }[]> {
    const files = file.endsWith(TEST_FILE_SUFFIX) ? [file] : [file.replace(/\.tn$/, '') + TEST_FILE_SUFFIX];
    const out: { label: string; args: string }[] = [];
    for (const f of files) {
      let text: string;
      try {
        text = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === f)?.getText() ?? readSourceText(f);
      } catch (e) {
        if (e instanceof InputError) continue; // no test file: nothing to offer
        throw e;
      }
      for (const t of await inputsFromTests(fn.name, fn.params, f, text)) out.push({ label: `${t.test} (${path.basename(f)}:${t.line})`, args: JSON.stringify(t.args) });
    }
    return out;
  }

  private onMessage(m: unknown): void {
    if (!isPlayWebviewMessage(m)) return;
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (this.pendingTarget) this.post(this.pendingTarget);
        this.pendingTarget = undefined;
        return;
      case 'run':
        void this.run(m.args);
        return;
      case 'rerunOnSave':
        this.rerunOnSave = m.on;
        return;
    }
  }

  private optionsFor(file: string) {
    const uri = vscode.Uri.file(file);
    const config = vscode.workspace.getConfiguration('turn', uri);
    const cwd = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath ?? path.dirname(file);
    const settings = readRunSettings((key, dflt) => config.get(key, dflt));
    const openUrl = async (url: string): Promise<void> => void (await vscode.env.openExternal(vscode.Uri.parse(url, true)));
    return runOptionsFromSettings(settings, cwd, { vault: this.vault, approve: (request) => this.vault.approve(request), oauth: { openUrl } });
  }

  private async run(args: string): Promise<void> {
    const target = this.target;
    if (!target) return;
    this.running?.abort();
    const controller = new AbortController();
    this.running = controller;
    this.lastArgs.set(this.argsKey(), args);
    this.post({ type: 'running' });
    try {
      const text = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === this.file)?.getText();
      const options = this.optionsFor(this.file);
      if (options.model !== this.recordingModel) this.recording = undefined;
      const { view, recording } = await play({ file: this.file, target, args, ...(text !== undefined ? { text } : {}), options, ...(this.recording ? { recording: this.recording } : {}), signal: controller.signal });
      if (this.running !== controller) return; // a newer run replaced this one
      this.recording = recording;
      this.recordingModel = options.model;
      this.post({ type: 'result', view });
    } catch (e) {
      if (this.running !== controller) return;
      this.post({ type: 'result', view: { status: 'aborted', error: e instanceof Error ? e.message : String(e), output: [], infers: [], parameters: { model: '' }, tokens: { input: 0, output: 0, cached: 0 }, durationMs: 0, replayed: 0 } });
    } finally {
      if (this.running === controller) this.running = undefined;
    }
  }

  private dispose(): void {
    this.running?.abort();
    if (Playground.current === this) Playground.current = undefined;
    for (const d of this.disposables) d.dispose();
  }
}

export function registerPlayground(context: vscode.ExtensionContext, vault: TurnVault): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(PLAYGROUND_RUN_COMMAND, (uri?: vscode.Uri, kind?: unknown, name?: unknown) => {
      const target = uri ?? vscode.window.activeTextEditor?.document.uri;
      if (!target || (kind !== 'function' && kind !== 'test') || typeof name !== 'string') {
        void vscode.window.showInformationMessage('Turn: use the Run lens above a function or a test case to open it in the playground.');
        return;
      }
      return Playground.open(context, vault, target, kind, name);
    }),
  ];
}
