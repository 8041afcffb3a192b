// "Run" above each top-level `turn { ... }` entry block.
import * as vscode from 'vscode';
import { findEntryBlocks } from './entries.js';

export class EntryCodeLensProvider implements vscode.CodeLensProvider {
  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    return findEntryBlocks(document.getText()).map((entry) => {
      const at = new vscode.Position(entry.line, entry.character);
      return new vscode.CodeLens(new vscode.Range(at, at), {
        title: '$(play) Run',
        tooltip: 'Run this file with the Turn CLI',
        command: 'turn.runFile',
        arguments: [document.uri],
      });
    });
  }
}

export function registerCodeLens(): vscode.Disposable {
  return vscode.languages.registerCodeLensProvider({ language: 'turn' }, new EntryCodeLensProvider());
}
