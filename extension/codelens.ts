// "Run" and "Debug" above each top-level `turn { ... }` entry block, and at the top of a file whose
// entry is far down (entries.ts, lensPlaces).
import * as vscode from 'vscode';
import { findEntryBlocks, lensPlaces } from './entries.js';

export class EntryCodeLensProvider implements vscode.CodeLensProvider {
  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const entries = await findEntryBlocks(document.getText(), document.uri.fsPath);
    return lensPlaces(entries).flatMap((place) => {
      const at = new vscode.Position(place.line, place.character);
      const range = new vscode.Range(at, at);
      const where = place.line === place.entryLine ? '' : ` (its entry, \`turn {\`, is at line ${place.entryLine + 1})`;
      return [
        new vscode.CodeLens(range, {
          title: '$(play) Run',
          tooltip: `Run this file in the Turn run panel (actors, context, inferences, journal)${where}`,
          command: 'turn.runInPanel',
          arguments: [document.uri],
        }),
        new vscode.CodeLens(range, {
          title: '$(debug-alt) Debug',
          tooltip: `Debug this file (breakpoints, stepping, actors as threads)${where}`,
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
