// The `initialize` handler: what this server can do.
import { TextDocumentSyncKind } from 'vscode-languageserver';
import type { InitializeParams, InitializeResult } from 'vscode-languageserver';

export const SERVER_NAME = 'turn-language-server';
export const SERVER_VERSION = '0.1.0';

export function onInitialize(_params: InitializeParams): InitializeResult {
  return {
    capabilities: {
      textDocumentSync: {
        openClose: true,
        change: TextDocumentSyncKind.Incremental,
        save: false,
      },
    },
    serverInfo: { name: SERVER_NAME, version: SERVER_VERSION },
  };
}
