// The one-writer lock every driver shares: a `store.db.lock` folder beside the database, holding an
// `owner` note (pid, host, since).
//
// Why a folder: the WebAssembly driver (node-sqlite3-wasm) locks a database by creating exactly that
// folder (mkdir is atomic), while the native drivers (better-sqlite3, node:sqlite) lock with POSIX
// advisory locks, which the WebAssembly driver cannot see, nor they its folder. So the native drivers
// also take the folder before they open the file: whichever driver opens a store first, a second
// writer (same process or another, same driver or another) is refused with 'in_use'. SQLite's own
// locks still guard the native drivers from each other.
//
// A writer that was killed leaves its folder behind. The next writer takes it over when the note
// names a process of this host that is gone (or when the folder has no note and is older than a
// minute: a writer killed between creating the folder and writing the note, a microsecond window).
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { SqlConnection } from './sqlite-schema.js';
import { StoreError } from './types.js';
import { processAlive } from '../process-alive.js';

export const LOCK_SUFFIX = '.lock';
const OWNER = 'owner';
const NO_NOTE_GRACE_MS = 60_000;

interface OwnerNote {
  pid: number;
  host: string;
  since: string;
  driver?: string;
}

export function lockDir(file: string): string {
  return file + LOCK_SUFFIX;
}

function readNote(dir: string): OwnerNote | null {
  try {
    return JSON.parse(fs.readFileSync(`${dir}/${OWNER}`, 'utf8')) as OwnerNote;
  } catch {
    return null;
  }
}

/** Whether the lock folder was left by a writer that no longer runs. */
function stale(dir: string): boolean {
  const note = readNote(dir);
  if (note) return note.host === os.hostname() && Number.isInteger(note.pid) && !processAlive(note.pid);
  try {
    return Date.now() - fs.statSync(dir).mtimeMs > NO_NOTE_GRACE_MS;
  } catch {
    return false; // gone meanwhile: not ours to judge
  }
}

/** The 'in_use' error for a store whose lock folder another writer holds, naming it from its note. */
export function inUse(file: string): StoreError {
  const note = readNote(lockDir(file));
  const who = note ? ` (pid ${note.pid} on ${note.host}, since ${note.since})` : '';
  return new StoreError(
    'in_use',
    `the Turn store ${file} is in use by another writer${who}; only one process may run from a store at a time (if that process is gone, remove the folder ${lockDir(file)})`,
    file,
  );
}

/**
 * Removes a stale lock folder. It is first renamed to a name of its own, and put back if what was
 * renamed is not the folder judged stale (a writer took it over in between).
 */
export function clearStaleLock(file: string): void {
  const dir = lockDir(file);
  let before: fs.Stats;
  try {
    before = fs.statSync(dir);
  } catch {
    return;
  }
  if (!stale(dir)) return;
  const aside = `${dir}.stale-${process.pid}-${Date.now()}`;
  try {
    fs.renameSync(dir, aside);
  } catch {
    return; // someone else moved it
  }
  const moved = fs.statSync(aside);
  if (moved.ino !== before.ino) {
    try {
      fs.renameSync(aside, dir);
    } catch {
      // the new writer's folder stays aside; its note still names it
    }
    return;
  }
  fs.rmSync(aside, { recursive: true, force: true });
}

/** Writes the owner note into a lock folder this process holds. */
export function writeOwnerNote(file: string, driver: string): void {
  const note: OwnerNote = { pid: process.pid, host: os.hostname(), since: new Date().toISOString(), driver };
  try {
    fs.writeFileSync(`${lockDir(file)}/${OWNER}`, JSON.stringify(note) + '\n');
  } catch {
    // only informs the message another writer gets, and stale-lock recovery
  }
}

/** Removes the owner note (before the WebAssembly driver removes its then empty folder). */
export function removeOwnerNote(file: string): void {
  fs.rmSync(`${lockDir(file)}/${OWNER}`, { force: true });
}

/**
 * Takes the lock folder for a native driver, or throws StoreError 'in_use'. Returns the release.
 * A store file whose folder does not exist is left to the driver to report.
 */
export function acquireWriterLock(file: string, driver: string): () => void {
  const dir = lockDir(file);
  for (let attempt = 0; ; attempt++) {
    try {
      fs.mkdirSync(dir);
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') return () => {}; // no folder to lock in, or not writable: the driver says why
      if (attempt > 0) throw inUse(file);
      clearStaleLock(file);
    }
  }
  writeOwnerNote(file, driver);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    fs.rmSync(dir, { recursive: true, force: true });
  };
}

/** `conn`, releasing the writer lock after it closes. */
export function withRelease(conn: SqlConnection, release: () => void): SqlConnection {
  return {
    exec: (sql) => conn.exec(sql),
    prepare: (sql) => conn.prepare(sql),
    close: () => {
      try {
        conn.close();
      } finally {
        release();
      }
    },
  };
}
