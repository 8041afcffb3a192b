// The host's reading of an answer from the answer webview (no `vscode`; tested in plain Node):
// which of the question's choices it is, and its value checked against the question's schema with
// the runtime's validator (check.ts) or its message bounded. The webview is never trusted: a
// choice the question did not offer, an ill-typed value or an empty message is refused.
import { checkAnswer } from './check.js';
import type { AnswerWebviewMessage, QuestionView } from './protocol.js';
import type { FormIssue } from './schema-form.js';

export const MAX_MESSAGE = 2_000;

/** The chosen way, whether to resume after, and the value or message it takes. */
export interface Answer {
  choice: string;
  resume: boolean;
  value?: unknown;
  message?: string;
}

export type Read = { ok: true; answer: Answer } | { ok: false; message: string; issues: FormIssue[] };

export function readAnswer(question: QuestionView, m: Extract<AnswerWebviewMessage, { type: 'answer' }>): Read {
  const c = question.choices.find((x) => x.id === m.choice);
  if (!c) return { ok: false, message: `"${m.choice.slice(0, 40)}" is not one of the choices`, issues: [] };
  const resume = m.resume && question.resumable;
  if (c.takes === 'value') {
    const checked = checkAnswer(question.schema, m.value ?? '');
    if (!checked.ok) return { ok: false, message: `the result is refused: ${checked.message}`, issues: checked.issues };
    return { ok: true, answer: { choice: c.id, resume, value: checked.value } };
  }
  if (c.takes === 'message') {
    const text = (m.message ?? '').trim();
    if (text === '') return { ok: false, message: 'give a message: the program sees it as the error', issues: [] };
    if (text.length > MAX_MESSAGE) return { ok: false, message: `the message is longer than ${MAX_MESSAGE} characters`, issues: [] };
    return { ok: true, answer: { choice: c.id, resume, message: text } };
  }
  return { ok: true, answer: { choice: c.id, resume } };
}
