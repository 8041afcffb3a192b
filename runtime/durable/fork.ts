// What-if (issue 14): a new run that shares a stored run's past up to one journaled model reply or
// effect result, with that one value edited. `forkRun` copies the journal's steps before step N
// into a new run of the same store (its keys renamed to the new run), records step N with the
// edited outcome, and leaves the new run suspended: the one resume (runtime/run `resumeRun`)
// then replays the copied steps and the edited one and goes on live from there. The original run
// is only read.
import { type JournalEntry, type RunRecord, type RunStore } from '../store/types.js';
import { bytesJson, jsonBytes } from './index.js';
import { getRun } from './runs.js';
import { journalKey, logicalKey } from './keys.js';

/**
 * The edited outcome of the forked step: a value (a model reply's value, an effect's result) or an
 * error. A model reply's edited value carries `confidence` (in [0, 1]); without one it is
 * EDITED_CONFIDENCE: a person wrote it, so it is as certain as a value the program computed.
 */
export type ForkEdit = { value: unknown; confidence?: number } | { error: string };

/** The confidence of an edited model reply when the person gives none. */
export const EDITED_CONFIDENCE = 1;

export interface ForkOptions {
  store: RunStore;
  /** the run to fork (left untouched) */
  runId: string;
  /** the journal step (seq) whose outcome is replaced: an `infer` or a host tool (`tool`) step */
  step: number;
  edit: ForkEdit;
  /** the new run's id (generated when omitted) */
  newId?: string;
}

export interface Forked {
  /** the new run, suspended: `resumeRun({ store, runId: run.id })` continues it from the edited step */
  run: RunRecord;
  /** the steps copied before the edited one */
  copied: number;
  /** the step's outcome before the edit, decoded (null when it was unknown) */
  before: { status: JournalEntry['status']; value: unknown };
  /** the confidence the edited model reply was journaled with (null: an effect's result, or an error) */
  confidence: number | null;
}

/** A fork the journal does not allow, with the reason as one line for a person. */
export class ForkRefused extends Error {
  override name = 'ForkRefused';
}

/** Steps a fork may edit: model replies and host tool results (not clocks, timers, suspends or decisions). */
export function forkable(entry: JournalEntry): boolean {
  return entry.kind === 'infer' || entry.kind === 'tool';
}

/** The value of a journaled step's outcome as a person edits it: an infer's reply value, a tool's result. */
export function stepValue(entry: JournalEntry): unknown {
  if (entry.status !== 'ok') return entry.status === 'error' ? bytesJson(entry.payload) : null;
  const v = bytesJson(entry.payload);
  if (entry.kind !== 'infer' || typeof v !== 'object' || v === null) return v;
  const reply = v as { value?: unknown; text?: string };
  if ('value' in reply) return reply.value;
  if (typeof reply.text === 'string') {
    try {
      const parsed = JSON.parse(reply.text) as unknown;
      return typeof parsed === 'object' && parsed !== null && 'value' in parsed ? parsed.value : parsed;
    } catch {
      return reply.text;
    }
  }
  return v;
}

/** Forks run `runId` at `step` with an edited outcome. Throws ForkRefused or StoreError. */
export function forkRun(options: ForkOptions): Forked {
  const { store, runId, step, edit } = options;
  const source = getRun(store, runId);
  const entries = store.readJournal(runId);
  const at = entries.find((e) => e.seq === step);
  if (!at) throw new ForkRefused(`run ${runId} has no step ${step} (its journal has ${entries.length} steps)`);
  if (!forkable(at)) {
    throw new ForkRefused(`step ${step} of run ${runId} is a ${at.kind} step (${at.name}); a fork edits a model reply (infer) or an effect's result (tool)`);
  }
  const confidence = 'value' in edit ? editedConfidence(at, step, edit.confidence) : undefined;
  const run = store.createRun({
    ...(options.newId ? { id: options.newId } : {}),
    entry: source.entry,
    // the bytecode it started with: migrations before the step are copied with the journal
    bytecodeHash: source.bytecodeHash,
    semanticsVersion: source.semanticsVersion,
    policies: source.policies,
    meta: { ...source.meta, forkOf: { runId, step, ...(confidence !== undefined ? { confidence } : {}) } },
  });
  try {
    let copied = 0;
    for (const e of entries) {
      if (e.seq > step) break;
      const key = renamed(e, runId, run.id);
      const base = { kind: e.kind, name: e.name, pid: e.pid, inputHash: e.inputHash, idempotencyKey: key, idempotent: e.idempotent };
      if (e.seq === step) {
        const seq = store.appendJournal(run.id, { ...base, status: 'intent', payload: e.request });
        if ('error' in edit) store.completeJournal(run.id, seq, 'error', jsonBytes(edit.error));
        else store.completeJournal(run.id, seq, 'ok', jsonBytes(e.kind === 'infer' ? { value: edit.value, confidence } : edit.value));
        break;
      }
      copy(store, run.id, e, base);
      copied++;
    }
    store.setRunStatus(run.id, 'suspended');
    return { run: getRun(store, run.id), copied, before: { status: at.status, value: stepValue(at) }, confidence: confidence ?? null };
  } catch (e) {
    try {
      store.setRunStatus(run.id, 'failed', jsonBytes({ message: `the fork of ${runId} at step ${step} did not complete` }));
    } catch {
      // the store failed: the half-made fork stays as it is, and its status says running
    }
    throw e;
  }
}

/** The confidence an edited model reply is journaled with: the one given (checked), else EDITED_CONFIDENCE; none for an effect. */
function editedConfidence(at: JournalEntry, step: number, given: number | undefined): number | undefined {
  if (at.kind !== 'infer') {
    if (given !== undefined) throw new ForkRefused(`step ${step} is an effect's result (${at.name}): only a model reply has a confidence`);
    return undefined;
  }
  if (given === undefined) return EDITED_CONFIDENCE;
  if (typeof given !== 'number' || !Number.isFinite(given) || given < 0 || given > 1) {
    throw new ForkRefused(`the confidence of the edited reply must be a number from 0 to 1, not ${JSON.stringify(given)}`);
  }
  return given;
}

/** An entry's key in the new run: `turn:<old>:<k>` becomes `turn:<new>:<k>` (decision keys keep their seq: seqs are the same). */
function renamed(e: JournalEntry, from: string, to: string): string | null {
  const logical = logicalKey(from, e.idempotencyKey);
  return logical === null ? e.idempotencyKey : journalKey(to, logical);
}

/** Copies one step with its outcome: an effect as intent → outcome (keeping its request), an observation as it was. */
function copy(store: RunStore, to: string, e: JournalEntry, base: { kind: string; name: string; pid: number; inputHash: string | null; idempotencyKey: string | null; idempotent: boolean }): void {
  if (e.request !== null || e.status === 'intent' || e.status === 'unknown') {
    const seq = store.appendJournal(to, { ...base, status: 'intent', payload: e.request });
    if (e.status === 'ok' || e.status === 'error') store.completeJournal(to, seq, e.status, e.payload);
    // an intent or unknown outcome stays open: the resume marks it unknown, as it was
    return;
  }
  store.appendJournal(to, { ...base, status: e.status, payload: e.payload });
}
