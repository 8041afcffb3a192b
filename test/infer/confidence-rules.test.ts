// Confidence propagation, one rule per test (docs/language.md, "Confidence"): arithmetic and
// concatenation multiply; `and`, comparisons and `!` take the minimum; `or` the maximum; a certain
// operand is neutral; pure tools keep their arguments' lowest confidence.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InferRequest } from '../../runtime/infer/types.js';
import { okJson, runWith } from './helpers.js';

/** Replies with `value` at the confidence the prompt names: `"x @0.3"` → confidence 0.3. */
const byPrompt = (values: Record<string, unknown>) => (r: InferRequest) => {
  const [name, c] = r.prompt.split('@');
  return { text: JSON.stringify({ value: values[name.trim()], confidence: Number(c) }) };
};

async function confidences(exprs: string[], values: Record<string, unknown> = {}): Promise<number[]> {
  const source = [
    'let c = infer Bool { "c @0.3"; };',
    'let d = infer Bool { "d @0.6"; };',
    'let n = infer Num { "n @0.5"; };',
    'let m = infer Num { "m @0.4"; };',
    'let s = infer Str { "s @0.7"; };',
    'let l = infer List<Num> { "l @0.8"; };',
    `return [${exprs.map((e) => `confidence (${e})`).join(', ')}];`,
  ].join('\n');
  const r = await runWith(source, byPrompt({ c: true, d: false, n: 2, m: 3, s: 'word', l: [1, 2], ...values }));
  return okJson(r) as number[];
}

const close = (got: number[], want: number[]) => got.forEach((g, i) => assert.ok(Math.abs(g - want[i]) < 1e-9, `#${i}: ${g} ≠ ${want[i]} (${JSON.stringify(got)})`));

test('or: the larger confidence of two uncertain sides; a certain side is neutral', async () => {
  close(await confidences(['c or d', 'd or c', 'c or false', 'false or c', 'c or true']), [0.6, 0.6, 0.3, 0.3, 0.3]);
  // a certain true left side decides `or` without evaluating the right: the result is certain
  close(await confidences(['true or c']), [1]);
});

test('and: the smaller confidence; a certain side is neutral', async () => {
  close(await confidences(['c and d', 'd and c', 'c and true', 'true and c']), [0.3, 0.3, 0.3, 0.3]);
  // a certain false left side decides `and` without evaluating the right
  close(await confidences(['false and c']), [1]);
});

test('not keeps the confidence', async () => {
  close(await confidences(['!c', '!d']), [0.3, 0.6]);
});

test('comparisons take the minimum; a certain side is neutral', async () => {
  close(await confidences(['n < m', 'n == m', 'n != 1', '1 >= m']), [0.4, 0.4, 0.5, 0.4]);
});

test('arithmetic and concatenation multiply; a certain operand is neutral', async () => {
  close(await confidences(['n + m', 'n * m', 'n - 1', '2 / n', 's + s', 's + "!"']), [0.2, 0.2, 0.5, 0.5, 0.49, 0.7]);
});

test('reading an element of an uncertain value keeps its confidence', async () => {
  close(await confidences(['l[0]']), [0.8]);
});

const PURE_TOOLS: [string, string][] = [
  ['len', 's'], ['to_string', 'n'], ['to_number', 'call("to_string", n)'], ['type_of', 's'], ['str_upper', 's'], ['str_lower', 's'],
  ['str_trim', 's'], ['str_split', 's, "o"'], ['str_contains', 's, "o"'], ['str_starts_with', 's, "w"'], ['str_ends_with', 's, "d"'],
  ['str_replace', 's, "o", "0"'], ['str_slice', 's, 0, 2'], ['url_encode', 's'], ['list_get', 'l, 0'], ['list_contains', 'l, 1'],
  ['list_push', 'l, 3'], ['list_concat', 'l, l'], ['list_reverse', 'l'], ['list_slice', 'l, 0, 1'], ['list_index_of', 'l, 2'],
  ['list_last', 'l'], ['json_stringify', 'l'], ['json_parse', 'call("json_stringify", l)'], ['abs', 'n'], ['max', 'n, 1'], ['min', 'n, 1'],
  ['str_join', 'call("str_split", s, "o"), "-"'], ['regex_match', '"w.*", s'],
];

for (const [tool, args] of PURE_TOOLS) {
  test(`call("${tool}", …) keeps its arguments' lowest confidence`, async () => {
    const [got] = await confidences([`call("${tool}", ${args})`]);
    const uses = ['s', 'n', 'l'].filter((v) => new RegExp(`\\b${v}\\b`).test(args));
    const want = Math.min(...uses.map((v) => ({ s: 0.7, n: 0.5, l: 0.8 })[v as 's' | 'n' | 'l']));
    assert.ok(Math.abs(got - want) < 1e-9, `${tool}: ${got}, want ${want}`);
  });
}

test('a pure tool of certain arguments is certain', async () => {
  close(await confidences(['call("len", "abc")', 'call("to_string", 5)']), [1, 1]);
});
