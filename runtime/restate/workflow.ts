// The `TurnRun` Restate workflow: one Turn run per workflow id (the run id). Its `run` handler is
// one more host of the run API: it rebuilds the run's store from its Restate journal
// (journal.ts), then `resumeRun` replays and continues it exactly as `turn resume` does from a
// local store. `suspend;` and an unknown outcome end the run in this attempt; the workflow then
// waits on a durable promise (`resume-<n>`, `decide-<n>`), which `resume` and `resolve` complete
// from any machine. The shared handlers read the state the store mirrors.
import * as restate from '@restatedev/restate-sdk';
import { resumeRun, RunSetupError } from '../run/index.js';
import { storeMessage, SEMANTICS_VERSION, POLICY_VERSIONS, jsonBytes } from '../durable/index.js';
import type { RunStatus } from '../store/types.js';
import { RestateRunStore } from './journal.js';
import { restatePlacement } from './placement.js';
import { SERVICE, type EntryJson, type RunDump, type RunJson, type RunSummary, type Submission, type Wake } from './codec.js';

const FINAL: RunStatus[] = ['done', 'failed', 'cancelled'];

/** Where a worker reaches Restate from inside a handler (a placed child is started through the ingress). */
export interface RestateUrls {
  ingress: string;
  admin: string;
}

async function drive(ctx: restate.WorkflowContext, sub: Submission, cwd: string, urls: RestateUrls | undefined): Promise<RunSummary> {
  const id = ctx.key;
  const store = new RestateRunStore(ctx, id);
  let pending = await store.replay();
  for (;;) {
    if (pending) {
      store.wake(pending);
      pending = undefined;
    }
    if (!store.getRun(id)) {
      store.putBundle(sub.bytecodeHash, new Uint8Array(Buffer.from(sub.sources, 'base64')));
      store.createRun({
        id,
        entry: sub.entry,
        bytecodeHash: sub.bytecodeHash,
        semanticsVersion: sub.semanticsVersion,
        policies: POLICY_VERSIONS,
        meta: { cwd, submittedBy: sub.turnVersion, options: sub.options },
      });
    }
    const run = store.getRun(id)!;
    if (FINAL.includes(run.status)) return await summary(store);
    let result;
    try {
      const placement = sub.spread && urls ? { placement: restatePlacement(urls, id, sub) } : {};
      const r = await resumeRun({ runId: id, store, onOutput: (line) => store.output(line), ...placement });
      result = await r.start();
    } catch (e) {
      const message = e instanceof RunSetupError ? e.message : storeMessage(e);
      const why = e instanceof RunSetupError && e.kind !== 'refused' ? message : `${message} (this worker runs Turn semantics ${SEMANTICS_VERSION}; the run was submitted by Turn ${sub.turnVersion})`;
      if (!FINAL.includes(store.getRun(id)!.status)) store.setRunStatus(id, 'failed', jsonBytes({ message: why }));
      return await summary(store);
    }
    if (result.kind === 'suspended') pending = await store.wait('resume', []);
    else if (result.kind === 'waiting') pending = await store.wait('decide', result.unknown.map((e) => e.seq));
    else {
      if (result.kind === 'aborted' || result.kind === 'stopped') {
        const message = result.kind === 'aborted' ? result.message : result.reason;
        if (!FINAL.includes(store.getRun(id)!.status)) store.setRunStatus(id, 'failed', jsonBytes({ message }));
      }
      return await summary(store);
    }
  }
}

async function summary(store: RestateRunStore): Promise<RunSummary> {
  await store.whenDurable();
  const r = store.getRun(store.runId)!;
  return { id: r.id, status: r.status, entry: r.entry, output: [...store.lines], result: r.result ? JSON.parse(Buffer.from(r.result).toString('utf8')) : null, wait: null };
}

async function stateSummary(ctx: restate.WorkflowSharedContext): Promise<RunSummary> {
  const run = await ctx.get<RunJson>('run');
  if (!run) throw new restate.TerminalError(`no run ${ctx.key} on this Restate server`, { errorCode: 404 });
  const keys = await ctx.stateKeys();
  const outs = keys.filter((k) => k.startsWith('o:')).map((k) => Number(k.slice(2))).sort((a, b) => a - b);
  const output: string[] = [];
  for (const i of outs) output.push((await ctx.get<string>(`o:${i}`)) ?? '');
  const wait = await ctx.get<RunSummary['wait']>('wait');
  return { id: run.id, status: run.status, entry: run.entry, output, result: run.result ? JSON.parse(Buffer.from(run.result, 'base64').toString('utf8')) : null, wait };
}

async function dump(ctx: restate.WorkflowSharedContext): Promise<RunDump> {
  const s = await stateSummary(ctx);
  const run = (await ctx.get<RunJson>('run'))!;
  const keys = await ctx.stateKeys();
  const seqs = keys.filter((k) => k.startsWith('e:')).map((k) => Number(k.slice(2))).sort((a, b) => a - b);
  const entries: EntryJson[] = [];
  for (const q of seqs) entries.push((await ctx.get<EntryJson>(`e:${q}`))!);
  return { run, entries, snapshot: await ctx.get<{ seq: number; bytes: string }>('snapshot'), wait: s.wait, output: s.output };
}

/** Completes the promise the run waits on, after checking the value fits what it waits for. */
async function complete(ctx: restate.WorkflowSharedContext, kind: 'resume' | 'decide', value: Wake): Promise<{ promise: string }> {
  const run = await ctx.get<RunJson>('run');
  if (!run) throw new restate.TerminalError(`no run ${ctx.key} on this Restate server`, { errorCode: 404 });
  const wait = await ctx.get<RunSummary['wait']>('wait');
  if (!wait) throw new restate.TerminalError(`run ${ctx.key} is ${run.status}: it waits for ${kind === 'resume' ? 'no resume' : 'no decision'}`, { errorCode: 409 });
  if (kind === 'resume' && wait.kind !== 'resume') throw new restate.TerminalError(`run ${ctx.key} waits for a decision about step(s) ${wait.unknown.join(', ')}, not a resume: settle them with turn resolve`, { errorCode: 409 });
  if (kind === 'decide') {
    const seq = (value as { seq: number }).seq;
    const e = await ctx.get<EntryJson>(`e:${seq}`);
    if (!e) throw new restate.TerminalError(`run ${ctx.key} has no step ${seq}`, { errorCode: 422 });
    if (e.status !== 'unknown' && e.status !== 'intent') throw new restate.TerminalError(`step ${seq} of run ${ctx.key} is ${e.status}, not unknown: nothing to resolve`, { errorCode: 409 });
    if (wait.kind !== 'decide') throw new restate.TerminalError(`run ${ctx.key} is not waiting for a decision (it is ${run.status})`, { errorCode: 409 });
  }
  await ctx.promise<Wake>(wait.promise).resolve(value);
  return { promise: wait.promise };
}

/** The workflow, for a worker whose file effects resolve against `cwd`. */
export function turnRunWorkflow(cwd: string, urls?: RestateUrls) {
  return restate.workflow({
    name: SERVICE,
    handlers: {
      run: async (ctx: restate.WorkflowContext, sub: Submission): Promise<RunSummary> => drive(ctx, sub, cwd, urls),
      status: restate.handlers.workflow.shared(async (ctx: restate.WorkflowSharedContext): Promise<RunSummary> => stateSummary(ctx)),
      dump: restate.handlers.workflow.shared(async (ctx: restate.WorkflowSharedContext): Promise<RunDump> => dump(ctx)),
      resume: restate.handlers.workflow.shared(async (ctx: restate.WorkflowSharedContext): Promise<{ promise: string }> => complete(ctx, 'resume', { resume: true })),
      resolve: restate.handlers.workflow.shared(async (ctx: restate.WorkflowSharedContext, value: Wake): Promise<{ promise: string }> => {
        if (typeof value !== 'object' || value === null || !Number.isInteger((value as { seq?: unknown }).seq) || !('ok' in value || 'error' in value || 'retry' in value)) {
          throw new restate.TerminalError('a decision is {"seq": N, "ok": VALUE} | {"seq": N, "error": MESSAGE} | {"seq": N, "retry": true}', { errorCode: 400 });
        }
        return complete(ctx, 'decide', value);
      }),
    },
  });
}
