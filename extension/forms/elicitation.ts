// An MCP server's question (elicitation, runtime/mcp/elicitation.ts) as the answer webview asks it
// (no `vscode`; tested in plain Node): the server's message, the typed form of its requested
// schema (a flat object of strings, numbers, booleans and enums), and Answer or Decline. The run
// API calls the editor's answerer (`RunOptions.elicit`) after any `--answer` given up front.
import type { RunOptions } from '../../runtime/index.js';
import type { Answer } from './answer.js';
import type { QuestionView } from './protocol.js';

type Elicit = NonNullable<RunOptions['elicit']>;
export type ElicitationQuestion = Parameters<Elicit>[0];
export type ElicitationAnswer = NonNullable<Awaited<ReturnType<Elicit>>>;

/** The webview's question for a form-mode elicitation; null for a URL one (the next answerer in line takes it). */
export function elicitationQuestion(q: ElicitationQuestion): QuestionView | null {
  if (q.mode !== 'form') return null;
  return {
    title: `${q.server} asks`,
    facts: [q.message, `question ${q.key} (the CLI answers it with --answer ${q.key}=…)`],
    request: null,
    choices: [
      { id: 'accept', label: 'Answer', detail: `send the fields below to ${q.server}`, takes: 'value' },
      { id: 'decline', label: 'Decline', detail: `tell ${q.server} no`, takes: 'nothing' },
    ],
    schema: q.requestedSchema ?? { type: 'object', properties: {} },
    resumable: false,
  };
}

/**
 * What the server is told. Only flat values go back (strings, numbers, booleans, lists of
 * strings), whatever the server's schema allowed: the answer type says so, and a hostile schema
 * does not widen it.
 */
export function elicitationAnswer(a: Answer): ElicitationAnswer {
  if (a.choice !== 'accept') return { action: 'decline' };
  const content: Record<string, string | number | boolean | string[]> = {};
  if (typeof a.value === 'object' && a.value !== null && !Array.isArray(a.value)) {
    for (const [k, v] of Object.entries(a.value)) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') content[k] = v;
      else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) content[k] = v;
    }
  }
  return { action: 'accept', content };
}
