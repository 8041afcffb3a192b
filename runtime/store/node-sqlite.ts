// The node:sqlite driver: the store where the host's Node has SQLite built in (VS Code's own Node,
// Node >= 22.5). Loaded dynamically, so that importing this file on Node 20 — which has no
// node:sqlite — does not fail; `nodeSqliteAvailable()` tells whether it can be used.
import * as path from 'node:path';
import { SqliteRunStore, checkHeader, toStoreError, type SqlConnection, type SqlParam, type SqliteOptions } from './sqlite-schema.js';
import { StoreError } from './types.js';
import { acquireWriterLock, withRelease } from './writer-lock.js';

export const NODE_SQLITE = 'node:sqlite';

interface StatementSync {
  run(...params: SqlParam[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: SqlParam[]): Record<string, unknown> | undefined;
  all(...params: SqlParam[]): Record<string, unknown>[];
}
interface DatabaseSync {
  exec(sql: string): void;
  prepare(sql: string): StatementSync;
  close(): void;
}
interface NodeSqliteModule {
  DatabaseSync: new (file: string, options?: { open?: boolean }) => DatabaseSync;
}

let mod: NodeSqliteModule | null | undefined;
let loadError = '';

function load(): NodeSqliteModule | null {
  if (mod === undefined) {
    // Node 22 prints an ExperimentalWarning the first time node:sqlite loads; a store is not an
    // experiment the user asked about, so that one warning is kept off standard error.
    const emit = process.emitWarning;
    process.emitWarning = ((w: string | Error, ...rest: unknown[]) => {
      const text = typeof w === 'string' ? w : w.message;
      if (/SQLite is an experimental feature/.test(text)) return;
      return (emit as (...a: unknown[]) => void).call(process, w, ...rest);
    });
    try {
      // A computed name keeps bundlers and Node 20's loader from resolving it ahead of time.
      const name = 'node:' + 'sqlite';
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      mod = require(name) as NodeSqliteModule;
    } catch (e) {
      mod = null;
      loadError = `node:sqlite is not available in Node ${process.version} (${e instanceof Error ? e.message : String(e)})`;
    } finally {
      process.emitWarning = emit;
    }
  }
  return mod;
}

/** Whether this Node has node:sqlite; the reason when it does not. */
export function nodeSqliteAvailable(): { ok: true } | { ok: false; reason: string } {
  return load() ? { ok: true } : { ok: false, reason: loadError };
}

/** A node:sqlite connection as the SqlConnection the shared store runs on. */
export function nodeSqliteConnection(file: string): SqlConnection {
  const m = load();
  if (!m) throw new StoreError('unavailable', `cannot open the Turn store ${file}: ${loadError}`, file);
  const db = new m.DatabaseSync(file);
  return {
    exec: (sql) => db.exec(sql),
    prepare(sql) {
      const s = db.prepare(sql);
      return { run: (...p) => s.run(...p), get: (...p) => s.get(...p), all: (...p) => s.all(...p) };
    },
    close: () => db.close(),
  };
}

/** Opens (creating if needed) the store in the SQLite file `file` with node:sqlite. */
export function openNodeSqliteStore(file: string, options: SqliteOptions = {}): SqliteRunStore {
  file = path.resolve(file);
  checkHeader(file);
  // the writer lock the WebAssembly driver also sees (writer-lock.ts), held until close
  const release = acquireWriterLock(file, NODE_SQLITE);
  let conn: SqlConnection;
  try {
    conn = withRelease(nodeSqliteConnection(file), release);
  } catch (e) {
    release();
    throw toStoreError(e, file, 'open the store');
  }
  return SqliteRunStore.open(conn, file, NODE_SQLITE, options);
}
