/// <reference lib="dom" />
// The journal scrubber: a slider over a stored run's journal steps; at the chosen step, every
// process's state, context tiers and memory as the travel API reconstructs them (the host answers
// a `scrub` request with a ScrubView). Made once; its process tree and details are the same
// windowed components as the live run's (actors.ts).
import { stepWords } from './journal-words.js';
import { PROTOCOL_VERSION, type ScrubView } from '../../protocol/panel.js';
import { ActorDetails, ActorTree, type ActorUi } from './actors.js';
import { post } from './api.js';
import { h } from './dom.js';
import type { State } from './state.js';

export class Scrubber {
  readonly el: HTMLElement;
  private readonly slider: HTMLInputElement;
  private readonly label = h('span', { class: 'scrub-label' });
  private readonly status = h('div', {});
  private readonly body = h('div', {});
  private readonly tree: ActorTree;
  private readonly details: ActorDetails;
  private readonly output = h('pre', {});
  private readonly reached = h('p', { class: 'muted', id: 'scrub-reached' });
  private readonly layout: HTMLElement;
  private view: ScrubView | null = null;

  constructor(private readonly state: State, ui: ActorUi, private readonly rerender: () => void) {
    this.slider = h('input', { type: 'range', id: 'scrub', min: '0', step: '1', 'aria-label': 'Journal step' });
    this.slider.addEventListener('input', () => {
      const j = this.state.journal;
      if (j) this.label.textContent = describe(Number(this.slider.value), j.steps);
    });
    this.slider.addEventListener('change', () => {
      const j = this.state.journal;
      if (!j) return;
      this.state.scrubStep = Number(this.slider.value);
      post({ type: 'scrub', v: PROTOCOL_VERSION, runId: j.runId, step: this.state.scrubStep });
      this.rerender();
    });
    this.tree = new ActorTree(ui, 'Processes', 'scrub-');
    this.details = new ActorDetails(ui, 'scrub-');
    this.layout = h('div', {}, this.reached,
      h('div', { class: 'columns' },
        h('div', { class: 'col' }, this.tree.el, h('section', { id: 'scrub-output' }, h('h2', {}, 'Printed up to here'), this.output)),
        h('div', { class: 'col wide' }, this.details.el)));
    this.el = h('section', { id: 'scrubber' }, h('h2', {}, 'Time travel'), h('div', { class: 'scrub-row' }, this.slider, this.label), this.status, this.body);
  }

  /** Whether it shows (a stored run's journal is there). */
  update(): boolean {
    const j = this.state.journal;
    if (!j || this.state.run?.stored?.runId !== j.runId || j.steps.length === 0) return false;
    const steps = j.steps.length;
    const at = this.state.scrubStep ?? this.state.scrub?.asked ?? steps;
    this.slider.max = String(steps);
    if (document.activeElement !== this.slider) this.slider.value = String(at);
    this.label.textContent = describe(at, j.steps);
    const view = this.state.scrub && this.state.scrub.runId === j.runId ? this.state.scrub : null;
    this.status.replaceChildren(...(this.state.scrubStep !== null && this.state.scrubStep !== view?.step ? [h('p', { class: 'muted' }, 'replaying…')] : []));
    if (!view) {
      this.view = null;
      this.body.replaceChildren(h('p', { class: 'muted' }, 'Move the slider to see every process at that step.'));
      return true;
    }
    if (view !== this.view) {
      this.view = view;
      this.reached.hidden = view.step === view.asked;
      this.reached.textContent = `The replay stands at step ${view.step} here: the effects started together with step ${view.step + 1} are recorded after it, so the processes are shown as they wait for them.`;
      this.output.textContent = view.output.join('\n') || '(nothing yet)';
      if (this.body.firstChild !== this.layout) this.body.replaceChildren(this.layout);
    }
    this.tree.update(view.actors, `Processes at step ${view.asked}`);
    this.details.update(view.actors);
    return true;
  }
}

function describe(step: number, steps: { seq: number; kind: string; name: string; pid: number }[]): string {
  if (step === 0) return `step 0 of ${steps.length}: before the first step`;
  const s = steps[step - 1];
  return `step ${step} of ${steps.length}: ${s ? `${stepWords(s)}${s.pid >= 0 ? ` in #${s.pid}` : ''}` : ''}`;
}
