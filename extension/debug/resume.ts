// Loads a suspended durable run (runtime/store, runtime/durable; `turn run --store`) for the
// debugger: the stored sources are recompiled and checked against the run's bytecode hash, and the
// journal is handed to `Durable`, which replays every recorded result (model replies, effects,
// clocks) while the program runs again up to where it stopped, then goes live. No `vscode` import.
import * as path from 'node:path';
import { checkSource } from '../../runtime/check/index.js';
import { compileBundle, type SourceUnit } from '../../runtime/compile/index.js';
import type { Bundle } from '../../runtime/compile/bundle.js';
import { Durable, JournalWriter, SEMANTICS_VERSION, bytesJson, jsonBytes } from '../../runtime/durable/index.js';
import { defaultStoreDir, openStore, type JournalEntry, type RunRecord, type RunStore } from '../../runtime/store/index.js';
import type { VM } from '../../runtime/vm/index.js';

export interface SuspendedRun {
  store: RunStore;
  run: RunRecord;
  bundle: Bundle;
  entries: JournalEntry[];
}

export async function loadSuspendedRun(storeDir: string | undefined, id: string): Promise<SuspendedRun> {
  const store = openStore(storeDir !== undefined ? path.resolve(storeDir) : defaultStoreDir());
  const run = store.getRun(id);
  if (!run) throw new Error(`no run ${id} in the store ${store.info().file}`);
  if (run.status === 'done' || run.status === 'failed' || run.status === 'cancelled') throw new Error(`run ${id} has already ended (${run.status})`);
  if (run.semanticsVersion !== SEMANTICS_VERSION) throw new Error(`run ${id} was started by a VM with semantics ${run.semanticsVersion}; this Turn speaks ${SEMANTICS_VERSION}`);
  const unknown = store.markUnknownOnRecovery(id);
  const entries = store.readJournal(id);
  if (unknown.some((e) => !e.idempotent)) throw new Error(`run ${id} waits for a decision about an effect whose outcome is unknown (turn resolve ${id} STEP ...)`);
  let hash = run.bytecodeHash;
  for (const e of entries) if (e.kind === 'migrate' && e.status === 'ok') hash = (bytesJson(e.payload) as { to: string }).to;
  const bytes = store.getBundle(hash);
  if (!bytes) throw new Error(`the store has no bytecode ${hash} for run ${id}`);
  const stored = bytesJson(bytes) as { entryPath: string; units: { path: string; text: string }[] };
  const units: SourceUnit[] = [];
  for (const u of stored.units) {
    const r = await checkSource(u.path, u.text);
    if (r.diagnostics.some((d) => d.severity === 'error')) throw new Error(`the stored source ${u.path} no longer compiles with this Turn`);
    units.push({ path: u.path, file: r.file, program: r.program, uses: r.uses });
  }
  const bundle = compileBundle(units, stored.entryPath);
  if (bundle.version !== hash) throw new Error(`run ${id} started with bytecode ${hash.slice(0, 12)}, but this Turn compiles its sources to ${bundle.version.slice(0, 12)}`);
  return { store, run, bundle, entries };
}

/** Attaches the journal to `vm`: recorded results are replayed, new steps journaled. */
export function attachDurable(vm: VM, s: SuspendedRun): Durable {
  s.store.setRunStatus(s.run.id, 'running');
  const durable = new Durable(vm, s.run, new JournalWriter(s.store, s.run.id), s.entries);
  vm.durable = durable;
  return durable;
}

/** Records how the debugged run ended in the store, and closes the store. */
export function settleRun(s: SuspendedRun, ended: { ok: true; rendered: string; json: unknown } | { ok: false; message: string } | { suspended: true }): void {
  try {
    if ('suspended' in ended) s.store.setRunStatus(s.run.id, 'suspended');
    else if (ended.ok) s.store.setRunStatus(s.run.id, 'done', jsonBytes({ rendered: ended.rendered, json: ended.json ?? null }));
    else s.store.setRunStatus(s.run.id, 'failed', jsonBytes({ message: ended.message }));
  } finally {
    s.store.close();
  }
}
