/// <reference lib="dom" />
// The run panel's webview (browser code, bundled by esbuild into dist/webview/panel.js). It only
// renders what the host sends (validated with the shared protocol) and posts typed requests back.
// State survives hiding and reloads through vscode.getState/setState (state.ts).
//
// The page is built once; each part is a component that an update touches only where its data
// changed, and every list that grows with the run (lanes, actors, token rows, memory, mailbox,
// inferences, events, the journal) is windowed (virtual.ts): the cost of an update, a selection, a
// scroll or a keystroke in a search follows what is on screen, not the size of the run.
import { isHostMessage, PROTOCOL_VERSION, type RunView } from '../../protocol/panel.js';
import { applyRunDelta } from '../../protocol/run-delta.js';
import { ActorDetails, ActorTree, type ActorUi } from './actors.js';
import { post, vscode } from './api.js';
import { fill, h } from './dom.js';
import { GraphView } from './graph.js';
import { errorView } from './errors.js';
import { EventList } from './events.js';
import { InferList } from './infers.js';
import { receiveCalibrationMap } from './calibration.js';
import { receiveMedia } from './media.js';
import { lanesFromEvents, type Lanes } from './lanes.js';
import { Scrubber } from './scrubber.js';
import { restore, type State } from './state.js';
import { LaneList, legend } from './timeline.js';
import { drawWidth } from './narrow.js';
import { TokenList } from './tokens.js';
import { valueTree } from './valuetree.js';
import { JournalPicker, whatIfResult } from './whatif.js';

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
    update();
  },
  searchFor(text) {
    state.search = text;
    save();
  },
};

function width(): number {
  return drawWidth((document.getElementById('turn-panel')?.clientWidth ?? 800) - 4);
}

// Saving the state serializes the whole run: at most once per half second, not on every update.
let saving: ReturnType<typeof setTimeout> | undefined;
function save(): void {
  if (saving !== undefined) return;
  saving = setTimeout(() => {
    saving = undefined;
    // a running run is not saved: it changes every 100 ms, and the host sends it whole when the webview comes back
    vscode.setState({ ...state, run: state.run?.status === 'running' ? null : state.run, editing: null, forking: false, scrubStep: null, notice: null });
  }, 500);
}

const root = document.getElementById('turn-panel')!;
const header = h('header', {});
const noticeBox = h('div', {});
const empty = h('p', { class: 'muted' }, 'Run a Turn file (the Run CodeLens above a turn { } block) to see its actors here.');
const lanes = new LaneList();
const tokens = new TokenList();
const timelineEmpty = h('p', { class: 'muted' }, 'Nothing yet.');
const tokensEmpty = h('p', { class: 'muted' }, 'No actor yet.');
const timeline = h('section', { id: 'timeline' }, h('h2', {}, 'Timeline'), lanes.el, timelineEmpty, legend(), h('h3', {}, 'Token use per tier'), tokens.list.el, tokensEmpty);
const whatifBox = h('div', {});
const actors = new ActorTree(ui);
const graph = new GraphView(ui);
const details = new ActorDetails(ui);
const infers = new InferList();
const journal = new JournalPicker(state, () => update());
const scrubber = new Scrubber(state, ui, () => update());
const events = new EventList();
const output = h('section', { id: 'output' });
const vault = h('section', { id: 'vault' });
const runParts = h('div', {},
  timeline, graph.el, whatifBox, scrubber.el,
  h('div', { class: 'columns' },
    h('div', { class: 'col' }, actors.el, output),
    h('div', { class: 'col wide' }, details.el, infers.el, journal.el, events.el)));

let shownRun: RunView | null = null;
/** the number of the last delta applied to state.run (0: the whole view came last) */
let deltaN = 0;
/** a whole view came from the host since this page loaded (a restored state is no base for deltas) */
let deltaBase = false;
let shownLanes: { run: RunView; width: number; lanes: Lanes } | null = null;
let shownWhatif: unknown = null;
let shownVault: unknown = null;

// The header's controls are made once and only their text and state change: a control rebuilt on
// every update (a run sends one every 100 ms) can lose a click that lands between the two.
const startButton = h('button', { id: 'start' }, 'Run');
startButton.addEventListener('click', () => post({ type: 'start', v: PROTOCOL_VERSION, file: state.run?.file ?? null }));
const stopButton = h('button', { id: 'stop' }, 'Stop');
/** the run whose Stop was clicked: shown `stopping` at once, until the host's view says how it ended */
let stoppingRun: number | null = null;
stopButton.addEventListener('click', () => {
  if (state.run?.status === 'running') {
    stoppingRun = state.run.runId;
    renderHeader(state.run);
  }
  post({ type: 'stop', v: PROTOCOL_VERSION });
});
const fileName = h('strong', {}, 'Turn');
const statusBadge = h('span', { id: 'status', class: 'status-idle' }, 'idle');
const modelName = h('span', { class: 'muted model' });
const storedRun = h('span', { class: 'muted', id: 'stored-run' });
header.append(fileName, ' ', statusBadge, ' ', modelName, ' ', storedRun, ' ', startButton, ' ', stopButton);

/** Sets a text only when it differs (a write, even of the same text, costs the page a layout). */
function setText(el: HTMLElement, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

function renderHeader(run: RunView | null): void {
  const status = run?.status === 'running' && run.runId === stoppingRun ? 'stopping' : run?.status ?? 'idle';
  setText(fileName, run?.file ? run.file.split(/[\\/]/).pop()! : 'Turn');
  setText(statusBadge, status);
  if (statusBadge.className !== `status-${status}`) statusBadge.className = `status-${status}`;
  modelName.hidden = !run;
  setText(modelName, run ? `model ${run.model.length > 40 ? `${run.model.slice(0, 40)}…` : run.model}` : '');
  modelName.title = run?.model ?? '';
  storedRun.hidden = !run?.stored;
  setText(storedRun, run?.stored ? `run ${run.stored.runId}` : '');
  stopButton.disabled = status !== 'running';
}

function renderOutput(run: RunView): void {
  fill(output, h('h2', {}, 'Output'), h('pre', {}, run.output.join('\n')),
    run.result !== null ? h('div', { id: 'result' }, h('span', { class: 'result-label' }, 'result: '), h('code', { class: 'result-text' }, run.result), valueTree(run.result, 'result')) : null,
    run.error ? errorView(run.error) : null,
    run.tokens ? h('div', { id: 'tokens', class: 'muted' }, ...run.tokens.lines.map((l) => h('div', {}, l))) : null);
}

function renderVault(): void {
  if (shownVault === state.vault) return;
  shownVault = state.vault;
  vault.replaceChildren(h('h2', {}, 'Vault'), state.vault.length
    ? h('ul', {}, ...state.vault.map((e) => h('li', {}, h('code', {}, e.name), ' ', h('span', { class: 'muted' }, e.source))))
    : h('p', { class: 'muted' }, 'no credentials (Turn: Add Credential)'));
}

function update(): void {
  save();
  const run = state.run;
  renderHeader(run);
  noticeBox.replaceChildren(...(state.notice ? [h('p', { class: 'notice error', id: 'notice' }, state.notice)] : []));
  renderVault();
  if (!run) {
    root.replaceChildren(header, noticeBox, empty, vault);
    shownRun = null;
    return;
  }
  if (root.children[2] !== runParts) {
    root.replaceChildren(header, noticeBox, runParts);
    (actors.el.parentElement as HTMLElement).append(vault);
  }
  const w = width();
  // the lanes are read again only when the events or the actors' names may have changed (a delta gives new arrays only to the parts it changed)
  if (!shownLanes || shownLanes.run.timeline !== run.timeline || shownLanes.run.actors !== run.actors || shownLanes.width !== w) shownLanes = { run, width: w, lanes: lanesFromEvents(run) };
  lanes.update(shownLanes.lanes, w);
  lanes.el.hidden = shownLanes.lanes.lanes.length === 0;
  timelineEmpty.hidden = !lanes.el.hidden;
  tokens.update(run.actors, w);
  tokens.list.el.hidden = run.actors.length === 0;
  tokensEmpty.hidden = run.actors.length > 0;
  if (!shownRun || shownRun.output !== run.output || shownRun.result !== run.result || shownRun.error !== run.error || shownRun.tokens !== run.tokens || shownRun.runId !== run.runId) renderOutput(run);
  shownRun = run;
  if (shownWhatif !== state.whatif) {
    shownWhatif = state.whatif;
    whatifBox.replaceChildren(...(state.whatif ? [whatIfResult(state.whatif, w, () => {
      state.whatif = null;
      update();
    }, run.actors)] : []));
  }
  scrubber.el.hidden = !scrubber.update();
  actors.update(run.actors);
  graph.update(run.actors, run.messages ?? []);
  details.update(run.actors);
  infers.update(run.infers);
  journal.el.hidden = !journal.update();
  events.update(run.timeline);
}

/**
 * The run's updates are drawn at most once per RENDER_SPACING times the last drawing's own duration
 * while the run runs (and at once otherwise): in code-server the webview shares the workbench's
 * thread, so a webview that drew each update of a 1,000-worker run as it came held the editor (a
 * hover waited behind it; issue 44). Updates that arrive meanwhile are applied to the state and
 * drawn together. The header (status, Stop) is drawn at once: it costs nothing.
 */
const RENDER_SPACING = 5;
let drawDue: ReturnType<typeof setTimeout> | undefined;
let drawnAt = 0;
let drawMs = 0;
function updateSoon(): void {
  renderHeader(state.run);
  if (drawDue !== undefined) return;
  const running = state.run?.status === 'running';
  const wait = running ? Math.max(0, drawnAt + RENDER_SPACING * drawMs - performance.now()) : 0;
  drawDue = setTimeout(() => {
    drawDue = undefined;
    const t = performance.now();
    update();
    drawnAt = performance.now();
    drawMs = drawnAt - t;
  }, wait);
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
      deltaN = 0;
      deltaBase = true;
      break;
    case 'runDelta': {
      // deltas follow the whole view this page received, never one restored from a saved state
      const next = state.run && deltaBase ? applyRunDelta(state.run, m.delta, deltaN) : null;
      if (!next) {
        // a delta that does not follow what this webview holds (one was missed): ask for the whole run
        post({ type: 'resync', v: PROTOCOL_VERSION });
        return;
      }
      state.run = next;
      deltaN = m.delta.n;
      break;
    }
    case 'vault':
      state.vault = m.entries.map((e) => ({ name: e.name, source: e.source }));
      break;
    case 'journal':
      state.journal = { runId: m.runId, steps: m.steps, ...(m.schemas ? { schemas: m.schemas } : {}) };
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
    case 'calibrationMap':
      // drawn where it was asked for (calibration.ts); nothing else changes
      receiveCalibrationMap(m);
      return;
    case 'media':
      receiveMedia(m);
      return;
  }
  if (m.type === 'run' || m.type === 'runDelta') updateSoon();
  else update();
});

let resizing = false;
window.addEventListener('resize', () => {
  if (resizing) return;
  resizing = true;
  requestAnimationFrame(() => {
    resizing = false;
    shownWhatif = null;
    update();
  });
});

update();
post({ type: 'ready', v: PROTOCOL_VERSION });
