// The Runs view (Turn activity-bar container): the durable runs in each workspace folder's store
// (`.turn/`), with their status, and the effects whose outcome is unknown under the runs that wait
// on them. Actions: open in the panel, resume, settle an unknown outcome (result / error / retry,
// the effect's request shown), migrate to the current code, delete. It refreshes when the editor
// changes a run (shared-store.ts), when another process (the `turn` CLI) writes a store
// (store-watch.ts), when it becomes visible, and on its Refresh button.
//
// With `turn.restate.ingressUrl` set, a second root node lists the runs on that Restate server
// (restate-model.ts): open in the panel, resume, settle an unknown outcome, as for a local run.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { STORE_FILE, storeMessage, type PriceTable, type RunSummary, type Settlement } from '../../runtime/index.js';
import { answer, deleteStoredRun, questionsOf, settle } from './actions.js';
import { askQuestionView } from '../forms/ask.js';
import { askInForm } from '../forms/answer-panel.js';
import { actionsOf, ago, stateText, tooltipHeading, type RunItem, type UnknownStep } from './model.js';
import { FactsCache, SORT_KEYS, columnsText, consoleRows, countRows, durationMs, durationText, listConsoleRuns, parseFilter, type ConsoleRow, type ConsoleRun, type SortKey } from './console.js';
import type { PanelRequest } from './panel-requests.js';
import { settlementOf, settleQuestion } from './settle-form.js';
import { listRestateItems, restateActionsOf, restateMessage, restateRunView, resumeOnRestate, settleOnRestate, summaryText } from './restate-model.js';
import type { SharedStores } from './shared-store.js';
import { StoreWatch } from './store-watch.js';
import { priceTableFromSettings, readRestateSettings, readRunSettings, workspaceStoreDir, type RestateSettings } from '../settings.js';
import type { RunView } from '../protocol/panel.js';

/** What the Runs view needs of the run panel (extension/panel/panel.ts's RunPanel). */
export interface PanelHost {
  openStored(file: string, request: PanelRequest): Thenable<unknown>;
  showView(view: RunView): void;
}

export const RUNS_VIEW_ID = 'turn.runs';

type Node =
  | { kind: 'run'; dir: string; item: ConsoleRun; folder: string | undefined; forks: ConsoleRow[] }
  | { kind: 'step'; dir: string; run: RunItem; step: UnknownStep }
  | { kind: 'restate'; server: RestateSettings }
  | { kind: 'restateRun'; server: RestateSettings; item: RunItem }
  | { kind: 'restateStep'; server: RestateSettings; run: RunItem; step: UnknownStep }
  | { kind: 'message'; text: string; icon: string; tooltip?: string };

/** The Restate server the settings name, if any. */
function restateServer(): RestateSettings | undefined {
  const config = vscode.workspace.getConfiguration('turn');
  return readRestateSettings((key, dflt) => config.get(key, dflt));
}

const ICONS: Record<RunItem['state'], string> = {
  running: 'sync~spin',
  interrupted: 'debug-disconnect',
  suspended: 'debug-pause',
  waiting: 'question',
  done: 'pass',
  failed: 'error',
  cancelled: 'circle-slash',
};

export class RunsView implements vscode.TreeDataProvider<Node> {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;

  /** the CLI's writes to a store refresh the view (the view's own reads do not) */
  // another process's write refreshes the view only when the runs it lists changed: a refresh while
  // the user clicks a row's inline action invalidates the row, and the command then gets no item
  readonly watch = new StoreWatch(() => this.refreshIfListingChanged());
  /** what the view last listed (runs, their states and unknown steps), to tell a listing change from a store touch */
  private listing = '';

  /** the search box's text (turn.runs.filter) and the sort (turn.runs.sort) */
  filterText = '';
  sort: SortKey = 'started';
  /** the view's description: how many runs the filter shows */
  onCounted: (shown: number, total: number) => void = () => {};
  private readonly facts = new Map<string, FactsCache>();

  constructor(private readonly stores: SharedStores) {}

  refresh(): void {
    this.emitter.fire(undefined);
  }

  private refreshIfListingChanged(): void {
    if (listingOf(this.localRuns()) !== this.listing) this.refresh();
  }

  private told = false;

  /**
   * The view's "no durable runs yet" welcome shows only once the view has listed the stores
   * (`turn.runsListed`): VS Code shows a view's welcome while its extension is still activating,
   * which said "no runs" for a workspace full of them.
   */
  private listed(): void {
    if (this.told) return;
    this.told = true;
    void vscode.commands.executeCommand('setContext', 'turn.runsListed', true);
  }

  /** The store folders of the open workspace folders. */
  dirs(): { dir: string; folder: string | undefined; cwd: string }[] {
    const folders = vscode.workspace.workspaceFolders ?? [];
    return folders.map((f) => ({ dir: workspaceStoreDir(f.uri.fsPath), folder: folders.length > 1 ? f.name : undefined, cwd: f.uri.fsPath }));
  }

  getChildren(node?: Node): Node[] | Promise<Node[]> {
    if (node?.kind === 'run') {
      const forks = node.forks.map((row): Node => ({ kind: 'run', dir: node.dir, item: row.run, folder: node.folder, forks: row.children }));
      return [...node.item.unknown.map((step): Node => ({ kind: 'step', dir: node.dir, run: node.item, step })), ...forks];
    }
    if (node?.kind === 'restate') return this.restateRuns(node.server);
    if (node?.kind === 'restateRun') return node.item.unknown.map((step) => ({ kind: 'restateStep', server: node.server, run: node.item, step }));
    if (node) return [];
    this.listed();
    const server = restateServer();
    const local = this.localRuns();
    this.listing = listingOf(local);
    return server ? [...local, { kind: 'restate', server }] : local;
  }

  /** The runs on the Restate server; an unreachable server or a bad URL is one message row. */
  private async restateRuns(server: RestateSettings): Promise<Node[]> {
    try {
      const items = await listRestateItems(server);
      if (items.length === 0) return [{ kind: 'message', text: 'no runs on this server yet (turn submit FILE --restate URL)', icon: 'info' }];
      return items.map((item): Node => ({ kind: 'restateRun', server, item }));
    } catch (e) {
      const text = restateMessage(e, server);
      return [{ kind: 'message', text, icon: 'warning', tooltip: text }];
    }
  }

  /**
   * The runs in the workspace folders' stores as the console shows them (console.ts): forks under
   * their origin, waiting runs first, then by the chosen sort; only those the filter keeps.
   */
  localRuns(): Node[] {
    const out: Node[] = [];
    let shown = 0;
    let total = 0;
    const filter = this.filterText.trim() === '' ? undefined : parseFilter(this.filterText);
    for (const { dir, folder, cwd } of this.dirs()) {
      // a folder without a store shows no runs; listing never creates one
      if (!fs.existsSync(path.join(dir, STORE_FILE))) continue;
      let table: PriceTable | undefined;
      try {
        table = priceTableFromSettings(readRunSettings((key, dflt) => vscode.workspace.getConfiguration('turn').get(key, dflt)), cwd);
      } catch (e) {
        // a bad price table costs the cost column only; the message says which file and field
        out.push({ kind: 'message', text: `no costs: ${(e as Error).message}`, icon: 'warning', tooltip: (e as Error).message });
      }
      try {
        let cache = this.facts.get(dir);
        if (!cache) this.facts.set(dir, (cache = new FactsCache()));
        const runs = this.stores.use(dir, (store) => listConsoleRuns(store, { live: this.stores.live, table, cache }));
        this.watch.sawStore(dir);
        const rows = consoleRows(runs, { filter, sort: this.sort });
        total += runs.length;
        shown += countRows(rows);
        out.push(...rows.map((row): Node => ({ kind: 'run', dir, item: row.run, folder, forks: row.children })));
      } catch (e) {
        out.push({ kind: 'message', text: storeMessage(e), icon: 'warning', tooltip: storeMessage(e) });
      }
    }
    this.onCounted(shown, total);
    if (filter && shown === 0 && total > 0) out.push({ kind: 'message', text: `no run matches "${this.filterText.trim()}"`, icon: 'filter', tooltip: 'Clear the filter with the view\'s Clear Filter button' });
    return out;
  }

  /** Every run listed, forks included (a command's quick pick). */
  allRuns(): Extract<Node, { kind: 'run' }>[] {
    const out: Extract<Node, { kind: 'run' }>[] = [];
    const walk = (n: Node) => {
      if (n.kind !== 'run') return;
      out.push(n);
      for (const row of n.forks) walk({ kind: 'run', dir: n.dir, item: row.run, folder: n.folder, forks: row.children });
    };
    this.localRuns().forEach(walk);
    return out;
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'restate') {
      const t = new vscode.TreeItem(`Restate · ${node.server.ingress}`, vscode.TreeItemCollapsibleState.Expanded);
      t.id = `restate:${node.server.ingress}`;
      t.description = `admin ${node.server.admin}`;
      t.tooltip = `Runs on the Restate server (settings turn.restate.ingressUrl, turn.restate.adminUrl); docs/scale-out.md`;
      t.iconPath = new vscode.ThemeIcon('server-environment');
      t.contextValue = 'turnRestate';
      t.accessibilityInformation = { label: `Restate server ${node.server.ingress}` };
      return t;
    }
    if (node.kind === 'restateRun') {
      const r = node.item;
      const t = new vscode.TreeItem(path.basename(r.entry), r.unknown.length > 0 ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
      t.id = `restate:${node.server.ingress}:${r.id}`;
      t.description = `${stateText(r.state)} · ${ago(r.updatedAt)} · Restate`;
      t.tooltip = new vscode.MarkdownString().appendMarkdown(tooltipHeading(r, ' on Restate')).appendText(`run ${r.id}\n${node.server.ingress}\nstarted ${new Date(r.createdAt).toLocaleString()}, last change ${new Date(r.updatedAt).toLocaleString()}`);
      t.iconPath = new vscode.ThemeIcon(ICONS[r.state] ?? 'circle-outline');
      const a = restateActionsOf(r);
      t.contextValue = ['turnRun', 'restate', a.resume && 'resume', a.settle && 'settle'].filter(Boolean).join(':');
      t.accessibilityInformation = { label: `${path.basename(r.entry)} ${stateText(r.state)} on Restate run ${r.id}` };
      return t;
    }
    if (node.kind === 'restateStep') {
      const s = node.step;
      const t = new vscode.TreeItem(`step ${s.seq}: ${s.kind} ${s.name}`, vscode.TreeItemCollapsibleState.None);
      t.id = `restate:${node.server.ingress}:${node.run.id}#${s.seq}`;
      t.description = `unknown outcome — request ${s.request}`;
      t.tooltip = new vscode.MarkdownString().appendText(`Step ${s.seq} of run ${node.run.id} on Restate: ${s.kind} ${s.name}\nIts outcome is unknown.\nRequest: ${s.request}`);
      t.iconPath = new vscode.ThemeIcon('question');
      t.contextValue = 'turnUnknownStep';
      t.accessibilityInformation = { label: `step ${s.seq} ${s.kind} ${s.name} unknown outcome` };
      return t;
    }
    if (node.kind === 'message') {
      const t = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
      t.iconPath = new vscode.ThemeIcon(node.icon);
      t.tooltip = node.tooltip;
      t.accessibilityInformation = { label: node.text };
      return t;
    }
    if (node.kind === 'step') {
      const s = node.step;
      const t = new vscode.TreeItem(`step ${s.seq}: ${s.kind} ${s.name}`, vscode.TreeItemCollapsibleState.None);
      t.id = `${node.run.id}#${s.seq}`;
      t.description = `unknown outcome — request ${s.request}`;
      t.tooltip = new vscode.MarkdownString().appendText(`Step ${s.seq} of run ${node.run.id}: ${s.kind} ${s.name}\nIts outcome is unknown (the run was interrupted while it ran).\nRequest: ${s.request}`);
      t.iconPath = new vscode.ThemeIcon('question');
      t.contextValue = 'turnUnknownStep';
      t.accessibilityInformation = { label: `step ${s.seq} ${s.kind} ${s.name} unknown outcome` };
      return t;
    }
    const r = node.item;
    const open = r.unknown.length > 0 || node.forks.length > 0;
    const t = new vscode.TreeItem(path.basename(r.entry), open ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    t.id = r.id;
    const now = Date.now();
    t.description = `${columnsText(r, now, (ms) => `started ${ago(ms, now)}`)}${node.folder ? ` · ${node.folder}` : ''}`;
    const md = new vscode.MarkdownString();
    md.appendMarkdown(tooltipHeading(r));
    md.appendText(`run ${r.id}\n${r.entryPath}\nstarted ${new Date(r.createdAt).toLocaleString()}, last change ${new Date(r.updatedAt).toLocaleString()} (${durationText(durationMs(r, now))})`);
    if (r.forkOf) md.appendText(`\nforked from run ${r.forkOf.runId} at step ${r.forkOf.step}`);
    if (r.tokens.calls > 0) md.appendText(`\n${r.tokens.calls} model call${r.tokens.calls === 1 ? '' : 's'}: ${r.tokens.input} prompt tokens (${r.tokens.cached} cached), ${r.tokens.output} completion tokens`);
    if (r.cost) md.appendText(`\ncost: ${r.cost.total} ${r.cost.currency}`);
    if (r.outcome !== null) md.appendText(`\n${r.state === 'done' ? 'result' : 'error'}: ${r.outcome}`);
    t.tooltip = md;
    t.iconPath = new vscode.ThemeIcon(ICONS[r.state]);
    const a = actionsOf(r);
    t.contextValue = ['turnRun', a.resume && 'resume', a.settle && 'settle', a.answer && 'answer', a.migrate && 'migrate', a.delete && 'delete'].filter(Boolean).join(':');
    t.accessibilityInformation = { label: `${path.basename(r.entry)} ${stateText(r.state)} run ${r.id}` };
    return t;
  }
}

/** A command's target: the node it was invoked on, else one the user picks. */
async function pickRun(view: RunsView, node: Node | undefined, want: (r: RunItem) => boolean, what: string): Promise<Extract<Node, { kind: 'run' }> | undefined> {
  if (node?.kind === 'run') return node;
  if (node?.kind === 'step') return view.allRuns().find((n) => n.item.id === node.run.id && n.dir === node.dir);
  const runs = view.allRuns().filter((n) => want(n.item));
  if (runs.length === 0) {
    void vscode.window.showInformationMessage(`Turn: no stored run to ${what}.`);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    runs.map((n) => ({ label: path.basename(n.item.entry), description: stateText(n.item.state), detail: n.item.id, node: n })),
    { title: `Turn: ${what}`, placeHolder: 'Which run?' },
  );
  return picked?.node;
}

function inPanel(panel: () => PanelHost, node: Extract<Node, { kind: 'run' }>, request: PanelRequest): Thenable<unknown> {
  // a resume runs the sources the store recorded; only a migration needs the entry file
  if (request.kind === 'resume' && request.migrate && !fs.existsSync(node.item.entryPath)) {
    void vscode.window.showErrorMessage(`Turn: the entry file of run ${node.item.id}, ${node.item.entryPath}, is not there: there is no current code to migrate to.`);
    return Promise.resolve(undefined);
  }
  return panel().openStored(node.item.entryPath, request);
}

/** Runs a call to the Restate server with the view's progress bar; its failure is one message. */
function onRestate<T>(fn: () => Promise<T>): Thenable<T | undefined> {
  return vscode.window.withProgress({ location: { viewId: RUNS_VIEW_ID } }, () =>
    fn().catch((e: unknown) => {
      void vscode.window.showErrorMessage(`Turn: ${e instanceof Error ? e.message : String(e)}`);
      return undefined;
    }),
  );
}

/**
 * Asks how to settle an unknown step in the answer webview (extension/forms/answer-panel.ts), whose
 * question settle-form.ts makes: the request readably, "it happened: enter its result" (the typed
 * form) / "it did not happen" / "run it again", and, when `resumable`, settle and resume as one
 * action. Undefined: the user closed it.
 */
async function askSettlement(step: UnknownStep, resumable: boolean): Promise<{ settlement: Settlement; resume: boolean } | undefined> {
  const answer = await askInForm(settleQuestion(step, resumable));
  return answer && { settlement: settlementOf(answer), resume: answer.resume };
}

/** Resumes or settles on Restate, then tells how the run stands and refreshes the view. */
async function afterRestate(view: RunsView, call: () => Promise<RunSummary>, what: string): Promise<void> {
  view.refresh();
  const s = await onRestate(call);
  view.refresh();
  if (s) void vscode.window.showInformationMessage(`Turn: ${what}; ${summaryText(s)}.`);
}

export function registerRunsView(stores: SharedStores, panel: () => PanelHost): vscode.Disposable[] {
  const view = new RunsView(stores);
  const tree = vscode.window.createTreeView(RUNS_VIEW_ID, { treeDataProvider: view, showCollapseAll: false });
  view.onCounted = (shown, total) => {
    const filtered = view.filterText.trim() !== '';
    tree.description = filtered ? `${shown} of ${total} · "${view.filterText.trim()}"` : view.sort === 'started' ? undefined : `by ${view.sort}`;
    // the description hides when the view is its container's only one: the message shows above the rows
    tree.message = filtered ? `Showing ${shown} of ${total} runs matching "${view.filterText.trim()}" (Clear Runs Filter shows all)` : undefined;
  };
  const fail = (e: unknown) => void vscode.window.showErrorMessage(`Turn: ${storeMessage(e)}`);
  // the `turn` CLI's writes to a workspace store (the view's own reads are told apart: store-watch.ts)
  const files = vscode.workspace.createFileSystemWatcher(`**/${path.basename(workspaceStoreDir(''))}/${STORE_FILE}*`);
  const touched = (uri: vscode.Uri) => view.watch.touched(uri.fsPath);
  return [
    tree,
    files,
    files.onDidChange(touched),
    files.onDidCreate(touched),
    files.onDidDelete(touched),
    { dispose: () => view.watch.dispose() },
    vscode.workspace.onDidChangeConfiguration((e) => (e.affectsConfiguration('turn.restate') ? view.refresh() : undefined)),
    stores.onChange(() => view.refresh()),
    tree.onDidChangeVisibility((e) => (e.visible ? view.refresh() : undefined)),
    vscode.workspace.onDidChangeWorkspaceFolders(() => view.refresh()),
    vscode.commands.registerCommand('turn.runs.refresh', () => view.refresh()),
    vscode.commands.registerCommand('turn.runs.filter', async (text?: unknown) => {
      // a test or a keybinding may pass the text; else the search box, holding the current filter
      const typed = typeof text === 'string' ? text : await vscode.window.showInputBox({
        title: 'Filter Runs',
        value: view.filterText,
        prompt: 'Words to find in the file, run id, status or result; status:waiting (or is:failed, is:done...) keeps one status. Empty: every run.',
        placeHolder: 'e.g. triage is:failed',
      });
      if (typed === undefined) return;
      view.filterText = typed.slice(0, 200);
      void vscode.commands.executeCommand('setContext', 'turn.runsFiltered', view.filterText.trim() !== '');
      view.refresh();
    }),
    vscode.commands.registerCommand('turn.runs.clearFilter', () => {
      view.filterText = '';
      void vscode.commands.executeCommand('setContext', 'turn.runsFiltered', false);
      view.refresh();
    }),
    vscode.commands.registerCommand('turn.runs.sort', async (key?: unknown) => {
      const labels: Record<SortKey, string> = { started: 'Newest first', duration: 'Longest first', tokens: 'Most tokens first', cost: 'Costliest first' };
      const picked = typeof key === 'string' && (SORT_KEYS as readonly string[]).includes(key)
        ? (key as SortKey)
        : (await vscode.window.showQuickPick(SORT_KEYS.map((k) => ({ label: labels[k], picked: k === view.sort, key: k })), { title: 'Sort Runs (runs waiting on you stay first)' }))?.key;
      if (!picked) return;
      view.sort = picked;
      view.refresh();
    }),
    vscode.commands.registerCommand('turn.runs.openInPanel', async (node?: Node) => {
      if (node?.kind === 'restateRun') {
        const run = await onRestate(() => restateRunView(node.server, node.item.id, 0));
        if (run) panel().showView(run);
        return;
      }
      const n = await pickRun(view, node, () => true, 'open in the panel');
      if (n) await inPanel(panel, n, { kind: 'show', runId: n.item.id, storeDir: n.dir });
    }),
    vscode.commands.registerCommand('turn.runs.resume', async (node?: Node) => {
      if (node?.kind === 'restateRun') {
        const { server, item } = node;
        return afterRestate(view, () => resumeOnRestate(server, item.id), `run ${item.id} resumed on Restate`);
      }
      const n = await pickRun(view, node, (r) => actionsOf(r).resume, 'resume');
      if (!n) return;
      if (!actionsOf(n.item).resume) {
        void vscode.window.showErrorMessage(`Turn: run ${n.item.id} is ${stateText(n.item.state)}; ${n.item.state === 'waiting' ? 'settle its unknown outcome first' : 'it cannot be resumed'}.`);
        return;
      }
      await inPanel(panel, n, { kind: 'resume', runId: n.item.id, storeDir: n.dir });
    }),
    vscode.commands.registerCommand('turn.runs.migrate', async (node?: Node) => {
      const n = await pickRun(view, node, (r) => actionsOf(r).migrate, 'migrate to the current code');
      if (!n) return;
      const ok = await vscode.window.showWarningMessage(
        `Move run ${n.item.id} to the current code of ${path.basename(n.item.entry)} and resume it? The move is journaled; the run goes on with the new code from where it stands.`,
        { modal: true },
        'Migrate and Resume',
      );
      if (ok) await inPanel(panel, n, { kind: 'resume', runId: n.item.id, storeDir: n.dir, migrate: true });
    }),
    vscode.commands.registerCommand('turn.runs.settle', async (node?: Node) => {
      if (node?.kind === 'restateRun' || node?.kind === 'restateStep') {
        const server = node.server;
        const run = node.kind === 'restateRun' ? node.item : node.run;
        let step = node.kind === 'restateStep' ? node.step : run.unknown[0];
        if (node.kind === 'restateRun' && run.unknown.length > 1) {
          const picked = await vscode.window.showQuickPick(
            run.unknown.map((s) => ({ label: `step ${s.seq}: ${s.kind} ${s.name}`, detail: `request: ${s.request}`, step: s })),
            { title: `Run ${run.id}: which unknown outcome?` },
          );
          if (!picked) return;
          step = picked.step;
        }
        if (!step) return void vscode.window.showInformationMessage(`Turn: run ${run.id} has no unknown outcome to settle.`);
        const chosen = step;
        const asked = await askSettlement(chosen, run.unknown.length === 1);
        if (!asked) return;
        await afterRestate(view, () => settleOnRestate(server, run.id, chosen.seq, asked.settlement), `step ${chosen.seq} of run ${run.id} settled on Restate`);
        if (asked.resume) await afterRestate(view, () => resumeOnRestate(server, run.id), `run ${run.id} resumed on Restate`);
        return;
      }
      const n = await pickRun(view, node, (r) => actionsOf(r).settle, 'settle an unknown outcome');
      if (!n) return;
      let step = node?.kind === 'step' ? node.step : n.item.unknown[0];
      if (node?.kind !== 'step' && n.item.unknown.length > 1) {
        const picked = await vscode.window.showQuickPick(
          n.item.unknown.map((s) => ({ label: `step ${s.seq}: ${s.kind} ${s.name}`, detail: `request: ${s.request}`, step: s })),
          { title: `Run ${n.item.id}: which unknown outcome?` },
        );
        if (!picked) return;
        step = picked.step;
      }
      if (!step) {
        void vscode.window.showInformationMessage(`Turn: run ${n.item.id} has no unknown outcome to settle.`);
        return;
      }
      const asked = await askSettlement(step, n.item.unknown.length === 1);
      if (!asked) return;
      let stillUnknown: number[];
      try {
        stillUnknown = settle(stores, n.dir, n.item.id, step.seq, asked.settlement).stillUnknown;
      } catch (e) {
        return fail(e);
      }
      // settle and resume, one action: the run goes on in the panel
      if (asked.resume && stillUnknown.length === 0) return void (await inPanel(panel, n, { kind: 'resume', runId: n.item.id, storeDir: n.dir }));
      const next = stillUnknown.length > 0 ? `steps ${stillUnknown.join(', ')} are still unknown` : 'the run is suspended: resume it to go on';
      void vscode.window.showInformationMessage(`Turn: step ${step.seq} of run ${n.item.id} settled; ${next}.`);
    }),
    // issue 43: a question (`ask T`) nobody could answer when the run asked it, answered in the typed form;
    // the answer is checked and journaled by the runtime (answerQuestion), then the run resumes in the panel
    vscode.commands.registerCommand('turn.runs.answer', async (node?: Node) => {
      const n = await pickRun(view, node, (r) => actionsOf(r).answer, 'answer');
      if (!n) return;
      try {
        const [q] = await questionsOf(stores, n.dir, n.item.id);
        if (!q) return void vscode.window.showInformationMessage(`Turn: run ${n.item.id} waits on no question.`);
        const given = await askInForm(askQuestionView({ typeName: q.typeName, prompt: q.prompt, schema: q.schema, where: `step ${q.seq} of run ${n.item.id}` }));
        if (!given) return;
        await answer(stores, n.dir, n.item.id, q.seq, given.value);
      } catch (e) {
        return fail(e);
      }
      await inPanel(panel, n, { kind: 'resume', runId: n.item.id, storeDir: n.dir });
    }),
    vscode.commands.registerCommand('turn.runs.delete', async (node?: Node) => {
      const n = await pickRun(view, node, (r) => actionsOf(r).delete, 'delete');
      if (!n) return;
      const ok = await vscode.window.showWarningMessage(`Delete run ${n.item.id} (${path.basename(n.item.entry)}, ${stateText(n.item.state)}) with its journal? It cannot be resumed afterwards.`, { modal: true }, 'Delete');
      if (!ok) return;
      try {
        deleteStoredRun(stores, n.dir, n.item.id);
      } catch (e) {
        fail(e);
      }
    }),
  ];
}

/** The runs a listing shows, as far as its rows go: id, state, last change and unknown steps of each. */
function listingOf(nodes: readonly Node[]): string {
  const rows = (list: readonly ConsoleRow[]): unknown[] => list.map((r) => [r.run.id, r.run.state, r.run.updatedAt, r.run.tokens.calls, r.run.unknown.map((u) => u.seq), rows(r.children)]);
  return JSON.stringify(nodes.map((n) => (n.kind === 'run' ? [n.item.id, n.item.state, n.item.updatedAt, n.item.tokens.calls, n.item.unknown.map((u) => u.seq), rows(n.forks)] : n.kind === 'message' ? n.text : n.kind)));
}
