// What the playground can run in a file, for its Run lenses: each top-level function
// (`let NAME = turn(...) { ... };`, runtime/playground/functions.ts) and, in a test file
// (`*_test.tn`), each test case. Read from the syntax alone, as you type. No `vscode` import:
// unit-tested in Node.
import { discoverSource, parseSource, playableFunctions, TEST_FILE_SUFFIX, type PlayableFunction } from '../../runtime/index.js';

export type PlayTarget =
  | { kind: 'function'; name: string; fn: PlayableFunction; line: number; character: number }
  /** a test case: its lens stands on its key's line */
  | { kind: 'test'; name: string; line: number; character: number };

/** The targets of a file's text, in source order. A file that does not parse offers what the parser's recovery still finds. */
export async function playTargets(text: string, file: string): Promise<PlayTarget[]> {
  const { program, file: source } = await parseSource(file, text);
  const targets: PlayTarget[] = playableFunctions(program, source).map((fn) => ({ kind: 'function', name: fn.name, fn, line: fn.at.line, character: fn.at.character }));
  if (file.endsWith(TEST_FILE_SUFFIX)) {
    const found = await discoverSource(file, text);
    for (const t of found.tests) targets.push({ kind: 'test', name: t.name, line: t.line - 1, character: 0 });
  }
  return targets.sort((a, b) => a.line - b.line);
}
