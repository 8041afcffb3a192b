// The node-sqlite3-wasm driver: SQLite compiled to WebAssembly, with a file system layer (VFS) over
// node:fs that does real file I/O (fsync on every commit). It needs no native module, so it is the
// store of the packaged extension where the host's Node has no node:sqlite (code-server 4.100 runs
// Node 20). Loaded lazily: the module instantiates its .wasm when first required. Bundled by esbuild,
// it finds node-sqlite3-wasm.wasm beside the bundle (scripts/build.mjs copies it into dist/).
//
// Its VFS has no shared memory, but the store opens in exclusive locking mode, where SQLite keeps
// the WAL index in private memory: the store is in WAL mode with this driver too, and its files
// are the same as the native drivers'. Its VFS locks by creating a `store.db.lock` folder; the
// native drivers take the same folder (writer-lock.ts), so a second writer is refused whichever
// drivers the two use.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SqliteRunStore, checkHeader, toStoreError, type SqlConnection, type SqlParam, type SqlStatement, type SqliteOptions } from './sqlite-schema.js';
import { StoreError } from './types.js';
import { clearStaleLock, inUse, removeOwnerNote, writeOwnerNote } from './writer-lock.js';

export const NODE_SQLITE3_WASM = 'node-sqlite3-wasm';

type WasmValue = number | bigint | string | Uint8Array | null;
interface WasmStatement {
  run(values?: WasmValue[]): { changes: number };
  all(values?: WasmValue[]): Record<string, WasmValue>[];
  finalize(): void;
}
interface WasmDatabase {
  exec(sql: string): void;
  prepare(sql: string): WasmStatement;
  close(): void;
}
interface WasmModule {
  Database: new (file: string) => WasmDatabase;
}

let mod: WasmModule | null | undefined;
let loadError = '';

function load(): WasmModule | null {
  if (mod === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      mod = require('node-sqlite3-wasm') as WasmModule;
    } catch (e) {
      mod = null;
      loadError = `node-sqlite3-wasm does not load: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return mod;
}

/** Whether node-sqlite3-wasm (and its .wasm) loads here; the reason when it does not. */
export function nodeSqlite3WasmAvailable(): { ok: true } | { ok: false; reason: string } {
  return load() ? { ok: true } : { ok: false, reason: loadError };
}

/**
 * A node-sqlite3-wasm connection as the SqlConnection the shared store runs on. It takes the
 * writer lock at once (exclusive locking mode, then a first read) and keeps it until close.
 * Statements are prepared once per SQL text and finalized at close (the module's memory is not
 * garbage-collected).
 */
export function nodeSqlite3WasmConnection(file: string): SqlConnection {
  const m = load();
  if (!m) throw new StoreError('unavailable', `cannot open the Turn store ${file}: ${loadError}`, file);
  clearStaleLock(file);
  const db = new m.Database(file);
  const statements = new Map<string, SqlStatement & { finalize(): void }>();
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    const first = db.prepare('SELECT 1 FROM sqlite_master LIMIT 1');
    try {
      first.all();
    } finally {
      first.finalize();
    }
    writeOwnerNote(file, NODE_SQLITE3_WASM);
  } catch (e) {
    db.close();
    // its VFS found the lock folder taken: say who holds it, as the native drivers do
    if (e instanceof Error && /database is locked/i.test(e.message)) throw inUse(file);
    throw e;
  }
  const full = <T>(fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      throw diskFullOr(e, file);
    }
  };
  const prepare = (sql: string) => {
    let s = statements.get(sql);
    if (!s) {
      let st = db.prepare(sql);
      // A statement whose step failed (a constraint, a full disk) cannot be bound again by the
      // module (its reset reports the old error): it is finalized and prepared anew.
      const guarded = <T>(fn: () => T): T => {
        try {
          return full(fn);
        } catch (e) {
          try {
            st.finalize();
          } catch {
            // finalize reports the step's error again; the statement is gone all the same
          }
          st = db.prepare(sql);
          throw e;
        }
      };
      s = {
        run: (...p: SqlParam[]) => guarded(() => st.run(p)),
        // the module's own get() leaves the statement mid-step, which blocks COMMIT: run it to its end
        get: (...p: SqlParam[]) => guarded(() => st.all(p)[0]),
        all: (...p: SqlParam[]) => guarded(() => st.all(p)),
        finalize: () => st.finalize(),
      };
      statements.set(sql, s);
    }
    return s;
  };
  // A failed COMMIT may still have left a valid commit frame in the WAL: without "powersafe
  // overwrite" SQLite pads a commit to the sector with copies of its last frame, and when that
  // padding hits the full disk the commit is reported failed though the frame before it is whole
  // (a reopen would find the "failed" step committed). The WAL is cut back to where the
  // transaction began, so that a failed commit is one: nothing of it stands.
  const wal = file + '-wal';
  let walAtBegin = -1;
  const walSize = () => {
    try {
      return fs.statSync(wal).size;
    } catch {
      return 0;
    }
  };
  return {
    exec(sql) {
      if (sql === 'BEGIN IMMEDIATE') walAtBegin = walSize();
      try {
        full(() => db.exec(sql));
      } catch (e) {
        if (sql === 'COMMIT' && walAtBegin >= 0 && walSize() > walAtBegin) {
          try {
            fs.truncateSync(wal, walAtBegin);
          } catch {
            // the error below still says the step failed
          }
        }
        throw e;
      }
    },
    prepare,
    close() {
      for (const s of statements.values()) s.finalize();
      statements.clear();
      removeOwnerNote(file); // the VFS removes the then empty lock folder
      db.close();
    },
  };
}

/** Below this many free bytes, a write error is taken for a full disk. */
const NEARLY_FULL = 8 * 1024 * 1024;

/**
 * The VFS reports every failed write as a plain I/O error (it drops ENOSPC). A write error on a
 * file system with almost no room left is a full disk: it is reported as SQLite reports one.
 */
function diskFullOr(e: unknown, file: string): unknown {
  if (!(e instanceof Error) || !/disk I\/O error/i.test(e.message)) return e;
  try {
    const st = fs.statfsSync(path.dirname(file));
    const free = st.bavail * st.bsize;
    if (free < NEARLY_FULL) return Object.assign(new Error(`database or disk is full (${free} bytes free)`, { cause: e }), { errcode: 13 });
  } catch {
    // no file system statistics here: keep the I/O error
  }
  return e;
}

/** Opens (creating if needed) the store in the SQLite file `file` with node-sqlite3-wasm. */
export function openNodeSqlite3WasmStore(file: string, options: SqliteOptions = {}): SqliteRunStore {
  file = path.resolve(file);
  checkHeader(file);
  let conn: SqlConnection;
  try {
    conn = nodeSqlite3WasmConnection(file);
  } catch (e) {
    throw toStoreError(e, file, 'open the store');
  }
  return SqliteRunStore.open(conn, file, NODE_SQLITE3_WASM, options);
}
