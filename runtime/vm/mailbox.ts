// A process's mailbox: a FIFO queue with O(1) enqueue and dequeue (a growable ring buffer), and a
// selective take that removes a matching message in place (issue 29: `Array.prototype.shift` on a
// mailbox of tens of thousands of exit messages made spawn + exit quadratic).
//
// A message taken from the middle leaves a hole that `shift` skips; holes are dropped when the ring
// grows or when they outnumber the live messages, so each message is moved a bounded number of
// times over its life. `moves` counts those element moves: test/vm/mailbox.test.ts holds them
// linear in the messages queued.
import type { Value } from '../values/index.js';

/** A taken message's slot. */
const HOLE: unique symbol = Symbol('taken');
type Slot = Value | typeof HOLE | undefined;

const FIRST_CAPACITY = 4;
/** The ring of every mailbox that has not had a message yet (most workers never get one): never written, as `push` makes a ring of its own first. */
const NO_RING: Slot[] = [];

export class Mailbox {
  /** the ring; its length is a power of two (or 0 before the first message) */
  private ring: Slot[] = NO_RING;
  /** index of the oldest slot */
  private head = 0;
  /** slots in use from head (live messages and holes) */
  private used = 0;
  /** live messages */
  private live = 0;
  /** element moves made by growing or compacting the ring */
  moves = 0;

  get size(): number {
    return this.live;
  }

  push(v: Value): void {
    if (this.used === this.ring.length) this.relayout(this.ring.length === 0 ? FIRST_CAPACITY : this.live * 2 >= this.ring.length ? this.ring.length * 2 : this.ring.length);
    this.ring[(this.head + this.used) & (this.ring.length - 1)] = v;
    this.used++;
    this.live++;
  }

  /** The oldest message, removed; undefined when empty. */
  shift(): Value | undefined {
    if (this.live === 0) return undefined;
    const mask = this.ring.length - 1;
    for (;;) {
      const v = this.ring[this.head];
      this.ring[this.head] = undefined;
      this.head = (this.head + 1) & mask;
      this.used--;
      if (v !== HOLE) {
        this.live--;
        if (this.live === 0) this.head = this.used = 0;
        return v;
      }
    }
  }

  /** The oldest message `match` accepts, removed where it stands (the others keep their order). */
  take(match: (v: Value) => boolean): Value | undefined {
    const mask = this.ring.length - 1;
    for (let i = 0; i < this.used; i++) {
      const at = (this.head + i) & mask;
      const v = this.ring[at];
      if (v === HOLE || !match(v as Value)) continue;
      if (i === 0) return this.shift();
      this.ring[at] = HOLE;
      this.live--;
      if (this.used - this.live > this.live && this.used > FIRST_CAPACITY) this.relayout(this.ring.length);
      return v;
    }
    return undefined;
  }

  /** Whether a message `match` accepts is waiting (nothing is removed). */
  has(match: (v: Value) => boolean): boolean {
    const mask = this.ring.length - 1;
    for (let i = 0; i < this.used; i++) {
      const v = this.ring[(this.head + i) & mask];
      if (v !== HOLE && match(v as Value)) return true;
    }
    return false;
  }

  /** The messages in arrival order (a copy: for snapshots and inspection, not the hot path). */
  toArray(): Value[] {
    const out: Value[] = [];
    const mask = this.ring.length - 1;
    for (let i = 0; i < this.used; i++) {
      const v = this.ring[(this.head + i) & mask];
      if (v !== HOLE) out.push(v as Value);
    }
    return out;
  }

  static from(messages: readonly Value[]): Mailbox {
    const m = new Mailbox();
    for (const v of messages) m.push(v);
    m.moves = 0;
    return m;
  }

  /** Copies the live messages, in order, to the start of a ring of `capacity` slots (holes dropped). */
  private relayout(capacity: number): void {
    const ring: Slot[] = new Array<Slot>(capacity);
    const mask = this.ring.length - 1;
    let n = 0;
    for (let i = 0; i < this.used; i++) {
      const v = this.ring[(this.head + i) & mask];
      if (v !== HOLE) ring[n++] = v;
    }
    this.moves += n;
    this.ring = ring;
    this.head = 0;
    this.used = n;
  }
}
