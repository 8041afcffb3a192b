// The `initialize` handler: what this server can do.
import { TextDocumentSyncKind } from 'vscode-languageserver';
import type { InitializeParams, InitializeResult } from 'vscode-languageserver';
import { SEMANTIC_TOKENS_LEGEND } from './semantic-tokens.js';
import { FETCH_SCHEMAS_COMMAND } from './code-actions.js';
import type { RootParams } from './params.js';

export const SERVER_NAME = 'turn-language-server';
export const SERVER_VERSION = '0.1.0';

export function onInitialize(_params?: RootParams | InitializeParams): InitializeResult {
  return {
    capabilities: {
      textDocumentSync: {
        openClose: true,
        change: TextDocumentSyncKind.Incremental,
        save: false,
      },
      completionProvider: { triggerCharacters: ['.', ':', ' ', '@'] },
      hoverProvider: true,
      definitionProvider: true,
      referencesProvider: true,
      renameProvider: { prepareProvider: true },
      documentSymbolProvider: true,
      workspaceSymbolProvider: true,
      semanticTokensProvider: { legend: SEMANTIC_TOKENS_LEGEND, full: true },
      foldingRangeProvider: true,
      selectionRangeProvider: true,
      documentFormattingProvider: true,
      codeActionProvider: { codeActionKinds: ['quickfix'] },
      executeCommandProvider: { commands: [FETCH_SCHEMAS_COMMAND] },
    },
    serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
  };
}

/** The folders whose `.tn` files workspace symbols and cross-file references search. */
export function workspaceRoots(params: RootParams, toPath: (uri: string) => string): string[] {
  if (params.workspaceFolders?.length) return params.workspaceFolders.map((f) => toPath(f.uri));
  if (params.rootUri) return [toPath(params.rootUri)];
  if (params.rootPath) return [params.rootPath];
  return [];
}
