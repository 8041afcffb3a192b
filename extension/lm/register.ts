// Activation of VS Code's models as Turn models: runs the editor starts get the `vscode:` host
// models, and `Turn: Pick a VS Code Language Model` lists `vscode.lm.selectChatModels()` and writes
// the one picked into the `turn.model` setting.
import * as vscode from 'vscode';
import { describeModel, specOf, vscodeHostModels, type LmChatModel } from './models.js';
import { setHostModels } from './host-models.js';
import { vscodeLm } from './vscode-lm.js';
import { agentServer, mayServe } from './agent-tools.js';
import { discoverServed } from '../../runtime/index.js';
import { readRunSettings } from '../settings.js';
import { EXAMPLE } from './walkthrough.js';

export const PICK_MODEL_COMMAND = 'turn.lm.pickModel';

/** Said when VS Code has no chat model: where one comes from, and the models Turn takes without it. */
export const NO_MODELS =
  'VS Code has no language model yet: install an extension that provides one (GitHub Copilot, or one that registers a chat model provider), ' +
  'or set turn.model to a provider with a key (openai:MODEL, anthropic:MODEL; Turn: Add Credential stores the key) or a local model (ollama:MODEL, llama:PATH.gguf).';

export const AGENTS_PROVIDER = 'turn.agents';

export function registerLanguageModels(context: vscode.ExtensionContext): vscode.Disposable[] {
  if (!('lm' in vscode) || typeof vscode.lm?.selectChatModels !== 'function') return []; // a VS Code before the Language Model API
  setHostModels(vscodeHostModels(vscodeLm));
  return [
    { dispose: () => setHostModels(undefined) },
    vscode.commands.registerCommand(PICK_MODEL_COMMAND, pickModel),
    vscode.commands.registerCommand('turn.walkthrough.openExample', openExample),
    ...registerAgents(context),
  ];
}

/** Writes mood.tn into the first workspace folder (never over a file there) and opens it; without a folder, an untitled Turn file. */
async function openExample(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ language: 'turn', content: EXAMPLE }));
    return;
  }
  const uri = vscode.Uri.joinPath(folder.uri, 'mood.tn');
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(EXAMPLE));
  }
  await vscode.window.showTextDocument(uri);
}

/** The MCP server definitions API (VS Code 1.101+), typed here: the extension's @types/vscode is older. */
interface McpApi {
  registerMcpServerDefinitionProvider(id: string, provider: { onDidChangeMcpServerDefinitions?: vscode.Event<void>; provideMcpServerDefinitions(token: vscode.CancellationToken): Promise<unknown[]> }): vscode.Disposable;
}
type StdioDefinition = new (label: string, command: string, args?: string[], env?: Record<string, string>) => { cwd?: vscode.Uri };

/**
 * Offers each workspace file that returns a map of closures to agent mode as a `turn mcp` server
 * (extension/lm/agent-tools.ts says why an MCP server definition provider); the list follows the
 * workspace's .tn files.
 */
function registerAgents(context: vscode.ExtensionContext): vscode.Disposable[] {
  const lm = vscode.lm as unknown as Partial<McpApi>;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: StdioDefinition }).McpStdioServerDefinition;
  if (typeof lm.registerMcpServerDefinitionProvider !== 'function' || !Definition) return []; // before VS Code 1.101
  const changed = new vscode.EventEmitter<void>();
  const watcher = vscode.workspace.createFileSystemWatcher('**/*.tn');
  const fire = () => changed.fire();
  watcher.onDidCreate(fire);
  watcher.onDidChange(fire);
  watcher.onDidDelete(fire);
  const rt = { execPath: process.execPath, electron: Boolean(process.versions.electron), cliPath: context.asAbsolutePath('dist/cli.js') };
  const provider = lm.registerMcpServerDefinitionProvider(AGENTS_PROVIDER, {
    onDidChangeMcpServerDefinitions: changed.event,
    async provideMcpServerDefinitions() {
      const files = await vscode.workspace.findFiles('**/*.tn', '**/{node_modules,.turn,.git}/**', 200);
      const out: unknown[] = [];
      for (const uri of files) {
        if (!mayServe(uri.fsPath)) continue;
        try {
          const served = await discoverServed(uri.fsPath);
          if (served.tools.length === 0) continue;
        } catch {
          continue; // not a served file (no map of closures at its top level), or it does not compile yet
        }
        const folder = vscode.workspace.getWorkspaceFolder(uri);
        const cwd = folder?.uri.fsPath ?? uri.fsPath.replace(/[\\/][^\\/]*$/, '');
        const settings = readRunSettings((key, dflt) => vscode.workspace.getConfiguration('turn', uri).get(key, dflt));
        const s = agentServer(rt, uri.fsPath, settings, cwd);
        const d = new Definition(s.label, s.command, s.args, s.env);
        d.cwd = vscode.Uri.file(cwd);
        out.push(d);
      }
      return out;
    },
  });
  return [provider, watcher, changed];
}

/** Lists VS Code's chat models; the one picked becomes `turn.model` (workspace setting). Returns its spec. */
async function pickModel(): Promise<string | undefined> {
  let models: readonly LmChatModel[];
  try {
    models = (await vscode.lm.selectChatModels());
  } catch (e) {
    void vscode.window.showErrorMessage(`Turn: VS Code's language models could not be listed: ${e instanceof Error ? e.message : String(e)}`);
    return undefined;
  }
  if (models.length === 0) {
    void vscode.window.showInformationMessage(`Turn: ${NO_MODELS}`);
    return undefined;
  }
  const items = models.map((m) => ({ label: specOf(m), description: m.name, detail: `${m.vendor} · ${m.family}${m.version ? ` · ${m.version}` : ''}`, model: m }));
  const picked = await vscode.window.showQuickPick(items, { title: 'Turn: the model runs in the editor use', placeHolder: `${models.length} model${models.length === 1 ? '' : 's'} found through vscode.lm` });
  if (!picked) return undefined;
  const spec = specOf(picked.model);
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration('turn').update('model', spec, target);
  void vscode.window.showInformationMessage(`Turn: runs in the editor now use ${describeModel(picked.model)}.`);
  return spec;
}
