// The SQLite schema of a Turn store, its version check, and the one implementation of RunStore
// over it that both SQLite drivers share (better-sqlite3.ts, node-sqlite.ts differ only in how
// they open a connection). See docs/durability.md for the schema explained.
import * as fs from 'node:fs';
import * as os from 'node:os';
import { randomHex } from '../hash.js';
import { ChunkBuilder, ChunkError, decodeChunk } from './journal-chunk.js';
import {
  RUN_STATUSES, StoreError, defaultIdempotencyKey,
  type JournalAppend, type JournalEntry, type JournalStatus, type NewRun, type RunRecord, type RunStatus, type RunStore,
  type Snapshot, type StoreErrorCode, type StoreInfo,
} from './types.js';

/** The schema this code writes and reads. A store with a higher version is refused. */
export const SCHEMA_VERSION = 2;
/** `PRAGMA application_id` of a Turn store: 'TRN1'. Marks the file as ours. */
export const APPLICATION_ID = 0x54524e31;

/**
 * Version 1. Every table is keyed by the run id; times are milliseconds since the epoch; encoded
 * Turn values (serialize.ts) are BLOBs; JSON columns hold plain objects.
 */
export const SCHEMA_V1 = `
-- Which schema versions were applied, when and by whom. The store's version is MAX(version); it
-- is also kept in PRAGMA user_version (checked first, without reading any table).
CREATE TABLE schema_version (
  version    INTEGER PRIMARY KEY,
  applied_at INTEGER NOT NULL,
  applied_by TEXT    NOT NULL              -- e.g. 'turn better-sqlite3'
);

-- One row per run: what it started with (versions are fixed for its life) and how it stands.
CREATE TABLE runs (
  id                TEXT    PRIMARY KEY,   -- time-ordered: listing by id is listing by start
  entry             TEXT    NOT NULL,      -- the entry program, for people
  bytecode_hash     TEXT    NOT NULL,      -- the bundle it started with (bundles.hash)
  semantics_version TEXT    NOT NULL,      -- the VM semantics it runs under
  policies          TEXT    NOT NULL,      -- JSON {name: version} of the policies it uses
  meta              TEXT    NOT NULL,      -- JSON, free-form (arguments, model, host)
  status            TEXT    NOT NULL CHECK (status IN ('running','suspended','waiting','done','failed','cancelled')),
  created_at        INTEGER NOT NULL,
  updated_at        INTEGER NOT NULL,
  result            BLOB                   -- encoded result (done) or error (failed)
);
CREATE INDEX runs_by_status ON runs (status, created_at);

-- The journal: every nondeterministic step a run observed, in the order it observed them.
-- An effect is written as 'intent' (committed before it runs) and completed to 'ok' / 'error'
-- (committed before the VM sees the result). On recovery an 'intent' becomes 'unknown'.
-- Observations without an effect (clock, random, receive order) are written 'ok' at once.
CREATE TABLE journal (
  run_id          TEXT    NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq             INTEGER NOT NULL CHECK (seq >= 1),  -- 1, 2, 3 ... per run, no gaps
  kind            TEXT    NOT NULL,                   -- 'infer', 'tool', 'http', 'clock', 'random', 'receive' ...
  name            TEXT    NOT NULL,                   -- tool / model / operation name
  pid             INTEGER NOT NULL,                   -- the observing process (-1: the scheduler)
  input_hash      TEXT,                               -- hash of the step's input, checked on replay
  status          TEXT    NOT NULL CHECK (status IN ('intent','ok','error','unknown')),
  idempotency_key TEXT,                               -- unique in the run (index below)
  idempotent      INTEGER NOT NULL DEFAULT 0 CHECK (idempotent IN (0, 1)),
  request         BLOB,                               -- an intent's request (kept after completion)
  payload         BLOB,                               -- the result (ok) or error (error)
  created_at      INTEGER NOT NULL,
  completed_at    INTEGER,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX journal_by_key ON journal (run_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE INDEX journal_open ON journal (run_id, seq) WHERE status IN ('intent', 'unknown');

-- Snapshots of the whole VM (serialize.ts encodeSnapshot), taken at safe points. They only
-- shorten replay: the journal alone is the truth. seq = the last journal entry reflected.
CREATE TABLE snapshots (
  run_id     TEXT    NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq        INTEGER NOT NULL CHECK (seq >= 0),
  bytes      BLOB    NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX snapshots_by_run ON snapshots (run_id, seq);

-- Bytecode bundles by content hash, so a run resumes with the code it started with.
CREATE TABLE bundles (
  hash       TEXT    PRIMARY KEY,
  bytes      BLOB    NOT NULL,
  created_at INTEGER NOT NULL
);
`;

/**
 * Version 2 (issue 45): settled entries (journaled `ok` / `error` at once, never updated) are
 * packed into chunks (journal-chunk.ts), one row per chunk instead of one per entry; entries
 * journaled as an `intent` stay rows of `journal` (their outcome is written later). Every
 * idempotency key, of a row or of a chunk's entry, is in `journal_keys`, which keeps keys unique
 * in a run across both. A version 1 store is migrated in place: its rows stay as they are, their
 * keys are copied into `journal_keys`.
 */
export const SCHEMA_V2 = `
-- Settled journal entries, packed in seq order: entries first_seq..last_seq of the run that are
-- not rows of journal (the rows in between are its intents).
CREATE TABLE journal_chunks (
  run_id    TEXT    NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  first_seq INTEGER NOT NULL CHECK (first_seq >= 1),
  last_seq  INTEGER NOT NULL CHECK (last_seq >= first_seq),
  bytes     BLOB    NOT NULL,                         -- journal-chunk.ts, with its format version
  PRIMARY KEY (run_id, first_seq)
) WITHOUT ROWID;

-- Every idempotency key of the run and the entry (row or chunk) holding it. A key of the run's
-- own ('turn:<run>:<step>') is kept as ':<step>', any other as '=<key>'.
CREATE TABLE journal_keys (
  run_id TEXT    NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  key    TEXT    NOT NULL,
  seq    INTEGER NOT NULL,
  PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
INSERT INTO journal_keys (run_id, key, seq)
  SELECT run_id,
         CASE WHEN substr(idempotency_key, 1, length(run_id) + 6) = 'turn:' || run_id || ':'
              THEN ':' || substr(idempotency_key, length(run_id) + 7)
              ELSE '=' || idempotency_key END,
         seq
  FROM journal WHERE idempotency_key IS NOT NULL;
DROP INDEX journal_by_key;
`;

/** Migrations from version N-1 to N, by N. Version 1 is the creation itself. */
const MIGRATIONS: Record<number, string> = { 1: SCHEMA_V1, 2: SCHEMA_V2 };

// ---------------------------------------------------------------------------------------------
// The connection both drivers provide

export type SqlParam = string | number | bigint | null | Uint8Array;

export interface SqlStatement {
  run(...params: SqlParam[]): { changes: number | bigint };
  get(...params: SqlParam[]): Record<string, unknown> | undefined;
  all(...params: SqlParam[]): Record<string, unknown>[];
}

export interface SqlConnection {
  exec(sql: string): void;
  prepare(sql: string): SqlStatement;
  close(): void;
}

export interface SqliteOptions {
  /** how long to wait for another writer before 'in_use' (ms, default 2000) */
  busyTimeoutMs?: number;
}

const SQLITE_HEADER = 'SQLite format 3\0';

// SQLite primary result codes (errcode & 0xff)
const BUSY = 5, LOCKED = 6, READONLY = 8, IOERR = 10, CORRUPT = 11, FULL = 13, CANTOPEN = 14, NOTADB = 26, PERM = 3;

/** The primary SQLite result code of a driver error (better-sqlite3: `code`; node:sqlite: `errcode`). */
function sqliteCode(e: unknown): number | undefined {
  const err = e as { code?: unknown; errcode?: unknown; message?: unknown };
  if (typeof err?.errcode === 'number') return err.errcode & 0xff;
  if (typeof err?.code === 'string' && err.code.startsWith('SQLITE_')) {
    const names: Record<string, number> = {
      SQLITE_BUSY: BUSY, SQLITE_LOCKED: LOCKED, SQLITE_READONLY: READONLY, SQLITE_IOERR: IOERR, SQLITE_CORRUPT: CORRUPT,
      SQLITE_FULL: FULL, SQLITE_CANTOPEN: CANTOPEN, SQLITE_NOTADB: NOTADB, SQLITE_PERM: PERM,
    };
    const base = err.code.replace(/^(SQLITE_[A-Z]+).*$/, '$1');
    return names[base];
  }
  const msg = typeof err?.message === 'string' ? err.message : '';
  if (/disk is full/i.test(msg)) return FULL;
  if (/database is locked|database table is locked/i.test(msg)) return BUSY;
  if (/not a database/i.test(msg)) return NOTADB;
  if (/malformed/i.test(msg)) return CORRUPT;
  if (/unable to open/i.test(msg)) return CANTOPEN;
  if (/disk I\/O error/i.test(msg)) return IOERR;
  return undefined;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** A driver error as a StoreError whose message names the file and says what to do. */
export function toStoreError(e: unknown, file: string, doing: string): StoreError {
  if (e instanceof StoreError) return e;
  const code = sqliteCode(e);
  const detail = messageOf(e);
  let kind: StoreErrorCode = 'io';
  let text: string;
  switch (code) {
    case FULL:
      kind = 'disk_full';
      text = `the disk is full: could not ${doing} in the Turn store ${file}; nothing of this step was committed, the last committed state is intact — free some space and resume`;
      break;
    case BUSY:
    case LOCKED:
      kind = 'in_use';
      text = `the Turn store ${file} is in use by another writer${ownerNote(file)}; only one process may run from a store at a time`;
      break;
    case CORRUPT:
    case NOTADB:
      kind = 'corrupt';
      text = `the Turn store ${file} is corrupt or not a Turn store (${detail}) while trying to ${doing}; it was left untouched — restore it from a backup or move it away to start a new store`;
      break;
    case CANTOPEN:
    case PERM:
    case READONLY:
      text = `cannot ${doing}: the Turn store ${file} cannot be opened for writing (${detail})`;
      break;
    default:
      text = `cannot ${doing} in the Turn store ${file}: ${detail}`;
  }
  return new StoreError(kind, text, file, { cause: e });
}

/** Who holds the store, from the `.owner` note its writer leaves beside it (best effort). */
function ownerNote(file: string): string {
  try {
    const o = JSON.parse(fs.readFileSync(file + '.owner', 'utf8')) as { pid?: number; host?: string; since?: string };
    return ` (pid ${o.pid} on ${o.host}, since ${o.since})`;
  } catch {
    return '';
  }
}

/**
 * Refuses a file that exists, is not empty and does not start with SQLite's header, before any
 * driver touches it: such a file is never written to.
 */
export function checkHeader(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new StoreError('io', `cannot read the Turn store ${file}: ${messageOf(e)}`, file, { cause: e });
  }
  try {
    const head = Buffer.alloc(100);
    const n = fs.readSync(fd, head, 0, 100, 0);
    if (n === 0) return;
    if (n < 100 || head.toString('latin1', 0, 16) !== SQLITE_HEADER) {
      throw new StoreError(
        'corrupt',
        `the Turn store ${file} is corrupt or not a Turn store (it is not an SQLite database); it was left untouched — restore it from a backup or move it away to start a new store`,
        file,
      );
    }
    // Refuse another application's database, or a newer schema, before anything writes to it
    // (switching to WAL would rewrite the header). A Turn store sets its application id in the
    // same transaction that creates its tables, so "no id" is fine only while no table was ever
    // created (schema cookie 0). The main file's header may lag the WAL; migrate() checks again.
    const cookie = head.readUInt32BE(40);
    const userVersion = head.readUInt32BE(60);
    const appId = head.readUInt32BE(68);
    if (appId !== APPLICATION_ID && (appId !== 0 || cookie !== 0)) throw notTurnStore(file, appId);
    if (userVersion > SCHEMA_VERSION) throw newerSchema(file, userVersion);
  } finally {
    fs.closeSync(fd);
  }
}

function notTurnStore(file: string, appId: number): StoreError {
  return new StoreError(
    'schema',
    `${file} is an SQLite database but not a Turn store (application id ${appId}); it was left untouched — point Turn at another folder`,
    file,
  );
}

function newerSchema(file: string, version: number): StoreError {
  return new StoreError(
    'schema',
    `the Turn store ${file} has schema version ${version}, newer than this Turn understands (${SCHEMA_VERSION}); it was written by a newer Turn — upgrade Turn to open it (the store was left untouched)`,
    file,
  );
}

// ---------------------------------------------------------------------------------------------
// The store

interface Statements {
  insertRun: SqlStatement;
  getRun: SqlStatement;
  listRuns: SqlStatement;
  listRunsByStatus: SqlStatement;
  setStatus: SqlStatement;
  nextSeq: SqlStatement;
  lastChunk: SqlStatement;
  insertEntry: SqlStatement;
  insertChunk: SqlStatement;
  readChunks: SqlStatement;
  chunksBefore: SqlStatement;
  chunkAt: SqlStatement;
  insertKey: SqlStatement;
  keySeq: SqlStatement;
  getEntry: SqlStatement;
  complete: SqlStatement;
  readJournal: SqlStatement;
  readTail: SqlStatement;
  openEntries: SqlStatement;
  markUnknown: SqlStatement;
  putSnapshot: SqlStatement;
  latestSnapshot: SqlStatement;
  snapshotBefore: SqlStatement;
  pruneSnapshots: SqlStatement;
  putBundle: SqlStatement;
  getBundle: SqlStatement;
}

const ENTRY_COLUMNS =
  'run_id, seq, kind, name, pid, input_hash, status, idempotency_key, idempotent, request, payload, created_at, completed_at';

let lastId = '';
/** Time-ordered, unique within the process and practically unique across processes. */
export function newRunId(): string {
  for (;;) {
    const id = `${Date.now().toString(36).padStart(9, '0')}-${randomHex(5)}`;
    if (id !== lastId) return (lastId = id);
  }
}

function bytes(v: unknown): Uint8Array | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Uint8Array) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  throw new Error(`expected a BLOB, got ${typeof v}`);
}

function num(v: unknown): number {
  return typeof v === 'bigint' ? Number(v) : (v as number);
}

export class SqliteRunStore implements RunStore {
  private st: Statements;
  private closed = false;
  /** set by the first 'corrupt' error: a damaged store is never written to again in this session */
  private broken: StoreError | null = null;
  private readonly journalMode: string;
  private readonly synchronous: string;

  private constructor(
    private readonly db: SqlConnection,
    readonly file: string,
    private readonly driver: string,
  ) {
    this.journalMode = String(this.pragma('journal_mode'));
    const sync = Number(this.pragma('synchronous'));
    this.synchronous = ['off', 'normal', 'full', 'extra'][sync] ?? String(sync);
    this.st = this.prepareAll();
  }

  /**
   * Opens a store on a connection the driver made: checks the header (done by the driver before
   * connecting), sets WAL + synchronous=FULL + exclusive locking, takes the writer lock, and
   * creates or checks the schema. Closes the connection if anything fails.
   */
  static open(db: SqlConnection, file: string, driver: string, options: SqliteOptions = {}): SqliteRunStore {
    let store: SqliteRunStore;
    try {
      const busy = Math.max(0, Math.floor(options.busyTimeoutMs ?? 2000));
      db.exec(`PRAGMA busy_timeout = ${busy}`);
      // One writer: exclusive locking mode keeps the lock from the first write until close, and
      // keeps the WAL index in private memory (no -shm file to go stale).
      db.exec('PRAGMA locking_mode = EXCLUSIVE');
      const mode = String(Object.values(db.prepare('PRAGMA journal_mode = WAL').get() ?? {})[0] ?? '');
      if (mode.toLowerCase() !== 'wal') throw new StoreError('io', `the Turn store ${file} cannot use WAL mode (got '${mode}')`, file);
      db.exec('PRAGMA synchronous = FULL'); // fsync the WAL on every commit
      db.exec('PRAGMA fullfsync = ON'); // macOS: F_FULLFSYNC, a real flush to the platter
      db.exec('PRAGMA checkpoint_fullfsync = ON');
      db.exec('PRAGMA foreign_keys = ON');
      migrate(db, file, driver);
      store = new SqliteRunStore(db, file, driver);
    } catch (e) {
      try {
        db.close();
      } catch {
        // already failing
      }
      throw toStoreError(e, file, 'open the store');
    }
    try {
      fs.writeFileSync(file + '.owner', JSON.stringify({ pid: process.pid, host: os.hostname(), since: new Date().toISOString() }) + '\n');
    } catch {
      // only informs the message another writer gets
    }
    return store;
  }

  private pragma(name: string): unknown {
    const row = this.db.prepare(`PRAGMA ${name}`).get();
    return row ? Object.values(row)[0] : undefined;
  }

  private prepareAll(): Statements {
    const p = (sql: string) => this.db.prepare(sql);
    return {
      insertRun: p(
        'INSERT INTO runs (id, entry, bytecode_hash, semantics_version, policies, meta, status, created_at, updated_at, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)',
      ),
      getRun: p('SELECT * FROM runs WHERE id = ?'),
      listRuns: p('SELECT * FROM runs ORDER BY created_at DESC, id DESC'),
      listRunsByStatus: p('SELECT * FROM runs WHERE status = ? ORDER BY created_at DESC, id DESC'),
      setStatus: p('UPDATE runs SET status = ?, result = ?, updated_at = ? WHERE id = ?'),
      nextSeq: p('SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM journal WHERE run_id = ?'),
      lastChunk: p('SELECT COALESCE(MAX(last_seq), 0) + 1 AS next FROM journal_chunks WHERE run_id = ?'),
      insertEntry: p(`INSERT INTO journal (${ENTRY_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      insertChunk: p('INSERT INTO journal_chunks (run_id, first_seq, last_seq, bytes) VALUES (?, ?, ?, ?)'),
      readChunks: p('SELECT first_seq, bytes FROM journal_chunks WHERE run_id = ? AND last_seq >= ? ORDER BY first_seq'),
      // newest first, a few at a time: the tail reads only the chunks it needs
      chunksBefore: p('SELECT first_seq, bytes FROM journal_chunks WHERE run_id = ? AND first_seq < ? ORDER BY first_seq DESC LIMIT 4'),
      chunkAt: p('SELECT first_seq, bytes FROM journal_chunks WHERE run_id = ? AND first_seq <= ? AND last_seq >= ? ORDER BY first_seq DESC LIMIT 1'),
      insertKey: p('INSERT INTO journal_keys (run_id, key, seq) VALUES (?, ?, ?)'),
      keySeq: p('SELECT seq FROM journal_keys WHERE run_id = ? AND key = ?'),
      getEntry: p(`SELECT ${ENTRY_COLUMNS} FROM journal WHERE run_id = ? AND seq = ?`),
      complete: p('UPDATE journal SET status = ?, payload = ?, completed_at = ? WHERE run_id = ? AND seq = ?'),
      readJournal: p(`SELECT ${ENTRY_COLUMNS} FROM journal WHERE run_id = ? AND seq >= ? ORDER BY seq`),
      // newest first by the primary key, stopping after `limit` rows: the whole journal is never read
      readTail: p(`SELECT ${ENTRY_COLUMNS} FROM journal WHERE run_id = ? AND kind != ? ORDER BY seq DESC LIMIT ?`),
      openEntries: p(`SELECT ${ENTRY_COLUMNS} FROM journal WHERE run_id = ? AND status IN ('intent', 'unknown') ORDER BY seq`),
      markUnknown: p(`UPDATE journal SET status = 'unknown' WHERE run_id = ? AND status = 'intent'`),
      putSnapshot: p('INSERT OR REPLACE INTO snapshots (run_id, seq, bytes, created_at) VALUES (?, ?, ?, ?)'),
      latestSnapshot: p('SELECT run_id, seq, bytes, created_at FROM snapshots WHERE run_id = ? ORDER BY seq DESC LIMIT 1'),
      snapshotBefore: p('SELECT run_id, seq, bytes, created_at FROM snapshots WHERE run_id = ? AND seq < ? ORDER BY seq DESC LIMIT 1'),
      pruneSnapshots: p(
        'DELETE FROM snapshots WHERE run_id = ? AND seq NOT IN (SELECT seq FROM snapshots WHERE run_id = ? ORDER BY seq DESC LIMIT ?)',
      ),
      putBundle: p('INSERT OR IGNORE INTO bundles (hash, bytes, created_at) VALUES (?, ?, ?)'),
      getBundle: p('SELECT bytes FROM bundles WHERE hash = ?'),
    };
  }

  /** true while a group commit is open: journal writes join it until `commitGroup` */
  private grouped = false;

  /**
   * Group commit (issue 17): the journal writes that follow join one open transaction, committed
   * (one fsync) by `commitGroup`. Nothing in it is durable before then, so the caller acts on none
   * of it (runs no effect, delivers no result) until `commitGroup` has returned. Any other call is
   * a barrier: it commits the open group first, then runs in its own transaction as always.
   */
  beginGroup(): void {
    if (this.grouped) return;
    this.usable();
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (e) {
      throw this.fail(e, 'begin a group commit');
    }
    this.grouped = true;
  }

  /** Commits the open group (one fsync for every journal write in it); nothing to do when none is open. */
  commitGroup(): void {
    if (!this.grouped) return;
    this.grouped = false;
    try {
      this.writeChunks();
      this.db.exec('COMMIT');
    } catch (e) {
      this.forget();
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // SQLite may already have rolled back
      }
      throw this.fail(e, 'commit the journal');
    }
  }

  /** Drops the open group (its writes are lost): a write of it failed, so none of it may stand. */
  rollbackGroup(): void {
    if (!this.grouped) return;
    this.grouped = false;
    this.forget();
    try {
      this.db.exec('ROLLBACK');
    } catch {
      // SQLite may already have rolled back
    }
  }

  /**
   * Runs `fn` in one write transaction; a failure rolls back and becomes a StoreError. A journal
   * write (`joins`) joins an open group instead; any other call commits the group first.
   */
  private tx<T>(doing: string, fn: () => T, joins = false): T {
    this.usable();
    if (this.grouped && joins) {
      // a step of the group, inside its transaction. A failed step rolls the whole group back:
      // nothing in it was acted on (see beginGroup), and the caller stops the run.
      try {
        return fn();
      } catch (e) {
        this.grouped = false;
        this.forget();
        try {
          this.db.exec('ROLLBACK');
        } catch {
          // SQLite may already have rolled back (SQLITE_FULL, I/O errors)
        }
        throw this.fail(e, doing);
      }
    }
    this.commitGroup();
    try {
      this.db.exec('BEGIN IMMEDIATE');
    } catch (e) {
      throw this.fail(e, doing);
    }
    try {
      const out = fn();
      this.writeChunks();
      this.db.exec('COMMIT');
      return out;
    } catch (e) {
      this.forget();
      try {
        this.db.exec('ROLLBACK');
      } catch {
        // SQLite may already have rolled back (SQLITE_FULL, I/O errors)
      }
      throw this.fail(e, doing);
    }
  }

  private read<T>(doing: string, fn: () => T): T {
    this.usable();
    try {
      return fn();
    } catch (e) {
      throw this.fail(e, doing);
    }
  }

  // ---- the journal's settled entries, packed in chunks (journal-chunk.ts) ----

  /** the chunk being filled, by run: written (one row) at the commit, or once full */
  private pending = new Map<string, ChunkBuilder>();
  /** the next seq of each run seen, so an append asks SQLite nothing before it writes */
  private nextSeqs = new Map<string, number>();
  /** runs known to exist, so an append does not look its run up each time */
  private knownRuns = new Set<string>();

  /** Writes the chunks being filled, in the open transaction. */
  private writeChunks(): void {
    if (this.pending.size === 0) return;
    const pending = [...this.pending];
    this.pending.clear();
    for (const [runId, chunk] of pending) this.st.insertChunk.run(runId, chunk.firstSeq, chunk.lastSeq, chunk.finish());
  }

  /** A transaction failed or was rolled back: what was remembered of it may not stand. */
  private forget(): void {
    this.pending.clear();
    this.nextSeqs.clear();
    this.knownRuns.clear();
  }

  private nextSeq(runId: string): number {
    let next = this.nextSeqs.get(runId);
    if (next === undefined) {
      next = Math.max(num(this.st.nextSeq.get(runId)!.next), num(this.st.lastChunk.get(runId)!.next));
      this.nextSeqs.set(runId, next);
    }
    return next;
  }

  private runExists(runId: string): boolean {
    if (this.knownRuns.has(runId)) return true;
    if (!this.st.getRun.get(runId)) return false;
    this.knownRuns.add(runId);
    return true;
  }

  /** The settled entries of the open transaction not written yet (a read sees them, as SQLite shows a connection its own writes). */
  private pendingEntries(runId: string, fromSeq = 1): JournalEntry[] {
    const chunk = this.pending.get(runId);
    return chunk ? decodeChunk(chunk.finish(), runId, fromSeq) : [];
  }

  /** The entries of a chunk row, or a StoreError naming the store, the run and what is wrong. */
  private chunk(runId: string, r: Record<string, unknown>, fromSeq = 1): JournalEntry[] {
    try {
      if (!(r.bytes instanceof Uint8Array)) throw new ChunkError('corrupt', 'it is not a BLOB');
      return decodeChunk(bytes(r.bytes)!, runId, fromSeq);
    } catch (e) {
      if (!(e instanceof ChunkError)) throw e;
      const where = `the journal chunk of run ${runId} from step ${num(r.first_seq)}`;
      if (e.kind === 'newer') {
        throw new StoreError('schema', `${where} in the Turn store ${this.file} cannot be read: ${e.message} — upgrade Turn to read it (the store was left untouched)`, this.file);
      }
      throw new StoreError(
        'corrupt',
        `${where} in the Turn store ${this.file} is damaged: ${e.message}; it was left untouched — restore the store from a backup`,
        this.file,
      );
    }
  }

  /** The entry at seq, whether a row or in a chunk. */
  private entryAt(runId: string, seq: number): JournalEntry | null {
    const r = this.st.getEntry.get(runId, seq);
    if (r) return this.entry(r);
    const c = this.st.chunkAt.get(runId, seq, seq);
    const entries = c ? this.chunk(runId, c, seq) : this.pendingEntries(runId, seq);
    return entries.find((e) => e.seq === seq) ?? null;
  }

  /**
   * Records an idempotency key of the run: 'conflict' when the run already has it (the primary key
   * refuses it: one statement, no look-up before it).
   */
  private claimKey(runId: string, key: string, seq: number): void {
    try {
      this.st.insertKey.run(runId, storedKey(runId, key), seq);
    } catch (e) {
      if (!isConstraint(e)) throw e;
      throw new StoreError('conflict', `idempotency key '${key}' is already used in run ${runId} (store ${this.file})`, this.file);
    }
  }

  private usable(): void {
    if (this.closed) throw new StoreError('closed', `the Turn store ${this.file} is closed`, this.file);
    if (this.broken) throw this.broken;
  }

  private fail(e: unknown, doing: string): StoreError {
    const err = toStoreError(e, this.file, doing);
    if (err.code === 'corrupt') this.broken = err;
    return err;
  }

  private notFound(what: string): StoreError {
    return new StoreError('not_found', `${what} is not in the Turn store ${this.file}`, this.file);
  }

  private row(r: Record<string, unknown>): RunRecord {
    return {
      id: r.id as string,
      entry: r.entry as string,
      bytecodeHash: r.bytecode_hash as string,
      semanticsVersion: r.semantics_version as string,
      policies: JSON.parse(r.policies as string) as Record<string, string>,
      meta: JSON.parse(r.meta as string) as Record<string, unknown>,
      status: r.status as RunStatus,
      createdAt: num(r.created_at),
      updatedAt: num(r.updated_at),
      result: bytes(r.result),
    };
  }

  private entry(r: Record<string, unknown>): JournalEntry {
    return {
      runId: r.run_id as string,
      seq: num(r.seq),
      kind: r.kind as string,
      name: r.name as string,
      pid: num(r.pid),
      inputHash: (r.input_hash as string | null) ?? null,
      status: r.status as JournalStatus,
      idempotencyKey: (r.idempotency_key as string | null) ?? null,
      idempotent: num(r.idempotent) === 1,
      request: bytes(r.request),
      payload: bytes(r.payload),
      createdAt: num(r.created_at),
      completedAt: r.completed_at === null || r.completed_at === undefined ? null : num(r.completed_at),
    };
  }

  /**
   * Records a new run. With `bundle`, its program's bytes are stored (as `putBundle` would) in the
   * same commit: one fsync for both, and never a run without its bundle.
   */
  createRun(run: NewRun, bundle?: { hash: string; bytes: Uint8Array }): RunRecord {
    if (!run.entry || !run.bytecodeHash || !run.semanticsVersion) {
      throw new StoreError('invalid', 'a run needs an entry, a bytecode hash and a semantics version', this.file);
    }
    const id = run.id ?? newRunId();
    const now = Date.now();
    return this.tx('create a run', () => {
      if (bundle) this.st.putBundle.run(bundle.hash, bundle.bytes, now);
      if (this.st.getRun.get(id)) throw new StoreError('conflict', `run ${id} already exists in the Turn store ${this.file}`, this.file);
      this.st.insertRun.run(
        id, run.entry, run.bytecodeHash, run.semanticsVersion,
        JSON.stringify(run.policies ?? {}), JSON.stringify(run.meta ?? {}), 'running', now, now,
      );
      return this.row(this.st.getRun.get(id)!);
    });
  }

  getRun(id: string): RunRecord | null {
    return this.read('read a run', () => {
      const r = this.st.getRun.get(id);
      return r ? this.row(r) : null;
    });
  }

  listRuns(filter: { status?: RunStatus } = {}): RunRecord[] {
    return this.read('list runs', () =>
      (filter.status ? this.st.listRunsByStatus.all(filter.status) : this.st.listRuns.all()).map((r) => this.row(r)),
    );
  }

  setRunStatus(id: string, status: RunStatus, result: Uint8Array | null = null): void {
    if (!RUN_STATUSES.includes(status)) throw new StoreError('invalid', `unknown run status '${status}'`, this.file);
    this.tx('set a run status', () => {
      if (!this.st.getRun.get(id)) throw this.notFound(`run ${id}`);
      if (status === 'done') {
        const open = this.st.openEntries.all(id);
        if (open.length > 0) {
          const e = this.entry(open[0]);
          throw new StoreError(
            'conflict',
            `run ${id} cannot be reported done: journal entry ${e.seq} (${e.kind} ${e.name}) is ${e.status}, its outcome not recorded`,
            this.file,
          );
        }
      }
      this.st.setStatus.run(status, result, Date.now(), id);
    });
  }

  appendJournal(runId: string, e: JournalAppend): number {
    if (e.status !== 'intent' && e.status !== 'ok' && e.status !== 'error') {
      throw new StoreError('invalid', `a journal entry is appended as intent, ok or error, not '${String(e.status)}'`, this.file);
    }
    return this.tx('append to the journal', () => {
      if (!this.runExists(runId)) throw this.notFound(`run ${runId}`);
      const seq = this.nextSeq(runId);
      const key = e.idempotencyKey !== undefined ? e.idempotencyKey : e.status === 'intent' ? defaultIdempotencyKey(runId, seq) : null;
      if (key !== null) this.claimKey(runId, key, seq);
      const now = Date.now();
      if (e.status === 'intent') {
        // a row: its outcome is written later (completeJournal)
        this.st.insertEntry.run(runId, seq, e.kind, e.name, e.pid ?? -1, e.inputHash ?? null, 'intent', key, e.idempotent ? 1 : 0, e.payload ?? null, null, now, null);
      } else {
        // settled at once: packed into the run's chunk, written at the commit
        let chunk = this.pending.get(runId);
        if (!chunk) this.pending.set(runId, (chunk = new ChunkBuilder(seq, `turn:${runId}:`)));
        chunk.add({
          seq, kind: e.kind, name: e.name, pid: e.pid ?? -1, inputHash: e.inputHash ?? null, status: e.status,
          idempotencyKey: key, idempotent: e.idempotent === true, payload: e.payload ?? null, createdAt: now,
        });
        if (chunk.full) this.writeChunks();
      }
      if (e.snapshot) this.st.putSnapshot.run(runId, seq - 1, e.snapshot, now);
      this.nextSeqs.set(runId, seq + 1);
      return seq;
    }, true);
  }

  completeJournal(runId: string, seq: number, status: 'ok' | 'error', payload: Uint8Array | null): void {
    if (status !== 'ok' && status !== 'error') throw new StoreError('invalid', `a journal entry completes as ok or error, not '${String(status)}'`, this.file);
    this.tx('record an effect result', () => {
      const r = this.st.getEntry.get(runId, seq);
      if (!r) {
        // a settled entry (in a chunk) already has its outcome
        const settled = seq < this.nextSeq(runId) ? this.entryAt(runId, seq) : null;
        if (settled) throw new StoreError('conflict', `journal entry ${seq} of run ${runId} already has its outcome (${settled.status})`, this.file);
        throw this.notFound(`journal entry ${seq} of run ${runId}`);
      }
      const cur = r.status as JournalStatus;
      if (cur !== 'intent' && cur !== 'unknown') {
        throw new StoreError('conflict', `journal entry ${seq} of run ${runId} already has its outcome (${cur})`, this.file);
      }
      this.st.complete.run(status, payload, Date.now(), runId, seq);
    }, true);
  }

  readJournal(runId: string, fromSeq = 1): JournalEntry[] {
    return this.read('read the journal', () => {
      const rows = this.st.readJournal.all(runId, fromSeq).map((r) => this.entry(r));
      const chunks = this.st.readChunks.all(runId, fromSeq);
      const settled: JournalEntry[] = [];
      for (const c of chunks) for (const e of this.chunk(runId, c, fromSeq)) settled.push(e);
      for (const e of this.pendingEntries(runId, fromSeq)) settled.push(e);
      return mergeBySeq(rows, settled);
    });
  }

  readJournalTail(runId: string, limit: number, skipKind = ''): JournalEntry[] {
    if (!Number.isSafeInteger(limit) || limit < 0) throw new StoreError('invalid', `a journal tail of ${String(limit)} entries`, this.file);
    return this.read('read the journal', () => {
      const rows = this.st.readTail.all(runId, skipKind, limit).map((r) => this.entry(r)).reverse();
      // the newest chunks, a few at a time, until they hold `limit` entries of the kinds asked for
      const settled = this.pendingEntries(runId).filter((e) => e.kind !== skipKind);
      let before = Number.MAX_SAFE_INTEGER;
      while (settled.length < limit) {
        const chunks = this.st.chunksBefore.all(runId, before);
        if (chunks.length === 0) break;
        for (const c of chunks) {
          const kept = this.chunk(runId, c).filter((e) => e.kind !== skipKind);
          settled.unshift(...kept);
          before = num(c.first_seq);
        }
      }
      const merged = mergeBySeq(rows, settled);
      return merged.slice(Math.max(0, merged.length - limit));
    });
  }

  openJournal(runId: string): JournalEntry[] {
    return this.read('read the journal', () => this.st.openEntries.all(runId).map((r) => this.entry(r)));
  }

  journalLength(runId: string): number {
    return this.read('read the journal', () => this.nextSeq(runId) - 1);
  }

  findByIdempotencyKey(runId: string, key: string): JournalEntry | null {
    return this.read('read the journal', () => {
      const r = this.st.keySeq.get(runId, storedKey(runId, key));
      return r ? this.entryAt(runId, num(r.seq)) : null;
    });
  }

  markUnknownOnRecovery(runId: string): JournalEntry[] {
    return this.tx('mark unknown outcomes', () => {
      if (!this.st.getRun.get(runId)) throw this.notFound(`run ${runId}`);
      this.st.markUnknown.run(runId);
      const open = this.st.openEntries.all(runId).map((r) => this.entry(r));
      if (open.some((e) => !e.idempotent)) this.st.setStatus.run('waiting', null, Date.now(), runId);
      return open;
    });
  }

  putSnapshot(runId: string, seq: number, data: Uint8Array): void {
    if (!Number.isInteger(seq) || seq < 0) throw new StoreError('invalid', `a snapshot seq must be an integer >= 0, got ${seq}`, this.file);
    // joins an open group commit (issue 45: a run's automatic snapshot commits with the entries it reflects)
    this.tx('save a snapshot', () => {
      if (!this.st.getRun.get(runId)) throw this.notFound(`run ${runId}`);
      this.st.putSnapshot.run(runId, seq, data, Date.now());
    }, true);
  }

  latestSnapshot(runId: string): Snapshot | null {
    return this.read('read a snapshot', () => {
      const r = this.st.latestSnapshot.get(runId);
      return r ? { runId: r.run_id as string, seq: num(r.seq), bytes: bytes(r.bytes)!, createdAt: num(r.created_at) } : null;
    });
  }

  snapshotBefore(runId: string, seq: number): Snapshot | null {
    return this.read('read a snapshot', () => {
      const r = this.st.snapshotBefore.get(runId, seq);
      return r ? { runId: r.run_id as string, seq: num(r.seq), bytes: bytes(r.bytes)!, createdAt: num(r.created_at) } : null;
    });
  }

  pruneSnapshots(runId: string, keep = 1): void {
    this.tx('prune snapshots', () => {
      this.st.pruneSnapshots.run(runId, runId, Math.max(0, Math.floor(keep)));
    }, true);
  }

  putBundle(hash: string, data: Uint8Array): void {
    this.tx('save a bundle', () => {
      this.st.putBundle.run(hash, data, Date.now());
    });
  }

  getBundle(hash: string): Uint8Array | null {
    return this.read('read a bundle', () => bytes(this.st.getBundle.get(hash)?.bytes));
  }

  deleteRun(id: string): void {
    this.tx('delete a run', () => {
      if (!this.st.getRun.get(id)) throw this.notFound(`run ${id}`);
      // its journal and snapshots go with it (ON DELETE CASCADE); bundles are shared by content
      this.db.prepare('DELETE FROM runs WHERE id = ?').run(id);
      this.knownRuns.delete(id);
      this.nextSeqs.delete(id);
    });
  }

  info(): StoreInfo {
    return { driver: this.driver, file: this.file, journalMode: this.journalMode, synchronous: this.synchronous, schemaVersion: SCHEMA_VERSION };
  }

  close(): void {
    if (this.closed) return;
    try {
      this.commitGroup(); // the journal written so far is kept, as a barrier would keep it
    } catch {
      // the group's commit failed: its writes are rolled back, the last commit stands
    }
    this.closed = true;
    try {
      fs.rmSync(this.file + '.owner', { force: true });
    } catch {
      // informational file
    }
    try {
      this.db.close();
    } catch (e) {
      throw toStoreError(e, this.file, 'close the store');
    }
  }
}

/**
 * A key as `journal_keys` holds it: a key of the run's own (`turn:<run>:<step>`, every key the VM
 * makes) as ':' + its step, any other as '=' + itself: shorter, and never two keys the same.
 */
function storedKey(runId: string, key: string): string {
  const prefix = `turn:${runId}:`;
  return key.startsWith(prefix) ? ':' + key.slice(prefix.length) : '=' + key;
}

/** A driver's "UNIQUE / PRIMARY KEY constraint failed" (SQLITE_CONSTRAINT, 19). */
function isConstraint(e: unknown): boolean {
  const err = e as { code?: unknown; errcode?: unknown; message?: unknown };
  if (typeof err?.errcode === 'number') return (err.errcode & 0xff) === 19;
  if (typeof err?.code === 'string' && err.code.startsWith('SQLITE_CONSTRAINT')) return true;
  return typeof err?.message === 'string' && /constraint failed/i.test(err.message);
}

/** Two lists of entries, each in seq order, as one in seq order. */
function mergeBySeq(a: JournalEntry[], b: JournalEntry[]): JournalEntry[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out: JournalEntry[] = new Array<JournalEntry>(a.length + b.length);
  let i = 0, j = 0, k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i].seq < b[j].seq ? a[i++] : b[j++];
  while (i < a.length) out[k++] = a[i++];
  while (j < b.length) out[k++] = b[j++];
  return out;
}

/**
 * Creates the schema in an empty database, or checks the one there: refuses a file that is not a
 * Turn store and a schema newer than this code knows (with a message saying so), and applies the
 * migrations from an older one. Runs in one write transaction, which also takes the writer lock.
 */
function migrate(db: SqlConnection, file: string, driver: string): void {
  db.exec('BEGIN IMMEDIATE');
  try {
    const first = (sql: string) => Number(Object.values(db.prepare(sql).get() ?? {})[0] ?? 0);
    const appId = first('PRAGMA application_id');
    let version = first('PRAGMA user_version');
    const tables = first("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'");
    if (appId === 0 && version === 0 && tables === 0) {
      db.exec(`PRAGMA application_id = ${APPLICATION_ID}`);
    } else if (appId !== APPLICATION_ID) {
      throw notTurnStore(file, appId);
    }
    if (version > SCHEMA_VERSION) throw newerSchema(file, version);
    if (version > 0) {
      const recorded = first('SELECT MAX(version) FROM schema_version');
      if (recorded !== version) {
        throw new StoreError('corrupt', `the Turn store ${file} says schema version ${version} but its schema_version table says ${recorded}`, file);
      }
    }
    while (version < SCHEMA_VERSION) {
      version++;
      db.exec(MIGRATIONS[version]);
      db.prepare('INSERT INTO schema_version (version, applied_at, applied_by) VALUES (?, ?, ?)').run(version, Date.now(), `turn ${driver}`);
      db.exec(`PRAGMA user_version = ${version}`);
    }
    db.exec('COMMIT');
  } catch (e) {
    try {
      db.exec('ROLLBACK');
    } catch {
      // nothing to roll back
    }
    throw e;
  }
}

/**
 * Stores a program's bundle and records a run of it: in one commit in a SQLite store, else (another
 * RunStore) as `putBundle` then `createRun`.
 */
export function createRunWithBundle(store: RunStore, run: NewRun, bundle: { hash: string; bytes: Uint8Array }): RunRecord {
  if (store instanceof SqliteRunStore) return store.createRun(run, bundle);
  store.putBundle(bundle.hash, bundle.bytes);
  return store.createRun(run);
}
