// A linear scan that refuses text nested too deep *before* tree-sitter sees it. Tree-sitter's
// WebAssembly parser runs out of its own stack on some deeply nested text (3,000 `!` before an
// unclosed `{`: the fuzzer found it), and it fails with "memory access out of bounds" — after which
// the module's memory is corrupt and every later parse in the process fails too (a language
// server stops answering). Brackets are not the danger: 5,000 nested parentheses parse (and
// lowering reports nesting past MAX_NESTING itself, lower.ts); a long run of prefix operators is.

/**
 * The longest run of prefix operators (`!!!x`) let through. Measured: 300 `!` before an unclosed
 * `{` already overflow the parser's stack (250 do not), while a thousand brackets do not.
 */
export const MAX_PREFIX_RUN = 200;

/**
 * The offset where `text` holds a run of more than MAX_PREFIX_RUN prefix operators (`!!!x`,
 * `- - -x`), or -1. Strings and `//` comments are skipped; `!=` and a binary minus end a run after
 * one character, so a real program is nowhere near the limit.
 */
export function nestingBeyond(text: string): number {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      for (i++; i < text.length && text.charCodeAt(i) !== 34 && text.charCodeAt(i) !== 10; i++) if (text.charCodeAt(i) === 92 /* \ */) i++;
      run = 0;
      continue;
    }
    if (c === 47 /* / */ && text.charCodeAt(i + 1) === 47) {
      while (i < text.length && text.charCodeAt(i) !== 10) i++;
      continue;
    }
    if (c === 33 /* ! */ || c === 45 /* - */) run++;
    else if (c !== 32 && c !== 9 && c !== 10 && c !== 13) run = 0;
    if (run > MAX_PREFIX_RUN) return i;
  }
  return -1;
}

/** The error such a text gets (code `nesting`, as lowering's for deep nesting). */
export function nestingMessage(): string {
  return `nesting too deep: more than ${MAX_PREFIX_RUN} prefix operators (\`!\`, \`-\`) in a row`;
}
