/// <reference lib="dom" />
// What-if: pick a journaled model reply or effect result of the stored run, edit its value and
// fork; then the original and the fork side by side (outcome, output, journal, timeline).
import { PROTOCOL_VERSION, type ActorView, type JournalStepView, type WhatIfSide, type WhatIfView } from '../../protocol/panel.js';
import { post } from './api.js';
import { h, section } from './dom.js';
import { lanesFromJournal } from './lanes.js';
import type { State } from './state.js';
import { timelineSvg } from './timeline.js';

function stepRow(s: JournalStepView, state: State, rerender: () => void, runId: string): HTMLElement {
  const what = s.kind === 'infer' ? `infer ${s.name}` : s.name;
  const row = h('div', { class: `step kind-${s.kind} status-${s.status}${s.forkable ? ' forkable' : ''}`, 'data-seq': String(s.seq) },
    h('span', { class: 'seq' }, `${s.seq}`), ' ', h('span', { class: 'what' }, what), ' ', h('span', { class: 'muted' }, s.pid >= 0 ? `#${s.pid}` : ''), ' ',
    h('code', { class: 'value', title: s.value }, s.value));
  if (!s.forkable) return row;
  if (state.editing?.step === s.seq) {
    const area = h('textarea', { class: 'edit', rows: '3', 'aria-label': `new value for step ${s.seq}` });
    area.value = state.editing.text;
    area.addEventListener('input', () => {
      if (state.editing) state.editing.text = area.value;
    });
    const go = h('button', { class: 'fork-run' }, state.forking ? 'Forking…' : 'Fork and run');
    if (state.forking) go.setAttribute('disabled', '');
    go.addEventListener('click', () => {
      if (!state.editing) return;
      state.forking = true;
      state.notice = null;
      post({ type: 'fork', v: PROTOCOL_VERSION, runId, step: s.seq, value: area.value });
      rerender();
    });
    const cancel = h('button', { class: 'secondary' }, 'Cancel');
    cancel.addEventListener('click', () => {
      state.editing = null;
      rerender();
    });
    row.append(h('div', { class: 'editor' }, h('p', { class: 'muted' }, 'The new value, as JSON (plain text is taken as a string):'), area, go, cancel));
    return row;
  }
  const edit = h('button', { class: 'what-if secondary', title: 'Fork the run here with another value' }, 'What if…');
  edit.addEventListener('click', () => {
    state.editing = { step: s.seq, text: s.value };
    rerender();
  });
  row.append(' ', edit);
  return row;
}

/** The stored run's journal, each model reply and effect result with a "What if…" button. */
export function whatIfPicker(state: State, rerender: () => void): HTMLElement | null {
  const j = state.journal;
  if (!j || state.run?.stored?.runId !== j.runId) return null;
  const forkable = j.steps.filter((s) => s.forkable).length;
  return section('journal', `Journal of run ${j.runId} (${j.steps.length} steps, ${forkable} to fork)`,
    h('div', { class: 'steps' }, ...j.steps.map((s) => stepRow(s, state, rerender, j.runId))));
}

function sideView(title: string, side: WhatIfSide, step: number, width: number, other: WhatIfSide, actors: Pick<ActorView, 'pid' | 'name'>[]): HTMLElement {
  const theirs = new Map(other.journal.map((s) => [s.seq, s]));
  return h('div', { class: `side side-${title.toLowerCase()}`, 'data-run': side.runId },
    h('h3', {}, `${title} `, h('code', {}, side.runId), ' ', h('span', { class: `status-${side.status}` }, side.status)),
    side.result !== null ? h('p', {}, 'result: ', h('code', { class: 'result' }, side.result)) : null,
    side.error !== null ? h('p', { class: 'error' }, side.error) : null,
    h('h4', {}, title === 'Fork' ? `Output (printed after step ${step})` : 'Output'),
    h('pre', { class: 'output' }, side.output.join('\n') || '(nothing printed)'),
    h('h4', {}, 'Timeline'),
    timelineSvg(lanesFromJournal(side.journal, actors), width, `${title} timeline`),
    h('h4', {}, 'Journal'),
    h('div', { class: 'steps' }, ...side.journal.map((s) => {
      const mine = theirs.get(s.seq);
      const cls = s.seq === step ? ' edited' : s.seq > step ? (mine && mine.value === s.value && mine.kind === s.kind ? ' after' : ' after differs') : '';
      return h('div', { class: `step kind-${s.kind} status-${s.status}${cls}`, 'data-seq': String(s.seq) },
        h('span', { class: 'seq' }, `${s.seq}`), ' ', h('span', { class: 'what' }, s.kind === 'infer' ? `infer ${s.name}` : `${s.kind} ${s.name}`), ' ',
        h('span', { class: 'muted' }, s.pid >= 0 ? `#${s.pid}` : ''), ' ', h('code', { class: 'value', title: s.value }, s.value));
    })));
}

/** The original and the fork side by side. */
export function whatIfResult(view: WhatIfView, width: number, close: () => void, actors: Pick<ActorView, 'pid' | 'name'>[] = []): HTMLElement {
  const dismiss = h('button', { class: 'secondary' }, 'Close');
  dismiss.addEventListener('click', close);
  const half = Math.max(360, Math.floor(width / 2) - 12);
  return section('whatif', `What if step ${view.step} had been ${view.after}?`,
    h('p', { class: 'muted' }, `Forked at step ${view.step}: ${view.before} → ${view.after}. The original run is untouched. `, dismiss),
    h('div', { class: 'sides' }, sideView('Original', view.original, view.step, half, view.fork, actors), sideView('Fork', view.fork, view.step, half, view.original, actors)));
}
