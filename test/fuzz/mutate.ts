// Grammar-aware mutation of Turn programs for the fuzzer: programs are cut into tokens (the
// lexical shape of the grammar: strings, numbers, names, comments, punctuation), then tokens are
// deleted, duplicated, replaced with tokens of the language, spliced from other programs, or
// wrapped in deep nesting. Mutations are data (a list of small tuples) so fast-check can shrink a
// failing case to the fewest, smallest mutations that still fail.
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/** The seed programs: examples, the conformance programs, the standard library and test fixtures. */
export function loadCorpus(): string[] {
  const dirs = ['examples', 'test/conformance/programs', 'runtime/std', 'test/debug/fixtures', 'test/language-server/fixtures'];
  const out: string[] = [];
  for (const dir of dirs) {
    const abs = path.join(ROOT, dir);
    if (!fs.existsSync(abs)) continue;
    for (const name of fs.readdirSync(abs).sort()) if (name.endsWith('.tn')) out.push(fs.readFileSync(path.join(abs, name), 'utf8'));
  }
  return out;
}

const TOKEN = /\s+|\/\/[^\n]*|"(?:[^"\\\n]|\\.)*"?|\d+(?:\.\d+)?(?:e[+-]?\d+)?|[A-Za-z_][A-Za-z0-9_]*|==|!=|<=|>=|->|::|./gsu;

export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** Tokens of the language a mutation may insert. */
export const VOCABULARY = [
  '(', ')', '{', '}', '[', ']', ';', ',', '.', ':', '!', '-', '+', '*', '/', '%', '==', '<', '->', '::', '=',
  'let', 'turn', 'infer', 'spawn', 'spawn_link', 'spawn_each', 'receive', 'send', 'gather', 'scope', 'task', 'detach', 'suspend',
  'return', 'throw', 'try', 'catch', 'if', 'else', 'while', 'for', 'in', 'struct', 'impl', 'use', 'grant', 'identity',
  'remember', 'recall', 'context', 'confidence', 'invoke', 'and', 'or', 'not', 'null', 'true', 'false', 'call',
  '"echo"', '"len"', '"range"', '"std/fs"', '"std/json"', 'schema', 'jsonschema', 'fail_fast', 'wait_all', 'first_success',
  '0', '-1', '1e309', '0.5', '"x"', '""', '"\\u{1F600}"', 'x', 'self', 'Num', 'Str', 'Bool', 'List', 'Map', 'Any', '<', '>', 'é', '語',
];

/** One mutation: [operation, position, vocabulary index, amount]. */
export type Mutation = [number, number, number, number];
export const OPERATIONS = 7;

/** Applies mutations to a seed program (positions wrap around the token list). */
export function mutate(seed: string, others: string[], mutations: Mutation[]): string {
  let tokens = tokenize(seed);
  for (const [op, at, vocab, amount] of mutations) {
    const i = tokens.length === 0 ? 0 : at % (tokens.length + 1);
    const word = VOCABULARY[vocab % VOCABULARY.length];
    switch (op % OPERATIONS) {
      case 0: // delete a run of tokens
        tokens.splice(i, 1 + (amount % 4));
        break;
      case 1: // insert a token of the language
        tokens.splice(i, 0, word, ' ');
        break;
      case 2: // replace a token
        tokens[Math.min(i, tokens.length - 1)] = word;
        break;
      case 3: // duplicate a run
        tokens.splice(i, 0, ...tokens.slice(i, i + 1 + (amount % 20)));
        break;
      case 4: { // splice a run from another program
        const other = tokenize(others[amount % Math.max(1, others.length)] ?? '');
        const from = at % Math.max(1, other.length);
        tokens.splice(i, 0, ...other.slice(from, from + 1 + (vocab % 30)));
        break;
      }
      case 5: { // deep nesting around the token at i: ((((x)))), [[[x]]], !!!!x, f(f(f(x)))
        const depth = 1 + amount * 40;
        const [open, close] = [['(', ')'], ['[', ']'], ['!', ''], ['-', ''], ['f(', ')'], ['{', '}']][vocab % 6];
        const target = tokens[i] ?? 'x';
        tokens.splice(i, 1, open.repeat(depth) + target + close.repeat(depth));
        break;
      }
      case 6: // truncate
        tokens = tokens.slice(0, i);
        break;
    }
  }
  return tokens.join('');
}
