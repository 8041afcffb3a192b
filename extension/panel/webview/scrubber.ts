/// <reference lib="dom" />
// The journal scrubber: a slider over a stored run's journal steps; at the chosen step, every
// process's state, context tiers and memory as the travel API reconstructs them (the host answers
// a `scrub` request with a ScrubView).
import { PROTOCOL_VERSION } from '../../protocol/panel.js';
import { actorDetails, actorTree, type ActorUi } from './actors.js';
import { post } from './api.js';
import { h, section } from './dom.js';
import type { State } from './state.js';

export function scrubber(state: State, ui: ActorUi, rerender: () => void): HTMLElement | null {
  const j = state.journal;
  if (!j || state.run?.stored?.runId !== j.runId || j.steps.length === 0) return null;
  const steps = j.steps.length;
  const at = state.scrubStep ?? state.scrub?.asked ?? steps;
  const slider = h('input', { type: 'range', id: 'scrub', min: '0', max: String(steps), step: '1', value: String(at), 'aria-label': 'Journal step' });
  const label = h('span', { class: 'scrub-label' }, describe(at, j.steps));
  slider.addEventListener('input', () => {
    label.textContent = describe(Number(slider.value), j.steps);
  });
  slider.addEventListener('change', () => {
    state.scrubStep = Number(slider.value);
    post({ type: 'scrub', v: PROTOCOL_VERSION, runId: j.runId, step: state.scrubStep });
    rerender();
  });
  const view = state.scrub && state.scrub.runId === j.runId ? state.scrub : null;
  const body = view
    ? h('div', {},
      view.step !== view.asked ? h('p', { class: 'muted', id: 'scrub-reached' }, `The replay stands at step ${view.step} here: the effects started together with step ${view.step + 1} are recorded after it, so the processes are shown as they wait for them.`) : null,
      h('div', { class: 'columns' },
      h('div', { class: 'col' }, actorTree(view.actors, ui, `Processes at step ${view.asked}`, 'scrub-'),
        section('scrub-output', 'Printed up to here', h('pre', {}, view.output.join('\n') || '(nothing yet)'))),
      h('div', { class: 'col wide' }, actorDetails(view.actors, ui, 'scrub-'))))
    : h('p', { class: 'muted' }, 'Move the slider to see every process at that step.');
  return section('scrubber', 'Time travel', h('div', { class: 'scrub-row' }, slider, label), state.scrubStep !== null && state.scrubStep !== view?.step ? h('p', { class: 'muted' }, 'replaying…') : null, body);
}

function describe(step: number, steps: { seq: number; kind: string; name: string; pid: number }[]): string {
  if (step === 0) return `step 0 of ${steps.length}: before the first step`;
  const s = steps[step - 1];
  return `step ${step} of ${steps.length}: ${s ? `${s.kind} ${s.kind === 'infer' ? s.name : s.name.replace(/^__/, '')}${s.pid >= 0 ? ` in #${s.pid}` : ''}` : ''}`;
}
