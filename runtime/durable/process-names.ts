// What a journal records of a run's processes (issue 44), so a stored run that ran to its end — one
// with no snapshot — shows the same lanes, names and actor count as the live run did.
//
// Two kinds of entry, both written live and never replayed (no idempotency key: replay and forks
// pass over them):
// - `spawn`: a process started; `pid` is the new process, `name` the function it was spawned to run
//   ('' for an anonymous closure), the payload `{"parent": N}`.
// - `name`: a process named itself (`process_name`, std/graph's node id); `name` is that name. The
//   last one of a process is its name.
// A journal written before these kinds still loads: its processes are those that took a step,
// named `#N` (journalProcesses gives them no name).
//
// The name comes from the program (a closure's name, or any string it passes to `process_name`): it
// is bounded in bytes when written, and checked again when read back (a store is outside data).
import type { JournalEntry } from '../store/types.js';

export const SPAWN_KIND = 'spawn';
export const NAME_KIND = 'name';

/** the most bytes (UTF-8) of a process's name the journal keeps */
export const MAX_NAME_BYTES = 200;

const CONTROL = /[\u0000-\u001f\u007f]/;
const utf8 = new TextEncoder();
const text = new TextDecoder();

/**
 * `name` as the journal keeps it: control characters make it no name, and past MAX_NAME_BYTES bytes
 * it is cut at a character's boundary (never inside a UTF-8 sequence or a surrogate pair).
 */
export function journalName(name: string | null): string {
  if (name === null || CONTROL.test(name)) return '';
  if (name.length * 3 <= MAX_NAME_BYTES) return name; // at most 3 bytes per UTF-16 unit
  let bytes = 0;
  let end = 0;
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    const size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (bytes + size > MAX_NAME_BYTES) break;
    bytes += size;
    end += ch.length;
  }
  return name.slice(0, end);
}

/** A name read back from a store: a short one-line string, else none. */
function readName(name: unknown): string | null {
  if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_BYTES || CONTROL.test(name)) return null;
  return utf8.encode(name).length <= MAX_NAME_BYTES ? name : null;
}

/** One process of a run as its journal tells it. */
export interface JournaledProcess {
  pid: number;
  /** 0 for main; null when the journal does not say (a journal from before spawns were recorded) */
  parent: number | null;
  /** its `process_name`, else the function it was spawned to run; main is `main`; null when unknown */
  name: string | null;
}

const parentOf = (e: JournalEntry): number | null => {
  if (e.payload === null || e.payload.length > 64) return null;
  try {
    const v = JSON.parse(text.decode(e.payload)) as { parent?: unknown } | null;
    return typeof v?.parent === 'number' && Number.isSafeInteger(v.parent) && v.parent >= 0 ? v.parent : null;
  } catch {
    return null;
  }
};

/**
 * The processes of a run, from its journal: main, each recorded spawn, and each other process that
 * took a step (a journal from before spawns were recorded), by pid, with their names.
 */
export function journalProcesses(journal: readonly JournalEntry[]): JournaledProcess[] {
  const byPid = new Map<number, JournaledProcess>();
  const labels = new Map<number, string>();
  const at = (pid: number): JournaledProcess => {
    let p = byPid.get(pid);
    if (!p) byPid.set(pid, (p = { pid, parent: pid === 1 ? 0 : null, name: pid === 1 ? 'main' : null }));
    return p;
  };
  for (const e of journal) {
    if (!Number.isSafeInteger(e.pid) || e.pid < 1) continue;
    const p = at(e.pid);
    if (e.kind === SPAWN_KIND && e.idempotencyKey === null) {
      p.parent = parentOf(e);
      p.name = readName(e.name);
    } else if (e.kind === NAME_KIND && e.idempotencyKey === null) {
      const name = readName(e.name);
      if (name !== null) labels.set(e.pid, name);
    }
  }
  if (byPid.size > 0) at(1);
  for (const [pid, name] of labels) byPid.get(pid)!.name = name;
  return [...byPid.values()].sort((a, b) => a.pid - b.pid);
}
