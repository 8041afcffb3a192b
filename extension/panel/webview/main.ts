/// <reference lib="dom" />
// The run panel's webview (browser code, bundled by esbuild into dist/webview/panel.js). It only
// renders what the host sends (validated with the shared protocol) and posts typed requests back.
// State (the last run, the vault names, the selection, the memory search) survives hiding and
// reloads through vscode.getState/setState. No network access: the CSP allows none.
import {
  isHostMessage, isRunView, PROTOCOL_VERSION,
  type ActorView, type RunView, type SiteView, type VaultEntryView, type WebviewMessage,
} from '../../protocol/panel.js';

interface VsCodeApi {
  postMessage(m: WebviewMessage): void;
  getState(): unknown;
  setState(s: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

interface State {
  run: RunView | null;
  vault: VaultEntryView[];
  selected: number | null;
  search: string;
}

const vscode = acquireVsCodeApi();
const saved = vscode.getState() as Partial<State> | undefined;
const state: State = {
  run: saved && isRunView(saved.run) ? saved.run : null,
  vault: Array.isArray(saved?.vault) ? saved.vault.filter((e) => typeof e?.name === 'string').map((e) => ({ name: e.name, source: String(e.source) })) : [],
  selected: typeof saved?.selected === 'number' ? saved.selected : null,
  search: typeof saved?.search === 'string' ? saved.search : '',
};

const post = (m: WebviewMessage) => vscode.postMessage(m);

function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string | null)[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) if (c !== null) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

function siteLink(site: SiteView | null, label?: string): Node | null {
  if (!site) return null;
  const a = h('a', { href: '#', class: 'site', title: `${site.path}:${site.line}` }, label ?? `line ${site.line}`);
  a.addEventListener('click', (e) => {
    e.preventDefault();
    e.stopPropagation();
    post({ type: 'reveal', v: PROTOCOL_VERSION, path: site.path, line: site.line });
  });
  return a;
}

function section(id: string, title: string, ...children: (Node | string | null)[]): HTMLElement {
  return h('section', { id }, h('h2', {}, title), ...children);
}

function actorTree(run: RunView): HTMLElement {
  const byParent = new Map<number, ActorView[]>();
  for (const a of run.actors) {
    const list = byParent.get(a.parent) ?? [];
    list.push(a);
    byParent.set(a.parent, list);
  }
  const known = new Set(run.actors.map((a) => a.pid));
  const roots = run.actors.filter((a) => !known.has(a.parent));
  const item = (a: ActorView): HTMLElement => {
    const label = `#${a.pid} ${a.status}${a.waitingOn ? ` on ${a.waitingOn}` : ''}${a.restarts ? `, ${a.restarts} restarts` : ''}${a.detached ? ', detached' : ''}`;
    const row = h('div', { class: `actor status-${a.status}${state.selected === a.pid ? ' selected' : ''}`, 'data-pid': String(a.pid), tabindex: '0' }, label, ' ', siteLink(a.site));
    row.addEventListener('click', () => {
      state.selected = a.pid;
      render();
    });
    const kids = byParent.get(a.pid) ?? [];
    return h('li', {}, row, kids.length ? h('ul', {}, ...kids.map(item)) : null);
  };
  return section('actors', `Actors (${run.actors.length})`, h('ul', { class: 'tree' }, ...roots.map(item)));
}

function details(run: RunView): HTMLElement {
  const a = run.actors.find((x) => x.pid === state.selected) ?? run.actors[0];
  if (!a) return section('context', 'Context', h('p', { class: 'muted' }, 'No actor yet.'));
  const tier = (name: 'P0' | 'P1' | 'P2', title: string) =>
    h('div', { class: `tier tier-${name}` },
      h('h3', {}, `${name} ${title} — ${a.context.tokens[name]} tokens${name === 'P1' ? ` of ${a.context.limits.working}` : name === 'P2' ? ` of ${a.context.limits.episodic}` : ''}`),
      ...(a.context[name].length ? a.context[name].map((e) => h('pre', { class: 'entry' }, h('span', { class: 'tokens' }, `${e.tokens} tokens`), ' ', e.text)) : [h('p', { class: 'muted' }, 'empty')]));
  const q = state.search.toLowerCase();
  const mem = a.memory.filter((m) => !q || m.key.toLowerCase().includes(q) || m.value.toLowerCase().includes(q));
  const search = h('input', { type: 'search', id: 'memory-search', placeholder: 'Search memory', value: state.search });
  search.addEventListener('input', () => {
    state.search = search.value;
    render();
    const again = document.getElementById('memory-search') as HTMLInputElement | null;
    again?.focus();
    again?.setSelectionRange(again.value.length, again.value.length);
  });
  return h('div', { class: 'details' },
    section('context', `Context of #${a.pid}`,
      tier('P0', 'system'), tier('P1', 'working'), tier('P2', 'episodic'),
      h('p', { class: 'muted' }, `demoted P1→P2: ${a.context.demoted.entries} entries (${a.context.demoted.tokens} tokens); dropped from P2: ${a.context.dropped.entries} entries (${a.context.dropped.tokens} tokens)`)),
    section('memory', `Memory of #${a.pid}`, search,
      mem.length ? h('table', {}, ...mem.map((m) => h('tr', {}, h('td', { class: 'key' }, m.key), h('td', {}, h('pre', {}, m.value))))) : h('p', { class: 'muted' }, 'nothing remembered')),
    section('mailbox', `Mailbox of #${a.pid} (${a.mailbox.length})`, ...a.mailbox.map((m) => h('pre', {}, m))),
    a.result !== null ? h('p', {}, 'result: ', h('code', {}, a.result)) : null,
    a.error !== null ? h('p', { class: 'error' }, 'failed: ', h('code', {}, a.error)) : null,
  );
}

function infers(run: RunView): HTMLElement {
  return section('infers', `Inferences (${run.infers.length})`, ...run.infers.map((i) =>
    h('details', { class: `infer state-${i.state}` },
      h('summary', {}, `${i.id} infer ${i.type} in #${i.pid} — ${i.state}, ${i.attempts.length} attempt${i.attempts.length === 1 ? '' : 's'} `, siteLink(i.site)),
      ...i.attempts.map((at) => h('div', { class: 'attempt' },
        h('h4', {}, `attempt ${at.attempt}: ${at.valid === null ? 'waiting' : at.valid ? 'valid' : 'invalid'}${at.confidence !== null ? `, confidence ${at.confidence}` : ''}`),
        h('h5', {}, 'prompt (as rendered: P0, P2, P1, task)'),
        h('pre', { class: 'prompt' }, [...at.prompt.P0, ...at.prompt.P2, ...at.prompt.P1, at.prompt.task].join('\n\n')),
        at.feedback.length ? h('pre', { class: 'feedback' }, at.feedback.join('\n')) : null,
        h('h5', {}, 'schema'), h('pre', {}, JSON.stringify(at.schema, null, 2)),
        h('h5', {}, 'raw reply'), h('pre', {}, at.raw ?? '(none yet)'),
        at.repairs.length ? h('div', {}, h('h5', {}, 'repairs'), h('pre', {}, at.repairs.join('\n'))) : null,
        at.errors.length ? h('div', {}, h('h5', {}, 'validation errors'), h('pre', { class: 'error' }, at.errors.join('\n'))) : null,
      )))));
}

function timeline(run: RunView): HTMLElement {
  return section('timeline', `Journal (${run.timeline.length} events)`, h('ol', {}, ...run.timeline.map((t) =>
    h('li', { class: `event state-${t.state}` }, h('span', { class: 'ms' }, `${t.ms.toFixed(1)} ms`), ' ', t.pid !== null ? `#${t.pid} ` : '', t.summary, t.state !== 'done' ? ` (${t.state})` : '', ' ', siteLink(t.site)))));
}

function render(): void {
  vscode.setState(state);
  const root = document.getElementById('turn-panel')!;
  const run = state.run;
  const start = h('button', { id: 'start' }, 'Run');
  start.addEventListener('click', () => post({ type: 'start', v: PROTOCOL_VERSION, file: run?.file ?? null }));
  const stop = h('button', { id: 'stop' }, 'Stop');
  stop.addEventListener('click', () => post({ type: 'stop', v: PROTOCOL_VERSION }));
  if (run?.status !== 'running') stop.setAttribute('disabled', '');
  const header = h('header', {},
    h('strong', {}, run?.file ? run.file.split(/[\\/]/).pop()! : 'Turn'), ' ',
    h('span', { id: 'status', class: `status-${run?.status ?? 'idle'}` }, run?.status ?? 'idle'), ' ',
    run ? h('span', { class: 'muted' }, `model ${run.model}`) : null, ' ', start, stop);
  const vault = section('vault', 'Vault', state.vault.length
    ? h('ul', {}, ...state.vault.map((e) => h('li', {}, h('code', {}, e.name), ' ', h('span', { class: 'muted' }, e.source))))
    : h('p', { class: 'muted' }, 'no credentials (Turn: Add Credential)'));
  if (!run) {
    root.replaceChildren(header, h('p', { class: 'muted' }, 'Run a Turn file (the Run CodeLens above a turn { } block) to see its actors here.'), vault);
    return;
  }
  const output = section('output', 'Output', h('pre', {}, run.output.join('\n')),
    run.result !== null ? h('p', {}, 'result: ', h('code', {}, run.result)) : null,
    run.error ? h('p', { class: 'error' }, run.error.message, ' ', siteLink(run.error.site)) : null);
  root.replaceChildren(header, h('div', { class: 'columns' }, h('div', { class: 'col' }, actorTree(run), output, vault), h('div', { class: 'col wide' }, details(run), infers(run), timeline(run))));
}

window.addEventListener('message', (event: MessageEvent) => {
  const m: unknown = event.data;
  if (!isHostMessage(m)) return; // validated: anything else is ignored
  if (m.type === 'run') {
    if (state.run?.runId !== m.run.runId) state.selected = null;
    state.run = m.run;
  } else {
    state.vault = m.entries.map((e) => ({ name: e.name, source: e.source }));
  }
  render();
});

render();
post({ type: 'ready', v: PROTOCOL_VERSION });
