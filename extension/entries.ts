// Finds the program entries of a Turn file — its top-level `turn { ... }` blocks — from the parsed
// program (the `Entry` statements of its body), so closures, nested blocks, comments and strings
// are told apart by the same parser the compiler and the language server use. No `vscode`
// import: unit-tested in Node.
import { parseSource } from '../runtime/index.js';

export interface EntryBlock {
  /** UTF-16 offset of the `turn` keyword. */
  offset: number;
  /** 0-based line of `turn`. */
  line: number;
  /** 0-based UTF-16 column of `turn`, as VS Code positions count. */
  character: number;
}

/**
 * Top-level entries in source order. Closures (`turn(a) { }`, `spawn turn() { }`) and a
 * `turn { }` nested in a block are not entries. Where the text does not parse, the parser's
 * error recovery decides what still counts.
 */
export async function findEntryBlocks(text: string, path = 'untitled.tn'): Promise<EntryBlock[]> {
  const { program, file } = await parseSource(path, text);
  const entries: EntryBlock[] = [];
  for (const s of program.body) {
    if (s.kind !== 'Entry') continue;
    const { line, character } = file.utf16Position(s.span.start);
    entries.push({ offset: s.span.start, line, character });
  }
  return entries;
}

/** An entry further down than this many lines also gets its lenses at the top of the file. */
export const TOP_LENS_AFTER_LINES = 20;

export interface LensPlace {
  /** 0-based line and UTF-16 column the lenses stand above */
  line: number;
  character: number;
  /** the entry they run (0-based line) */
  entryLine: number;
}

/**
 * Where the Run/Debug lenses go: above each entry, and — for an entry further down than
 * TOP_LENS_AFTER_LINES — above the file's first line too. A file opens at its top, and VS Code
 * draws a lens (and, after a reload, replaces its cached copy with a clickable one) only once its
 * line is in view, so a lens only at a `turn {` near the end was not there until one scrolled.
 * Fixed places, never the visible range: the same file always gets the same lenses.
 */
export function lensPlaces(entries: EntryBlock[]): LensPlace[] {
  const places = entries.map((e) => ({ line: e.line, character: e.character, entryLine: e.line }));
  const first = entries[0];
  if (first && first.line >= TOP_LENS_AFTER_LINES) places.unshift({ line: 0, character: 0, entryLine: first.line });
  return places;
}
