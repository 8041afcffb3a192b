// "Run" and "Debug" above each top-level `turn { ... }` entry block, and at the top of a file whose
// entry is far down (entries.ts, lensPlaces); "Playground" above each top-level function and each
// test case, which runs it alone (playground/targets.ts, playground/panel.ts).
import * as vscode from 'vscode';
import { findEntryBlocks, lensPlaces } from './entries.js';
import { playTargets } from './playground/targets.js';
import { PLAYGROUND_RUN_COMMAND } from './playground/protocol.js';

export class EntryCodeLensProvider implements vscode.CodeLensProvider {
  async provideCodeLenses(document: vscode.TextDocument): Promise<vscode.CodeLens[]> {
    const text = document.getText();
    const entries = await findEntryBlocks(text, document.uri.fsPath);
    const lenses = lensPlaces(entries).flatMap((place) => {
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
    for (const target of await playTargets(text, document.uri.fsPath)) {
      const at = new vscode.Position(target.line, target.character);
      const what = target.kind === 'function' ? `${target.name}(${target.fn.params.map((p) => p.name).join(', ')})` : `the test "${target.name}"`;
      lenses.push(
        new vscode.CodeLens(new vscode.Range(at, at), {
          // not "Run": that lens runs the whole file (and e2e steps and people look for it by that word)
          title: '$(beaker) Playground',
          tooltip: `Run ${what} in the Turn playground: inputs, the messages as sent, the raw reply, the value, tokens and time`,
          command: PLAYGROUND_RUN_COMMAND,
          arguments: [document.uri, target.kind, target.name],
        }),
      );
    }
    return lenses;
  }
}

export function registerCodeLens(): vscode.Disposable {
  return vscode.languages.registerCodeLensProvider({ language: 'turn' }, new EntryCodeLensProvider());
}
