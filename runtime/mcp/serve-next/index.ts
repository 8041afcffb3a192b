// `turn mcp` beyond a plain 2025-11-25 serving (docs/mcp.md): over HTTP the 2026-07-28 revision
// too (modern.ts), and `--store DIR` makes each call a durable run (served-runs.ts). serve.ts
// serves; this wires its hooks (ServeOptions.perform and .modern).
import { nodeCrypto } from '../../hash.js';
import { serveMcp, type ServeOptions, type Serving } from '../serve.js';
import { durablePerform } from './durable-calls.js';
import { modernHandler } from './modern.js';
import { PausedCalls, type PausedLimits } from './paused-calls.js';
import { Tasks, type TaskLimits } from './tasks.js';
import { DurableServing } from './served-runs.js';

export interface ServeNextOptions extends ServeOptions {
  /** `--store DIR`: each call a durable run in this store folder */
  store?: string;
  /** the bounds of the calls waiting in memory for their client's answers (paused-calls.ts) */
  paused?: PausedLimits;
  /** the bounds of the tasks extension's tasks (tasks.ts; with a store, durable-tasks.ts) */
  tasks?: TaskLimits;
}

/** Serves `file` as serveMcp does, with `options.store` each call a durable run. Throws ServeError or InputError. */
export async function serveMcpNext(file: string, options: ServeNextOptions): Promise<Serving> {
  const { store, paused: limits, tasks: taskLimits, ...rest } = options;
  if (store === undefined) {
    // without a store a call that asks its client waits in memory (paused-calls.ts): its requestState
    // names it, signed with a secret of this process (nothing it names outlives the process either)
    const paused = new PausedCalls(limits);
    const tasks = new Tasks(taskLimits);
    const serving = await serveMcp(file, { ...rest, modern: (ctx) => modernHandler({ secret: nodeCrypto().randomBytes(32), paused, tasks, ...version(options) }, ctx) });
    const stop = () => {
      paused.close();
      tasks.close();
    };
    void serving.closed.then(stop);
    return {
      ...serving,
      close: async () => {
        stop();
        await serving.close();
      },
    };
  }
  const durable = DurableServing.open(store, options.run.cwd);
  try {
    // a durable run's mid-call questions wait in memory too; its requestState also names the run, signed with the store's secret
    const paused = new PausedCalls(limits);
    const modern = { secret: durable.secret, paused, durable: { serving: durable, dir: store, ...(taskLimits ? { tasks: taskLimits } : {}) }, ...version(options) };
    const serving = await serveMcp(file, { ...rest, perform: durablePerform(file, durable, store), modern: (ctx) => modernHandler(modern, ctx) });
    void serving.closed.then(() => {
      paused.close();
      durable.close();
    });
    return {
      ...serving,
      close: async () => {
        paused.close();
        await serving.close();
        durable.close();
      },
    };
  } catch (e) {
    durable.close();
    throw e;
  }
}

const version = (o: ServeOptions): { version?: string } => (o.version !== undefined ? { version: o.version } : {});
