// When a durable run snapshots itself (issue 45): a resume restores the latest snapshot and replays
// only the journal after it, so a run that snapshots every so often resumes in time bounded by that
// "so often", however long it ran. Snapshots were taken only at `suspend;`; a long run killed
// anywhere else re-executed its whole journal (14× the run itself for 10,000 entries).
//
// A *checkpoint* is taken at a safe point of the scheduler (runtime/vm calls `Durable.safePoint`
// between slices with no effect in flight; docs/durability.md, "Snapshots") once the journal has
// grown enough since the last snapshot: `entries` appended or `bytes` written, whichever comes
// first — and never before the journal has grown by as many bytes as the last snapshot took, so a
// run whose state is large snapshots it less often, and the snapshots' cost (encoding time and
// bytes, both proportional to their size) stays a bounded share of the journal's.

export interface SnapshotPolicy {
  /** journal entries appended since the last snapshot that make the next safe point take one */
  entries: number;
  /** or bytes written to the journal since the last snapshot (payloads plus `ENTRY_BYTES` per entry) */
  bytes: number;
}

/**
 * The default: every 500 entries or 4 MiB. A resume then replays at most about 500 entries (plus
 * what a part of a slice runs past the threshold: 16 steps); a checkpoint costs its encoding and
 * its bytes in the open group commit (no fsync of its own), spread over the entries before it.
 * Measured (docs/performance.md): a tail of 1,000 entries resumed in 5–6× the plain run at best,
 * one of 500 in 1.8–2.9×, against the target of 3×.
 */
export const DEFAULT_SNAPSHOT_POLICY: SnapshotPolicy = { entries: 500, bytes: 4 * 1024 * 1024 };

/** The parts a slice is cut into once a snapshot is due (steps): the safe point comes soon after. */
export const PART_STEPS = 16;

/** What an entry costs in the store beyond its payload (keys, hashes, times, the row): an estimate. */
export const ENTRY_BYTES = 100;

/** Snapshots a run keeps: the latest, and the one before it for when the latest cannot be read. */
export const SNAPSHOTS_KEPT = 2;

/** The journal's growth since the last snapshot. */
export interface Growth {
  entries: number;
  bytes: number;
}

export function checkpointDue(policy: SnapshotPolicy, growth: Growth, lastSnapshotBytes: number): boolean {
  return (growth.entries >= policy.entries || growth.bytes >= policy.bytes) && growth.bytes >= lastSnapshotBytes;
}

/**
 * `TURN_SNAPSHOT_EVERY=N` snapshots every N entries (and the default's bytes); `N:B` every N entries
 * or B bytes; `0` or `off` never (a resume then re-executes from the last `suspend;` or the start).
 * Anything else is the default: a malformed setting must not stop a run, and the snapshots only
 * shorten a resume.
 */
export function snapshotPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): SnapshotPolicy | null {
  const v = env.TURN_SNAPSHOT_EVERY?.trim();
  if (!v) return DEFAULT_SNAPSHOT_POLICY;
  if (v === '0' || v === 'off') return null;
  const m = /^(\d{1,9})(?::(\d{1,12}))?$/.exec(v);
  if (!m || Number(m[1]) === 0) return DEFAULT_SNAPSHOT_POLICY;
  return { entries: Number(m[1]), bytes: m[2] !== undefined && Number(m[2]) > 0 ? Number(m[2]) : DEFAULT_SNAPSHOT_POLICY.bytes };
}
