// A run store an embedding app holds open (docs/durability.md): the runs it has recorded, what one
// of them did (`inspect`, as `turn inspect` shows it), and the store a run is recorded in when the
// app passes this handle as `store` (opened once, shared by the runs, closed by the app).
import { bytesJson, storeMessage } from '../durable/index.js';
import { inspectRun, type RunInspection } from '../durable/inspect.js';
import { openStore as openRunStore } from '../store/open.js';
import type { RunRecord, RunStatus, RunStore } from '../store/types.js';
import { TurnError } from './errors.js';

/** One stored run, as listed. */
export interface StoredRun {
  id: string;
  /** the entry program it started from */
  entry: string;
  status: RunStatus;
  createdAt: number;
  updatedAt: number;
  /** a finished run's recorded result (done: `{rendered, json}`; failed: the error), else null */
  result: unknown;
}

function stored(r: RunRecord): StoredRun {
  let result: unknown = null;
  try {
    result = r.result ? bytesJson(r.result) : null;
  } catch {
    result = null; // a damaged result is shown as none; `inspect` says more
  }
  return { id: r.id, entry: r.entry, status: r.status, createdAt: r.createdAt, updatedAt: r.updatedAt, result };
}

export class TurnStore {
  /** @internal the open store the run API records runs in */
  readonly runStore: RunStore;
  private closed = false;

  /** @internal use openStore */
  constructor(runStore: RunStore) {
    this.runStore = runStore;
  }

  /** The store's file. */
  get file(): string {
    return this.runStore.info().file;
  }

  /** Its runs, newest first; only those of one status with `status`. */
  list(status?: RunStatus): StoredRun[] {
    return this.guard(() => this.runStore.listRuns(status ? { status } : undefined).map(stored));
  }

  /** One run, or undefined when the store has none by that id. */
  get(id: string): StoredRun | undefined {
    return this.guard(() => {
      const r = this.runStore.getRun(id);
      return r ? stored(r) : undefined;
    });
  }

  /** What run `id` did: its record, open effects, the journal's last `tail` entries, its processes at the last snapshot. */
  inspect(id: string, tail = 20): RunInspection {
    return this.guard(() => inspectRun(this.runStore, id, tail));
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.runStore.close();
  }

  private guard<T>(f: () => T): T {
    if (this.closed) throw new TurnError('store', 'the store is closed');
    try {
      return f();
    } catch (e) {
      if (e instanceof TurnError) throw e;
      throw new TurnError('store', storeMessage(e));
    }
  }
}

/** Opens (creating it when needed) the run store in folder `dir` (default: $TURN_STORE_DIR, else .turn/). */
export function openStore(dir?: string): TurnStore {
  try {
    return new TurnStore(openRunStore(dir));
  } catch (e) {
    throw new TurnError('store', storeMessage(e));
  }
}
