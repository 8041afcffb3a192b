// `turn inspect --restate`: the run's state (what its workflow mirrors) loaded into an in-memory
// store, then the one inspection the local store uses (runtime/durable/inspect.ts).
import { MemoryRunStore } from '../durable/travel.js';
import { inspectRun, type RunInspection } from '../durable/inspect.js';
import { entryFrom, recordFrom, unb64, type RunDump } from './codec.js';
import { runDump } from './client.js';

/** A store holding what a Restate run's state shows: its record, journal and latest snapshot. */
export function storeFromDump(d: RunDump): MemoryRunStore {
  const store = new MemoryRunStore(`restate run ${d.run.id}`);
  store.importRun(recordFrom(d.run), d.entries.map(entryFrom), new Map());
  if (d.snapshot) store.putSnapshot(d.run.id, d.snapshot.seq, unb64(d.snapshot.bytes)!);
  return store;
}

/** What `turn inspect` shows of run `id` on the Restate server behind `ingress`. */
export async function inspectRestateRun(ingress: string, id: string, tail = 20): Promise<RunInspection & { output: string[] }> {
  const d = await runDump(ingress, id);
  return { ...inspectRun(storeFromDump(d), id, tail), output: d.output };
}
