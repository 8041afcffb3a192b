// Messages between the extension host and the answer webview (a question a person answers
// through a typed form: settling an unknown outcome; the same form as the what-if's). Both sides
// validate what they receive: the webview is not trusted, and neither is the host's data shape.
import type { FormIssue } from './schema-form.js';

export const ANSWER_PROTOCOL = 1;

/** One way to answer: a value through the typed form, a message (an error's), or nothing more. */
export interface ChoiceView {
  id: string;
  label: string;
  detail: string;
  takes: 'value' | 'message' | 'nothing';
}

/** What the webview asks. */
export interface QuestionView {
  title: string;
  /** facts above the choices, one a line */
  facts: string[];
  /** the effect's request, readable: a headline (`POST https://…`) and labelled parts */
  request: { headline: string; parts: { label: string; text: string }[] } | null;
  /** in the order shown; the first is chosen at first */
  choices: ChoiceView[];
  /** the schema of a `value` answer (null: any JSON) and its first value */
  schema: object | null;
  value?: unknown;
  /** a `message` answer's first text */
  message?: string;
  /** the answer can also resume the run ("Settle and resume"; else settle only) */
  resumable: boolean;
  /** the go button's words when the answer does not resume (default "Settle"): "Answer", "Decide" */
  action?: string;
}

export type AnswerHostMessage =
  | { type: 'question'; v: 1; question: QuestionView }
  /** the host refused the answer: why, at its fields */
  | { type: 'refused'; v: 1; message: string; issues: FormIssue[] };

export type AnswerWebviewMessage =
  | { type: 'ready'; v: 1 }
  /** `value`: JSON text of a `value` answer; `message`: a `message` answer's text */
  | { type: 'answer'; v: 1; choice: string; value?: string; message?: string; resume: boolean }
  | { type: 'cancel'; v: 1 };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === 'string';
const strs = (v: unknown): boolean => Array.isArray(v) && v.every(str);
const issue = (v: unknown): boolean => isObj(v) && str(v.path) && str(v.message);
const choice = (v: unknown): boolean => isObj(v) && str(v.id) && str(v.label) && str(v.detail) && (v.takes === 'value' || v.takes === 'message' || v.takes === 'nothing');
const part = (v: unknown): boolean => isObj(v) && str(v.label) && str(v.text);

export function isQuestionView(q: unknown): q is QuestionView {
  return isObj(q) && str(q.title) && strs(q.facts)
    && (q.request === null || (isObj(q.request) && str(q.request.headline) && Array.isArray(q.request.parts) && q.request.parts.every(part)))
    && Array.isArray(q.choices) && q.choices.length > 0 && q.choices.every(choice)
    && (q.schema === null || isObj(q.schema)) && (q.message === undefined || str(q.message)) && typeof q.resumable === 'boolean' && (q.action === undefined || str(q.action));
}

export function isAnswerHostMessage(m: unknown): m is AnswerHostMessage {
  if (!isObj(m) || m.v !== ANSWER_PROTOCOL) return false;
  if (m.type === 'question') return isQuestionView(m.question);
  if (m.type === 'refused') return str(m.message) && Array.isArray(m.issues) && m.issues.every(issue);
  return false;
}

export function isAnswerWebviewMessage(m: unknown): m is AnswerWebviewMessage {
  if (!isObj(m) || m.v !== ANSWER_PROTOCOL) return false;
  switch (m.type) {
    case 'ready':
    case 'cancel':
      return true;
    case 'answer':
      return str(m.choice) && (m.value === undefined || str(m.value)) && (m.message === undefined || str(m.message)) && typeof m.resume === 'boolean';
    default:
      return false;
  }
}
