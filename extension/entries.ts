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
