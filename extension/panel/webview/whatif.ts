/// <reference lib="dom" />
// What-if: pick a journaled model reply or effect result of the stored run, edit its value and
// fork; then the original and the fork side by side (outcome, output, journal, timeline).
import { grantWords, stepWords, valueWords } from './journal-words.js';
import { FORK_DEFAULT_CONFIDENCE, PROTOCOL_VERSION, type ActorView, type JournalStepView, type WhatIfSide, type WhatIfView } from '../../protocol/panel.js';
import { post } from './api.js';
import { h, section } from './dom.js';
import { lanesFromJournal } from './lanes.js';
import type { State } from './state.js';
import { timelineSvg } from './timeline.js';
import { typedForm } from '../../forms/webview/form.js';
import { parseConfidence } from './values.js';
import { valueTree } from './valuetree.js';
import { VirtualList } from './virtual.js';

/** The form's first value: the step's value as the journal shows it (a clipped one that no longer parses: the type's zero). */
function initialValue(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A step in plain words (journal-words.ts); its kind and name stay in the tooltip. */
function stepWhat(s: JournalStepView): string {
  return stepWords(s);
}

/**
 * The stored run's journal as a windowed list (a 20,000-step journal draws the rows in view), each
 * model reply and effect result with a "What if…" button; a click on a row shows its value as a
 * tree under the list, and "What if…" opens the editor there (edit the value, fork and run).
 */
export class JournalPicker {
  readonly el: HTMLElement;
  private readonly title = h('h2', {}, 'Journal');
  private readonly list: VirtualList<JournalStepView>;
  private readonly below = h('div', { class: 'journal-below' });
  private steps: JournalStepView[] | null = null;
  private runId = '';
  private open: number | null = null;
  private belowSig = '';

  constructor(private readonly state: State, private readonly rerender: () => void) {
    this.list = new VirtualList({
      className: 'steps journal-list',
      rowHeight: 22,
      maxRows: 14,
      label: 'Journal steps',
      key: (s) => String(s.seq),
      signature: (s) => `${s.status}|${s.value}|${this.open === s.seq ? 1 : 0}`,
      render: (s) => {
        const row = h('div', { class: `step kind-${s.kind} status-${s.status}${s.forkable ? ' forkable' : ''}${this.open === s.seq ? ' open' : ''}`, 'data-seq': String(s.seq), tabindex: '0' },
          h('span', { class: 'seq' }, `${s.seq}`), h('span', { class: 'what', title: `${s.kind} ${s.name}` }, stepWhat(s)), h('span', { class: 'muted pid' }, s.pid >= 0 ? `#${s.pid}` : ''),
          h('code', { class: 'value', title: s.value }, valueWords(s)),
          s.grant ? h('span', { class: 'muted grant', title: s.grant }, grantWords(s.grant)) : null);
        row.addEventListener('click', () => this.show(s.seq));
        if (s.forkable) {
          const edit = h('button', { class: 'what-if secondary', title: 'Fork the run here with another value' }, 'What if…');
          edit.addEventListener('click', (e) => {
            e.stopPropagation();
            this.state.editing = { step: s.seq, text: s.value, confidence: String(FORK_DEFAULT_CONFIDENCE) };
            this.open = s.seq;
            this.rerender();
          });
          row.append(edit);
        }
        return row;
      },
    });
    this.el = h('section', { id: 'journal' }, this.title, this.list.el, this.below);
  }

  private show(seq: number): void {
    this.open = this.open === seq ? null : seq;
    if (this.state.editing && this.state.editing.step !== this.open) this.state.editing = null;
    this.rerender();
  }

  /** Whether it shows (a stored run's journal is there); updates only what changed. */
  update(): boolean {
    const j = this.state.journal;
    if (!j || this.state.run?.stored?.runId !== j.runId) return false;
    if (j.steps !== this.steps) {
      this.steps = j.steps;
      this.runId = j.runId;
      const forkable = j.steps.filter((s) => s.forkable).length;
      this.title.textContent = `Journal of run ${j.runId} (${j.steps.length} steps, ${forkable} to fork)`;
    }
    this.list.setItems(j.steps);
    const step = this.open === null ? undefined : j.steps.find((s) => s.seq === this.open);
    const editing = this.state.editing && step && this.state.editing.step === step.seq ? this.state.editing : null;
    const sig = `${step?.seq ?? ''}|${editing ? 1 : 0}|${this.state.forking ? 1 : 0}`;
    if (sig !== this.belowSig) {
      this.belowSig = sig;
      this.below.replaceChildren(...(step ? [this.stepDetails(step, editing !== null)] : []));
    }
    return true;
  }

  private stepDetails(s: JournalStepView, editing: boolean): HTMLElement {
    const box = h('div', { class: 'step-details' }, h('h3', {}, `step ${s.seq}: ${stepWhat(s)}${s.pid >= 0 ? ` in #${s.pid}` : ''} — ${s.status}`), valueTree(s.value, `value of step ${s.seq}`));
    if (!editing || !this.state.editing) return box;
    // the form of the step's type: a model reply's (its infer's schema), an effect's result's where its tool has one, else any JSON
    const schema = this.state.journal?.schemas?.[s.kind === 'infer' ? s.name : `tool:${s.name}`] ?? null;
    const go = h('button', { class: 'fork-run' }, this.state.forking ? 'Forking…' : 'Fork and run');
    // an ill-typed edit cannot be sent: the button waits until every field is right
    const form = typedForm({ schema, value: initialValue(this.state.editing.text), label: `new value for step ${s.seq}`, onChange: (r) => {
      if (this.state.editing && r.ok) this.state.editing.text = JSON.stringify(r.value);
      go.toggleAttribute('disabled', !r.ok || this.state.forking);
    } });
    // a model reply's edited value has a confidence (what `confidence x` gives the program); an effect's result has none
    const confidence = s.kind === 'infer' ? h('input', { class: 'edit-confidence', type: 'number', min: '0', max: '1', step: '0.05', 'aria-label': `confidence of the new value for step ${s.seq}` }) : null;
    if (confidence) {
      confidence.value = this.state.editing.confidence;
      confidence.addEventListener('input', () => {
        if (this.state.editing) this.state.editing.confidence = confidence.value;
      });
    }
    if (this.state.forking) go.setAttribute('disabled', '');
    go.addEventListener('click', () => {
      if (!this.state.editing) return;
      const answer = form.result();
      if (!answer.ok) return form.showIssues(answer.issues); // an ill-typed edit is refused here, at its fields, before any fork
      const c = confidence ? parseConfidence(confidence.value) : undefined;
      if (c === null) {
        this.state.notice = `the confidence must be a number from 0 to 1, not "${confidence!.value}"`;
        this.rerender();
        return;
      }
      this.state.forking = true;
      this.state.notice = null;
      post({ type: 'fork', v: PROTOCOL_VERSION, runId: this.runId, step: s.seq, value: JSON.stringify(answer.value), ...(c !== undefined ? { confidence: c } : {}) });
      this.rerender();
    });
    const cancel = h('button', { class: 'secondary' }, 'Cancel');
    cancel.addEventListener('click', () => {
      this.state.editing = null;
      this.rerender();
    });
    const typeNote = schema ? (s.kind === 'infer' ? `a ${s.name}` : `a result of ${s.name}`) : s.kind === 'infer' ? 'JSON (its type is not known here)' : 'JSON (this effect\'s result has no one type)';
    box.append(h('div', { class: 'editor' }, h('p', { class: 'muted' }, `What if step ${s.seq} had answered this instead? The new value, ${typeNote}:`), form.el,
      confidence ? h('label', { class: 'confidence-field' }, 'Confidence ', confidence, h('span', { class: 'muted' }, ` 0–1; ${FORK_DEFAULT_CONFIDENCE} (the default): you are sure of it, as of a value the program computed`)) : null,
      go, cancel));
    return box;
  }
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
        h('span', { class: 'seq' }, `${s.seq}`), ' ', h('span', { class: 'what', title: `${s.kind} ${s.name}` }, stepWords(s)), ' ',
        h('span', { class: 'muted' }, s.pid >= 0 ? `#${s.pid}` : ''), ' ', h('code', { class: 'value', title: s.value }, s.value));
    })));
}

/** What the edit changed, in words: each changed field old → new (views from before typed edits: the whole value). */
function changesText(view: WhatIfView): string {
  if (!view.changes) return `${view.before} → ${view.after}`;
  if (view.changes.length === 0) return 'nothing changed (the fork replays the same value)';
  if (view.changes.length === 1) return `changed ${view.changes[0]}`;
  return `changed ${view.changes.length} fields`;
}

/** The original and the fork side by side. */
export function whatIfResult(view: WhatIfView, width: number, close: () => void, actors: Pick<ActorView, 'pid' | 'name'>[] = []): HTMLElement {
  const dismiss = h('button', { class: 'secondary' }, 'Close');
  dismiss.addEventListener('click', close);
  const half = Math.max(360, Math.floor(width / 2) - 12);
  return section('whatif', `What if step ${view.step} had been ${view.after}?`,
    h('p', { class: 'muted whatif-banner' }, `Forked at step ${view.step}: ${changesText(view)}${typeof view.confidence === 'number' ? ` (confidence ${view.confidence})` : ''}. The original run is untouched. `, dismiss),
    view.changes && view.changes.length > 1 ? h('ul', { class: 'whatif-changes' }, ...view.changes.map((c) => h('li', {}, h('code', {}, c)))) : null,
    h('div', { class: 'sides' }, sideView('Original', view.original, view.step, half, view.fork, actors), sideView('Fork', view.fork, view.step, half, view.original, actors)));
}
