/// <reference lib="dom" />
// The playground's webview (docs/editor.md, *Playground*): the inputs of the function (a typed
// form from its parameters' types, extension/forms/) with Run and a re-run-on-save toggle, and
// the result pane: the value, then per model call and per attempt, side by side, the messages as
// the provider got them (with their roles), the request's parameters, the raw reply, and the parsed
// value with its validation errors and repairs; tokens and time on each. No inline styles or
// code (the CSP allows none): looks come from playground.css.
import type { AttemptView, InferView } from '../../../runtime/index.js';
import { typedForm, type TypedForm } from '../../forms/webview/form.js';
import type { PlayHostMessage, PlayResultView, PlayWebviewMessage } from '../protocol.js';

interface VsCodeApi {
  postMessage(m: PlayWebviewMessage): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();
const post = (m: PlayWebviewMessage): void => vscode.postMessage(m);

type Child = Node | string | null | undefined | false;
function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return el;
}

const root = document.getElementById('turn-panel')!;
const header = h('header', { class: 'play-header' });
const inputs = h('section', { class: 'play-inputs', 'aria-label': 'inputs' });
const result = h('section', { class: 'play-result', 'aria-label': 'result' });
root.append(header, inputs, result);

let form: TypedForm | undefined;
const runButton = h('button', { class: 'play-run', type: 'button' }, 'Run');
const onSave = h('input', { type: 'checkbox', class: 'play-rerun', id: 'play-rerun' });
runButton.addEventListener('click', () => {
  const r = form?.result();
  if (r && !r.ok) return; // the form shows its problems at the fields
  post({ type: 'run', args: form ? form.text() : '{}' });
});
onSave.addEventListener('change', () => post({ type: 'rerunOnSave', on: onSave.checked }));

function showTarget(m: Extract<PlayHostMessage, { type: 'target' }>): void {
  const signature = m.target.kind === 'function' ? `${m.target.name}(${m.params.map((p) => (p.type ? `${p.name}: ${p.type}` : p.name)).join(', ')})${m.returns ? ` -> ${m.returns}` : ''}` : `test "${m.target.name}"`;
  onSave.checked = m.rerunOnSave;
  header.replaceChildren(
    h('span', { class: 'play-target' }, h('code', {}, signature), h('span', { class: 'muted' }, ` in ${m.file}`)),
    runButton,
    h('label', { class: 'play-rerun-label', for: 'play-rerun' }, onSave, ' Re-run on save'),
  );
  if (m.schema === null) {
    form = undefined;
    inputs.replaceChildren(h('p', { class: 'muted' }, m.target.kind === 'test' ? 'A test takes no inputs.' : 'No inputs.'));
  } else {
    let value: unknown;
    if (m.args !== '') {
      try {
        value = JSON.parse(m.args) as unknown;
      } catch {
        value = undefined;
      }
    }
    const schema = m.schema;
    const slot = h('div', { class: 'play-form' });
    const setForm = (v: unknown): void => {
      form = typedForm({ schema, ...(v !== undefined ? { value: v } : {}), label: 'arguments' });
      slot.replaceChildren(form.el);
    };
    setForm(value);
    // inputs from a test: each literal call of the function in its test cases
    let pick: HTMLElement | null = null;
    if (m.fromTests.length > 0) {
      const select = h('select', { class: 'play-from-test', 'aria-label': 'inputs from a test' }, h('option', { value: '' }, 'Inputs from a test…'), ...m.fromTests.map((t, i) => h('option', { value: String(i) }, t.label)));
      select.addEventListener('change', () => {
        const chosen = m.fromTests[Number(select.value)];
        if (select.value === '' || !chosen) return;
        try {
          setForm(JSON.parse(chosen.args) as unknown);
        } catch {
          // the host made this JSON: it parses
        }
      });
      pick = select;
    }
    inputs.replaceChildren(h('h2', {}, 'Inputs'), ...(pick ? [pick] : []), slot);
  }
  result.replaceChildren();
}

const pre = (text: string, cls: string): HTMLElement => h('pre', { class: cls }, text);

function parsedOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const o = JSON.parse(raw) as unknown;
    return JSON.stringify(o !== null && typeof o === 'object' && 'value' in o ? (o).value : o, null, 2);
  } catch {
    return undefined;
  }
}

function attemptRow(view: PlayResultView, infer: InferView, a: AttemptView): HTMLElement {
  const messages = h('div', { class: 'play-col play-messages' }, h('h4', {}, 'Messages sent'), ...a.messages.map((m) => h('div', { class: `play-message role-${m.role}`, 'data-role': m.role }, h('span', { class: 'play-role' }, m.role), pre(m.content, 'play-content'))));
  const p = view.parameters;
  const rows: [string, string][] = [['model', p.model]];
  if (p.temperature !== undefined) rows.push(['temperature', String(p.temperature)]);
  if (p.maxTokens !== undefined) rows.push(['max tokens', String(p.maxTokens)]);
  if (p.seed !== undefined) rows.push(['seed', String(p.seed)]);
  for (const [k, v] of Object.entries(a.options)) rows.push([`${k} (infer)`, String(v)]);
  rows.push(['attempt', String(a.attempt)]);
  if (a.usage) rows.push(['tokens', `${a.usage.inputTokens ?? 0} in, ${a.usage.outputTokens ?? 0} out${a.usage.cachedTokens ? `, ${a.usage.cachedTokens} cached` : ''}`]);
  if (a.latencyMs !== undefined) rows.push(['time', `${a.latencyMs} ms`]);
  if (a.finishReason !== undefined) rows.push(['finish', a.finishReason]);
  const request = h('div', { class: 'play-col play-request' }, h('h4', {}, 'Request'), h('table', { class: 'play-params' }, ...rows.map(([k, v]) => h('tr', {}, h('th', {}, k), h('td', {}, v)))));
  const raw = h('div', { class: 'play-col play-raw' }, h('h4', {}, 'Raw reply'), a.error !== undefined ? pre(a.error, 'error') : a.raw !== undefined ? pre(a.raw, 'play-raw-text') : h('p', { class: 'muted' }, 'no reply'));
  const parsed = parsedOf(a.raw);
  const verdict = h(
    'div',
    { class: 'play-col play-parsed' },
    h('h4', {}, 'Parsed'),
    a.valid === true ? h('p', { class: 'status-done' }, `valid${a.confidence !== undefined ? `, confidence ${a.confidence.toFixed(2)}` : ''}`) : a.valid === false ? h('p', { class: 'status-failed' }, a.attempt < infer.attempts.length ? 'rejected: re-asked' : 'rejected') : null,
    parsed !== undefined ? pre(parsed, 'play-parsed-value') : null,
    a.errors.length > 0 ? h('ul', { class: 'play-errors' }, ...a.errors.map((e) => h('li', { class: 'error' }, `${e.path || '(the value)'}: ${e.message}`))) : null,
    a.repairs.length > 0 ? h('ul', { class: 'play-repairs' }, ...a.repairs.map((r) => h('li', { class: 'muted' }, `repaired: ${r}`))) : null,
  );
  return h('div', { class: 'play-attempt', 'data-attempt': String(a.attempt) }, messages, request, raw, verdict);
}

function showResult(view: PlayResultView): void {
  runButton.disabled = false;
  const summary = h(
    'div',
    { class: 'play-summary', 'data-status': view.status },
    h('h2', { class: `status-${view.status}` }, view.status === 'done' ? 'Value' : `Run ${view.status}`),
    view.value !== undefined ? pre(view.value, 'play-value') : null,
    view.error !== undefined ? pre(view.error, 'play-error error') : null,
    h(
      'p',
      { class: 'play-totals muted' },
      `${view.infers.length} model call${view.infers.length === 1 ? '' : 's'} · ${view.tokens.input} tokens in, ${view.tokens.output} out · ${view.durationMs} ms`,
      view.replayed > 0 ? ` · ${view.replayed} repl${view.replayed === 1 ? 'y' : 'ies'} replayed (prompt unchanged)` : '',
    ),
    view.output.length > 0 ? h('details', {}, h('summary', {}, `Output (${view.output.length} line${view.output.length === 1 ? '' : 's'})`), pre(view.output.join('\n'), 'play-output')) : null,
  );
  const infers = view.infers.map((infer) =>
    h(
      'section',
      { class: 'play-infer', 'data-type': infer.type },
      h('h3', {}, `infer ${infer.type}`, h('span', { class: 'muted' }, ` · ${infer.attempts.length} attempt${infer.attempts.length === 1 ? '' : 's'}`)),
      h('details', { class: 'play-schema' }, h('summary', {}, 'Schema sent'), pre(JSON.stringify(infer.schema, null, 2), 'play-schema-text')),
      ...infer.attempts.map((a) => attemptRow(view, infer, a)),
    ),
  );
  result.replaceChildren(summary, ...infers);
}

window.addEventListener('message', (event: MessageEvent<PlayHostMessage>) => {
  const m = event.data;
  switch (m.type) {
    case 'target':
      showTarget(m);
      return;
    case 'running':
      runButton.disabled = true;
      result.replaceChildren(h('p', { class: 'play-running muted' }, 'Running…'));
      return;
    case 'result':
      showResult(m.view);
      return;
  }
});

post({ type: 'ready' });
