// The journal scrubber, extension-host side, without `vscode`: the state of every process of a
// stored run at one journal step (the travel API's stateAtStep, a read-only replay), as the
// panel's ActorViews.
import { renderValue, stateAtStep, type ProcessView } from '../../runtime/index.js';
import type { ActorView, ScrubView } from '../protocol/panel.js';
import { sharedStores, type SharedStores } from '../runs/shared-store.js';
import { actorView, clip } from './actor-view.js';

/** One process as the panel shows it; `names` fills in the function a finished process ran (it has no frames left). */
export function actorViewOf(p: ProcessView, names: ReadonlyMap<number, string | null | undefined> = new Map()): ActorView {
  const r = (v: unknown) => renderValue(v as never);
  return actorView({
    pid: p.pid,
    parent: p.parent,
    name: p.name ?? names.get(p.pid) ?? null,
    status: p.status,
    waitingOn: p.waitingOn,
    linked: p.linked,
    detached: p.detached,
    site: p.site ? { path: p.site.path, line: p.site.line } : null,
    context: p.context,
    memory: p.memory.map(([key, value]) => ({ key, value: r(value) })),
    mailbox: p.messages.map(r),
    result: p.status === 'done' ? r(p.result) : null,
    error: p.failure !== null ? r(p.failure) : null,
  });
}

export interface ScrubRequest {
  storeDir: string;
  runId: string;
  step: number;
  /** names of actors the panel saw run */
  names?: ReadonlyMap<number, string | null | undefined>;
  /** secrets out of every text (the run's redactor, when the panel ran it) */
  redact?: (text: string) => string;
  stores?: Pick<SharedStores, 'acquire'>;
}

export async function scrubAt(request: ScrubRequest): Promise<ScrubView> {
  const { store, release } = (request.stores ?? sharedStores).acquire(request.storeDir);
  try {
    const state = await stateAtStep({ store, runId: request.runId, step: request.step });
    const redact = request.redact ?? ((t: string) => t);
    const actors = state.processes.map((p) => actorViewOf(p, request.names));
    for (const a of actors) {
      a.memory = a.memory.map((m) => ({ key: m.key, value: redact(m.value) }));
      a.mailbox = a.mailbox.map(redact);
      if (a.result !== null) a.result = redact(a.result);
      if (a.error !== null) a.error = redact(a.error);
      for (const tier of ['P0', 'P1', 'P2'] as const) a.context[tier] = a.context[tier].map((e) => ({ ...e, text: redact(e.text) }));
    }
    return { runId: request.runId, asked: request.step, step: state.step, steps: state.lastStep, actors, output: state.output.map((l) => clip(redact(l))) };
  } finally {
    release();
  }
}
