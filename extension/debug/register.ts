// Registers the `turn` debug type: the adapter runs inline in the extension host, so the vault and
// the approval prompts are the extension's own; a configuration provider fills in the active file.
import * as vscode from 'vscode';
import { TurnDebugSession } from './adapter.js';
import { readRunSettings, runOptionsFromSettings } from '../settings.js';
import type { TurnVault } from '../vault/vault.js';

export function registerDebugger(vault: TurnVault): vscode.Disposable[] {
  return [
    vscode.debug.registerDebugAdapterDescriptorFactory('turn', {
      createDebugAdapterDescriptor: () =>
        new vscode.DebugAdapterInlineImplementation(new TurnDebugSession({ vault, approve: (r) => vault.approve(r) })),
    }),
    vscode.debug.registerDebugConfigurationProvider('turn', {
      resolveDebugConfiguration(folder, config) {
        if (!config.type && !config.request && !config.name) {
          const doc = vscode.window.activeTextEditor?.document;
          if (doc?.languageId !== 'turn') return undefined;
          Object.assign(config, { type: 'turn', request: 'launch', name: 'Debug Turn file', program: doc.uri.fsPath });
        }
        if (!config.program && !config.resume) {
          void vscode.window.showErrorMessage('Turn: the launch configuration needs a "program" (a .tn file) or a "resume" (a suspended run id).');
          return undefined;
        }
        const section = vscode.workspace.getConfiguration('turn', folder?.uri);
        const settings = readRunSettings((key, dflt) => section.get(key, dflt));
        const cwd = (config.cwd as string | undefined) ?? folder?.uri.fsPath;
        config.model ??= settings.model;
        config.cwd ??= cwd;
        if (cwd !== undefined) {
          // the same authority and budgets as Run File and the run panel (extension/settings.ts)
          const options = runOptionsFromSettings(settings, cwd);
          config.authority ??= options.authority;
          for (const key of ['maxSteps', 'maxAlloc', 'maxTimeMs', 'toolTimeoutMs', 'context'] as const) {
            if (options[key] !== undefined) config[key] ??= options[key];
          }
        }
        return config;
      },
    }),
    vscode.commands.registerCommand('turn.debugFile', async (uri?: vscode.Uri) => {
      const target = uri instanceof vscode.Uri ? uri : vscode.window.activeTextEditor?.document.uri;
      if (!target) return false;
      const doc = await vscode.workspace.openTextDocument(target);
      if (doc.isDirty) await doc.save();
      return vscode.debug.startDebugging(vscode.workspace.getWorkspaceFolder(target), {
        type: 'turn', request: 'launch', name: `Debug ${target.path.split('/').pop()}`, program: target.fsPath,
      });
    }),
  ];
}
