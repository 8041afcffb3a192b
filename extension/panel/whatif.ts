// The run panel's what-if and journal views, extension-host side, without `vscode` (tested in
// plain Node): a stored run's journal as JournalStepViews, and a fork of a stored run at one
// journaled model reply or effect result with an edited value (runtime forkRun), continued by the
// one resume (resumeRun), with both runs' outcomes and journals for the side-by-side view.
// The edit is typed (issue 44): a model reply's new value is checked against the infer's type (its
// schema, from the bytecode the run started with) before any fork is made, and the view names
// exactly the fields that changed.
import {
  bytesJson, describeGrant, forkable, forkRun, ForkRefused, inferSchemas, journalGrant, resumeRun, stepValue,
  type JournalEntry, type JsonSchema, type RunOptions, type RunRecord, type RunStore, type ValidationIssue,
} from '../../runtime/index.js';
import { checkAnswer } from '../forms/check.js';
import { toolResultSchema } from '../forms/tool-schemas.js';
import { changedFields, changeText } from '../forms/schema-form.js';
import type { JournalStepView, WhatIfSide, WhatIfView } from '../protocol/panel.js';
import { sharedStores, type SharedStores } from '../runs/shared-store.js';
import { clip as clipText, json } from './actor-view.js';

const MAX_VALUE = 2_000;
const clip = (s: string): string => clipText(s, MAX_VALUE);

/** One step as the panel shows it: times relative to the run's first step. */
export function stepView(e: JournalEntry, origin: number): JournalStepView {
  let value: string;
  if (e.status === 'intent' || e.status === 'unknown') value = e.status === 'unknown' ? '(unknown outcome)' : '(no outcome yet)';
  else if (forkable(e)) value = json(stepValue(e));
  else value = e.payload === null ? '' : json(bytesJson(e.payload));
  return {
    seq: e.seq,
    kind: e.kind,
    name: e.name,
    pid: e.pid,
    status: e.status,
    value: clip(value),
    at: Math.max(0, e.createdAt - origin),
    doneAt: e.completedAt === null ? null : Math.max(0, e.completedAt - origin),
    forkable: forkable(e) && (e.status === 'ok' || e.status === 'error'),
    ...grantText(e),
  };
}

function grantText(e: JournalEntry): { grant?: string } {
  const g = journalGrant(e);
  return g ? { grant: describeGrant(g) } : {};
}

export function journalSteps(store: RunStore, runId: string): JournalStepView[] {
  const entries = store.readJournal(runId);
  const origin = entries[0]?.createdAt ?? 0;
  // blocks are parts of model requests (runtime/durable/request-blocks.ts), not steps
  return entries.filter((e) => e.kind !== 'block').map((e) => stepView(e, origin));
}

/** Holds the editor's shared handle on the store at `storeDir` while `f` works (a store admits one writer per OS process). */
export async function withStore<T>(storeDir: string, f: (store: RunStore) => Promise<T> | T, stores: Pick<SharedStores, 'acquire'> = sharedStores): Promise<T> {
  const { store, release } = stores.acquire(storeDir);
  try {
    return await f(store);
  } finally {
    release();
  }
}

/** A stored run's outcome as one side of the what-if. */
function side(store: RunStore, record: RunRecord, output: string[]): WhatIfSide {
  const r = bytesJson(record.result) as { rendered?: string; message?: string; path?: string; line?: number } | null;
  return {
    runId: record.id,
    status: record.status,
    output: output.map(clip),
    result: record.status === 'done' && typeof r?.rendered === 'string' ? clip(r.rendered) : null,
    error: record.status === 'failed' && typeof r?.message === 'string' ? clip(`${r.message}${r.path ? ` (${r.path}:${r.line ?? 1})` : ''}`) : null,
    journal: journalSteps(store, record.id),
  };
}

/**
 * The fork's steps on the original's clock: the copied steps (and the edited one) happened when the
 * original ran, so they take its times; the fork's own later steps follow the edited step's end.
 */
export function onOriginalClock(fork: JournalStepView[], original: JournalStepView[], step: number): JournalStepView[] {
  const times = new Map(original.map((s) => [s.seq, s] as const));
  const edited = fork.find((s) => s.seq === step);
  const anchor = times.get(step);
  const shift = anchor && edited ? (anchor.doneAt ?? anchor.at) - (edited.doneAt ?? edited.at) : 0;
  return fork.map((s) => {
    const o = s.seq <= step ? times.get(s.seq) : undefined;
    if (o) return { ...s, at: o.at, doneAt: o.doneAt };
    return { ...s, at: Math.max(0, s.at + shift), doneAt: s.doneAt === null ? null : Math.max(0, s.doneAt + shift) };
  });
}

export interface WhatIfRequest {
  storeDir: string;
  runId: string;
  step: number;
  /** the edited value, as JSON text */
  value: string;
  /** a model reply's confidence, 0–1 (default: the runtime's EDITED_CONFIDENCE, 1) */
  confidence?: number;
  /** how the fork runs: the editor's settings (vault, approvals); the store and run id are set here */
  options: RunOptions;
  /** what the original run printed, when the panel saw it run */
  originalOutput?: string[];
  /** the editor's store handles (default: the extension host's one registry) */
  stores?: SharedStores;
}

/** The key of an effect's result type among a journal's schemas (model replies are keyed by their type's name). */
export const toolSchemaKey = (tool: string): string => `tool:${tool}`;

/**
 * A stored run's journal with the schemas of its steps' types, for the what-if form: a model
 * reply's by its type's name, an effect's result by `tool:NAME` where the tool has one type.
 */
export async function journalForm(store: RunStore, runId: string): Promise<{ steps: JournalStepView[]; schemas: Record<string, JsonSchema> }> {
  const steps = journalSteps(store, runId);
  const asked = new Set(steps.filter((s) => s.kind === 'infer').map((s) => s.name));
  let schemas: Record<string, JsonSchema> = {};
  try {
    if (asked.size > 0) schemas = await inferSchemas(store, runId);
  } catch {
    // sources this Turn no longer compiles: the form edits the values as JSON, and a fork says why it cannot resume
  }
  const out = Object.fromEntries(Object.entries(schemas).filter(([name]) => asked.has(name)));
  for (const s of steps) {
    const tool = s.kind === 'tool' ? toolResultSchema(s.name) : null;
    if (tool) out[toolSchemaKey(s.name)] = tool as JsonSchema;
  }
  return { steps, schemas: out };
}

/** An edited value that is not of the step's type: refused before any fork, each fault at its field. */
export class EditRefused extends ForkRefused {
  constructor(message: string, readonly issues: ValidationIssue[]) {
    super(message);
  }
}

/**
 * The edited value of step `entry`, checked: JSON text within bounds and, for a model reply whose
 * type is known, a value of that type (the runtime's validator, as for a model's own reply); an
 * effect's result, of its tool's result type where that is one type (else any JSON).
 */
export async function checkedEdit(store: RunStore, runId: string, entry: JournalEntry, text: string): Promise<unknown> {
  let schema = entry.kind === 'tool' ? toolResultSchema(entry.name) : null;
  if (entry.kind === 'infer') {
    try {
      schema = (await inferSchemas(store, runId))[entry.name] ?? null;
    } catch {
      schema = null; // sources this Turn no longer compiles: the fork's resume says so
    }
  }
  const checked = checkAnswer(schema, text);
  if (checked.ok) return checked.value;
  const what = entry.kind === 'infer' ? `a ${entry.name}` : schema ? `a result of ${entry.name}` : 'JSON';
  throw new EditRefused(`the new value of step ${entry.seq} is not ${what}: ${checked.message}`, checked.issues);
}

/**
 * Forks `runId` at `step` with the edited value and runs the fork to its end (or its next wait).
 * The original run is only read. Throws what forkRun / resumeRun throw (ForkRefused, RunSetupError, StoreError).
 */
export async function runWhatIf(request: WhatIfRequest): Promise<WhatIfView> {
  const stores = request.stores ?? sharedStores;
  const view = await withStore(request.storeDir, async (store) => {
    const original = store.getRun(request.runId);
    if (!original) throw new Error(`no run ${request.runId} in the store ${request.storeDir}`);
    const at = store.readJournal(request.runId).find((e) => e.seq === request.step);
    if (!at) throw new ForkRefused(`run ${request.runId} has no step ${request.step}`);
    // checked before forkRun: an ill-typed edit leaves no run behind
    const edited = forkable(at) ? await checkedEdit(store, request.runId, at, request.value) : null;
    const forked = forkRun({ store, runId: request.runId, step: request.step, edit: { value: edited, ...(request.confidence !== undefined ? { confidence: request.confidence } : {}) } });
    const output: string[] = [];
    const run = await resumeRun({ ...request.options, store, runId: forked.run.id, onOutput: (line) => output.push(line) });
    const result = await run.start();
    const fork = side(store, store.getRun(forked.run.id)!, output);
    if (result.kind === 'failed') fork.error ??= clip(`${result.error.message} (${result.error.path}:${result.error.line})`);
    else if (result.kind === 'waiting') fork.error ??= `waiting for a decision about an unknown outcome (steps ${result.unknown.map((e) => e.seq).join(', ')})`;
    else if (result.kind === 'aborted') fork.error ??= clip(result.message);
    else if (result.kind === 'suspended') fork.result ??= `suspended: ${result.runId}`;
    const originalSide = side(store, store.getRun(request.runId)!, request.originalOutput ?? []);
    fork.journal = onOriginalClock(fork.journal, originalSide.journal, request.step);
    return {
      step: request.step,
      before: clip(json(forked.before.value)),
      after: clip(json(edited)),
      changes: changedFields(forked.before.value, edited).map((c) => clip(changeText(c))),
      confidence: forked.confidence,
      original: originalSide,
      fork,
    };
  }, stores);
  stores.changed(request.storeDir); // the Runs view lists the fork
  return view;
}
