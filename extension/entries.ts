// Finds the program entries of a Turn file — top-level `turn { ... }` blocks — with a small scanner
// that skips comments and strings and tracks bracket depth. No `vscode` import: unit-tested in Node.
// (A later version asks the parser instead.)

export interface EntryBlock {
  /** UTF-16 offset of the `turn` keyword. */
  offset: number;
  /** 0-based line of `turn`. */
  line: number;
  /** 0-based UTF-16 column of `turn`, as VS Code positions count. */
  character: number;
}

const isIdentStart = (c: string) => /[A-Za-z_]/.test(c);
const isIdentPart = (c: string) => /[A-Za-z0-9_]/.test(c);

/**
 * Top-level entries in source order. `turn` counts only at bracket depth 0, at the start of a statement
 * (first token, or after `;` or `}`), and directly followed by `{` — so closures `turn(a) { }`,
 * `spawn turn() { }` and `let f = turn { }` are not entries.
 */
export function findEntryBlocks(text: string): EntryBlock[] {
  const entries: EntryBlock[] = [];
  let depth = 0;
  let line = 0;
  let lineStart = 0;
  // Last significant character at depth 0 ('' at the start of the file).
  let prev = '';
  let i = 0;

  const newline = (at: number) => {
    line++;
    lineStart = at + 1;
  };

  /** Index of the next significant character from `j`, skipping blanks and comments (without recording lines). */
  const skipTrivia = (j: number): number => {
    for (;;) {
      while (j < text.length && /\s/.test(text[j])) j++;
      if (text.startsWith('//', j)) {
        while (j < text.length && text[j] !== '\n') j++;
      } else if (text.startsWith('/*', j)) {
        const end = text.indexOf('*/', j + 2);
        j = end < 0 ? text.length : end + 2;
      } else {
        return j;
      }
    }
  };

  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      newline(i);
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (text.startsWith('//', i)) {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      for (let j = i; j < stop; j++) if (text[j] === '\n') newline(j);
      i = stop;
    } else if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\') i++;
        else if (text[i] === '\n') newline(i);
        i++;
      }
      i++;
      if (depth === 0) prev = '"';
    } else if (isIdentStart(c)) {
      const start = i;
      while (i < text.length && isIdentPart(text[i])) i++;
      const word = text.slice(start, i);
      if (depth === 0 && word === 'turn' && (prev === '' || prev === ';' || prev === '}') && text[skipTrivia(i)] === '{') {
        entries.push({ offset: start, line, character: start - lineStart });
      }
      if (depth === 0) prev = 'a';
    } else {
      if (c === '{' || c === '(' || c === '[') depth++;
      else if (c === '}' || c === ')' || c === ']') depth = Math.max(0, depth - 1);
      if (depth === 0) prev = c;
      i++;
    }
  }
  return entries;
}
