// The store layer of durability (issue 5): see docs/durability.md.
export * from './types.js';
export { openStore, openStoreFile, pickDriver, defaultStoreDir, DEFAULT_STORE_DIR, DRIVER_NAMES, STORE_FILE, type DriverName, type OpenOptions } from './open.js';
export { openBetterSqlite3Store, betterSqlite3Available, BETTER_SQLITE3 } from './better-sqlite3.js';
export { openNodeSqliteStore, nodeSqliteAvailable, NODE_SQLITE } from './node-sqlite.js';
export { openNodeSqlite3WasmStore, nodeSqlite3WasmAvailable, NODE_SQLITE3_WASM } from './node-sqlite3-wasm.js';
export { SCHEMA_VERSION, APPLICATION_ID, SCHEMA_V1, SqliteRunStore, createRunWithBundle, newRunId, type SqlConnection, type SqliteOptions } from './sqlite-schema.js';
export {
  encodeValue, decodeValue, valueHash, encodeSnapshot, decodeSnapshot, SerializeError, VALUE_FORMAT, SNAPSHOT_FORMAT,
  type Slot, type Json, type SnapshotData, type ProcessSnapshot, type ContextSnapshot,
} from './serialize.js';
