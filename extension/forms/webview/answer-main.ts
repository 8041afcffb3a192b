/// <reference lib="dom" />
// The answer webview's script (bundled by esbuild into dist/webview/answer.js): draws the host's
// question — its facts, the effect's request readably, the choices in order, the typed form for a
// value, a message box for an error — and posts the answer. The host checks it again
// (forms/answer.ts) and sends back any refusal, shown at the fields.
import { ANSWER_PROTOCOL, isAnswerHostMessage, type AnswerWebviewMessage, type QuestionView } from '../protocol.js';
import { typedForm, type TypedForm } from './form.js';

interface VsCodeApi {
  postMessage(m: AnswerWebviewMessage): void;
}
declare function acquireVsCodeApi(): VsCodeApi;
const vscode = acquireVsCodeApi();
const post = (m: AnswerWebviewMessage) => vscode.postMessage(m);

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string | null)[]): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) if (c !== null) e.append(c);
  return e;
}

const root = document.getElementById('turn-answer')!;
let form: TypedForm | null = null;
const refusal = el('p', { class: 'error answer-refused', role: 'alert' });

function show(q: QuestionView): void {
  let chosen = q.choices[0].id;
  form = typedForm({ schema: q.schema, value: q.value, label: 'answer' });
  const message = el('textarea', { class: 'form-json answer-message', rows: '2', 'aria-label': 'the error message' });
  message.value = q.message ?? '';
  const valueBox = el('div', { class: 'answer-value' }, form.el);
  const messageBox = el('div', { class: 'answer-message-box' }, el('label', {}, 'Message the program sees: '), message);
  const resume = el('input', { type: 'checkbox', class: 'answer-resume', 'aria-label': 'resume the run after' });
  resume.checked = q.resumable;
  const go = el('button', { class: 'answer-go' });
  const label = () => (go.textContent = q.resumable && resume.checked ? 'Settle and resume' : (q.action ?? 'Settle'));
  resume.addEventListener('change', label);
  label();
  const choices = el('div', { class: 'answer-choices', role: 'radiogroup', 'aria-label': 'what happened' });
  const sync = () => {
    const c = q.choices.find((x) => x.id === chosen)!;
    valueBox.hidden = c.takes !== 'value';
    messageBox.hidden = c.takes !== 'message';
    refusal.textContent = '';
  };
  for (const c of q.choices) {
    const r = el('input', { type: 'radio', name: 'choice', value: c.id, 'data-choice': c.id });
    r.checked = c.id === chosen;
    r.addEventListener('change', () => {
      chosen = c.id;
      sync();
    });
    // each choice with what it takes right under it: the typed form, or the message box
    const takes = c.takes === 'value' ? valueBox : c.takes === 'message' ? messageBox : null;
    choices.append(el('div', { class: 'answer-option' }, el('label', { class: 'answer-choice' }, r, ' ', el('strong', {}, c.label), el('span', { class: 'muted' }, ` — ${c.detail}`)), takes));
  }
  go.addEventListener('click', () => {
    const c = q.choices.find((x) => x.id === chosen)!;
    const wantsResume = q.resumable && resume.checked;
    if (c.takes === 'value') {
      const r = form!.result();
      if (!r.ok) {
        form!.showIssues(r.issues);
        refusal.textContent = 'fix the fields marked above';
        return;
      }
      post({ type: 'answer', v: ANSWER_PROTOCOL, choice: c.id, value: JSON.stringify(r.value), resume: wantsResume });
    } else if (c.takes === 'message') post({ type: 'answer', v: ANSWER_PROTOCOL, choice: c.id, message: message.value, resume: wantsResume });
    else post({ type: 'answer', v: ANSWER_PROTOCOL, choice: c.id, resume: wantsResume });
  });
  const cancel = el('button', { class: 'secondary' }, 'Cancel');
  cancel.addEventListener('click', () => post({ type: 'cancel', v: ANSWER_PROTOCOL }));
  const request = q.request
    ? el('section', { class: 'answer-request' }, el('h3', {}, 'Request'), el('p', {}, el('code', { class: 'answer-headline' }, q.request.headline)),
      ...q.request.parts.map((p) => el('div', {}, el('h4', {}, p.label), el('pre', { class: 'output' }, p.text))))
    : null;
  const parts: Node[] = [el('h2', {}, q.title), el('ul', { class: 'answer-facts muted' }, ...q.facts.map((f) => el('li', {}, f)))];
  if (request) parts.push(request);
  parts.push(choices, el('div', { class: 'answer-actions' }, q.resumable ? el('label', {}, resume, ' and resume the run') : null, go, cancel), refusal);
  root.replaceChildren(...parts);
  sync();
}

window.addEventListener('message', (e: MessageEvent<unknown>) => {
  const m = e.data;
  if (!isAnswerHostMessage(m)) return;
  if (m.type === 'question') show(m.question);
  else {
    refusal.textContent = m.message;
    if (m.issues.length > 0) form?.showIssues(m.issues);
  }
});
post({ type: 'ready', v: ANSWER_PROTOCOL });
