// Opening the store a run uses: the folder, the file, the driver.
//
// The default store folder is `.turn/` in the working directory (`TURN_STORE_DIR` overrides it);
// the database is `.turn/store.db` with its `-wal` file, a `.owner` note and a `.lock` folder
// (writer-lock.ts) beside it while a writer holds it. The folder gets a `.gitignore` of `*` so a store is never committed by accident.
//
// The driver: node:sqlite where the host's Node has it (Node >= 22.5: current VS Code), else
// better-sqlite3 where its native module loads (Node 20: the CLI and the tests), else
// node-sqlite3-wasm (SQLite in WebAssembly: the packaged extension on code-server's Node 20, which
// ships no native module). All three run the same SqliteRunStore on the same file format, share
// one writer lock (writer-lock.ts) and pass one conformance suite. `TURN_STORE_DRIVER` names one
// (the tests run the durability suites under each).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BETTER_SQLITE3, betterSqlite3Available, openBetterSqlite3Store } from './better-sqlite3.js';
import { NODE_SQLITE, nodeSqliteAvailable, openNodeSqliteStore } from './node-sqlite.js';
import { NODE_SQLITE3_WASM, nodeSqlite3WasmAvailable, openNodeSqlite3WasmStore } from './node-sqlite3-wasm.js';
import type { SqliteOptions } from './sqlite-schema.js';
import { StoreError, type RunStore } from './types.js';

export const DEFAULT_STORE_DIR = '.turn';
export const STORE_FILE = 'store.db';

export type DriverName = typeof BETTER_SQLITE3 | typeof NODE_SQLITE | typeof NODE_SQLITE3_WASM;

export const DRIVER_NAMES: readonly DriverName[] = [NODE_SQLITE, BETTER_SQLITE3, NODE_SQLITE3_WASM];

export interface OpenOptions extends SqliteOptions {
  /** 'auto' (default): $TURN_STORE_DRIVER if set, else node:sqlite, better-sqlite3, node-sqlite3-wasm, the first available */
  driver?: DriverName | 'auto';
}

/** The store folder: `dir`, else $TURN_STORE_DIR, else `.turn` in the working directory. */
export function defaultStoreDir(env: NodeJS.ProcessEnv = process.env, cwd: string = process.cwd()): string {
  return path.resolve(cwd, env.TURN_STORE_DIR || DEFAULT_STORE_DIR);
}

function availability(name: DriverName): { ok: true } | { ok: false; reason: string } {
  return name === NODE_SQLITE ? nodeSqliteAvailable() : name === BETTER_SQLITE3 ? betterSqlite3Available() : nodeSqlite3WasmAvailable();
}

/**
 * The driver to use here: the one asked for, else ('auto') the one `env.TURN_STORE_DRIVER` names,
 * else the first that loads. `openStore` passes the process's environment; other callers of 'auto'
 * (the knowledge store, which needs shared locking) do not.
 */
export function pickDriver(wanted: DriverName | 'auto' = 'auto', env: NodeJS.ProcessEnv = {}): DriverName {
  if (wanted === 'auto' && env.TURN_STORE_DRIVER) {
    const named = env.TURN_STORE_DRIVER as DriverName;
    if (!DRIVER_NAMES.includes(named)) {
      throw new StoreError('invalid', `TURN_STORE_DRIVER is '${env.TURN_STORE_DRIVER}'; it names one of ${DRIVER_NAMES.join(', ')}`);
    }
    wanted = named;
  }
  if (wanted !== 'auto') {
    const a = availability(wanted);
    if (!a.ok) throw new StoreError('unavailable', a.reason);
    return wanted;
  }
  const reasons: string[] = [];
  for (const name of DRIVER_NAMES) {
    const a = availability(name);
    if (a.ok) return name;
    reasons.push(a.reason);
  }
  throw new StoreError('unavailable', `no SQLite driver: ${reasons.join('; ')}; run \`npm install\` where Turn is installed`);
}

/** Opens the SQLite file `file` itself (no folder handling) with the driver chosen. */
export function openStoreFile(file: string, options: OpenOptions = {}): RunStore {
  const driver = pickDriver(options.driver, process.env);
  if (driver === NODE_SQLITE) return openNodeSqliteStore(file, options);
  if (driver === BETTER_SQLITE3) return openBetterSqlite3Store(file, options);
  return openNodeSqlite3WasmStore(file, options);
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
