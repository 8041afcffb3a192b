// `ask T { prompt }` (issue 43) as the answer webview asks it (no `vscode`; tested in plain Node):
// the program's prompt, where it asks, the form generated from T (fields, enums as choices, optional
// fields, validation as the person types), and Answer. Cancel (or closing the panel) is the
// program's AskError. A re-ask after a refused answer shows why it was refused.
import type { AskQuestion } from '../../runtime/index.js';
import type { QuestionView } from './protocol.js';

/** The most characters of the prompt shown (the program chooses it). */
const PROMPT_MAX = 4_000;

/** What a question to a person shows, whether it comes from a live run or a stored one. */
export interface AskView {
  typeName: string;
  prompt: string;
  schema: object | null;
  /** `p.tn:12`, or a stored run's step */
  where: string;
  /** why the previous answer was refused (a re-ask) */
  errors?: { path: string; message: string }[];
}

export function askView(q: AskQuestion): AskView {
  const file = q.location.path.split(/[\\/]/).pop() ?? q.location.path;
  return { typeName: q.typeName, prompt: q.prompt, schema: q.schema, where: `${file}:${q.location.line}`, ...(q.errors ? { errors: q.errors } : {}) };
}

export function askQuestionView(v: AskView): QuestionView {
  const prompt = v.prompt.length > PROMPT_MAX ? `${v.prompt.slice(0, PROMPT_MAX)}…` : v.prompt;
  const refused = (v.errors ?? []).slice(0, 5).map((e) => `the last answer was refused: ${e.path || '/'} ${e.message}`);
  return {
    title: `The program asks (ask ${v.typeName})`,
    facts: [...prompt.split('\n'), `asked at ${v.where}; the answer must be of type ${v.typeName}, and is journaled`, ...refused],
    request: null,
    choices: [{ id: 'answer', label: 'Answer', detail: `give the program this ${v.typeName}`, takes: 'value' }],
    schema: v.schema,
    resumable: false,
    action: 'Answer',
  };
}
