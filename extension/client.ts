// Starts the Turn language server (dist/server.js) over Node IPC.
import * as vscode from 'vscode';
import { LanguageClient, TransportKind } from 'vscode-languageclient/node';
import type { LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';

export const CLIENT_ID = 'turn';
export const CLIENT_NAME = 'Turn Language Server';

export function createLanguageClient(context: vscode.ExtensionContext): LanguageClient {
  const serverModule = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6009'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'turn' },
      { scheme: 'untitled', language: 'turn' },
    ],
    outputChannelName: CLIENT_NAME,
  };
  // The id makes the client read the `turn.trace.server` setting.
  return new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
}
