// The durability port (docs/durability.md). The VM holds an optional `durable: DurableHooks`;
// when it is undefined (every non-durable run) the VM runs as before and none of this costs
// anything on its hot path. runtime/durable implements it.
import type { Host } from './host.js';
import type { PendingEffect, ProcessRef, Sleeper } from './effect.js';

/** The tool name a durable `suspend;` yields as (its result is dropped: `suspend` is a statement). */
export const SUSPEND_TOOL = '__suspend';

export interface DurableHooks {
  /** true while journal entries remain that the re-execution has not reached yet */
  readonly replaying: boolean;
  /** suspended or failed: nothing more may run in this OS process, so the scheduler stops */
  readonly stoppedNow: boolean;
  /** settles when the run stops (suspend, or a failure): a scheduler wait ends then too */
  readonly stopped: Promise<unknown>;
  /** The host an effect (infer, host tool, suspend) runs against: journaled or replayed. */
  host(p: ProcessRef, effect: PendingEffect, host: Host): Host;
  /** `call("now")`: the live reading, journaled; or the recorded one on replay. */
  clock(p: ProcessRef, live: number): number;
  /**
   * Replaces the VM's timer check: which sleepers wake is journaled (live) or taken from the journal
   * (replay). Returns the ids to wake; the VM wakes them.
   */
  fireTimers(sleeping: ReadonlySet<Sleeper>, awaited: boolean): number[];
  /** Replay: did the recorded run see a timer (rather than an effect) win the next scheduler wait? */
  timerFirst(): boolean;
  /**
   * Several effects were pending and `index` (their position in start order) finished first: journaled
   * live; on replay, returns the recorded position (the `live` argument is ignored).
   */
  effectFirst(live: number): number;
  /**
   * An agent was started with `capabilities` (runtime/vm/agents.ts): journaled live; on replay —
   * a resume, a migration to new code — compared with what the journal recorded, and a widening
   * stops the run as a divergence. A narrowing is fine.
   */
  agentGranted(p: ProcessRef, agent: string, capabilities: readonly string[]): void;
  /** true when the journal has grown enough since the last snapshot that the next safe point should take one */
  readonly snapshotDue?: boolean;
  /**
   * A safe point (issue 45): the scheduler is between slices and no effect is in flight, so the
   * VM's state is all in its processes and run queue; the durable layer may snapshot it here.
   */
  safePoint?(): void;
  /**
   * How many steps a slice may run before its next safe point (issue 45): a slice is run in parts
   * of at most this many steps while a snapshot may come due (Infinity: whole).
   */
  stepsToSafePoint?(): number;
  /**
   * Process `pid` started (child of `parent`), spawned to run the function `fn` (null: anonymous):
   * journaled live so a stored run names its processes; a replayed spawn writes nothing again.
   */
  processSpawned(pid: number, parent: number, fn: string | null): void;
  /** Process `p` named itself (`process_name`): journaled live, as processSpawned. */
  processNamed(p: ProcessRef, name: string): void;
}

/**
 * A store whose writes become durable later than they return (a network journal such as Restate's,
 * runtime/restate): an effect is performed only once every write before it is durable. The SQLite
 * stores commit before they return and do not implement it.
 */
export interface DeferredCommit {
  /** settles when every write made so far is durable (never rejects; never settles if they cannot be) */
  whenDurable(): Promise<void>;
}

/** Whether the store defers its commits (Restate): it has `whenDurable()`. */
export function defersCommits(store: object): store is DeferredCommit {
  return typeof (store as Partial<DeferredCommit>).whenDurable === 'function';
}

/** The store's `whenDurable()`, when it defers its commits. */
export function whenDurable(store: object): Promise<void> | undefined {
  return defersCommits(store) ? store.whenDurable() : undefined;
}
