// The VM side of durability (issue 5, docs/durability.md): journal every nondeterministic step a
// run observes, replay a run by deterministic re-execution from its start with the journal
// feeding every recorded result, detect divergence, and stop at `suspend;`.
//
// The journal's key scheme is in keys.ts.
import { cpSync } from 'node:fs';
import * as path from 'node:path';
import { sha256Hex } from '../hash.js';
import { MediaVal } from '../values/index.js';
import { jsonText } from './json-text.js';
import { encodeSnapshot } from '../store/serialize.js';
import { StoreError, type JournalAppend, type JournalEntry, type RunRecord, type RunStore } from '../store/types.js';
import type { VM } from '../vm/index.js';
import type { Host, ToolRequest } from '../ports/host.js';
import type { PendingEffect, ProcessRef, Sleeper } from '../ports/effect.js';
import type { InferIO, InferReply, InferRequest } from '../infer/types.js';
import { optionsRecord } from '../infer/options.js';
import { defersCommits, SUSPEND_TOOL, whenDurable, type DurableHooks } from '../ports/durable.js';
import { REMOTE_CHILD_TOOL } from '../ports/placement.js';
import { isRefusedBeforeSending } from '../ports/refusal.js';
import { checkpointSnapshot, vmSnapshot, type Counters, type LastEntry, type RestorePoint } from './snapshot.js';
import { ENTRY_BYTES, PART_STEPS, SNAPSHOTS_KEPT, checkpointDue, snapshotPolicyFromEnv, type SnapshotPolicy } from './checkpoints.js';
import { BLOCK_KIND, BlockWriter, blockText } from './request-blocks.js';
import { journalName, NAME_KIND, SPAWN_KIND } from './process-names.js';
import { GRANT_KEY, REPLAYED_KEY, approvalStep, journalKey, logicalKey, refusalKey, stoppedAtApproval } from './keys.js';
import type { ApprovalAnswer, ApprovalAsked, JournaledApprovals } from '../ports/approval.js';
import { MCP_CALL_TOOL, MCP_READ_ONLY_TOOLS, mcpCallIsIdempotent } from '../ports/mcp-calls.js';
import { CALLER_QUESTION_TOOLS } from '../ports/mcp-caller.js';
import { ASK_TOOL } from '../ports/ask.js';

/**
 * The VM's semantics version: what a journal means (the keys above, what each step records, the
 * scheduler's order). A run is resumed only by a VM that speaks the version it was started with.
 */
export const SEMANTICS_VERSION = 'turn-vm/1';
/** Versions of the policies a run uses (recorded with the run; docs/durability.md). */
export const POLICY_VERSIONS: Record<string, string> = { idempotency: 'v1', unknown: 'v1', replay: 'v1', output: 'v1', grants: 'v1' };

/**
 * Host tools that may be re-run (with the same idempotency key) when their outcome is unknown. They
 * are also local reads: answered by this machine at no cost, so their results reach the program
 * before their commit (`Durable.perform`).
 */
const IDEMPOTENT_TOOLS = new Set(['fs_read', 'fs_list', 'fs_exists', 'env_get', 'time_now_ms', 'time_now_iso', 'math_random']);

/**
 * std/media's reads (runtime/media/): the journal keeps a media value's hash, never its bytes, so a
 * replay reads the file (or the URL) again under the run's grants and gives the value only when its
 * content is the one journaled; other bytes are refused, never sent to a model in its place.
 */
const MEDIA_READ_TOOLS = new Set(['media_file', 'media_url']);

async function rereadMedia(seq: number, journaled: unknown, run: () => Promise<unknown>): Promise<unknown> {
  const was = (journaled as { sha256?: unknown } | null)?.sha256;
  let now: unknown;
  try {
    now = await run();
  } catch (e) {
    throw new Error(`step ${seq}: the media the run journaled cannot be read again: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!(now instanceof MediaVal) || typeof was !== 'string' || now.sha256 !== was) {
    const is = now instanceof MediaVal ? now.sha256.slice(0, 12) : 'not media';
    throw new Error(`step ${seq}: the media changed since the run journaled it (sha256 ${typeof was === 'string' ? was.slice(0, 12) : '?'}… then, ${is}… now): a resumed run sends only the content it journaled`);
  }
  return now;
}

export function toolIsIdempotent(request: { name: string; args: unknown[] }): boolean {
  // a question to a person that was open when the run stopped is simply asked again (runtime/ask/)
  if (request.name === ASK_TOOL) return true;
  if (IDEMPOTENT_TOOLS.has(request.name) || request.name === REMOTE_CHILD_TOOL) return true; // a placed child: asked again under its key, Restate answers once
  // an MCP tool is called again only when its annotations say readOnlyHint or idempotentHint
  if (request.name === MCP_CALL_TOOL) return mcpCallIsIdempotent(request.args);
  if (MCP_READ_ONLY_TOOLS.has(request.name) || CALLER_QUESTION_TOOLS.has(request.name)) return true;
  if (request.name === 'http_request') {
    // http_request(auth, method, url, options): only safe methods may be sent again
    const method = request.args[1];
    return typeof method === 'string' && ['GET', 'HEAD', 'OPTIONS'].includes(method.toUpperCase());
  }
  return false;
}

/** Why a durable run stopped before its program ended. */
export type Stop =
  | { kind: 'suspended'; seq: number }
  /** the host refused an effect before sending it (a secret not set, a grant, an approval): step `seq` stays unrun */
  | { kind: 'refused'; seq: number; message: string }
  | { kind: 'fatal'; error: Error };

/** A replay that no longer matches its journal: the program (or its inputs) changed. */
export class DivergenceError extends Error {
  override name = 'DivergenceError';
}

/** An effect whose outcome is unknown and may not be re-run: the run waits for a decision. */
export class UnknownOutcomeError extends Error {
  override name = 'UnknownOutcomeError';
  constructor(readonly entry: JournalEntry) {
    super(`step ${entry.seq} (${entry.kind} ${entry.name}) has an unknown outcome`);
  }
}

const enc = new TextEncoder();
const dec = new TextDecoder();
// JSON at any depth (json-text.ts); JSON.parse needs no such help: it does not recurse
export const jsonBytes = (v: unknown): Uint8Array => enc.encode(jsonText(v === undefined ? null : v) ?? 'null');
export const bytesJson = (b: Uint8Array | null): unknown => (b === null ? null : JSON.parse(dec.decode(b)));
const sha = (v: unknown): string => sha256Hex(jsonText(v) ?? 'undefined');
const short = (h: string | null): string => (h ? h.slice(0, 12) : '-');

/**
 * Test-only: `TURN_CRASH_AT=K[:before|:after|:uncommitted]` kills the process (SIGKILL) at journal
 * write K: before it, after it is committed (durable, nothing acted on it yet), or after it joined
 * the open group commit but before that commit (the write is lost). `TURN_CRASH_AT=done` kills it
 * once the run's completion is committed, before anything else happens (issue 26: a line still
 * buffered then was lost).
 */
export type CrashPoint = { at: number; when: 'before' | 'after' | 'uncommitted' | 'done' | 'reprint' };
export function crashPointFromEnv(env: NodeJS.ProcessEnv = process.env): CrashPoint | undefined {
  const v = env.TURN_CRASH_AT;
  if (!v) return undefined;
  // `reprint`: right after a resume printed again a line the journal held unshown (before its mark)
  if (v === 'done' || v === 'reprint') return { at: -1, when: v };
  const [k, when] = v.split(':');
  return { at: Number(k), when: when === 'after' || when === 'uncommitted' ? when : 'before' };
}

/**
 * Test-only: `TURN_CRASH_IMAGES=DIR` takes, at every point `TURN_CRASH_AT` can kill at, the image a
 * SIGKILL there would leave, and goes on: a copy of the working directory (the store and the files
 * the program wrote) in `DIR/<n>-<point>` (`3-before`, `3-uncommitted`, `4-after`, `done`; n counts
 * the images). The copy is made synchronously from the files, which hold exactly what survives the
 * process: no write is buffered in it. SQLite's `-shm` index is left out: the first opener after a
 * writer died rebuilds it from the WAL. The crash harness resumes each image instead of re-running
 * the program up to each point (test/durability/crash.test.ts). Reading the store's files from this
 * process drops its POSIX locks on them, harmless in a test where no other process opens the store.
 */
export class CrashImages {
  private n = 0;
  constructor(
    private readonly dir: string,
    private readonly from: string = process.cwd(),
  ) {}
  take(point: string): void {
    const dest = path.join(this.dir, `${++this.n}-${point}`);
    const skip = path.resolve(this.dir);
    cpSync(this.from, dest, { recursive: true, filter: (src) => !src.endsWith('-shm') && path.resolve(src) !== skip });
  }
}
export function crashImagesFromEnv(env: NodeJS.ProcessEnv = process.env): CrashImages | undefined {
  return env.TURN_CRASH_IMAGES ? new CrashImages(env.TURN_CRASH_IMAGES) : undefined;
}

/** A store that can commit several journal writes with one fsync (SqliteRunStore). */
interface GroupCommit {
  beginGroup(): void;
  commitGroup(): void;
  rollbackGroup(): void;
}

const groupCommit = (store: RunStore): GroupCommit | undefined => {
  const g = store as Partial<GroupCommit>;
  return typeof g.beginGroup === 'function' && typeof g.commitGroup === 'function' && typeof g.rollbackGroup === 'function' ? (g as GroupCommit) : undefined;
};

/**
 * Every journal write of a run goes through here: appends and completions, counted (for the crash
 * harness), with store failures turned into a fatal stop by the caller.
 *
 * Group commit (issue 17): writes join one open transaction, committed once the writes that were
 * ready together are in — at the next turn of the event loop (`setImmediate`), or at once by
 * `flush`. One fsync covers them all. Nothing written is acted on before its commit: an effect
 * runs, and a result reaches the program, only after `committed()` resolves.
 */
export class JournalWriter {
  writes = 0;
  /** commits made (each one fsync) */
  commits = 0;
  private readonly group: GroupCommit | undefined;
  private open = false;
  private scheduled = false;
  private waiting: { resolve: () => void; reject: (e: unknown) => void }[] = [];
  constructor(
    readonly store: RunStore,
    readonly runId: string,
    private readonly crash = crashPointFromEnv(),
    private readonly images = crashImagesFromEnv(),
  ) {
    this.group = groupCommit(store);
    this.groupsCommits = this.group !== undefined && !defersCommits(store);
  }

  private join(): void {
    if (!this.group || this.open) return;
    this.group.beginGroup();
    this.open = true;
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        try {
          this.flush();
        } catch {
          // reported to every waiter by flush
        }
      });
    }
  }

  /** a write or a commit of the group failed: the group is rolled back, and nothing in it may be acted on */
  private failed: unknown = undefined;

  /** Runs one write of the group; a failure there rolls the group back (the store does), so its waiters fail. */
  private grouped<T>(write: () => T): T {
    try {
      return write();
    } catch (e) {
      if (this.open) {
        this.open = false;
        this.failed = e;
        this.group!.rollbackGroup();
        const waiting = this.waiting;
        this.waiting = [];
        for (const w of waiting) w.reject(e);
      }
      throw e;
    }
  }

  /** Commits the open group now (one fsync). Throws the store's error; waiters see it too. */
  flush(): void {
    if (this.failed !== undefined) throw this.failed;
    const waiting = this.waiting;
    this.waiting = [];
    if (this.open) {
      this.open = false;
      try {
        this.group!.commitGroup();
        this.commits++;
        this.images?.take(`${this.writes}-after`);
        if (this.crashAtCommit) process.kill(process.pid, 'SIGKILL');
      } catch (e) {
        this.failed = e;
        for (const w of waiting) w.reject(e);
        throw e;
      }
    }
    for (const w of waiting) w.resolve();
  }

  /** true when the store commits in groups here, in this process (SQLite), not later elsewhere (Restate) */
  readonly groupsCommits: boolean;

  /** Resolves once every write made so far is committed (at once when none is pending). */
  committed(): Promise<void> {
    if (this.failed !== undefined) return Promise.reject(this.failed instanceof Error ? this.failed : new Error(String(this.failed)));
    const deferred = whenDurable(this.store); // a store that commits later (Restate)
    if (!this.open) return deferred ?? Promise.resolve();
    const group = new Promise<void>((resolve, reject) => this.waiting.push({ resolve, reject }));
    return deferred ? Promise.all([deferred, group]).then(() => {}) : group;
  }

  /** a crash point `after` a write of the open group: taken once that group is committed */
  private crashAtCommit = false;

  private point(when: 'before' | 'after'): void {
    // an image: before write k; after it, committed (no group) or in the open group
    this.images?.take(`${this.writes}-${when === 'before' ? 'before' : this.open ? 'uncommitted' : 'after'}`);
    const c = this.crash;
    if (!c || c.at !== this.writes) return;
    if (when === 'before' && c.when === 'before') process.kill(process.pid, 'SIGKILL');
    if (when === 'after' && (c.when === 'uncommitted' || (c.when === 'after' && !this.open))) process.kill(process.pid, 'SIGKILL');
    if (when === 'after' && c.when === 'after') this.crashAtCommit = true;
  }

  /** A resume printed a journaled line again and handed it to the OS: the `reprint` crash point. */
  reprinted(): void {
    if (this.crash?.when === 'reprint') process.kill(process.pid, 'SIGKILL');
  }

  /** The run's completion is committed: the `done` crash point. */
  completed(): void {
    this.images?.take('done');
    if (this.crash?.when === 'done') process.kill(process.pid, 'SIGKILL');
  }

  /** the last entry this writer appended (undefined before its first): what a checkpoint reflects */
  last: LastEntry | undefined;
  /** the journal's growth since the last snapshot (checkpoints.ts): entries appended, and bytes written */
  readonly growth = { entries: 0, bytes: 0 };

  append(entry: JournalAppend): number {
    this.writes++;
    this.point('before');
    this.join();
    const seq = this.grouped(() => this.store.appendJournal(this.runId, entry));
    this.point('after');
    this.last = { seq, kind: entry.kind, key: entry.idempotencyKey ?? null };
    this.growth.entries++;
    this.growth.bytes += ENTRY_BYTES + (entry.payload?.length ?? 0);
    return seq;
  }

  complete(seq: number, status: 'ok' | 'error', payload: Uint8Array | null): void {
    this.writes++;
    this.point('before');
    this.join();
    this.grouped(() => this.store.completeJournal(this.runId, seq, status, payload));
    this.point('after');
    this.growth.bytes += payload?.length ?? 0;
  }

  /**
   * Stores a checkpoint reflecting entries <= `seq` (issue 45), with the older ones dropped but the
   * last `SNAPSHOTS_KEPT` (a damaged latest one falls back to the one before it). Both join the open
   * group commit, so the snapshot commits with the entries it reflects — never on disk ahead of
   * them, and at no fsync of its own; it is a journal write for the crash harness.
   */
  snapshot(seq: number, bytes: Uint8Array): void {
    this.writes++;
    this.point('before');
    this.join();
    this.grouped(() => {
      this.store.putSnapshot(this.runId, seq, bytes);
      this.store.pruneSnapshots(this.runId, SNAPSHOTS_KEPT);
    });
    this.point('after');
    this.growth.entries = 0;
    this.growth.bytes = 0;
  }
}

/** The journaling and replay logic of one run in one OS process. */
export class Durable implements DurableHooks {
  private readonly byKey = new Map<string, JournalEntry>();
  /** steps that run again when the replay reaches them: decided so (`d<seq>`) or refused before sending (`r<seq>`) */
  private readonly retries = new Set<number>();
  /** steps whose refusal is journaled already (`r<seq>`): a second refusal writes nothing */
  private readonly refusals = new Set<number>();
  /**
   * A refusal before sending stops the run to wait for a resume that has what was missing — when
   * there can be one: not with an in-memory store (a debug session's journal), where the refusal
   * stays the effect's error, as in a run without a store.
   */
  private readonly refusalsWait: boolean;
  private remaining = 0;
  private effects = 0;
  private clocks = 0;
  private checks = 0;
  private waits = 0;
  private suspends = 0;
  private outputs = 0;
  /** print lines the journal marks shown too (time travel's replay, which shows a run's output up to a step) */
  printsShownOutput = false;
  /** lines a resume printed that the journal held but had not marked shown (a crash between the two) */
  reprinted = 0;
  /** where the note of such a line goes, at once, before the line (the run's `onNote`) */
  onNote: ((text: string) => void) | undefined;
  /**
   * Output is journaled (issue 26): runs started with the `output` policy v1. A run started by an
   * older Turn has no output entries; its resume prints only what comes after the replayed part.
   */
  private readonly journalsOutput: boolean;
  private readonly inflight = new Set<Promise<unknown>>();
  /** a fatal stop: nothing more is written */
  private dead = false;
  /** suspended or dead: no new step starts (effects already running still record their outcome) */
  private halted = false;
  /** the run was interrupted (SIGINT, SIGTERM): no step starts, and the calls it cancels leave no outcome, so a resume asks them again */
  private interrupted = false;
  private settle!: (s: Stop) => void;
  /** resolves when the run stops before its program ends (suspend, divergence, a store failure) */
  readonly stopped = new Promise<Stop>((resolve) => (this.settle = resolve));
  /** the keys replay consumed, in order (for tests and `inspect`) */
  replayedSteps = 0;
  /** approvals asked in this run's journal, by logical key (`ae3.1`): a resume replays their decisions */
  private readonly approvals = new Map<string, JournalEntry>();
  /** effects that stopped at their first approval, never decided: not performed, so they run again */
  private readonly unapproved: Set<number>;
  /** decisions replayed from the journal instead of asked (for tests) */
  replayedApprovals = 0;
  /**
   * Agents' grants are journaled (`g<n>`): runs started with the `grants` policy v1. They are kept
   * apart from the replayed steps: a program that now starts fewer agents has narrowed, which is
   * no divergence, and must not keep the run "replaying".
   */
  private readonly journalsGrants: boolean;
  private readonly grantEntries = new Map<string, JournalEntry>();
  private grants = 0;
  /** the run's content-addressed blocks of model requests (request-blocks.ts) */
  private readonly blocks: BlockWriter;
  /**
   * How a model call's request is journaled: as references to blocks (the default), or whole
   * (`inline`: the bench's anchor, the same loop journaling full requests; readers take both).
   */
  requestJournal: 'blocks' | 'inline' = 'blocks';
  /**
   * When the run snapshots itself at a safe point (checkpoints.ts; null: never, as in a debug
   * session's in-memory journal or on a store that commits elsewhere). `TURN_SNAPSHOT_EVERY`
   * sets it; a library caller may set it before the run starts.
   */
  snapshotEvery: SnapshotPolicy | null;
  /** the size of the last snapshot written or restored: the next waits for at least as much journal */
  private lastSnapshotBytes = 0;
  /** checkpoints this run took in this OS process (for tests and the bench) */
  checkpoints = 0;

  constructor(
    readonly vm: VM,
    readonly run: RunRecord,
    readonly journal: JournalWriter,
    entries: JournalEntry[],
  ) {
    this.journalsOutput = run.policies?.output === 'v1';
    this.refusalsWait = journal.store.info().driver !== 'memory';
    this.journalsGrants = run.policies?.grants === 'v1';
    this.unapproved = stoppedAtApproval(entries);
    this.blocks = new BlockWriter(run.id);
    this.snapshotEvery = this.refusalsWait && !defersCommits(journal.store) ? snapshotPolicyFromEnv() : null;
    for (const e of entries) {
      if (e.idempotencyKey === null && (e.kind === SPAWN_KIND || e.kind === NAME_KIND)) {
        this.recordedName(e.pid, e.kind, e.name);
        continue;
      }
      const key = this.logical(e.idempotencyKey);
      if (key === null) continue;
      if (e.kind === BLOCK_KIND) {
        // its text is remembered only when it reads back as stored (a damaged block is stored again)
        const text = blockText(e);
        this.blocks.seen(key, typeof text === 'string' ? text : null);
        continue;
      }
      if (key.startsWith('d') || key.startsWith('r')) {
        this.retries.add(Number(key.slice(1)));
        if (key.startsWith('r')) this.refusals.add(Number(key.slice(1)));
        continue;
      }
      if (key.startsWith('a')) {
        this.approvals.set(key, e);
        continue;
      }
      if (GRANT_KEY.test(key)) {
        this.grantEntries.set(key, e);
        continue;
      }
      if (!REPLAYED_KEY.test(key)) continue;
      this.byKey.set(key, e);
      this.remaining++;
    }
  }

  /**
   * The spawns and names the journal held when this OS process took the run up (process-names.ts),
   * by pid: a replay, which spawns and names the same processes again, writes none of them twice. Not replayed steps: a journal
   * without them (from an older Turn) replays as before.
   */
  private readonly names = new Map<number, Set<string>>();

  private recordedName(pid: number, kind: string, name: string): void {
    let had = this.names.get(pid);
    if (!had) this.names.set(pid, (had = new Set()));
    had.add(`${kind}\u0000${name}`);
  }

  processSpawned(pid: number, parent: number, fn: string | null): void {
    this.journalName(SPAWN_KIND, pid, journalName(fn), jsonBytes({ parent }));
  }

  processNamed(p: ProcessRef, name: string): void {
    this.journalName(NAME_KIND, p.id, journalName(name), null);
  }

  private journalName(kind: string, pid: number, name: string, payload: Uint8Array | null): void {
    // only what the journal held when the run started is remembered: a live run writes each as it comes
    if (this.halted || this.names.get(pid)?.has(`${kind}\u0000${name}`)) return;
    this.write(() => this.journal.append({ kind, name, pid, status: 'ok', idempotencyKey: null, payload }));
  }

  private logical(idempotencyKey: string | null): string | null {
    return logicalKey(this.run.id, idempotencyKey);
  }

  private keyOf(key: string): string {
    return journalKey(this.run.id, key);
  }

  /**
   * A resume from a snapshot (issue 17): the run stands where the snapshot was taken, so the steps
   * it had taken are consumed already; only the journal's tail after it is replayed.
   */
  restoredFrom(c: Counters, snapshotBytes = 0): void {
    this.lastSnapshotBytes = snapshotBytes;
    this.effects = c.effects;
    this.clocks = c.clocks;
    this.checks = c.checks;
    this.waits = c.waits;
    this.suspends = c.suspends;
    this.outputs = c.outputs;
    this.grants = c.grants ?? 0;
    this.blocks.entries.taken(c.blocks ?? 0);
    this.blocks.pieces.taken(c.pieces ?? 0);
    const limit: Record<string, number> = { e: c.effects, c: c.clocks, t: c.checks, w: c.waits, s: c.suspends, o: c.outputs };
    for (const key of [...this.byKey.keys()]) {
      const n = Number.parseInt(key.slice(1), 10);
      if (n <= (limit[key[0]] ?? 0)) {
        this.byKey.delete(key);
        this.remaining--;
      }
    }
  }

  get replaying(): boolean {
    return this.remaining > 0;
  }

  /** The journal keys consumed so far: what a snapshot records, so a resume from it consumes them too. */
  private counters(): Counters {
    return { effects: this.effects, clocks: this.clocks, checks: this.checks, waits: this.waits, suspends: this.suspends, outputs: this.outputs, grants: this.grants, blocks: this.blocks.entries.count, pieces: this.blocks.pieces.count };
  }

  /**
   * Whether the next safe point should snapshot the VM: the journal grew past the policy's threshold
   * since the last snapshot, live (a replay's state is the journal's, which holds it already).
   */
  get snapshotDue(): boolean {
    return (
      this.snapshotEvery !== null &&
      !this.halted &&
      !this.interrupted &&
      this.remaining === 0 &&
      this.journal.growth.entries >= this.deferredTo &&
      checkpointDue(this.snapshotEvery, this.journal.growth, this.lastSnapshotBytes)
    );
  }

  /** a safe point found the VM unrestorable: the next try waits for this many entries of growth */
  private deferredTo = 0;

  /**
   * Steps a slice may run before its next safe point (the VM runs a slice in parts of at most
   * this): roughly the entries still to go before a snapshot is due (a step journals about one
   * entry at most), and few once it is due, so a snapshot is taken soon after; whole slices while
   * none can come due (a replay, no policy).
   */
  stepsToSafePoint(): number {
    const every = this.snapshotEvery;
    if (every === null || this.remaining > 0 || this.halted) return Infinity;
    if (this.snapshotDue) return PART_STEPS;
    const short = Math.max(every.entries - this.journal.growth.entries, this.deferredTo - this.journal.growth.entries);
    return short > 0 ? Math.max(PART_STEPS, short) : every.entries;
  }

  /**
   * A safe point of the scheduler (issue 45; runtime/vm calls it between slices with no effect in
   * flight when \`snapshotDue\`): snapshots the VM as a checkpoint reflecting every entry written so
   * far. Where the VM cannot be restored (a process waits on a tool loop, a seeded scheduler) it
   * writes nothing and the next safe point tries again; a value the format cannot hold skips this
   * checkpoint (the journal alone is the truth).
   */
  safePoint(): void {
    const last = this.journal.last;
    if (!this.snapshotDue || last === undefined) return;
    let bytes: Uint8Array;
    try {
      const data = checkpointSnapshot(this.vm, last, SEMANTICS_VERSION, this.counters());
      if (typeof data === 'string') {
        // not restorable here (a process waits on its tool calls...): try again a little later
        this.deferredTo = this.journal.growth.entries + Math.max(1, Math.ceil((this.snapshotEvery?.entries ?? 0) / 8));
        return;
      }
      bytes = encodeSnapshot(data);
    } catch {
      // a value the format cannot hold: this checkpoint is skipped, the next one waits for a whole threshold
      this.journal.growth.entries = 0;
      this.journal.growth.bytes = 0;
      return;
    }
    this.write(() => this.journal.snapshot(last.seq, bytes));
    if (this.dead) return;
    this.deferredTo = 0;
    this.lastSnapshotBytes = bytes.length;
    this.checkpoints++;
  }

  /** Unconsumed journal steps after the program ended: a divergence (the program now does less). */
  leftover(): JournalEntry[] {
    return [...this.byKey.values()];
  }

  /** Writes go through here: a store failure stops the run (its last commit stays intact). */
  private write<T>(f: () => T): T | undefined {
    if (this.dead) return undefined;
    try {
      return f();
    } catch (e) {
      this.fail(e instanceof Error ? e : new Error(String(e)));
      return undefined;
    }
  }

  fail(error: Error): void {
    if (this.dead) return;
    this.dead = true;
    this.halted = true;
    this.settle({ kind: 'fatal', error });
  }

  get stoppedNow(): boolean {
    return this.halted;
  }

  /**
   * Interruption: from now on nothing is journaled. What is committed stays; the effects in flight
   * are being cancelled, and their cancellation is not an outcome: the journal keeps their intent,
   * and the resume runs them again (a model call, an idempotent effect) or asks about them.
   */
  interrupt(): void {
    this.interrupted = true;
  }

  /** Commits the open group now; a failure stops the run (`stopped` then says why). */
  commitPending(): void {
    this.write(() => this.journal.flush());
  }

  /** Waits for effects still running when the run stopped, so their outcomes are journaled. */
  async drain(): Promise<void> {
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private take(key: string, kind: string, name: string, inputHash: string | null): JournalEntry | undefined | null {
    const e = this.byKey.get(key);
    if (!e) return undefined;
    this.byKey.delete(key);
    this.remaining--;
    this.replayedSteps++;
    if (e.kind !== kind || e.name !== name || (inputHash !== null && e.inputHash !== inputHash)) {
      this.fail(
        new DivergenceError(
          `replay diverged at step ${e.seq} (${key}): the journal recorded ${e.kind} \`${e.name}\` (input ${short(e.inputHash)}), ` +
            `the program now asks ${kind} \`${name}\` (input ${short(inputHash)}); the program or its inputs changed since the run started`,
        ),
      );
      return null;
    }
    return e;
  }

  private never<T>(): Promise<T> {
    return new Promise<T>(() => {});
  }

  /**
   * What a model call's intent records: its type, attempt, options and grant, and what it asked —
   * the prompt and the context tiers — as references to the run's blocks, written (before the
   * intent, in the same commit) for each text not stored yet. Only the step's inputHash, computed
   * from the whole request as before, is checked on replay.
   */
  private inferRequest(request: InferRequest, options: ReturnType<typeof optionsRecord>, grant: unknown): unknown {
    const tail = { attempt: request.attempt, ...(options ? { options } : {}), ...(grant ? { grant } : {}) };
    const tiers = request.tiers ?? { system: [], episodic: [], working: [] };
    const texts = { prompt: request.prompt, P0: tiers.system, P2: tiers.episodic, P1: tiers.working };
    if (this.requestJournal === 'inline') return { typeName: request.typeName, prompt: request.prompt, ...tail, context: { P0: texts.P0, P2: texts.P2, P1: texts.P1 } };
    return { typeName: request.typeName, ...tail, blocks: this.blocks.refs(texts, (entry) => this.journal.append(entry)) };
  }

  /** One effect step: replayed from the journal when recorded, else intent → run → outcome (`request`: what the intent records, made only when it is written). */
  private step(key: string, kind: string, name: string, pid: number, input: unknown, request: () => unknown, idempotent: boolean, run: () => Promise<unknown>): Promise<unknown> {
    if (this.halted || this.interrupted) return this.never();
    const inputHash = sha(input);
    const e = this.take(key, kind, name, inputHash);
    if (e === null) return this.never();
    if (e) {
      if (e.status === 'ok' && kind === 'tool' && MEDIA_READ_TOOLS.has(name)) {
        return rereadMedia(e.seq, bytesJson(e.payload), run).catch((err: unknown) => {
          this.fail(err instanceof Error ? err : new Error(String(err))); // the run stops here: its inputs changed
          return this.never();
        });
      }
      if (e.status === 'ok') return Promise.resolve(bytesJson(e.payload));
      if (e.status === 'error') return Promise.reject(new Error(String(bytesJson(e.payload))));
      // unknown (or an intent left by a crash): re-run only if idempotent or decided so
      if (!e.idempotent && !this.retries.has(e.seq) && !this.unapproved.has(e.seq)) {
        this.fail(new UnknownOutcomeError(e));
        return this.never();
      }
      // a resume that asks again says so (a model call asked again costs a call and may answer otherwise)
      const why = this.retries.has(e.seq) ? '`turn resolve --retry` chose to run it again' : this.unapproved.has(e.seq) ? 'it was never approved' : 'the run stopped before its outcome was recorded';
      this.onNote?.(`step ${e.seq}: ${kind} \`${name}\` is asked again: ${why}`);
      return this.perform(e.seq, run, true);
    }
    const seq = this.write(() =>
      this.journal.append({ kind, name, pid, inputHash, status: 'intent', idempotencyKey: this.keyOf(key), idempotent, payload: jsonBytes(request()) }),
    );
    if (seq === undefined) return this.never();
    return this.perform(seq, run, idempotent, kind === 'tool' && IDEMPOTENT_TOOLS.has(name));
  }

  /** Resolves when what was written so far is committed or durable; a failed commit stops the run (never resolves). */
  private durable(): Promise<void> {
    return this.journal.committed().catch((e: unknown) => {
      this.fail(e instanceof Error ? e : new Error(String(e)));
      return this.never<void>();
    });
  }

  /**
   * Runs an effect whose intent is written. A non-idempotent effect runs only once its intent is
   * durable (a group commit, a store that commits later), so a crash leaves it `unknown`, never
   * silently lost. An idempotent one (a model call, a read) does not wait: if the process dies
   * before the commit, nothing recorded it and the resume runs it again with the same key — what an
   * unknown idempotent effect gets anyway — and its intent and outcome usually share one commit.
   *
   * The outcome is durable before the program sees it — except a local read's (`localRead`: the
   * clock, a file read, an environment variable) on a store that commits in groups here: that
   * reaches the program at once and joins the open group. Until the group commits nothing the
   * program does with it leaves the process (a non-idempotent effect waits for the commit of
   * everything written before its intent; a printed line, a suspend and the run's end commit
   * first), so a crash before the commit loses only a read that the resume makes again for free.
   * A model reply is never delivered uncommitted: asking again costs a call and gives another
   * answer. A failed commit still stops the run.
   */
  private perform(seq: number, run: () => Promise<unknown>, idempotent: boolean, localRead = false): Promise<unknown> {
    const early = localRead && this.journal.groupsCommits;
    const deliver = <T>(then: () => T): Promise<T> => {
      if (!early) return this.durable().then(then);
      void this.durable(); // a failed commit stops the run
      return Promise.resolve().then(then);
    };
    const p = (idempotent ? Promise.resolve() : this.durable())
      .then(run)
      .then(
        (value) => {
          if (this.interrupted) return this.never();
          if (this.write(() => this.journal.complete(seq, 'ok', jsonBytes(value))) === undefined && this.dead) return this.never();
          return deliver(() => value);
        },
        (err: unknown) => {
          if (this.interrupted) return this.never();
          const message = err instanceof Error ? err.message : String(err);
          if (this.refusalsWait && isRefusedBeforeSending(err)) {
            this.inflight.delete(p); // it never settles: nothing for `drain` to wait for
            return this.refused(seq, message);
          }
          if (this.write(() => this.journal.complete(seq, 'error', jsonBytes(message))) === undefined && this.dead) return this.never();
          return deliver(() => {
            throw err;
          });
        },
      );
    this.inflight.add(p);
    const done = () => this.inflight.delete(p);
    p.then(done, done);
    return p;
  }

  /**
   * The host refused step `seq` before sending anything (a secret not set, a grant, an approval).
   * That is not the effect's outcome: its intent stays open, a refusal entry `r<seq>` records why
   * and lets the resume run the step again (no decision needed: nothing was sent), and the run
   * stops, resumable. A second refusal of the same step writes nothing new.
   */
  private refused(seq: number, message: string): Promise<never> {
    if (!this.refusals.has(seq)) {
      this.refusals.add(seq);
      const key = refusalKey(this.run.id, seq);
      if (this.write(() => this.journal.append({ kind: 'refusal', name: 'refused', pid: -1, status: 'ok', idempotencyKey: key, payload: jsonBytes({ seq, message }) })) === undefined) return this.never();
    }
    if (this.write(() => this.journal.flush()) === undefined && this.dead) return this.never();
    if (this.halted) return this.never(); // the run stopped already (a suspend): the refusal entry lets its resume run the step
    this.halted = true; // nothing new starts after the refusal in this OS process
    this.settle({ kind: 'refused', seq, message });
    return this.never();
  }

  // ---- DurableHooks

  host(p: ProcessRef, effect: PendingEffect, real: Host): Host {
    const n = ++this.effects;
    const output = (line: string) => this.output(real, line);
    if (effect.kind === 'tool' && effect.request.name === SUSPEND_TOOL) {
      return { output, infer: real.infer, tool: () => this.suspendPoint(p) };
    }
    if (effect.kind === 'infer') {
      let k = 0;
      return {
        output,
        infer: (request: InferRequest, io?: InferIO) => {
          // an infer's own options are part of what it asks (a replay with other options is a new question);
          // without any, the input is what it always was, so stored runs and recordings keep their hashes
          const options = optionsRecord(request.options);
          // native tool calls: the tools offered and the rounds so far are part of the question too
          const tools = request.tools ? { tools: request.tools.map((t) => t.name), toolRounds: request.toolRounds ?? [] } : {};
          const input = { typeName: request.typeName, schema: request.schema, prompt: request.prompt, context: request.context, attempt: request.attempt, feedback: request.feedback, ...(options ? { options } : {}), ...tools };
          const grant = real.grantOf?.({ kind: 'infer' });
          const journaled = () => this.inferRequest(request, options, grant);
          const key = `e${n}.${++k}`;
          const approvals = this.approvalsOf(key, p.id);
          return this.step(key, 'infer', request.typeName, p.id, input, journaled, true, () => real.infer(request, { ...(io ?? { emit: () => {} }), approvals })) as Promise<InferReply>;
        },
      };
    }
    return {
      output,
      infer: real.infer,
      tool: (request: ToolRequest) => {
        const input = { name: request.name, args: request.args };
        // the intent records the grant that allows the effect (not hashed: a replay under other grants is no divergence)
        const grant = real.grantOf?.({ kind: 'tool', request });
        return this.step(`e${n}`, 'tool', request.name, p.id, input, () => (grant ? { ...input, grant } : input), toolIsIdempotent(request), () => {
          if (!real.tool) throw new Error(`this host performs no effects (${request.name})`);
          // the journal's key travels with the effect (an HTTP Idempotency-Key), identical on a retry
          return real.tool({ ...request, idempotencyKey: this.keyOf(`e${n}`), approvals: this.approvalsOf(`e${n}`, p.id) });
        });
      },
    };
  }

  /**
   * The approvals of journal step `step` (docs/authority.md, "Approval"). The j-th one asked is the
   * journal entry `a<step>.<j>`: written as an intent holding the question and committed before the
   * question is asked — so a resume after an interruption at the prompt knows the effect went no
   * further (`unapproved`) — then completed with the decision, who made it and when, and committed
   * again before the effect acts on it. A resume that meets a given approval replays it and never
   * asks again; one that was never decided is asked again, and so is one that was denied: in a
   * durable run a denial is a refusal before sending (the step stays unrun and the run waits), so
   * the resume is where someone may now approve it.
   */
  private approvalsOf(step: string, pid: number): JournaledApprovals {
    let j = 0;
    return async (request: ApprovalAsked, ask: () => Promise<ApprovalAnswer>) => {
      let key = approvalStep(step, ++j);
      let recorded = this.approvals.get(key);
      // a denial left the step unrun (a refusal, not its outcome: the run waited), so the resume
      // asks again, under the next key; the denial stays in the journal as who said no, and when
      while (this.refusalsWait && recorded?.status === 'ok' && (bytesJson(recorded.payload) as { decision?: unknown } | null)?.decision === 'deny') {
        key = approvalStep(step, ++j);
        recorded = this.approvals.get(key);
      }
      if (recorded?.status === 'ok') {
        const d = bytesJson(recorded.payload) as { decision?: unknown } | null;
        if (d?.decision === 'approve' || d?.decision === 'deny') {
          this.replayedApprovals++;
          return d.decision;
        }
      }
      if (this.halted || this.interrupted) return this.never();
      const question = { effect: request.effect, summary: request.summary, step };
      const seq =
        recorded?.seq ??
        this.write(() => this.journal.append({ kind: 'approval', name: request.effect, pid: request.pid ?? pid, status: 'intent', idempotencyKey: this.keyOf(key), idempotent: true, payload: jsonBytes(question) }));
      if (seq === undefined || (this.write(() => this.journal.flush()) === undefined && this.dead)) return this.never();
      const answer = await ask();
      // an interruption while the question was open: nothing is decided, the resume asks again
      if (this.halted || this.interrupted) return this.never();
      const decided = { type: 'approval', ...question, decision: answer.decision, by: answer.by, at: new Date().toISOString() };
      this.write(() => this.journal.complete(seq, 'ok', jsonBytes(decided)));
      if (this.write(() => this.journal.flush()) === undefined && this.dead) return this.never();
      return answer.decision;
    };
  }

  /**
   * `call("echo", ...)` in a durable run (issue 26): each line is a journal entry `o<n>`, written as
   * an intent holding the line and committed before the line is printed; once printed (and handed
   * to the OS: `flushOutput`), the entry is completed — the line is *shown* — in the next commit,
   * which is before any later step's commit and before the run's completion. A resume prints what
   * the journal holds but never marked shown (the process died between printing and that commit:
   * the line is printed again, at least once) and never what it marked shown. A line the journal
   * does not hold was never printed, and is printed live.
   */
  output(real: Host, line: string): void {
    if (this.halted) return;
    if (!this.journalsOutput) {
      // a run of an older Turn: lines the replayed part printed already are not printed again
      if (this.replaying) return;
      if (this.write(() => this.journal.flush()) === undefined && this.dead) return;
      real.output(line);
      return;
    }
    const key = `o${++this.outputs}`;
    // the text is not checked against the journal: a migrated run may word a line differently
    const e = this.take(key, 'output', 'echo', null);
    if (e === null) return;
    if (e) {
      if (e.status === 'ok') {
        // shown before the crash or the suspend; a time-travel replay shows the run's output as it was
        if (this.printsShownOutput) real.output(typeof bytesJson(e.payload) === 'string' ? (bytesJson(e.payload) as string) : line);
        return;
      }
      const journaled = bytesJson(e.request ?? e.payload);
      if (!this.reprintNote(e.seq, key)) return;
      this.show(real, e.seq, typeof journaled === 'string' ? journaled : line);
      this.journal.reprinted();
      return;
    }
    const seq = this.write(() => this.journal.append({ kind: 'output', name: 'echo', pid: -1, status: 'intent', idempotencyKey: this.keyOf(key), idempotent: true, payload: jsonBytes(line) }));
    if (seq === undefined) return;
    // a line may show what the journal holds: it is printed only once that (and the line) is committed
    if (this.write(() => this.journal.flush()) === undefined && this.dead) return;
    this.show(real, seq, line);
  }

  /**
   * Before a resume prints again a line the journal holds unshown (the process that printed it died
   * before its mark's commit), the note saying so is journaled (committed; no key: it is not replayed,
   * and each resume that prints the line again adds one) and shown: a kill right after the line cannot
   * lose the note, and `turn inspect` shows every reprint. Returns false when the run stopped (a
   * store failure): the line is not printed.
   */
  private reprintNote(seq: number, key: string): boolean {
    this.reprinted++;
    const append = () => this.journal.append({ kind: 'note', name: 'reprint', pid: -1, status: 'ok', idempotencyKey: null, payload: jsonBytes({ seq, output: key }) });
    if (this.write(append) === undefined || (this.write(() => this.journal.flush()) === undefined && this.dead)) return false;
    this.onNote?.(`printing line ${key.slice(1)} again: the run had journaled it but not marked it shown when it stopped, so it may show twice`);
    return true;
  }

  /** Prints a journaled line, then records it shown (joining the next commit). */
  private show(real: Host, seq: number, line: string): void {
    real.output(line);
    real.flushOutput?.();
    this.write(() => this.journal.complete(seq, 'ok', jsonBytes(line)));
  }

  clock(p: ProcessRef, live: number): number {
    if (this.halted) return live;
    const key = `c${++this.clocks}`;
    const e = this.take(key, 'clock', 'now', null);
    if (e) return bytesJson(e.payload) as number;
    if (e === null) return live;
    this.write(() => this.journal.append({ kind: 'clock', name: 'now', pid: p.id, status: 'ok', idempotencyKey: this.keyOf(key), payload: jsonBytes(live) }));
    return live;
  }

  fireTimers(sleeping: ReadonlySet<Sleeper>, awaited: boolean): number[] {
    if (this.halted) return [];
    const key = `t${++this.checks}`;
    if (this.replaying) {
      const e = this.take(key, 'timer', 'timers', null);
      if (e === null) return [];
      if (!e) {
        if (awaited) this.fail(new DivergenceError(`replay diverged at timer check ${key}: the journal recorded no timer here, the program now waits for one`));
        return [];
      }
      return (bytesJson(e.payload) as { pids: number[] }).pids;
    }
    const now = this.vm.now();
    const pids: number[] = [];
    for (const p of sleeping) if (p.deadline !== null && p.deadline <= now) pids.push(p.id);
    if (pids.length === 0 && !awaited) return [];
    this.write(() => this.journal.append({ kind: 'timer', name: 'timers', pid: -1, status: 'ok', idempotencyKey: this.keyOf(key), payload: jsonBytes({ pids, awaited }) }));
    return pids;
  }

  effectFirst(live: number): number {
    if (this.halted) return live;
    const key = `w${++this.waits}`;
    if (this.replaying) {
      const e = this.take(key, 'schedule', 'effect-first', null);
      if (e) return (bytesJson(e.payload) as { index: number }).index;
      if (e === null) return live;
      // No choice here and none later: the journal was cut between the outcomes it holds and this
      // choice (a crash, a retried Restate invocation); nothing recorded depends on it, so it is made live.
      const later = [...this.byKey.keys()].some((k) => /^w\d+$/.test(k) && Number(k.slice(1)) > this.waits);
      if (later) {
        this.fail(new DivergenceError(`replay diverged at scheduler wait ${key}: the journal recorded no choice between effects here`));
        return live;
      }
    }
    this.write(() => this.journal.append({ kind: 'schedule', name: 'effect-first', pid: -1, status: 'ok', idempotencyKey: this.keyOf(key), payload: jsonBytes({ index: live }) }));
    return live;
  }

  agentGranted(p: ProcessRef, agent: string, capabilities: readonly string[]): void {
    if (!this.journalsGrants || this.halted) return;
    const key = `g${++this.grants}`;
    const e = this.grantEntries.get(key);
    if (e) {
      const was = bytesJson(e.payload) as { agent?: unknown; capabilities?: unknown } | null;
      const had = Array.isArray(was?.capabilities) ? (was.capabilities as unknown[]).filter((c): c is string => typeof c === 'string') : [];
      const wider = capabilities.filter((c) => !had.includes(c));
      if (wider.length > 0) {
        const list = (cs: readonly string[]): string => (cs.length === 0 ? 'none' : cs.join(', '));
        this.fail(
          new DivergenceError(
            `replay diverged at step ${e.seq} (${key}): agent "${String(was?.agent)}" was granted the capabilities ${list(had)} when the run started, ` +
              `the program now grants agent "${agent}" ${list(capabilities)}; a resumed or migrated run cannot widen an agent's capabilities (${list(wider)})`,
          ),
        );
      }
      return;
    }
    this.write(() => this.journal.append({ kind: 'grant', name: agent, pid: p.id, status: 'ok', idempotencyKey: this.keyOf(key), payload: jsonBytes({ agent, capabilities: [...capabilities] }) }));
  }

  timerFirst(): boolean {
    const e = this.byKey.get(`t${this.checks + 1}`);
    return e !== undefined && (bytesJson(e.payload) as { awaited?: boolean }).awaited === true;
  }

  /** `suspend;`: commit a snapshot with the step, then stop the run (live), or go on (replay). */
  private suspendPoint(p: ProcessRef): Promise<unknown> {
    const key = `s${++this.suspends}`;
    const e = this.take(key, 'suspend', 'suspend', null);
    if (e) return Promise.resolve(null);
    if (e === null || this.halted) return this.never();
    let snapshot: Uint8Array | undefined;
    try {
      snapshot = encodeSnapshot(vmSnapshot(this.vm, 0, SEMANTICS_VERSION, this.counters(), p.id));
    } catch {
      snapshot = undefined; // a value the format cannot hold: the journal alone is the truth
    }
    const seq = this.write(() =>
      this.journal.append({ kind: 'suspend', name: 'suspend', pid: p.id, status: 'ok', idempotencyKey: this.keyOf(key), payload: null, ...(snapshot ? { snapshot } : {}) }),
    );
    if (seq !== undefined && this.write(() => this.journal.flush()) === undefined && this.dead) return this.never();
    if (seq !== undefined) {
      this.halted = true; // nothing new starts or prints after the suspend point in this OS process
      this.settle({ kind: 'suspended', seq });
    }
    return this.never();
  }
}

/** The store's error as one line for a person. */
export function storeMessage(e: unknown): string {
  if (e instanceof StoreError) return e.message;
  return e instanceof Error ? e.message : String(e);
}

/**
 * Puts a resumed run's VM where its snapshot was taken (before `vm.run()`): at a `suspend;`, the
 * process that suspended resumes first, as a full replay would resume it; at a checkpoint, the
 * ready processes run in the order the scheduler held them. Only the journal's tail is replayed
 * (issue 17; the one resume still goes through runtime/run's resumeRun).
 */
export function restoreRun(vm: VM, durable: Durable, point: RestorePoint, snapshotBytes = 0): void {
  vm.restoreState(point.state, point.suspended === null ? [] : [{ pid: point.suspended, result: { kind: 'tool', ok: true, value: null } }]);
  vm.reserveScopeIds(point.maxScope);
  durable.restoredFrom(point.counters, snapshotBytes);
}
