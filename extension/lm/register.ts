// Activation of VS Code's models as Turn models: runs the editor starts get the `vscode:` host
// models, and `Turn: Pick a VS Code Language Model` lists `vscode.lm.selectChatModels()` and writes
// the one picked into the `turn.model` setting.
import * as vscode from 'vscode';
import { describeModel, specOf, vscodeHostModels, type LmChatModel } from './models.js';
import { setHostModels } from './host-models.js';
import { vscodeLm } from './vscode-lm.js';
import * as path from 'node:path';
import { argumentValues, callEntryName, editorOutcome, grantsText, mayServe, serverLabel } from './agent-tools.js';
import { AgentServers, oneAtATime, type AgentServerSpec, type RunInEditor } from './agent-server.js';
import { callProgram } from '../../runtime/index.js';
import { readRunSettings, runOptionsFromSettings } from '../settings.js';
import type { RunPanel } from '../panel/panel.js';
import { EXAMPLE } from './walkthrough.js';

export const PICK_MODEL_COMMAND = 'turn.lm.pickModel';

/** Said when VS Code has no chat model: where one comes from, and the models Turn takes without it. */
export const NO_MODELS =
  'VS Code has no language model yet: install an extension that provides one (GitHub Copilot, or one that registers a chat model provider), ' +
  'or set turn.model to a provider with a key (openai:MODEL, anthropic:MODEL; Turn: Add Credential stores the key) or a local model (ollama:MODEL, llama:PATH.gguf).';

export const AGENTS_PROVIDER = 'turn.agents';

/** `openPanel`: the run panel (shown), where agent mode's calls of Turn tools run. */
export function registerLanguageModels(openPanel: () => RunPanel): vscode.Disposable[] {
  if (!('lm' in vscode) || typeof vscode.lm?.selectChatModels !== 'function') return []; // a VS Code before the Language Model API
  setHostModels(vscodeHostModels(vscodeLm));
  return [
    { dispose: () => setHostModels(undefined) },
    vscode.commands.registerCommand(PICK_MODEL_COMMAND, pickModel),
    vscode.commands.registerCommand('turn.walkthrough.openExample', openExample),
    ...registerAgents(openPanel),
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
type HttpDefinition = new (label: string, uri: vscode.Uri, headers?: Record<string, string>, version?: string) => unknown;

/**
 * Offers each workspace file that returns a map of closures to agent mode as an MCP server the
 * extension serves itself (extension/lm/agent-tools.ts says why); each tool call runs in the run
 * panel. The list follows the workspace's .tn files and the settings.
 */
function registerAgents(openPanel: () => RunPanel): vscode.Disposable[] {
  const lm = vscode.lm as unknown as Partial<McpApi>;
  const Definition = (vscode as unknown as { McpHttpServerDefinition?: HttpDefinition }).McpHttpServerDefinition;
  if (typeof lm.registerMcpServerDefinitionProvider !== 'function' || !Definition) return []; // before VS Code 1.101
  const changed = new vscode.EventEmitter<void>();
  const watcher = vscode.workspace.createFileSystemWatcher('**/*.tn');
  const fire = () => changed.fire();
  watcher.onDidCreate(fire);
  watcher.onDidChange(fire);
  watcher.onDidDelete(fire);
  const settings = vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('turn')) fire();
  });
  const servers = new AgentServers(oneAtATime(runInPanel(openPanel)));
  const provider = lm.registerMcpServerDefinitionProvider(AGENTS_PROVIDER, {
    onDidChangeMcpServerDefinitions: changed.event,
    async provideMcpServerDefinitions() {
      const files = await vscode.workspace.findFiles('**/*.tn', '**/{node_modules,.turn,.git}/**', 200);
      const specs: AgentServerSpec[] = [];
      for (const uri of files) {
        if (!mayServe(uri.fsPath)) continue;
        const folder = vscode.workspace.getWorkspaceFolder(uri);
        const cwd = folder?.uri.fsPath ?? path.dirname(uri.fsPath);
        const s = readRunSettings((key, dflt) => vscode.workspace.getConfiguration('turn', uri).get(key, dflt));
        let version: string;
        try {
          version = String((await vscode.workspace.fs.stat(uri)).mtime);
        } catch {
          continue; // gone meanwhile
        }
        specs.push({ file: uri.fsPath, label: serverLabel(uri.fsPath, cwd, s), grants: grantsText(s), model: s.model, run: runOptionsFromSettings(s, cwd), version });
      }
      // a file that serves nothing (no map of closures at its top level, or it does not compile yet) is left out
      return (await servers.update(specs)).map((a) => new Definition(a.label, vscode.Uri.parse(a.url), a.headers));
    },
  });
  return [provider, watcher, settings, changed, { dispose: () => void servers.closeAll() }];
}

/** One call, run in the run panel (shown beside the editor) as the entry `FILE#TOOL`: its outcome for agent mode. */
function runInPanel(openPanel: () => RunPanel): RunInEditor {
  return async ({ file, tool, args, signal }) => {
    const { view, settled } = await openPanel().runCall(callEntryName(file, tool.name), callProgram(file, tool.key, argumentValues(tool, args)), signal);
    return editorOutcome({ status: view.status, ...(view.error ? { error: view.error.message } : {}), ...(settled ? { settled } : {}) });
  };
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
