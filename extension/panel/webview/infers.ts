/// <reference lib="dom" />
// The run's `infer` exchanges: a windowed list of one line each; the chosen one (a click) shows
// every attempt under the list: the prompt as rendered (its reply-format schema pretty-printed and
// folded), the retry feedback, the raw reply and its value as a tree, repairs, validation errors.
import type { InferAttemptView, InferView } from '../../protocol/panel.js';
import { h, section, siteLink } from './dom.js';
import { jsonTree, valueTree } from './valuetree.js';
import { splitSchema } from './prompt-parts.js';
import { VirtualList } from './virtual.js';
import { calibrationDetails } from './calibration.js';
import { calibrationLine } from './reliability.js';
import { mediaStrip } from './media.js';

function attemptView(at: InferAttemptView): HTMLElement {
  const { text, schema } = splitSchema(at.prompt.task);
  const reply = at.raw === null ? null : (() => {
    try {
      const r = JSON.parse(at.raw) as { value?: unknown };
      return r !== null && typeof r === 'object' && 'value' in r ? JSON.stringify(r.value) : at.raw;
    } catch {
      return at.raw;
    }
  })();
  return h('div', { class: 'attempt' },
    h('h4', {}, `attempt ${at.attempt}: ${at.valid === null ? 'waiting' : at.valid ? 'valid' : 'invalid'}${at.confidence !== null ? `, ${at.calibration ? calibrationLine(at.confidence, at.calibration) : `confidence ${at.confidence}`}` : ''}`),
    at.calibration ? calibrationDetails(at.calibration.map) : null,
    h('h5', {}, 'prompt (as rendered: P0, P2, P1, task)'),
    h('pre', { class: 'prompt' }, [...at.prompt.P0, ...at.prompt.P2, ...at.prompt.P1, text].join('\n\n')),
    mediaStrip([...at.prompt.P0, ...at.prompt.P2, ...at.prompt.P1, text]),
    schema !== undefined ? h('div', { class: 'prompt-schema' }, h('h5', {}, 'the reply format the prompt ends with (JSON Schema)'), jsonTree(schema, 'reply schema')) : null,
    at.feedback.length ? h('pre', { class: 'feedback' }, at.feedback.join('\n')) : null,
    h('h5', {}, 'schema'), jsonTree(at.schema, 'schema'),
    at.raw === null && at.streamed ? h('div', { class: 'streaming' }, h('h5', {}, `reply so far (streaming: ${at.streamed.tokens} tokens in ${(at.streamed.elapsedMs / 1000).toFixed(1)} s)`),
      at.streamed.partial ? h('div', { class: 'partial-value' },
        h('h5', {}, 'value so far (the complete fields; checked when the reply is whole)'), valueTree(at.streamed.partial.value, 'value so far'),
        at.streamed.partial.writing ? h('p', { class: 'muted writing' }, 'writing ', h('code', {}, at.streamed.partial.writing.path), ': ', h('code', {}, `${at.streamed.partial.writing.text}…`)) : null) : null,
      h('pre', { class: 'raw partial' }, at.streamed.text)) : null,
    h('h5', {}, 'raw reply'), h('pre', { class: 'raw' }, at.raw ?? '(none yet)'),
    reply !== null ? h('div', {}, h('h5', {}, 'reply value'), valueTree(reply, 'reply value')) : null,
    at.repairs.length ? h('div', {}, h('h5', {}, 'repairs'), h('pre', {}, at.repairs.join('\n'))) : null,
    at.errors.length ? h('div', {}, h('h5', {}, 'validation errors'), h('pre', { class: 'error' }, at.errors.join('\n'))) : null,
  );
}

export class InferList {
  readonly el: HTMLElement;
  private readonly title = h('h2', {}, 'Inferences');
  private readonly list: VirtualList<InferView>;
  private readonly below = h('div', { class: 'infer-below' });
  private open: string | null = null;
  private infers: InferView[] = [];
  private belowSig = '';

  constructor() {
    this.list = new VirtualList({
      className: 'infer-list',
      rowHeight: 22,
      maxRows: 10,
      label: 'Inferences',
      key: (i) => i.id,
      signature: (i) => `${i.state}|${i.attempts.length}|${i.attempts.at(-1)?.streamed?.tokens ?? ''}|${this.open === i.id ? 1 : 0}`,
      render: (i) => {
        const row = h('div', { class: `infer state-${i.state}${this.open === i.id ? ' open' : ''}`, tabindex: '0' },
          `${i.id} infer ${i.type} in #${i.pid} — ${i.state}, ${i.attempts.length} attempt${i.attempts.length === 1 ? '' : 's'}${i.attempts.at(-1)?.streamed ? `, streaming ${i.attempts.at(-1)!.streamed!.tokens} tokens` : ''} `, siteLink(i.site));
        row.addEventListener('click', () => {
          this.open = this.open === i.id ? null : i.id;
          this.update(this.infers);
        });
        return row;
      },
    });
    this.el = section('infers', 'Inferences', this.list.el, this.below);
    this.el.replaceChild(this.title, this.el.firstChild!);
  }

  update(infers: InferView[]): void {
    this.infers = infers;
    this.title.textContent = `Inferences (${infers.length})`;
    this.list.setItems(infers);
    const i = this.open === null ? undefined : infers.find((x) => x.id === this.open);
    const sig = i ? JSON.stringify(i) : '';
    if (sig === this.belowSig) return;
    this.belowSig = sig;
    this.below.replaceChildren(...(i ? [h('div', { class: 'infer-details' }, h('h3', {}, `${i.id} infer ${i.type} in #${i.pid} — ${i.state} `, siteLink(i.site)), ...i.attempts.map(attemptView))] : []));
  }
}
