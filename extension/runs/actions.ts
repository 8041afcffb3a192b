// The Runs view's actions on a store, without `vscode` (tested in plain Node): settling an unknown
// outcome and deleting a run, through the runtime's one implementation of each (settleUnknown,
// RunStore.deleteRun) on the editor's shared store handle. Resuming and migrating run in the panel
// (panel-requests.ts), through the one resume (resumeRun).
import { answerQuestion, openQuestions, settleUnknown, type Answered, type OpenQuestion, type Settled, type Settlement } from '../../runtime/index.js';
import type { SharedStores } from './shared-store.js';

/** Settles step `seq` of run `runId` in the store in `dir`; the Runs view hears of the change. */
export function settle(stores: SharedStores, dir: string, runId: string, seq: number, settlement: Settlement): Settled {
  try {
    return stores.use(dir, (store) => settleUnknown(store, runId, seq, settlement));
  } finally {
    stores.changed(dir);
  }
}

/** Deletes run `runId` with its journal and snapshots. Refuses a run this editor runs now. */
export function deleteStoredRun(stores: SharedStores, dir: string, runId: string): void {
  if (stores.live.has(runId)) throw new Error(`run ${runId} is running in the editor: stop it first`);
  try {
    stores.use(dir, (store) => {
      if (!store.deleteRun) throw new Error(`the store ${store.info().file} cannot delete runs`);
      store.deleteRun(runId);
    });
  } finally {
    stores.changed(dir);
  }
}

/** The questions (`ask T`) run `runId` waits on, each with its type's schema from the run's code. */
export async function questionsOf(stores: SharedStores, dir: string, runId: string): Promise<OpenQuestion[]> {
  const { store, release } = stores.acquire(dir);
  try {
    return await openQuestions(store, runId);
  } finally {
    release();
  }
}

/** Answers question `seq` of run `runId` (checked against its type by the runtime); the Runs view hears of the change. */
export async function answer(stores: SharedStores, dir: string, runId: string, seq: number, value: unknown): Promise<Answered> {
  const { store, release } = stores.acquire(dir);
  try {
    return await answerQuestion(store, runId, value, seq);
  } finally {
    release();
    stores.changed(dir);
  }
}
