// A stored run as the run panel shows it (the Runs view's "Open in Panel"): its status and result
// from the store, its processes from the latest snapshot (taken at `suspend;`) or, without one, from
// the journal's steps, its model calls (prompt, reply) and what it printed from the journal, and its
// journal as the timeline. No `vscode` import.
import * as path from 'node:path';
import { blocksOfStore, bytesJson, inspectRun, journalProcesses, reassembledOrNote, SPAWN_KIND, type JournalEntry, type RunStore } from '../../runtime/index.js';
import { actorView, clip, json } from '../panel/actor-view.js';
import type { ActorStatus, ActorView, InferAttemptView, InferView, RunStatus, RunView, TimelineItem } from '../protocol/panel.js';
import { emptyRun } from '../protocol/panel.js';

/** How a stored run's status shows in the panel: a `running` run that no process runs was interrupted. */
export function panelStatus(status: string): RunStatus {
  switch (status) {
    case 'done':
    case 'suspended':
    case 'waiting':
      return status;
    case 'failed':
    case 'cancelled':
      return 'failed';
    default:
      return 'stopped';
  }
}

function actorStatus(s: string): ActorStatus {
  return s === 'ready' || s === 'done' || s === 'failed' ? s : 'waiting';
}

/** The panel's view of stored run `runId` (throws the store's error for a run that is not there). */
export function storedRunView(store: RunStore, runId: string, storeDir: string, viewId: number): RunView {
  const inspection = inspectRun(store, runId, 2_000);
  const run = inspection.run;
  const entry = typeof run.meta.cwd === 'string' ? path.resolve(run.meta.cwd, run.entry) : run.entry;
  const model = typeof (run.meta.options as { model?: unknown } | undefined)?.model === 'string' ? String((run.meta.options as { model: string }).model) : '';
  const view = emptyRun(viewId, entry, model);
  view.status = panelStatus(run.status);
  view.stored = { runId, storeDir };
  if (run.status === 'done') view.result = clip(json(run.result));
  else if (run.status === 'failed' || run.status === 'cancelled') {
    const r = run.result as { message?: unknown } | null;
    view.error = { message: clip(typeof r?.message === 'string' ? r.message : json(r)), site: null };
  } else if (run.status === 'waiting') {
    const steps = inspection.open.filter((e) => e.status === 'unknown').map((e) => e.seq);
    view.error = { message: `waiting for a decision about an unknown outcome (steps ${steps.join(', ')}): settle it in the Runs view`, site: null };
  }
  const journal = store.readJournal(runId);
  view.output = journalOutput(journal);
  if (inspection.snapshot && 'processes' in inspection.snapshot) {
    view.actors = inspection.snapshot.processes.map((p) => actorView({
      pid: p.pid,
      parent: p.parent,
      name: p.name,
      ...(p.after ? { after: p.after.slice() } : {}),
      status: actorStatus(p.status),
      waitingOn: p.waiting,
      linked: false,
      detached: false,
      site: null,
      context: p.context,
      memory: p.memory,
      mailbox: p.mailbox,
      result: null,
      error: null,
    }));
  } else view.actors = journalActors(journal, run.status);
  view.infers = journalInfers(journal, blocksOfStore(store, runId));
  // every step (the webview draws the part in view)
  view.timeline = journalTimeline(journal);
  return view;
}

/**
 * The part of stored run `runId`'s journal that resuming it does not run again: the steps up to its
 * latest snapshot and the suspend it was taken at (the resume restores the run there). Without a
 * snapshot, none: the resume replays the journal from its start, and the replay's events show
 * every step again (a model call, a spawn), so taking them from the journal too would show them twice.
 */
export function journalBeforeResume(store: RunStore, runId: string): JournalEntry[] {
  let snapshot;
  try {
    snapshot = store.latestSnapshot(runId);
  } catch {
    return []; // a snapshot that cannot be read is not restored: the resume replays from the start
  }
  if (!snapshot) return [];
  const upTo = snapshot.seq + 1;
  return store.readJournal(runId).filter((e) => e.seq <= upTo);
}

/** What the run printed: its journaled `output` steps (a run from before they were journaled printed nothing here). */
export function journalOutput(journal: JournalEntry[]): string[] {
  const lines: string[] = [];
  for (const e of journal) {
    if (e.kind !== 'output' || e.payload === null) continue;
    const line = bytesJson(e.payload);
    lines.push(clip(typeof line === 'string' ? line : json(line)));
  }
  return lines;
}

/**
 * The processes of a run stored without a snapshot (one that ran to its end), from its journal
 * (runtime/durable/process-names.ts): every process it spawned, with its parent and name; from a
 * journal written before spawns were recorded, each process that took a step (main is #1, the
 * others its children, unnamed).
 */
export function journalActors(journal: JournalEntry[], runStatus: string): ActorView[] {
  const status: ActorStatus = runStatus === 'done' ? 'done' : runStatus === 'failed' || runStatus === 'cancelled' ? 'failed' : 'waiting';
  const empty = { P0: [], P1: [], P2: [], limits: { working: 0, episodic: 0 } };
  return journalProcesses(journal).map((p) => actorView({
    pid: p.pid, parent: p.parent ?? (p.pid === 1 ? 0 : 1), name: p.name, status, waitingOn: null, linked: false, detached: false, site: null,
    context: empty, memory: [], mailbox: [], result: null, error: null,
  }));
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map((x) => clip(typeof x === 'string' ? x : json(x))) : []);

/**
 * The model calls of a stored run, from its `infer` steps: what each asked (the prompt and context
 * tiers, reassembled from the run's blocks) and what came back. A retry is the next attempt of the
 * process's previous call of the same type.
 */
export function journalInfers(journal: JournalEntry[], blocks: ReturnType<typeof blocksOfStore>): InferView[] {
  const out: InferView[] = [];
  const lastOf = new Map<number, InferView>();
  for (const e of journal) {
    if (e.kind !== 'infer' || e.pid < 0) continue;
    const request = e.request ?? null;
    const asked = request ? reassembledOrNote(bytesJson(request), blocks) as { attempt?: unknown; prompt?: unknown; context?: { P0?: unknown; P1?: unknown; P2?: unknown } } : null;
    const reply = e.status === 'ok' && e.payload ? bytesJson(e.payload) as { text?: unknown; value?: unknown; confidence?: unknown } | null : null;
    const n = typeof asked?.attempt === 'number' ? asked.attempt : 1;
    const attempt: InferAttemptView = {
      attempt: n,
      prompt: { P0: strings(asked?.context?.P0), P2: strings(asked?.context?.P2), P1: strings(asked?.context?.P1), task: typeof asked?.prompt === 'string' ? clip(asked.prompt) : '' },
      feedback: [],
      schema: null,
      raw: reply ? clip(typeof reply.text === 'string' ? reply.text : json(reply.value)) : null,
      repairs: [],
      errors: e.status === 'error' && e.payload ? [clip(json(bytesJson(e.payload)))] : [],
      valid: e.status === 'ok' ? true : e.status === 'error' ? false : null,
      confidence: typeof reply?.confidence === 'number' ? reply.confidence : null,
    };
    const state: InferView['state'] = e.status === 'ok' ? 'ok' : e.status === 'error' ? 'failed' : 'pending';
    const last = lastOf.get(e.pid);
    if (n > 1 && last && last.type === e.name) {
      last.attempts.push(attempt);
      last.state = state;
      continue;
    }
    const view: InferView = { id: `step-${e.seq}`, pid: e.pid, type: e.name, site: null, attempts: [attempt], state };
    lastOf.set(e.pid, view);
    out.push(view);
  }
  return out;
}

/**
 * A journal as timeline items of the kinds a live run's events have (a model call or an effect is
 * a request at the step's time and, once its outcome came, a reply), so the panel draws a stored
 * run, and the part of a resumed run from before the resume, as it draws a live one. `ms` counts
 * from the journal's first step.
 */
export function journalTimeline(journal: JournalEntry[]): TimelineItem[] {
  const origin = journal[0]?.createdAt ?? 0;
  const out: TimelineItem[] = [];
  const spawns = new Map(journalProcesses(journal).map((p) => [p.pid, p.parent] as const));
  for (const e of journal) {
    if (e.kind === SPAWN_KIND && e.idempotencyKey === null && e.pid > 1) {
      // a spawn as the live run's `process.spawn` event: the process's lane starts here, as it did live
      out.push({ seq: e.seq, pid: e.pid, site: null, ms: Math.max(0, e.createdAt - origin), kind: 'process.spawn', summary: `spawn #${e.pid} (parent #${spawns.get(e.pid) ?? '?'})`, state: 'done' });
      continue;
    }
    if (e.pid < 0 || (e.kind !== 'infer' && e.kind !== 'tool' && e.kind !== 'suspend')) continue;
    const at = Math.max(0, e.createdAt - origin);
    const done = e.completedAt === null ? null : Math.max(0, e.completedAt - origin);
    const state: TimelineItem['state'] = e.status === 'unknown' ? 'unknown' : e.status === 'intent' ? 'pending' : 'done';
    const base = { seq: e.seq, pid: e.pid, site: null };
    if (e.kind === 'infer') {
      out.push({ ...base, ms: at, kind: 'infer.request', summary: clip(`infer ${e.name} (step ${e.seq})`), state });
      if (done !== null) out.push({ ...base, ms: done, kind: e.status === 'error' ? 'infer.error' : 'infer.reply', summary: e.status === 'error' ? `infer failed (step ${e.seq})` : `reply (step ${e.seq})`, state: 'done' });
      continue;
    }
    const tool = e.kind === 'suspend' ? '__suspend' : e.name;
    out.push({ ...base, ms: at, kind: 'tool.request', summary: clip(`effect ${tool}`), state });
    // a suspend's wait lasts until the run resumes (the resumed run's reply closes it), not until its snapshot was written
    if (done !== null && e.kind !== 'suspend') out.push({ ...base, ms: done, kind: 'tool.reply', summary: clip(`effect ${tool} ${e.status === 'error' ? 'failed' : 'done'}`), state: 'done' });
  }
  return out.sort((a, b) => a.ms - b.ms);
}
