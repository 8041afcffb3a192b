// The open questions of a stored run (issue 43): an `ask T` that nobody could answer when the run
// reached it (no terminal, no editor) left its step unrun and the run `waiting`. `turn answer` (and
// the editor's Runs view) answers one here: the answer is checked against T — the schema compiled
// from the run's stored code, never the one its journal holds — and recorded as the step's result,
// so `turn resume` replays it and never asks again. The VM checks it once more where it is bound.
import type { JournalEntry, RunStore } from '../store/types.js';
import { ASK_TOOL } from '../ports/ask.js';
import { checkAnswer, type CheckedAnswer } from '../ask/answer.js';
import { bytesJson } from './index.js';
import { ResumeRefused, getRun, settleUnknown, type Settled } from './runs.js';
import { inferSchemas } from './step-schemas.js';
import type { JsonSchema } from '../infer/schema.js';

/** A question a stored run waits on. */
export interface OpenQuestion {
  seq: number;
  typeName: string;
  prompt: string;
  /** T as the run's code compiles it (null: the store no longer has the code) */
  schema: JsonSchema | null;
}

/** The `ask` steps of run `id` that have no answer yet, oldest first (the store's open intents are unknown from now on). */
export async function openQuestions(store: RunStore, id: string): Promise<OpenQuestion[]> {
  const run = getRun(store, id);
  if (run.status === 'done' || run.status === 'failed' || run.status === 'cancelled') return [];
  store.markUnknownOnRecovery(id); // the store is ours: no process runs this run
  const open = store.readJournal(id).filter((e) => e.kind === 'tool' && e.name === ASK_TOOL && (e.status === 'unknown' || e.status === 'intent'));
  if (open.length === 0) return [];
  const schemas = await inferSchemas(store, id);
  return open.map((e) => {
    const asked = askedOf(e);
    return { seq: e.seq, typeName: asked.typeName, prompt: asked.prompt, schema: Object.hasOwn(schemas, asked.typeName) ? schemas[asked.typeName] : null };
  });
}

/** What an ask's intent recorded (outside data: only strings are taken from it). */
function askedOf(e: JournalEntry): { typeName: string; prompt: string } {
  const r = bytesJson(e.payload ?? e.request) as { args?: unknown } | null;
  const args = Array.isArray(r?.args) ? r.args : [];
  return { typeName: typeof args[0] === 'string' ? args[0] : '?', prompt: typeof args[2] === 'string' ? args[2] : '' };
}

export type Answered = Settled & { question: OpenQuestion };

/**
 * Answers the open question `step` of run `id` (the only one, when `step` is undefined) with
 * `value`. Throws ResumeRefused when there is no such question, or the answer is not a T (`checked`
 * then says why, each issue at its JSON Pointer); nothing is written then.
 */
export async function answerQuestion(store: RunStore, id: string, value: unknown, step?: number): Promise<Answered> {
  const open = await openQuestions(store, id);
  let question: OpenQuestion | undefined;
  if (step === undefined) {
    if (open.length === 0) throw new ResumeRefused(`run ${id} waits on no question`);
    if (open.length > 1) throw new ResumeRefused(`run ${id} waits on ${open.length} questions (steps ${open.map((q) => q.seq).join(', ')}): name one with --step`);
    question = open[0];
  } else {
    question = open.find((q) => q.seq === step);
    if (!question) throw new ResumeRefused(`step ${step} of run ${id} is not an open question${open.length > 0 ? ` (open: steps ${open.map((q) => q.seq).join(', ')})` : ''}`);
  }
  if (!question.schema) throw new ResumeRefused(`the store has no code for run ${id}: the type of its question (ask ${question.typeName}) is unknown`);
  const checked: CheckedAnswer = checkAnswer(question.schema, value);
  if (!checked.ok) throw Object.assign(new ResumeRefused(`the answer is not a ${question.typeName}: ${checked.message}`), { checked });
  return { ...settleUnknown(store, id, question.seq, { ok: checked.value }, true), question };
}
