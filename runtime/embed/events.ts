// A run's events as an AsyncIterable, for a UI that streams a run (`for await (const e of run.events())`).
// The VM emits events synchronously and cannot wait for a slow reader, so each reader has a bounded
// queue: a reader that falls more than MAX_QUEUED events behind gets an error from its iterator
// (saying how far behind it was) instead of the process growing without bound. The iteration ends
// when the run ends. A reader sees the events emitted after it started iterating: call `events()`
// before `result()` to see them all.
import type { RunEvent } from '../events/index.js';

export const MAX_QUEUED = 10_000;

interface Reader {
  queue: RunEvent[];
  wake: (() => void) | undefined;
  overflowed: boolean;
}

export class EventFeed {
  private readonly readers = new Set<Reader>();
  private ended = false;

  constructor(private readonly maxQueued = MAX_QUEUED) {}

  push(event: RunEvent): void {
    for (const r of this.readers) {
      if (r.overflowed) continue;
      if (r.queue.length >= this.maxQueued) {
        r.overflowed = true;
        r.queue.length = 0;
      } else r.queue.push(event);
      r.wake?.();
    }
  }

  end(): void {
    this.ended = true;
    for (const r of this.readers) r.wake?.();
  }

  async *iterate(): AsyncGenerator<RunEvent, void, undefined> {
    const reader: Reader = { queue: [], wake: undefined, overflowed: false };
    this.readers.add(reader);
    try {
      for (;;) {
        if (reader.overflowed) throw new Error(`the run's events came faster than they were read: more than ${this.maxQueued} were waiting, and the rest were dropped`);
        const next = reader.queue.shift();
        if (next !== undefined) {
          yield next;
          continue;
        }
        if (this.ended) return;
        await new Promise<void>((resolve) => (reader.wake = resolve));
        reader.wake = undefined;
      }
    } finally {
      this.readers.delete(reader);
    }
  }
}
