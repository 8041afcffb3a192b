// Commands: Turn: Run File, Turn: Restart Language Server, Turn: Show Language Server Output.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { buildRunInvocation } from './run-command.js';
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
