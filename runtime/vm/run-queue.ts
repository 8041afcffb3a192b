// The scheduler's run queue: processes ready to run, in arrival order, or drawn by a seeded
// generator (`--seed`) so an interleaving replays exactly. Enqueue and dequeue are O(1)
// (amortized: the consumed prefix is dropped once it is most of the array).
import type { Process } from './process.js';

/** mulberry32: a small, well-distributed generator, so a seed replays a schedule exactly. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

export class RunQueue {
  private queue: Process[] = [];
  private head = 0;

  /** the generator when a seed was given; otherwise processes run in arrival order */
  constructor(private readonly rng: (() => number) | undefined) {}

  get seeded(): boolean {
    return this.rng !== undefined;
  }

  get empty(): boolean {
    return this.head >= this.queue.length;
  }

  push(p: Process): void {
    this.queue.push(p);
  }

  /** Puts `p` back at the front: it runs next (a slice a debugger stop cut short). */
  pushFront(p: Process): void {
    if (this.head > 0) this.queue[--this.head] = p;
    else this.queue.unshift(p);
  }

  /** The process at the front, whatever the seed (the debugger's carried slice). */
  front(): Process {
    return this.queue[this.head++];
  }

  /** The next process to run: in arrival order, or drawn by the seeded generator. */
  next(): Process {
    if (this.rng) {
      const i = this.head + (this.rng() % (this.queue.length - this.head));
      const picked = this.queue[i];
      this.queue[i] = this.queue[this.head];
      this.queue[this.head] = picked;
    }
    const p = this.queue[this.head++];
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return p;
  }

  /** A slice's length: the full slice, or a seeded draw from 1..seededSlice. */
  slice(full: number, seededSlice: number): number {
    return this.rng ? 1 + (this.rng() % seededSlice) : full;
  }

  /** the ids waiting to run, in order (a durable safe point) */
  ids(): number[] {
    return this.queue.slice(this.head).map((p) => p.id);
  }
}
