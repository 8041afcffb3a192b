// What the playground's result pane shows of each model call, read from a run's events: per
// `infer`, per attempt, the messages as a chat provider sent them (system, user, then for each
// re-ask the rejected reply as the assistant's turn and the validation errors as the user's), the
// request's parameters (the infer's own `with { ... }` options; the schema once per infer), the
// raw reply, its validation errors and repairs, its tokens and its time.
//
// The messages are rebuilt the way runtime/providers/messages.ts builds them (chatTurns): the
// system text is the P0 entries joined, the user text the P2 then P1 entries and the task (with
// renderPrompt and userText, the same functions), and a re-ask appends the rejected reply and the
// feedback text the request event carries. A test holds the two equal.
import type { RunEvent } from '../events/index.js';
import { renderPrompt, userText } from '../context/render.js';
import { rejectedExcerpt } from '../infer/repair.js';
import type { ValidationIssue } from '../infer/types.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface AttemptView {
  attempt: number;
  messages: ChatMessage[];
  /** the infer's own `with { ... }` options as written (`max_tokens`, `seed`, `temperature`, ...) */
  options: Record<string, number>;
  /** the reply as the model gave it; absent when the call failed or is still waiting */
  raw?: string;
  valid?: boolean;
  errors: ValidationIssue[];
  repairs: string[];
  /** the model call failed (the provider's error) */
  error?: string;
  usage?: { inputTokens?: number; outputTokens?: number; cachedTokens?: number };
  confidence?: number;
  finishReason?: string;
  latencyMs?: number;
}

export interface InferView {
  id: string;
  pid: number;
  type: string;
  /** the wire schema the model was asked to fill (the same for every attempt: shown once) */
  schema: unknown;
  attempts: AttemptView[];
}

/** The model calls of a run, in the order they were asked. */
export function inferViews(events: readonly RunEvent[]): InferView[] {
  const views = new Map<string, InferView>();
  const attemptOf = (id: string, attempt: number): AttemptView | undefined => views.get(id)?.attempts.find((a) => a.attempt === attempt);
  for (const e of events) {
    if (e.kind === 'infer.request') {
      let view = views.get(e.id);
      if (!view) {
        view = { id: e.id, pid: e.pid, type: e.type, schema: e.schema, attempts: [] };
        views.set(e.id, view);
      }
      // a self-consistent call's samples share the attempt: its messages are the same
      if (attemptOf(e.id, e.attempt)) continue;
      const rendered = renderPrompt({ system: e.prompt.P0, episodic: e.prompt.P2, working: e.prompt.P1 }, e.prompt.task);
      const messages: ChatMessage[] = [];
      if (rendered.system !== '') messages.push({ role: 'system', content: rendered.system });
      messages.push({ role: 'user', content: userText(rendered) });
      // each earlier rejected reply, then what the model was told about it
      e.feedback.forEach((feedback, i) => {
        // quoted as the driver quoted it: bounded, head and tail (runtime/infer/repair.ts)
        const raw = rejectedExcerpt(view.attempts[i]?.raw ?? '');
        messages.push({ role: 'assistant', content: raw.length > 0 ? raw : '(an empty reply)' });
        messages.push({ role: 'user', content: feedback });
      });
      view.attempts.push({ attempt: e.attempt, messages, options: { ...(e.options ?? {}) }, errors: [], repairs: [] });
    } else if (e.kind === 'infer.reply') {
      const a = attemptOf(e.id, e.attempt);
      if (!a) continue;
      a.raw = e.raw;
      a.valid = e.valid;
      a.errors = e.errors;
      a.repairs = e.repairs;
      if (e.usage) a.usage = { ...(e.usage.inputTokens !== undefined ? { inputTokens: e.usage.inputTokens } : {}), ...(e.usage.outputTokens !== undefined ? { outputTokens: e.usage.outputTokens } : {}), ...(e.usage.cachedTokens !== undefined ? { cachedTokens: e.usage.cachedTokens } : {}) };
      if (e.confidence) a.confidence = e.confidence.value;
      if (e.finishReason !== null) a.finishReason = e.finishReason;
      a.latencyMs = e.latencyMs;
    } else if (e.kind === 'infer.error') {
      const a = attemptOf(e.id, e.attempt);
      if (!a) continue;
      a.error = e.error;
      a.latencyMs = e.latencyMs;
    }
  }
  return [...views.values()];
}
