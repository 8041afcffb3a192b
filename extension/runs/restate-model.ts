// What the Runs view shows of a Restate server (docs/scale-out.md) and does there, as plain data
// (no `vscode` import; tested in plain Node against a real restate-server): its runs with their
// status (the admin API), a run as the run panel shows it (its state loaded into an in-memory
// store, then the local stored-run view), resume and settling an unknown outcome (the ingress).
// Everything goes through the runtime's Restate client; every failure is one line for a person
// that names the setting to check, never a stack trace.
import {
  listRestateRuns, resolveRestateRun, resumeRestateRun, runDump, runStatus, RestateError, storeFromDump, waitForRun,
  type RunSummary, type Settlement,
} from '../../runtime/index.js';
import type { RunView } from '../protocol/panel.js';
import type { RestateSettings } from '../settings.js';
import { unknownSteps, type RunItem, type UnknownStep } from './model.js';
import { storedRunView } from './stored-view.js';

/** A failure talking to the server, as the Runs view says it. */
export function restateMessage(e: unknown, server: RestateSettings): string {
  if (e instanceof RestateError) {
    if (e.status === 0 && /^--restate(-admin)? must be/.test(e.message)) {
      return e.message.replace(/^--restate-admin/, 'turn.restate.adminUrl').replace(/^--restate/, 'turn.restate.ingressUrl');
    }
    if (e.status === 0) return `${e.message.replace(/; is restate-server running there\?$/, '')}: is restate-server running, and are turn.restate.ingressUrl (${server.ingress}) and turn.restate.adminUrl (${server.admin}) right?`;
    return e.message;
  }
  return e instanceof Error ? e.message : String(e);
}

/** Runs the call, with a RestateError's message made one line for the editor. */
async function talk<T>(server: RestateSettings, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw new Error(restateMessage(e, server));
  }
}

/** The unknown steps a waiting run waits on, with their requests (for "settle"). */
async function waitingSteps(server: RestateSettings, id: string): Promise<UnknownStep[]> {
  const d = await runDump(server.ingress, id);
  const seqs = new Set(d.wait?.unknown ?? []);
  const store = storeFromDump(d);
  return unknownSteps(id, store.readJournal(id)).filter((s) => seqs.size === 0 || seqs.has(s.seq));
}

/**
 * The runs on the server, newest first, as Runs view items. A run on Restate is never
 * "interrupted": Restate retries it on a worker; `running` is what it is.
 */
export async function listRestateItems(server: RestateSettings): Promise<RunItem[]> {
  return talk(server, async () => {
    const rows = await listRestateRuns(server.admin);
    return Promise.all(
      rows.map(async (r): Promise<RunItem> => {
        const state = r.status as RunItem['state'];
        return {
          id: r.id,
          entry: r.entry,
          entryPath: r.entry,
          state,
          createdAt: r.createdAt,
          updatedAt: r.updatedAt,
          outcome: null,
          unknown: state === 'waiting' ? await waitingSteps(server, r.id) : [],
        };
      }),
    );
  });
}

/** What the Runs view offers for a run on Restate (no migrate, no delete: the server keeps its runs). */
export function restateActionsOf(item: RunItem): { resume: boolean; settle: boolean } {
  return { resume: item.state === 'suspended', settle: item.state === 'waiting' };
}

/**
 * Run `id` as the run panel shows it: status, result or error, what it printed, its processes
 * from the latest snapshot and its journal as the timeline. It has no local store, so the panel's
 * scrubber and what-if (which replay a local journal) are not offered for it.
 */
export async function restateRunView(server: RestateSettings, id: string, viewId: number): Promise<RunView> {
  return talk(server, async () => {
    const d = await runDump(server.ingress, id);
    const view = storedRunView(storeFromDump(d), id, server.ingress, viewId);
    view.stored = null;
    view.output = [`(run ${id} on the Restate server at ${new URL(server.ingress).origin})`, ...d.output];
    if (d.run.status === 'waiting') {
      view.error = { message: `waiting for a decision about an unknown outcome (steps ${(d.wait?.unknown ?? []).join(', ')}): settle it in the Runs view`, site: null };
    }
    return view;
  });
}

/** Resumes a suspended run; resolves with how it stands once it no longer runs (done, failed, suspended again, waiting). */
export async function resumeOnRestate(server: RestateSettings, id: string): Promise<RunSummary> {
  return talk(server, async () => {
    const before = (await runStatus(server.ingress, id)).wait?.promise;
    await resumeRestateRun(server.ingress, id);
    return waitForRun(server.ingress, id, 100, before);
  });
}

/** Settles unknown step `seq` of a waiting run; resolves with how it stands afterwards. */
export async function settleOnRestate(server: RestateSettings, id: string, seq: number, settlement: Settlement): Promise<RunSummary> {
  return talk(server, async () => {
    const before = (await runStatus(server.ingress, id)).wait?.promise;
    await resolveRestateRun(server.ingress, id, { seq, ...settlement });
    return waitForRun(server.ingress, id, 100, before);
  });
}

/** One line for a notification: how a run stands after a resume or a settlement. */
export function summaryText(s: RunSummary): string {
  const r = s.result as { rendered?: unknown; message?: unknown } | null;
  switch (s.status) {
    case 'done':
      return `run ${s.id} is done${r && typeof r.rendered === 'string' ? `: ${r.rendered}` : ''}`;
    case 'failed':
    case 'cancelled':
      return `run ${s.id} ${s.status}${r && typeof r.message === 'string' ? `: ${r.message}` : ''}`;
    case 'waiting':
      return `run ${s.id} waits for a decision about step(s) ${(s.wait?.unknown ?? []).join(', ')}`;
    default:
      return `run ${s.id} is ${s.status}`;
  }
}
