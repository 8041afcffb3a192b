// Entry point of the Turn extension: language client, status bar, commands, CodeLens, the run
// panel, the credential vault and the debugger.
// extension/ is the only folder whose code may import `vscode`.
import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { createLanguageClient } from './client.js';
import { registerCodeLens } from './codelens.js';
import { registerCommands } from './commands.js';
import { ServerStatusItem } from './status.js';
import { RunPanel, registerRunPanel } from './panel/panel.js';
import { TurnVault, registerVaultCommands } from './vault/vault.js';
import { registerDebugger } from './debug/register.js';
import { registerTestController } from './testing/controller.js';
import { registerRunsView } from './runs/view.js';
import { sharedStores } from './runs/shared-store.js';
import { registerPlayground } from './playground/panel.js';
import { registerLanguageModels } from './lm/register.js';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const status = new ServerStatusItem();
  context.subscriptions.push(status);

  const start = async (): Promise<void> => {
    client = createLanguageClient(context);
    status.follow(client);
    status.set('starting');
    try {
      await client.start();
    } catch (err) {
      status.set('stopped', err instanceof Error ? err.message : String(err));
      client.outputChannel.appendLine(`Failed to start the Turn language server: ${String(err)}`);
    }
  };

  const restartServer = async (): Promise<void> => {
    const old = client;
    client = undefined;
    if (old) {
      try {
        await old.dispose();
      } catch {
        // A server that failed to start cannot be stopped cleanly; a new one starts anyway.
      }
    }
    await start();
  };

  context.subscriptions.push(
    ...registerCommands({ context, restartServer, showServerOutput: () => client?.outputChannel.show(true) }),
    registerCodeLens(),
  );
  const vault = new TurnVault(context);
  context.subscriptions.push(...registerVaultCommands(vault), ...registerRunPanel(context, vault), ...registerDebugger(vault));
  context.subscriptions.push(...registerPlayground(context, vault));
  context.subscriptions.push(...registerTestController());
  context.subscriptions.push(...registerLanguageModels(() => RunPanel.show(context, vault)));
  context.subscriptions.push(...registerRunsView(sharedStores, () => RunPanel.show(context, vault)), { dispose: () => sharedStores.closeAll() });

  // Do not block activation on the server: commands and CodeLens work without it.
  void start();
}

export async function deactivate(): Promise<void> {
  const c = client;
  client = undefined;
  if (c) await c.dispose();
}
