// A stored run as the run panel shows it (the Runs view's "Open in Panel"): its status and result
// from the store, its processes from the latest snapshot (taken at `suspend;`), and its journal as
// the timeline. What a run printed is not stored, so a stored run shows no output. No `vscode`
// import.
import * as path from 'node:path';
import { inspectRun, type JournalEntry, type RunStore } from '../../runtime/index.js';
import { actorView, clip, json } from '../panel/actor-view.js';
import type { ActorStatus, RunStatus, RunView, TimelineItem } from '../protocol/panel.js';
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
  view.output = [`(run ${runId} from the store ${storeDir}: what it printed is not stored)`];
  if (inspection.snapshot && 'processes' in inspection.snapshot) {
    view.actors = inspection.snapshot.processes.map((p) => actorView({
      pid: p.pid,
      parent: p.parent,
      name: p.name,
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
  }
  view.timeline = journalTimeline(store.readJournal(runId)).slice(-2_000);
  return view;
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
  for (const e of journal) {
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
