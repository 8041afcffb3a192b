// What a durable run is between OS processes: its stored sources, whether and how it may resume,
// how a person settles an effect whose outcome is unknown, and how it moves to new code. The CLI,
// the editor and the debugger all go through here (via runtime/run), so they cannot drift apart.
import { sha256Hex } from '../hash.js';
import { checkSource } from '../check/index.js';
import type { Bundle } from '../compile/bundle.js';
import { compileBundle, localPath, portablePath, type SourceUnit } from '../compile/index.js';
import { formatDiagnostic } from '../diagnostics.js';
import { StoreError, type JournalEntry, type RunRecord, type RunStore, type Snapshot } from '../store/types.js';
import type { InferReply } from '../infer/types.js';
import { decodeSnapshot } from '../store/serialize.js';
import { bytesJson, jsonBytes, SEMANTICS_VERSION } from './index.js';
import { decisionKey, journalKey, migrationKey, stoppedAtApproval } from './keys.js';
import { restorePoint, type RestorePoint } from './snapshot.js';
import { ASK_TOOL } from '../ports/ask.js';
import { blocksOfEntries, reassembledOrNote } from './request-blocks.js';

/**
 * What a program's sources are stored as (`putBundle`): recompiled on resume and checked against
 * the bytecode hash. Each unit carries the SHA-256 of its text and the whole a digest of the entry
 * path and the units, so a damaged bundle is named as damaged (and where) instead of failing to
 * compile or compiling to other code (sources stored by an older Turn have neither).
 */
interface StoredSources {
  format: 1;
  entryPath: string;
  units: { path: string; text: string; sha256?: string }[];
  digest?: string;
}

const sha256 = (text: string): string => sha256Hex(text);
const digestOf = (entryPath: string, units: { path: string; text: string }[]): string => sha256(JSON.stringify([entryPath, units.map((u) => [u.path, u.text])]));

export function sourcesOf(units: SourceUnit[], entryPath: string): Uint8Array {
  const stored = units.map((u) => ({ path: portablePath(u.path), text: u.file.text }));
  const s: StoredSources = { format: 1, entryPath, units: stored.map((u) => ({ ...u, sha256: sha256(u.text) })), digest: digestOf(entryPath, stored) };
  return jsonBytes(s);
}

/** A run that cannot be resumed (or settled), with the reason as one line for a person. */
export class ResumeRefused extends Error {
  override name = 'ResumeRefused';
  constructor(
    message: string,
    /** `compile`: the stored sources no longer compile; `damaged`: they do not match their checksums; `ended`: the run is over; else `refused` */
    readonly reason: 'refused' | 'compile' | 'damaged' | 'ended' = 'refused',
    readonly run?: RunRecord,
  ) {
    super(message);
  }
}

export function getRun(store: RunStore, id: string): RunRecord {
  const run = store.getRun(id);
  if (!run) throw new StoreError('not_found', `no run ${id} in the store ${store.info().file}`);
  return run;
}

/**
 * Steps that run again on resume: a person decided so (`turn resolve --retry`), or the host refused
 * them before sending anything (a refusal entry: a secret not set, a grant, an approval).
 */
export function retriedSteps(entries: JournalEntry[]): Set<number> {
  const out = new Set([...decisions(entries)].filter(([, d]) => d === 'retry').map(([seq]) => seq));
  for (const seq of refusals(entries).keys()) out.add(seq);
  return out;
}

/** Steps the host refused before sending them, by seq, with the latest refusal's message. */
export function refusals(entries: JournalEntry[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const e of entries) {
    if (e.kind !== 'refusal') continue;
    const r = bytesJson(e.payload) as { seq?: unknown; message?: unknown } | null;
    if (typeof r?.seq === 'number') out.set(r.seq, typeof r.message === 'string' ? r.message : 'refused');
  }
  return out;
}

/** How a person settled each unknown step (`turn resolve`): run it again, or its result or error. */
export type Decision = 'retry' | 'ok' | 'error';

/** The steps a person settled, by seq (a decision entry records each; older stores hold only `retry`). */
export function decisions(entries: JournalEntry[]): Map<number, Decision> {
  const out = new Map<number, Decision>();
  for (const e of entries) {
    if (e.kind !== 'decision') continue;
    const d = bytesJson(e.payload) as { seq: number; decision?: string };
    out.set(d.seq, d.decision === 'ok' || d.decision === 'error' ? d.decision : 'retry');
  }
  return out;
}

/**
 * The model calls a run made (each journaled exchange with its reply) and the prompts they
 * answered: what it spent of its model budgets before this OS process (runtime/run: a resume
 * counts them again, so `--max-model-calls` and `--max-model-tokens` hold across resumes).
 */
export function earlierModelCalls(runId: string, entries: readonly JournalEntry[]): { prompt: string; reply: InferReply }[] {
  const out: { prompt: string; reply: InferReply }[] = [];
  const blocks = blocksOfEntries(runId, entries);
  for (const e of entries) {
    if (e.kind !== 'infer' || e.status !== 'ok') continue;
    const asked = reassembledOrNote(bytesJson(e.request), blocks) as { prompt?: unknown } | null;
    // a store is read as outside data: only the fields the count reads, of the types it expects
    const r = bytesJson(e.payload) as { text?: unknown; value?: unknown; usage?: unknown } | null;
    if (r === null || typeof r !== 'object') continue;
    const usage = r.usage !== null && typeof r.usage === 'object' ? (r.usage as InferReply['usage']) : undefined;
    const reply: InferReply = { ...(typeof r.text === 'string' ? { text: r.text } : { value: r.value }), ...(usage ? { usage } : {}) };
    out.push({ prompt: typeof asked?.prompt === 'string' ? asked.prompt : '', reply });
  }
  return out;
}

/** Effects whose outcome is unknown, that may not be re-run and that nobody has decided about yet. */
export function blockingUnknowns(entries: JournalEntry[]): JournalEntry[] {
  const retried = retriedSteps(entries);
  // an effect that stopped at an approval nobody decided was not performed: it runs again (keys.ts)
  const unasked = stoppedAtApproval(entries);
  return entries.filter((e) => e.status === 'unknown' && !e.idempotent && !retried.has(e.seq) && !unasked.has(e.seq));
}

/** The bytecode hash a run runs now: its first one, or the last it migrated to. */
export function currentHash(run: RunRecord, entries: JournalEntry[]): string {
  let hash = run.bytecodeHash;
  for (const e of entries) if (e.kind === 'migrate' && e.status === 'ok') hash = (bytesJson(e.payload) as { to: string }).to;
  return hash;
}

/** The stored sources, checked for damage: throws ResumeRefused naming what is damaged. */
function readStored(bytes: Uint8Array, what: string): StoredSources {
  const damaged = (why: string) => new ResumeRefused(`the stored sources of ${what} are damaged: ${why}`, 'damaged');
  let stored: unknown;
  try {
    stored = bytesJson(bytes);
  } catch (e) {
    throw damaged(`they are not valid JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  const s = stored as Partial<StoredSources> | null;
  if (!s || typeof s !== 'object' || s.format !== 1 || typeof s.entryPath !== 'string' || !Array.isArray(s.units)) throw damaged('they are not a stored program (format, entry path or units missing)');
  for (const [i, u] of s.units.entries()) {
    if (!u || typeof u !== 'object' || typeof u.path !== 'string' || typeof u.text !== 'string') throw damaged(`unit ${i + 1} is not a file with a path and a text`);
    if (u.sha256 !== undefined && u.sha256 !== sha256(u.text)) throw damaged(`the text of ${u.path} does not match its stored checksum (SHA-256 ${String(u.sha256).slice(0, 12)}...)`);
  }
  if (s.digest !== undefined && s.digest !== digestOf(s.entryPath, s.units)) throw damaged('their entry path or list of files does not match the stored digest');
  return s as StoredSources;
}

/** Recompiles stored sources (`what` names them in messages: "run ID", "bytecode HASH"). */
export async function compileStored(bytes: Uint8Array, what = 'this run'): Promise<Bundle> {
  const stored = readStored(bytes, what);
  const checked = stored.units.some((u) => u.sha256 !== undefined);
  const units: SourceUnit[] = [];
  for (const u of stored.units) {
    const local = localPath(u.path);
    const r = await checkSource(local, u.text);
    const first = r.diagnostics.find((d) => d.severity === 'error');
    if (first) {
      const where = formatDiagnostic(r.file, first);
      throw new ResumeRefused(
        checked
          ? `the stored source ${u.path} of ${what} no longer compiles with this Turn: ${where}`
          : `the stored source ${u.path} of ${what} does not compile (it is damaged, or this Turn no longer accepts it): ${where}`,
        'compile',
      );
    }
    units.push({ path: local, file: r.file, program: r.program, uses: r.uses });
  }
  return compileBundle(units, stored.entryPath);
}

/** The current code of a run's program, for a migration. */
export interface FreshCode {
  bundle: Bundle;
  units: SourceUnit[];
  entryPath: string;
}

export type Resumable =
  | {
      kind: 'resume';
      run: RunRecord;
      bundle: Bundle;
      entries: JournalEntry[];
      migratedFrom?: string;
      /** the latest snapshot, when it can be restored: only the journal after it is replayed */
      restore?: SnapshotStart;
      /** why the resume replays from the start although the run has a snapshot */
      note?: string;
    }
  /** effects with unknown outcomes wait for a decision; the run's status is now `waiting` */
  | { kind: 'waiting'; run: RunRecord; unknown: JournalEntry[] };

/**
 * Everything a resume checks, in one place: the run exists and has not ended, this VM speaks its
 * semantics, no unknown outcome blocks it (a `--retry` decision unblocks one), its bytecode is in
 * the store and its stored sources compile to it. With `migrate`, a run at a wait point first moves
 * to `migrate()`'s code (journaled). Throws ResumeRefused or StoreError.
 */
export async function prepareResume(store: RunStore, id: string, migrate?: () => Promise<FreshCode>): Promise<Resumable> {
  const run = getRun(store, id);
  if (run.status === 'done' || run.status === 'failed' || run.status === 'cancelled') {
    const r = bytesJson(run.result) as { message?: string } | null;
    throw new ResumeRefused(`run ${id} has ${run.status === 'done' ? 'already ended (done)' : `${run.status}${r?.message ? `: ${r.message}` : ''}`}`, 'ended', run);
  }
  if (run.semanticsVersion !== SEMANTICS_VERSION) {
    throw new ResumeRefused(`run ${id} was started by a VM with semantics ${run.semanticsVersion}; this Turn speaks ${SEMANTICS_VERSION} and cannot resume it`);
  }
  // The store is ours now, so no other process runs this run: its open intents are unknown.
  store.markUnknownOnRecovery(id);
  // A restorable snapshot (issue 17) needs only the journal after it: every step before it has its
  // outcome (a snapshot is restorable only where no effect was in flight). A migration replays
  // the new code from the start.
  const snapshot = migrate ? { note: undefined } : snapshotStart(store, id);
  let restore = snapshot.restore;
  let note = snapshot.note;
  let entries: JournalEntry[] = snapshot.restore ? snapshot.tail : store.readJournal(id);
  const blocking = blockingUnknowns(entries);
  if (blocking.length > 0) {
    store.setRunStatus(id, 'waiting');
    return { kind: 'waiting', run: { ...run, status: 'waiting' }, unknown: blocking };
  }
  let hash = restore ? currentHash({ ...run, bytecodeHash: restore.bytecodeHash }, entries) : currentHash(run, entries);
  if (restore && hash !== restore.bytecodeHash) {
    // the run moved to new code after its snapshot: the new code replays from the start
    note = `the snapshot of run ${id} at step ${restore.seq + 1} holds code the run has since moved from; replaying run ${id}'s journal from the start`;
    restore = undefined;
    entries = store.readJournal(id);
    hash = currentHash(run, entries);
  }
  if (!restore && note === undefined && entries.some((e) => e.kind === 'suspend')) note = `run ${id} has no snapshot; replaying run ${id}'s journal from the start`;
  let migratedFrom: string | undefined;
  if (migrate) {
    if (run.status !== 'suspended' && run.status !== 'waiting') {
      throw new ResumeRefused(`run ${id} is ${run.status}: a run moves to new code only at a wait point (suspended or waiting)`);
    }
    const fresh = await migrate();
    if (fresh.bundle.version !== hash) {
      store.putBundle(fresh.bundle.version, sourcesOf(fresh.units, fresh.entryPath));
      const n = entries.filter((e) => e.kind === 'migrate').length + 1;
      store.appendJournal(id, { kind: 'migrate', name: 'bytecode', status: 'ok', idempotencyKey: migrationKey(id, n), payload: jsonBytes({ from: hash, to: fresh.bundle.version }) });
      migratedFrom = hash;
      hash = fresh.bundle.version;
      entries = store.readJournal(id);
    }
  }
  const bytes = store.getBundle(hash);
  if (!bytes) throw new ResumeRefused(`the store has no bytecode ${hash} for run ${id}`);
  const bundle = await compileStored(bytes, `run ${id}`);
  if (bundle.version !== hash) {
    throw new ResumeRefused(
      `run ${id} started with bytecode ${hash.slice(0, 12)}, but this Turn compiles its stored sources to ${bundle.version.slice(0, 12)}; resume it with the Turn that started it, or move it with --migrate`,
    );
  }
  return { kind: 'resume', run, bundle, entries, ...(migratedFrom ? { migratedFrom } : {}), ...(restore ? { restore } : {}), ...(note ? { note } : {}) };
}

/** A restore point with the code its snapshot holds, and the snapshot's size in bytes. */
export type SnapshotStart = RestorePoint & { bytecodeHash: string; bytes: number };

/** How many snapshots a resume tries, newest first, before it re-executes from the start. */
const SNAPSHOTS_TRIED = 3;

/**
 * Where a resume starts (issue 17, issue 45): the latest snapshot, with the journal after it, when
 * it can be restored; else the one before it (a run keeps two), and so on; else a note saying why
 * none could (damaged, taken where a restore is not possible, not matching the journal). The
 * journal alone is the truth, so a snapshot that does not fit is never an error: the resume starts
 * from an older one or replays from the start, and says so.
 */
function snapshotStart(store: RunStore, id: string): { restore: SnapshotStart; tail: JournalEntry[]; note?: string } | { restore?: undefined; note: string | undefined } {
  const why: string[] = [];
  const unread = (e: unknown) => `the snapshot of run ${id} cannot be read (${e instanceof Error ? e.message : String(e)})`;
  let snap: Snapshot | null;
  try {
    snap = store.latestSnapshot(id);
  } catch (e) {
    return { note: `${unread(e)}; replaying run ${id}'s journal from the start` };
  }
  for (let tried = 0; snap !== null && tried < SNAPSHOTS_TRIED; tried++) {
    const start = restorable(store, id, snap);
    if (typeof start !== 'string') return { ...start, ...(why.length > 0 ? { note: `${why.join('; ')}; resuming run ${id} from its snapshot at step ${snap.seq + 1}` } : {}) };
    why.push(start);
    try {
      snap = store.snapshotBefore?.(id, snap.seq) ?? null;
    } catch (e) {
      why.push(unread(e));
      break;
    }
  }
  return { note: why.length > 0 ? `${why.join('; ')}; replaying run ${id}'s journal from the start` : undefined };
}

/** The restore point snapshot `snap` gives with the journal after it, or why it cannot be used. */
function restorable(store: RunStore, id: string, snap: Snapshot): { restore: SnapshotStart; tail: JournalEntry[] } | string {
  const at = `the snapshot of run ${id} at step ${snap.seq + 1}`;
  let data;
  try {
    data = decodeSnapshot(snap.bytes);
  } catch (e) {
    return `${at} is damaged (${e instanceof Error ? e.message : String(e)})`;
  }
  if (data.semanticsVersion !== SEMANTICS_VERSION) return `${at} was taken by a VM with semantics ${data.semanticsVersion}`;
  const point = restorePoint(data);
  if (typeof point === 'string') return `${at} cannot be restored: ${point}`;
  let tail: JournalEntry[];
  if (point.suspended !== null) {
    // committed with its suspend entry: the journal's tail starts with that entry
    tail = store.readJournal(id, snap.seq + 1);
    if (tail[0]?.idempotencyKey !== journalKey(id, `s${point.counters.suspends}`) || tail[0].seq !== snap.seq + 1) return `${at} does not match the journal`;
  } else {
    // a checkpoint (issue 45) reflects every entry up to its last, which the journal must still hold there
    const from = store.readJournal(id, snap.seq);
    const last = from[0];
    if (!point.last || point.last.seq !== snap.seq || last?.seq !== snap.seq || last.kind !== point.last.kind || last.idempotencyKey !== point.last.key) return `${at} does not match the journal`;
    tail = from.slice(1);
  }
  return { restore: { ...point, seq: snap.seq, bytecodeHash: data.bytecodeHash, bytes: snap.bytes.length }, tail };
}

/** How a person settles an effect whose outcome is unknown. */
export type Settlement = { ok: unknown } | { error: string } | { retry: true };

export interface Settled {
  /** steps still unknown after this decision (the run stays `waiting` while there are any) */
  stillUnknown: number[];
}

/**
 * Settles the unknown step `seq` of run `id`: its result, its error, or run it again with the same
 * idempotency key (a journaled decision the replay honours).
 */
export function settleUnknown(store: RunStore, id: string, seq: number, settlement: Settlement, answering = false): Settled {
  getRun(store, id);
  store.markUnknownOnRecovery(id); // the store is ours, so no process runs this run: its intents are unknown
  const entry = store.readJournal(id, seq)[0];
  if (!entry || entry.seq !== seq) throw new ResumeRefused(`run ${id} has no step ${seq}`);
  const decided = decisions(store.readJournal(id)).get(seq);
  if (decided) {
    const how = decided === 'retry' ? 'it runs again on resume (--retry)' : decided === 'ok' ? 'with a result (--ok)' : 'with an error (--error)';
    throw new ResumeRefused(`step ${seq} of run ${id} is already settled: ${how}`);
  }
  if (entry.status !== 'unknown') throw new ResumeRefused(`step ${seq} of run ${id} is ${entry.status}, not unknown: nothing to resolve`);
  // a question's answer is checked against its type first (answers.ts): `turn resolve --ok` would skip that
  if (!answering && entry.kind === 'tool' && entry.name === ASK_TOOL && !('retry' in settlement)) {
    throw new ResumeRefused(`step ${seq} of run ${id} is a question (ask): answer it with \`turn answer ${id} --value JSON\`, which checks the answer's type`);
  }
  const decision: Decision = 'retry' in settlement ? 'retry' : 'error' in settlement ? 'error' : 'ok';
  if ('error' in settlement) store.completeJournal(id, seq, 'error', jsonBytes(settlement.error));
  else if ('ok' in settlement) store.completeJournal(id, seq, 'ok', jsonBytes(entry.kind === 'infer' ? { value: settlement.ok } : settlement.ok));
  // the decision is recorded for every settlement (for a result or an error after it), so inspect
  // shows the step as decided and a second settle is refused by name
  store.appendJournal(id, { kind: 'decision', name: decision, status: 'ok', idempotencyKey: decisionKey(id, seq), payload: jsonBytes({ seq, decision }) });
  const still = blockingUnknowns(store.readJournal(id));
  if (still.length === 0) store.setRunStatus(id, 'suspended');
  return { stillUnknown: still.map((e) => e.seq) };
}
