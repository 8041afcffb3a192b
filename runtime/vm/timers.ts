// Timed waits: the processes blocked in `receive(ms)` or `sleep` with a deadline on the scheduler's
// clock. The scheduler asks for the earliest deadline when it has nothing to run and wakes the
// processes whose time is up; a durable run journals which ones (runtime/ports/durable.ts).
import type { DurableHooks } from '../ports/durable.js';
import { BLOCKED, type Process } from './process.js';

export class Timers {
  /** blocked processes with a deadline, in the order they started waiting */
  readonly sleeping = new Set<Process>();

  get size(): number {
    return this.sleeping.size;
  }

  add(p: Process): void {
    this.sleeping.add(p);
  }

  delete(p: Process): void {
    this.sleeping.delete(p);
  }

  /** The sleeper whose deadline comes first, if any still waits. */
  earliest(): Process | undefined {
    let sleeper: Process | undefined;
    for (const p of this.sleeping) {
      if (p.status === BLOCKED && p.deadline !== null && (!sleeper || p.deadline < sleeper.deadline!)) sleeper = p;
    }
    return sleeper;
  }

  /**
   * The processes whose time is up at `now`, removed from the set (after dropping those no longer
   * waiting). A durable run decides instead: journaled live, read from the journal on replay.
   */
  due(now: number, durable: DurableHooks | undefined, awaited: boolean, byId: (id: number) => Process | undefined): Process[] {
    for (const p of this.sleeping) if (p.status !== BLOCKED || p.deadline === null) this.sleeping.delete(p);
    const out: Process[] = [];
    if (durable) {
      for (const id of durable.fireTimers(this.sleeping, awaited)) {
        const p = byId(id);
        if (p) out.push(p);
      }
    } else {
      for (const p of this.sleeping) if (p.deadline! <= now) out.push(p);
    }
    for (const p of out) this.sleeping.delete(p);
    return out;
  }

  ids(): number[] {
    return [...this.sleeping].map((p) => p.id);
  }
}
