// The credential vault bound to VS Code's SecretStorage (the OS keyring): add, list, replace and
// remove credentials by name, and approval prompts for effects that need them. It implements the
// runtime's `Vault` (runtime/effects/vault.ts) through its SecretStorageVault, so the runtime
// resolves a handle's secret here, in the extension host, at the moment of the request. Only
// names and sources ever leave this file: `list()` is what the run panel's webview receives.
import * as vscode from 'vscode';
import { SECRET_STORAGE_PREFIX, SecretStorageVault, type ApprovalDecision, type ApprovalRequest, type Vault, type VaultEntry } from '../../runtime/index.js';
import { checkCredentialName, keyringErrorMessage } from './names.js';
import { askInForm } from '../forms/answer-panel.js';
import { approvalDecision, approvalQuestionView } from '../forms/approval.js';

const KNOWN_KEY = 'turn.vault.names';

export class TurnVault implements Vault {
  private readonly inner: SecretStorageVault;
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(private readonly context: vscode.ExtensionContext) {
    // SecretStorage has `keys()` only in newer VS Code; the names we stored are kept as a fallback.
    this.inner = new SecretStorageVault(context.secrets, () => this.known());
    context.subscriptions.push(this.changed, context.secrets.onDidChange(() => this.changed.fire()));
  }

  private known(): string[] {
    return this.context.globalState.get<string[]>(KNOWN_KEY, []);
  }

  private async remember(name: string, present: boolean): Promise<void> {
    const names = new Set(this.known());
    if (present) names.add(name);
    else names.delete(name);
    await this.context.globalState.update(KNOWN_KEY, [...names].sort());
  }

  resolve(name: string): Promise<string | undefined> {
    return guard(() => this.inner.resolve(name));
  }

  list(): Promise<VaultEntry[]> {
    return guard(() => this.inner.list());
  }

  async store(name: string, secret: string): Promise<void> {
    await guard(() => Promise.resolve(this.context.secrets.store(SECRET_STORAGE_PREFIX + name, secret)));
    await this.remember(name, true);
    this.changed.fire();
  }

  /** What the runtime obtains itself and keeps here: an MCP server's OAuth tokens, under `oauth:<name>` (runtime/mcp/oauth). */
  save(name: string, secret: string): Promise<void> {
    return this.store(name, secret);
  }

  async remove(name: string): Promise<void> {
    await guard(() => Promise.resolve(this.context.secrets.delete(SECRET_STORAGE_PREFIX + name)));
    await this.remember(name, false);
    this.changed.fire();
  }

  /** The approval prompt for an effect that needs it (modal; never shows a secret). */
  /** An approval, in the typed answer form (issue 43): the effect, its request, the grant, allow once or deny. */
  async approve(request: ApprovalRequest): Promise<ApprovalDecision> {
    const answer = await askInForm(approvalQuestionView(request), request.signal);
    // an interruption while the question was open is no decision: the run's stop says why
    if (request.signal?.aborted) throw request.signal.reason instanceof Error ? request.signal.reason : new Error('the approval was cancelled');
    return approvalDecision(answer);
  }
}

/** SecretStorage fails when the OS keyring is missing: say so clearly. */
async function guard<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    throw new Error(keyringErrorMessage(e));
  }
}

async function askName(prompt: string, value?: string): Promise<string | undefined> {
  return vscode.window.showInputBox({ title: 'Turn credential', prompt, value, ignoreFocusOut: true, validateInput: (v) => checkCredentialName(v) });
}

async function pickName(vault: TurnVault, placeHolder: string): Promise<string | undefined> {
  const entries = await vault.list();
  if (entries.length === 0) {
    void vscode.window.showInformationMessage('Turn: the vault is empty. Add a credential with "Turn: Add Credential".');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(entries.map((e) => ({ label: e.name, description: e.source })), { placeHolder });
  return pick?.label;
}

async function askSecret(name: string): Promise<string | undefined> {
  return vscode.window.showInputBox({
    title: `Turn credential "${name}"`,
    prompt: `The secret for identity handles named "${name}" (stored in the OS keyring through VS Code's SecretStorage)`,
    password: true,
    ignoreFocusOut: true,
    validateInput: (v) => (v.length === 0 ? 'The secret cannot be empty' : /[\r\n]/.test(v) ? 'A secret cannot hold a line break' : undefined),
  });
}

export function registerVaultCommands(vault: TurnVault): vscode.Disposable[] {
  const run = (f: () => Promise<void>) => async () => {
    try {
      await f();
    } catch (e) {
      void vscode.window.showErrorMessage(e instanceof Error ? e.message : String(e));
    }
  };
  return [
    vscode.commands.registerCommand('turn.vault.add', run(async () => {
      const name = await askName('A name for the credential, as programs grant it: identity::bearer("NAME")');
      if (!name) return;
      if ((await vault.list()).some((e) => e.name === name)) {
        const replace = await vscode.window.showWarningMessage(`Turn: a credential named "${name}" exists. Replace it?`, { modal: true }, 'Replace');
        if (replace !== 'Replace') return;
      }
      const secret = await askSecret(name);
      if (!secret) return;
      await vault.store(name, secret);
      void vscode.window.showInformationMessage(`Turn: credential "${name}" stored in the vault.`);
    })),
    vscode.commands.registerCommand('turn.vault.replace', run(async () => {
      const name = await pickName(vault, 'The credential to replace');
      if (!name) return;
      const secret = await askSecret(name);
      if (!secret) return;
      await vault.store(name, secret);
      void vscode.window.showInformationMessage(`Turn: credential "${name}" replaced.`);
    })),
    vscode.commands.registerCommand('turn.vault.remove', run(async () => {
      const name = await pickName(vault, 'The credential to remove');
      if (!name) return;
      await vault.remove(name);
      void vscode.window.showInformationMessage(`Turn: credential "${name}" removed.`);
    })),
    vscode.commands.registerCommand('turn.vault.list', run(async () => {
      const entries = await vault.list();
      if (entries.length === 0) {
        void vscode.window.showInformationMessage('Turn: the vault is empty.');
        return;
      }
      await vscode.window.showQuickPick(entries.map((e) => ({ label: e.name, description: e.source })), { placeHolder: 'Credentials in the Turn vault (names only)' });
    })),
  ];
}
