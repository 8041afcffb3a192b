// The knowledge store's connection, on the driver the run store uses (pickDriver: node:sqlite,
// better-sqlite3, else node-sqlite3-wasm), so std/knowledge works wherever a durable run does —
// Node 20 without native modules included (the editor's extension host, code-server).
//
// The native drivers keep one connection in WAL mode with normal locking: several runs share the
// file. node-sqlite3-wasm's file layer has no shared memory, so it reads a WAL file only in
// exclusive locking mode, which holds the file until the connection closes; here it is therefore
// opened for one transaction (or one statement outside a transaction) and closed after it, so runs
// take turns instead of one run holding the store for its whole life. A run that finds the store
// taken retries for the busy timeout, as SQLite's busy_timeout does for the native drivers.
import { betterSqlite3Connection } from '../store/better-sqlite3.js';
import { nodeSqliteConnection } from '../store/node-sqlite.js';
import { nodeSqlite3WasmConnection } from '../store/node-sqlite3-wasm.js';
import { pickDriver, type DriverName } from '../store/open.js';
import type { SqlConnection, SqlParam } from '../store/sqlite-schema.js';
import { StoreError } from '../store/types.js';

/** Opens `file` on the driver chosen here; `configure` sets each new connection's pragmas. */
export function knowledgeConnection(file: string, configure: (db: SqlConnection) => void, busyTimeoutMs: number, env: NodeJS.ProcessEnv = process.env): { db: SqlConnection; driver: DriverName } {
  const driver = pickDriver('auto', env);
  if (driver === 'node-sqlite3-wasm') return { db: perTransaction(() => configured(waitForLock(file, busyTimeoutMs), configure)), driver };
  const db = driver === 'better-sqlite3' ? betterSqlite3Connection(file) : nodeSqliteConnection(file);
  return { db: configured(db, configure), driver };
}

function configured(db: SqlConnection, configure: (db: SqlConnection) => void): SqlConnection {
  try {
    configure(db);
    return db;
  } catch (e) {
    db.close();
    throw e;
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/** A node-sqlite3-wasm connection, retried while another run holds the file (up to `busyTimeoutMs`). */
function waitForLock(file: string, busyTimeoutMs: number): SqlConnection {
  const until = Date.now() + busyTimeoutMs;
  for (let wait = 2; ; wait = Math.min(wait * 2, 50)) {
    try {
      return nodeSqlite3WasmConnection(file);
    } catch (e) {
      if (!(e instanceof StoreError && e.code === 'in_use') || Date.now() >= until) throw e;
      Atomics.wait(pause, 0, 0, wait); // synchronous: every knowledge call is
    }
  }
}

/** A connection opened for each transaction (BEGIN ... COMMIT/ROLLBACK) or lone statement. */
function perTransaction(open: () => SqlConnection): SqlConnection {
  let current: SqlConnection | undefined;
  const using = <T>(f: (db: SqlConnection) => T): T => {
    if (current) return f(current);
    const db = open();
    try {
      return f(db);
    } finally {
      db.close();
    }
  };
  return {
    exec(sql) {
      if (/^\s*BEGIN\b/i.test(sql)) {
        const db = open();
        try {
          db.exec(sql);
        } catch (e) {
          db.close();
          throw e;
        }
        current = db;
      } else if (/^\s*(COMMIT|ROLLBACK|END)\b/i.test(sql) && current) {
        const db = current;
        current = undefined;
        try {
          db.exec(sql);
        } finally {
          db.close();
        }
      } else {
        using((db) => db.exec(sql));
      }
    },
    prepare(sql) {
      return {
        run: (...p: SqlParam[]) => using((db) => db.prepare(sql).run(...p)),
        get: (...p: SqlParam[]) => using((db) => db.prepare(sql).get(...p)),
        all: (...p: SqlParam[]) => using((db) => db.prepare(sql).all(...p)),
      };
    },
    close() {
      current?.close();
      current = undefined;
    },
  };
}
