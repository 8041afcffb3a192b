// "Run" and "Debug" above each top-level `turn { ... }` entry block.
import * as vscode from 'vscode';
import { findEntryBlocks } from './entries.js';

export class EntryCodeLensProvider implements vscode.CodeLensProvider {
  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const entries = await findEntryBlocks(document.getText(), document.uri.fsPath);
    return entries.flatMap((entry) => {
      const at = new vscode.Position(entry.line, entry.character);
      const range = new vscode.Range(at, at);
      return [
        new vscode.CodeLens(range, {
          title: '$(play) Run',
          tooltip: 'Run this file in the Turn run panel (actors, context, inferences, journal)',
          command: 'turn.runInPanel',
          arguments: [document.uri],
        }),
        new vscode.CodeLens(range, {
          title: '$(debug-alt) Debug',
          tooltip: 'Debug this file (breakpoints, stepping, actors as threads)',
          command: 'turn.debugFile',
          arguments: [document.uri],
        }),
      ];
    });
  }
}

export function registerCodeLens(): vscode.Disposable {
  return vscode.languages.registerCodeLensProvider({ language: 'turn' }, new EntryCodeLensProvider());
}
