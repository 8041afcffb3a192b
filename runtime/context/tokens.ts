// Token counting for context budgets with a real BPE tokenizer: `gpt-tokenizer`'s o200k_base
// encoding (GPT-4o family), bundled with the package, no network. Other model families tokenize
// differently; o200k_base is the budget's unit of account, not an exact count for every model.
// The encoding (a few MB of ranks) loads on first use, so programs that never touch a context
// don't pay for it.

type Encoding = { countTokens(text: string): number };

let encoding: Encoding | undefined;

function load(): Encoding {
  // A `require` inside the function keeps the load lazy, in tsx and in the esbuild bundle alike;
  // the bundles require dist/tokenizer.js, a separate bundle of this package (scripts/build.mjs).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  encoding ??= require('gpt-tokenizer/encoding/o200k_base') as Encoding;
  return encoding;
}

export const TOKENIZER = 'o200k_base';

/** Tokens of `text` in the o200k_base encoding. */
export function countTokens(text: string): number {
  if (text.length === 0) return 0;
  return load().countTokens(text);
}
