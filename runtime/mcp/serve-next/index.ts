// `turn mcp` beyond a plain 2025-11-25 serving (docs/mcp.md): over HTTP the 2026-07-28 revision
// too (modern.ts), and `--store DIR` makes each call a durable run (served-runs.ts). serve.ts
// serves; this wires its hooks (ServeOptions.perform and .modern).
import { nodeCrypto } from '../../hash.js';
import { serveMcp, type ServeOptions, type Serving } from '../serve.js';
import { durablePerform } from './durable-calls.js';
import { modernHandler } from './modern.js';
import { DurableServing } from './served-runs.js';

export interface ServeNextOptions extends ServeOptions {
  /** `--store DIR`: each call a durable run in this store folder */
  store?: string;
}

/** Serves `file` as serveMcp does, with `options.store` each call a durable run. Throws ServeError or InputError. */
export async function serveMcpNext(file: string, options: ServeNextOptions): Promise<Serving> {
  const { store, ...rest } = options;
  // without a store nothing suspends into a requestState: a secret of this process signs nothing that outlives it
  if (store === undefined) return serveMcp(file, { ...rest, modern: (ctx) => modernHandler({ secret: nodeCrypto().randomBytes(32), ...version(options) }, ctx) });
  const durable = DurableServing.open(store, options.run.cwd);
  try {
    const modern = { secret: durable.secret, durable: { serving: durable, dir: store }, ...version(options) };
    const serving = await serveMcp(file, { ...rest, perform: durablePerform(file, durable, store), modern: (ctx) => modernHandler(modern, ctx) });
    void serving.closed.then(() => durable.close());
    return {
      ...serving,
      close: async () => {
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
