// The editor's one handle on each workspace store (`.turn/`): a store admits one writer (the OS
// process that opened it), so the run panel's durable runs and the Runs view share one open store
// per folder instead of refusing each other. It is opened on first use and closed when the last user
// lets go, so the `turn` command in a terminal can use the same store while the editor is idle.
// Listeners hear of every change the editor makes (a run started or ended, a settlement, a delete):
// the Runs view refreshes on them. No `vscode` import (tested in plain Node).
import * as path from 'node:path';
import { openStore, type RunStore } from '../../runtime/index.js';

interface Entry {
  store: RunStore;
  users: number;
}

export type StoreListener = (dir: string) => void;

export class SharedStores {
  private readonly open = new Map<string, Entry>();
  private readonly listeners = new Set<StoreListener>();
  /** the ids of the durable runs this editor runs now (a stored `running` run not here was interrupted) */
  readonly live = new Set<string>();

  constructor(private readonly opener: (dir: string) => RunStore = (dir) => openStore(dir)) {}

  /** The store in `dir`, held until `release` is called (throws the store's StoreError). */
  acquire(dir: string): { store: RunStore; release: () => void } {
    const key = path.resolve(dir);
    let entry = this.open.get(key);
    if (!entry) {
      entry = { store: this.opener(key), users: 0 };
      this.open.set(key, entry);
    }
    entry.users++;
    const held = entry;
    let released = false;
    return {
      store: held.store,
      release: () => {
        if (released) return;
        released = true;
        if (--held.users === 0 && this.open.get(key) === held) {
          this.open.delete(key);
          held.store.close();
        }
      },
    };
  }

  /** Runs `fn` with the store in `dir` (opened for it, unless already open). */
  use<T>(dir: string, fn: (store: RunStore) => T): T {
    const { store, release } = this.acquire(dir);
    try {
      return fn(store);
    } finally {
      release();
    }
  }

  /** Whether this process holds the store in `dir` now. */
  holds(dir: string): boolean {
    return this.open.has(path.resolve(dir));
  }

  onChange(listener: StoreListener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => void this.listeners.delete(listener) };
  }

  /** Tells the listeners that the runs in `dir` changed. */
  changed(dir: string): void {
    for (const l of this.listeners) l(path.resolve(dir));
  }

  /** Closes every store (deactivation). */
  closeAll(): void {
    for (const e of this.open.values()) e.store.close();
    this.open.clear();
  }
}

/** The extension host's one registry. */
export const sharedStores = new SharedStores();
