// Commands: Turn: Run File, Turn: Generate TypeScript Client, Turn: Restart Language Server,
// Turn: Show Language Server Output.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildGenInvocation, buildRunInvocation, generatedClientPath } from './run-command.js';
import { cliArgsFromSettings, readRunSettings, telemetryEnv } from './settings.js';

export const TASK_TYPE = 'turn';

/** What the commands need from the extension: the context and the client's lifecycle. */
export interface CommandHost {
  context: vscode.ExtensionContext;
  restartServer(): Promise<void>;
  showServerOutput(): void;
}

export function registerCommands(host: CommandHost): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand('turn.runFile', (uri?: vscode.Uri) => runFile(host.context, uri)),
    vscode.commands.registerCommand('turn.genClient', (uri?: vscode.Uri) => genClient(host.context, uri)),
    vscode.commands.registerCommand('turn.restartServer', () => host.restartServer()),
    vscode.commands.registerCommand('turn.showServerOutput', () => host.showServerOutput()),
  ];
}

/** The document to run: the one passed (CodeLens, editor title, explorer) or the active editor's. */
async function resolveDocument(uri?: vscode.Uri): Promise<vscode.TextDocument | undefined> {
  if (uri instanceof vscode.Uri) return vscode.workspace.openTextDocument(uri);
  return vscode.window.activeTextEditor?.document;
}

export async function runFile(context: vscode.ExtensionContext, uri?: vscode.Uri): Promise<void> {
  const document = await resolveDocument(uri);
  if (!document || document.languageId !== 'turn') {
    void vscode.window.showErrorMessage('Turn: open a .tn file to run it.');
    return;
  }
  if (document.isUntitled || document.uri.scheme !== 'file') {
    void vscode.window.showErrorMessage('Turn: save the file to disk before running it.');
    return;
  }
  if (document.isDirty && !(await document.save())) return;

  const file = document.uri.fsPath;
  const folder = vscode.workspace.getWorkspaceFolder(document.uri);
  const config = vscode.workspace.getConfiguration('turn', document.uri);
  const settings = readRunSettings((key, dflt) => config.get(key, dflt));
  const model = settings.model;
  const invocation = buildRunInvocation({
    execPath: process.execPath,
    electron: Boolean(process.versions.electron),
    cliPath: context.asAbsolutePath('dist/cli.js'),
    file,
    flags: cliArgsFromSettings(settings, folder?.uri.fsPath ?? path.dirname(file)),
  });

  const execution = new vscode.ProcessExecution(invocation.command, invocation.args, {
    cwd: folder?.uri.fsPath ?? path.dirname(file),
    env: { ...invocation.env, ...telemetryEnv(settings) },
  });
  const task = new vscode.Task(
    { type: TASK_TYPE, file, model },
    folder ?? vscode.TaskScope.Workspace,
    `run ${path.basename(file)}`,
    'turn',
    execution,
    '$turn',
  );
  task.presentationOptions = { reveal: vscode.TaskRevealKind.Always, clear: true, showReuseMessage: false };
  await vscode.tasks.executeTask(task);
}

/**
 * Turn: Generate TypeScript Client: `turn gen ts FILE --out DIR` (docs/embedding.md) as a task, in a
 * folder the user picks (the file's own by default), once or on every change (`--watch`). A client
 * written once is opened.
 */
export async function genClient(context: vscode.ExtensionContext, uri?: vscode.Uri): Promise<void> {
  const document = await resolveDocument(uri);
  if (!document || document.languageId !== 'turn' || document.isUntitled || document.uri.scheme !== 'file') {
    void vscode.window.showErrorMessage('Turn: open a saved .tn file to generate its TypeScript client.');
    return;
  }
  if (document.isDirty && !(await document.save())) return;
  const file = document.uri.fsPath;
  const picked = await vscode.window.showOpenDialog({
    title: 'Folder for the TypeScript client',
    canSelectFiles: false, canSelectFolders: true, canSelectMany: false,
    defaultUri: vscode.Uri.file(path.dirname(file)), openLabel: 'Write the client here',
  });
  if (!picked || picked.length === 0) return;
  const outDir = picked[0].fsPath;
  const mode = await vscode.window.showQuickPick(
    [{ label: 'Once', watch: false }, { label: 'Now and on every change', description: 'turn gen ts --watch', watch: true }],
    { title: 'Generate the TypeScript client' },
  );
  if (!mode) return;
  const invocation = buildGenInvocation({
    execPath: process.execPath, electron: Boolean(process.versions.electron), cliPath: context.asAbsolutePath('dist/cli.js'),
    file, outDir, watch: mode.watch,
  });
  const folder = vscode.workspace.getWorkspaceFolder(document.uri);
  const execution = new vscode.ProcessExecution(invocation.command, invocation.args, { cwd: folder?.uri.fsPath ?? path.dirname(file), env: invocation.env });
  const task = new vscode.Task({ type: TASK_TYPE, file, gen: 'ts' }, folder ?? vscode.TaskScope.Workspace, `gen ts ${path.basename(file)}`, 'turn', execution, '$turn');
  task.presentationOptions = { reveal: vscode.TaskRevealKind.Silent, clear: true, showReuseMessage: false };
  const started = await vscode.tasks.executeTask(task);
  if (mode.watch) return;
  const ended = vscode.tasks.onDidEndTaskProcess((e) => {
    if (e.execution !== started) return;
    ended.dispose();
    if (e.exitCode === 0) void vscode.window.showTextDocument(vscode.Uri.file(generatedClientPath(file, outDir)));
    else void vscode.window.showErrorMessage(`Turn: the client of ${path.basename(file)} was not written (see the task's output).`);
  });
}
