// Activation of VS Code's models as Turn models: runs the editor starts get the `vscode:` host
// models, and `Turn: Pick a VS Code Language Model` lists `vscode.lm.selectChatModels()` and writes
// the one picked into the `turn.model` setting.
import * as vscode from 'vscode';
import { describeModel, specOf, vscodeHostModels, type LmChatModel } from './models.js';
import { setHostModels } from './host-models.js';
import { vscodeLm } from './vscode-lm.js';

export const PICK_MODEL_COMMAND = 'turn.lm.pickModel';

/** Said when VS Code has no chat model: where one comes from, and the models Turn takes without it. */
export const NO_MODELS =
  'VS Code has no language model yet: install an extension that provides one (GitHub Copilot, or one that registers a chat model provider), ' +
  'or set turn.model to a provider with a key (openai:MODEL, anthropic:MODEL; Turn: Set Secret stores the key) or a local model (ollama:MODEL, llama:PATH.gguf).';

export function registerLanguageModels(): vscode.Disposable[] {
  if (!('lm' in vscode) || typeof vscode.lm?.selectChatModels !== 'function') return []; // a VS Code before the Language Model API
  setHostModels(vscodeHostModels(vscodeLm));
  return [
    { dispose: () => setHostModels(undefined) },
    vscode.commands.registerCommand(PICK_MODEL_COMMAND, pickModel),
  ];
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
