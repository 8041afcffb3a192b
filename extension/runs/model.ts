// What the Runs view shows of a store, as plain data (no `vscode` import; tested in plain Node):
// each run with its status as a person reads it, and the effects whose outcome is unknown, with the
// request each one made, for the "settle" action.
//
// The status: the store's, except that a run the store calls `running` that this editor does not
// run now was interrupted (the editor holds the store, so no other process runs it): its effects
// that started and have no recorded outcome are unknown, and the run waits on a decision about
// those that may not simply be run again (as `turn resume` would find).
import * as path from 'node:path';
import { ASK_TOOL, blockingUnknowns, bytesJson, type JournalEntry, type RunRecord, type RunStore } from '../../runtime/index.js';

export type RunState = 'running' | 'interrupted' | 'suspended' | 'waiting' | 'done' | 'failed' | 'cancelled';

export interface UnknownStep {
  runId: string;
  seq: number;
  kind: string;
  name: string;
  /** the request the effect made, as JSON text (clipped) */
  request: string;
  /** when the effect was sent (the intent's time, ms since the epoch) */
  sentAt: number;
  idempotencyKey: string | null;
  /** the tool says a retry with the same key is safe */
  idempotent: boolean;
  /** the last step before it whose outcome the journal holds */
  lastJournaled: { seq: number; kind: string; name: string; at: number } | null;
  /** a result of the same effect this run journaled before, as JSON text: the shape to give */
  example: string | null;
}

export interface RunItem {
  id: string;
  /** the entry file as recorded (relative to `cwd` when the CLI started it) */
  entry: string;
  /** the entry file's absolute path */
  entryPath: string;
  state: RunState;
  createdAt: number;
  updatedAt: number;
  /** a finished run's result or error, as one line */
  outcome: string | null;
  unknown: UnknownStep[];
  /** the steps of the questions (`ask T`) it waits on, unanswered (issue 43: "Answer…") */
  questions?: number[];
}

const MAX = 400;
const clip = (s: string): string => (s.length > MAX ? `${s.slice(0, MAX)}…` : s);

function json(b: Uint8Array | null): string {
  if (b === null) return 'null';
  try {
    return clip(JSON.stringify(bytesJson(b)));
  } catch {
    return `${b.length} bytes`;
  }
}

/** Effects of a run nobody runs now whose outcome is unknown and that wait on a person. */
export function unknownSteps(runId: string, entries: JournalEntry[]): UnknownStep[] {
  const asRecovered = entries.map((e) => (e.status === 'intent' ? { ...e, status: 'unknown' as const } : e));
  return blockingUnknowns(asRecovered).map((e) => {
    const before = entries.filter((x) => x.seq < e.seq && (x.status === 'ok' || x.status === 'error'));
    const last = before[before.length - 1];
    const same = [...before].reverse().find((x) => x.status === 'ok' && x.kind === e.kind && x.name === e.name);
    return {
      runId,
      seq: e.seq,
      kind: e.kind,
      name: e.name,
      request: json(e.request),
      sentAt: e.createdAt,
      idempotencyKey: e.idempotencyKey,
      idempotent: e.idempotent,
      lastJournaled: last ? { seq: last.seq, kind: last.kind, name: last.name, at: last.completedAt ?? last.createdAt } : null,
      example: same ? json(same.payload) : null,
    };
  });
}

function outcome(run: RunRecord): string | null {
  if (run.status !== 'done' && run.status !== 'failed' && run.status !== 'cancelled') return null;
  try {
    const v = bytesJson(run.result) as { message?: unknown; rendered?: unknown } | null;
    if (run.status !== 'done' && typeof v?.message === 'string') return clip(v.message);
    // a finished run's result as the program's value renders it (the store keeps {rendered, json})
    if (run.status === 'done' && typeof v?.rendered === 'string') return clip(v.rendered);
    return clip(JSON.stringify(v));
  } catch {
    return null;
  }
}

/** The runs of a store, newest first; `live` holds the ids this editor runs now. */
export function listRunItems(store: RunStore, live: ReadonlySet<string> = new Set()): RunItem[] {
  return store.listRuns().map((run) => {
    const cwd = typeof run.meta.cwd === 'string' ? run.meta.cwd : '';
    let state: RunState = run.status;
    let unknown: UnknownStep[] = [];
    let questions: number[] = [];
    if ((run.status === 'running' && !live.has(run.id)) || run.status === 'waiting') {
      const entries = store.readJournal(run.id);
      unknown = unknownSteps(run.id, entries);
      state = unknown.length > 0 ? 'waiting' : run.status === 'waiting' ? 'suspended' : 'interrupted';
      questions = entries.filter((e) => e.kind === 'tool' && e.name === ASK_TOOL && (e.status === 'intent' || e.status === 'unknown')).map((e) => e.seq);
    }
    return {
      id: run.id,
      entry: run.entry,
      entryPath: path.resolve(cwd, run.entry),
      state,
      createdAt: run.createdAt,
      updatedAt: run.updatedAt,
      outcome: outcome(run),
      unknown,
      ...(questions.length > 0 ? { questions } : {}),
    };
  });
}

const STATE_TEXT: Record<RunState, string> = {
  running: 'running',
  interrupted: 'interrupted (resume to continue)',
  suspended: 'suspended',
  waiting: 'waiting on an unknown outcome',
  done: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
};

export function stateText(state: RunState): string {
  return STATE_TEXT[state];
}

/** What a run may do next: the Runs view's actions follow this (its `contextValue`). */
export function actionsOf(item: RunItem): { resume: boolean; settle: boolean; migrate: boolean; delete: boolean; answer: boolean } {
  const open = item.state === 'suspended' || item.state === 'interrupted';
  return {
    resume: open,
    // a question nobody could answer when the run asked it: answered in the typed form, then resumed
    answer: open && (item.questions?.length ?? 0) > 0,
    settle: item.state === 'waiting',
    // a run moves to new code at a wait point, once nothing blocks it (prepareResume)
    migrate: item.state === 'suspended',
    delete: item.state !== 'running',
  };
}

/** "3 min ago", for the list. */
export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} d ago`;
}

/** `text` as Markdown that shows exactly `text` (a file's base name may hold `*`, `[`, `<`...). */
export function markdownText(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|~<>&]/g, (c) => (c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '&' ? '&amp;' : `\\${c}`));
}

/** The bold first line of a run's tooltip: its entry file's base name (escaped) and its status. */
export function tooltipHeading(item: Pick<RunItem, 'entry' | 'state'>, where = ''): string {
  return `**${markdownText(path.basename(item.entry))}** — ${stateText(item.state)}${where}\n\n`;
}
