// The better-sqlite3 driver (version 12): the store of the CLI and the tests on Node 20. Loaded
// lazily, so that a host without the native module (VS Code's Node, which has node:sqlite) never
// needs it. better-sqlite3 13 crashes on Node 20; package.json pins ^12.
import * as path from 'node:path';
import type BetterSqlite3 from 'better-sqlite3';
import { SqliteRunStore, checkHeader, toStoreError, type SqlConnection, type SqlParam, type SqliteOptions } from './sqlite-schema.js';
import { StoreError } from './types.js';
import { acquireWriterLock, withRelease } from './writer-lock.js';

export const BETTER_SQLITE3 = 'better-sqlite3';

type DatabaseCtor = typeof BetterSqlite3;
let ctor: DatabaseCtor | null | undefined;
let loadError = '';
/** what every database is opened with: the native module itself, once found */
let openOptions: BetterSqlite3.Options = {};

/**
 * better-sqlite3's native module, found where the package is installed. The CLI bundles the
 * package's JavaScript (scripts/build.mjs: compiled from the CLI's code cache, not from
 * node_modules at every start), and a bundled copy cannot find its native module by itself (the
 * `bindings` package looks beside the calling file). Undefined: the package finds it as usual.
 */
function nativeModule(): object | undefined {
  let file: string;
  try {
    file = require.resolve('better-sqlite3/build/Release/better_sqlite3.node');
  } catch {
    return undefined;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(file) as object;
}

function load(): DatabaseCtor | null {
  if (ctor === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const c = require('better-sqlite3') as DatabaseCtor;
      const addon = nativeModule();
      openOptions = addon ? { nativeBinding: addon as unknown as string } : {};
      // The native binary loads with the first database: built for another Node, it fails here.
      new c(':memory:', openOptions).close();
      ctor = c;
    } catch (e) {
      ctor = null;
      loadError = e instanceof Error ? e.message : String(e);
    }
  }
  return ctor;
}

/** Whether better-sqlite3 (and its native binary) loads here; the reason when it does not. */
export function betterSqlite3Available(): { ok: true } | { ok: false; reason: string } {
  return load() ? { ok: true } : { ok: false, reason: `better-sqlite3 does not load: ${loadError}` };
}

// better-sqlite3 binds Buffers, not plain Uint8Arrays.
function bind(params: SqlParam[]): unknown[] {
  return params.map((p) => (p instanceof Uint8Array && !Buffer.isBuffer(p) ? Buffer.from(p.buffer, p.byteOffset, p.byteLength) : p));
}

/** A better-sqlite3 connection as the SqlConnection the shared store runs on. */
export function betterSqlite3Connection(file: string): SqlConnection {
  const Database = load();
  if (!Database) throw new StoreError('unavailable', `cannot open the Turn store ${file}: ${loadError}`, file);
  const db = new Database(file, openOptions);
  return {
    exec: (sql) => void db.exec(sql),
    prepare(sql) {
      const s = db.prepare(sql);
      const reader = s.reader;
      return {
        run: (...p) => s.run(...bind(p)),
        get: (...p) => (reader ? (s.get(...bind(p)) as Record<string, unknown> | undefined) : (s.run(...bind(p)), undefined)),
        all: (...p) => s.all(...bind(p)) as Record<string, unknown>[],
      };
    },
    close: () => void db.close(),
  };
}

/** Opens (creating if needed) the store in the SQLite file `file` with better-sqlite3. */
export function openBetterSqlite3Store(file: string, options: SqliteOptions = {}): SqliteRunStore {
  file = path.resolve(file);
  checkHeader(file);
  // the writer lock the WebAssembly driver also sees (writer-lock.ts), held until close
  const release = acquireWriterLock(file, BETTER_SQLITE3);
  let conn: SqlConnection;
  try {
    conn = withRelease(betterSqlite3Connection(file), release);
  } catch (e) {
    release();
    throw toStoreError(e, file, 'open the store');
  }
  return SqliteRunStore.open(conn, file, BETTER_SQLITE3, options);
}
