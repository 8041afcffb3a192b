// Opening the store a run uses: the folder, the file, the driver.
//
// The default store folder is `.turn/` in the working directory (`TURN_STORE_DIR` overrides it);
// the database is `.turn/store.db` with its `-wal` file and a `.owner` note beside it while a
// writer holds it. The folder gets a `.gitignore` of `*` so a store is never committed by accident.
//
// The driver: node:sqlite where the host's Node has it (VS Code's Node), else better-sqlite3
// (Node 20: the CLI and the tests). Both run the same SqliteRunStore and pass one conformance suite.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BETTER_SQLITE3, betterSqlite3Available, openBetterSqlite3Store } from './better-sqlite3.js';
import { NODE_SQLITE, nodeSqliteAvailable, openNodeSqliteStore } from './node-sqlite.js';
import type { SqliteOptions } from './sqlite-schema.js';
import { StoreError, type RunStore } from './types.js';

export const DEFAULT_STORE_DIR = '.turn';
export const STORE_FILE = 'store.db';

export type DriverName = typeof BETTER_SQLITE3 | typeof NODE_SQLITE;

export interface OpenOptions extends SqliteOptions {
  /** 'auto' (default): node:sqlite when available, else better-sqlite3 */
  driver?: DriverName | 'auto';
}

/** The store folder: `dir`, else $TURN_STORE_DIR, else `.turn` in the working directory. */
export function defaultStoreDir(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  return path.resolve(cwd, env.TURN_STORE_DIR || DEFAULT_STORE_DIR);
}

/** The driver `openStore` would use here, and why. */
export function pickDriver(wanted: DriverName | 'auto' = 'auto'): DriverName {
  if (wanted === NODE_SQLITE) {
    const a = nodeSqliteAvailable();
    if (!a.ok) throw new StoreError('unavailable', a.reason);
    return NODE_SQLITE;
  }
  if (wanted === BETTER_SQLITE3) {
    const a = betterSqlite3Available();
    if (!a.ok) throw new StoreError('unavailable', a.reason);
    return BETTER_SQLITE3;
  }
  if (nodeSqliteAvailable().ok) return NODE_SQLITE;
  const b = betterSqlite3Available();
  if (b.ok) return BETTER_SQLITE3;
  throw new StoreError(
    'unavailable',
    `no SQLite driver: node:sqlite needs Node >= 22.5 (this is ${process.version}) and ${b.reason}; run \`npm install\` where Turn is installed`,
  );
}

/** Opens the SQLite file `file` itself (no folder handling) with the driver chosen. */
export function openStoreFile(file: string, options: OpenOptions = {}): RunStore {
  const driver = pickDriver(options.driver);
  return driver === NODE_SQLITE ? openNodeSqliteStore(file, options) : openBetterSqlite3Store(file, options);
}

/**
 * Opens the store in `dir` (default: `defaultStoreDir()`), creating the folder and the database
 * as needed. Throws StoreError: 'in_use' when another writer holds it, 'corrupt' for a damaged
 * file (left untouched), 'schema' for a newer schema, 'disk_full', 'io'.
 */
export function openStore(dir?: string, options: OpenOptions = {}): RunStore {
  const folder = path.resolve(dir ?? defaultStoreDir());
  try {
    fs.mkdirSync(folder, { recursive: true });
    const ignore = path.join(folder, '.gitignore');
    if (!fs.existsSync(ignore)) fs.writeFileSync(ignore, '# the Turn run store (docs/durability.md)\n*\n');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new StoreError(
      code === 'ENOSPC' ? 'disk_full' : 'io',
      `cannot create the Turn store folder ${folder}: ${e instanceof Error ? e.message : String(e)}`,
      folder,
      { cause: e },
    );
  }
  return openStoreFile(path.join(folder, STORE_FILE), options);
}
