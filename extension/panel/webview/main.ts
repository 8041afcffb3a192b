/// <reference lib="dom" />
// The run panel's webview (browser code, bundled by esbuild into dist/webview/panel.js). It only
// renders what the host sends (validated with the shared protocol) and posts typed requests back.
// State survives hiding and reloads through vscode.getState/setState (state.ts). The pieces are
// small modules: the timeline (lanes.ts, timeline.ts), token budgets (tokens.ts), actors
// (actors.ts), errors (errors.ts), what-if (whatif.ts) and the journal scrubber (scrubber.ts).
import { isHostMessage, PROTOCOL_VERSION, type RunView } from '../../protocol/panel.js';
import { actorDetails, actorTree, type ActorUi } from './actors.js';
import { post, vscode } from './api.js';
import { h, section, siteLink } from './dom.js';
import { errorView } from './errors.js';
import { lanesFromEvents } from './lanes.js';
import { scrubber } from './scrubber.js';
import { restore, type State } from './state.js';
import { legend, timelineSvg } from './timeline.js';
import { tokensSvg } from './tokens.js';
import { whatIfPicker, whatIfResult } from './whatif.js';

const state: State = restore(vscode.getState() as Partial<State> | undefined);

const ui: ActorUi = {
  get selected() {
    return state.selected;
  },
  get search() {
    return state.search;
  },
  select(pid) {
    state.selected = pid;
    render();
  },
  searchFor(text) {
    state.search = text;
    render();
  },
};

function width(): number {
  return Math.max(360, (document.getElementById('turn-panel')?.clientWidth ?? 800) - 4);
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

function events(run: RunView): HTMLElement {
  return h('details', { id: 'events' }, h('summary', {}, `Events (${run.timeline.length})`), h('ol', {}, ...run.timeline.map((t) =>
    h('li', { class: `event state-${t.state}` }, h('span', { class: 'ms' }, `${t.ms.toFixed(1)} ms`), ' ', t.pid !== null ? `#${t.pid} ` : '', t.summary, t.state !== 'done' ? ` (${t.state})` : '', ' ', siteLink(t.site)))));
}

function timelineSection(run: RunView): HTMLElement {
  const lanes = lanesFromEvents(run);
  return section('timeline', 'Timeline',
    lanes.lanes.length ? timelineSvg(lanes, width()) : h('p', { class: 'muted' }, 'Nothing yet.'),
    legend(),
    h('h3', {}, 'Token use per tier'),
    run.actors.length ? tokensSvg(run.actors, width()) : h('p', { class: 'muted' }, 'No actor yet.'));
}

function render(): void {
  vscode.setState({ ...state, editing: null, forking: false, scrubStep: null, notice: null });
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
    run ? h('span', { class: 'muted model', title: run.model }, `model ${run.model.length > 40 ? `${run.model.slice(0, 40)}…` : run.model}`) : null, ' ',
    run?.stored ? h('span', { class: 'muted', id: 'stored-run' }, `run ${run.stored.runId}`) : null, ' ', start, stop);
  const notice = state.notice ? h('p', { class: 'notice error', id: 'notice' }, state.notice) : null;
  const vault = section('vault', 'Vault', state.vault.length
    ? h('ul', {}, ...state.vault.map((e) => h('li', {}, h('code', {}, e.name), ' ', h('span', { class: 'muted' }, e.source))))
    : h('p', { class: 'muted' }, 'no credentials (Turn: Add Credential)'));
  if (!run) {
    root.replaceChildren(header, notice ?? '', h('p', { class: 'muted' }, 'Run a Turn file (the Run CodeLens above a turn { } block) to see its actors here.'), vault);
    return;
  }
  const output = section('output', 'Output', h('pre', {}, run.output.join('\n')),
    run.result !== null ? h('p', { id: 'result' }, 'result: ', h('code', {}, run.result)) : null,
    run.error ? errorView(run.error) : null);
  const whatif = state.whatif ? whatIfResult(state.whatif, width(), () => {
    state.whatif = null;
    render();
  }, run.actors) : null;
  root.replaceChildren(
    header,
    notice ?? '',
    timelineSection(run),
    whatif ?? '',
    scrubber(state, ui, render) ?? '',
    h('div', { class: 'columns' },
      h('div', { class: 'col' }, actorTree(run.actors, ui), output, vault),
      h('div', { class: 'col wide' }, actorDetails(run.actors, ui), infers(run), whatIfPicker(state, render) ?? '', events(run))));
}

window.addEventListener('message', (event: MessageEvent) => {
  const m: unknown = event.data;
  if (!isHostMessage(m)) return; // validated: anything else is ignored
  switch (m.type) {
    case 'run':
      if (state.run?.runId !== m.run.runId) {
        state.selected = null;
        state.whatif = null;
        state.scrub = null;
      }
      state.run = m.run;
      break;
    case 'vault':
      state.vault = m.entries.map((e) => ({ name: e.name, source: e.source }));
      break;
    case 'journal':
      state.journal = { runId: m.runId, steps: m.steps };
      break;
    case 'whatif':
      state.whatif = m.view;
      state.forking = false;
      state.editing = null;
      break;
    case 'scrub':
      state.scrub = m.view;
      state.scrubStep = null;
      break;
    case 'notice':
      state.notice = m.message;
      state.forking = false;
      state.scrubStep = null;
      break;
  }
  render();
});

let resizing = false;
window.addEventListener('resize', () => {
  if (resizing) return;
  resizing = true;
  requestAnimationFrame(() => {
    resizing = false;
    render();
  });
});

render();
post({ type: 'ready', v: PROTOCOL_VERSION });
