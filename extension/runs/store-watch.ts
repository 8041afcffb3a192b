// The Runs view hears of runs that another process (the `turn` CLI in a terminal) changes in a
// workspace store: the view's file watcher reports every change under `.turn/store.db*`, and this
// module turns the bursts into one debounced refresh per store. No `vscode` import (tested in
// plain Node).
//
// Reading a store changes its files too (opening it takes the writer lock and makes a WAL, closing
// removes both), so the view's own reads would refresh it again, forever. What a read leaves
// unchanged, and every write changes, is the database file and its WAL as `stat` sees them (a
// write goes to the WAL; closing the writer checkpoints it into the database): the refresh
// happens only when that signature differs from the one the view last read.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { STORE_FILE } from '../../runtime/index.js';

/** The files whose change may be a run changing: the database and its WAL or rollback journal. */
export function isStoreDataFile(file: string): boolean {
  const name = path.basename(file);
  return name === STORE_FILE || name === `${STORE_FILE}-wal` || name === `${STORE_FILE}-journal`;
}

/** The store in `dir` as `stat` sees it: equal before and after a read, different after any write. */
export function storeSignature(dir: string): string {
  return [STORE_FILE, `${STORE_FILE}-wal`, `${STORE_FILE}-journal`]
    .map((f) => {
      try {
        const s = fs.statSync(path.join(dir, f));
        return `${s.mtimeMs}:${s.size}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

const realTimers: Timers = { set: (fn, ms) => setTimeout(fn, ms), clear: (h) => clearTimeout(h as NodeJS.Timeout) };

export class StoreWatch {
  /** per store folder: the signature the view last read, and the pending refresh */
  private readonly read = new Map<string, string>();
  private readonly pending = new Map<string, unknown>();

  constructor(
    private readonly refresh: (dir: string) => void,
    private readonly delayMs = 250,
    private readonly timers: Timers = realTimers,
    private readonly signature: (dir: string) => string = storeSignature,
  ) {}

  /** A watcher saw `file` change (created, changed or deleted). */
  touched(file: string): void {
    if (!isStoreDataFile(file)) return;
    const dir = path.resolve(path.dirname(file));
    const previous = this.pending.get(dir);
    if (previous !== undefined) this.timers.clear(previous);
    this.pending.set(
      dir,
      this.timers.set(() => {
        this.pending.delete(dir);
        const now = this.signature(dir);
        if (this.read.get(dir) === now) return; // the view's own read, or nothing new
        this.read.set(dir, now);
        this.refresh(dir);
      }, this.delayMs),
    );
  }

  /** The view has just read the store in `dir` (and let it go): what it shows is this signature. */
  sawStore(dir: string): void {
    this.read.set(path.resolve(dir), this.signature(path.resolve(dir)));
  }

  dispose(): void {
    for (const h of this.pending.values()) this.timers.clear(h);
    this.pending.clear();
  }
}
