// Per-document debouncing: only the last change in a burst is checked.

export interface Debouncer<K> {
  /** (Re)starts the timer for `key`; `run(key)` fires `delayMs` after the last call for that key. */
  schedule(key: K): void;
  /** Runs `run(key)` now, dropping a pending run for it (a document just opened: no burst to wait for). */
  runNow(key: K): void;
  /** Forgets a pending run (e.g. when the document closes). */
  cancel(key: K): void;
  /** Whether a run is pending for `key`. */
  pending(key: K): boolean;
  dispose(): void;
}

export function createDebouncer<K>(delayMs: number, run: (key: K) => void): Debouncer<K> {
  const timers = new Map<K, ReturnType<typeof setTimeout>>();
  const cancel = (key: K) => {
    const t = timers.get(key);
    if (t !== undefined) clearTimeout(t);
    timers.delete(key);
  };
  return {
    schedule(key) {
      cancel(key);
      timers.set(
        key,
        setTimeout(() => {
          timers.delete(key);
          run(key);
        }, delayMs),
      );
    },
    runNow(key) {
      cancel(key);
      run(key);
    },
    cancel,
    pending: (key) => timers.has(key),
    dispose() {
      for (const t of timers.values()) clearTimeout(t);
      timers.clear();
    },
  };
}
