// A stored run as the run panel shows it (the Runs view's "Open in Panel"): its status and result
// from the store, its processes from the latest snapshot (taken at `suspend;`), and its journal as
// the timeline. What a run printed is not stored, so a stored run shows no output. No `vscode`
// import.
import * as path from 'node:path';
import { inspectRun, type RunStore } from '../../runtime/index.js';
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
  const journal = store.readJournal(runId);
  const origin = journal[0]?.createdAt ?? 0;
  view.timeline = journal.slice(-2_000).map((e): TimelineItem => ({
    seq: e.seq,
    ms: Math.max(0, e.createdAt - origin),
    kind: `journal.${e.kind}`,
    pid: e.pid >= 0 ? e.pid : null,
    summary: clip(`${e.kind} ${e.name}: ${e.status}`),
    state: e.status === 'unknown' ? 'unknown' : e.status === 'intent' ? 'pending' : 'done',
    site: null,
  }));
  return view;
}
