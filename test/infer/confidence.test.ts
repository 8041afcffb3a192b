import { isEvent } from '../../runtime/events/index.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { okJson, runWith, script } from './helpers.js';
import { logprobConfidence, UNREPORTED_CONFIDENCE } from '../../runtime/infer/confidence.js';

const PROGRAM = `
struct In { k: Str };
struct S { inner: In, list: List<Num> };
let a = infer Num { "a"; };
let b = infer Num { "b"; };
let p = infer Bool { "p"; };
let q = infer Bool { "q"; };
let s = infer Str { "s"; };
let t = infer Str { "t"; };
let st = infer S { "st"; };
let plain = 3;
return {
  "a": confidence a, "b": confidence b, "st": confidence st,
  "a + b": confidence (a + b), "a - b": confidence (a - b), "a * b": confidence (a * b), "a / b": confidence (a / b),
  "a + 1": confidence (a + 1), "(a + b) * a": confidence ((a + b) * a), "-a": confidence (-a),
  "s + t": confidence (s + t), "s + !": confidence (s + "!"), "n= + b": confidence ("n=" + b), "s + a": confidence (s + a),
  "a > b": confidence (a > b), "a == b": confidence (a == b), "a != b": confidence (a != b), "a <= 10": confidence (a <= 10),
  "a == a": confidence (a == a), "s == t": confidence (s == t),
  "!p": confidence !p, "!q": confidence !q, "!p value": !p,
  "p and q": confidence (p and q), "q and p": confidence (q and p), "p and true": confidence (p and true),
  "p and q value": p and q,
  "p or q": confidence (p or q), "q or p": confidence (q or p), "q or false": confidence (q or false),
  "p or true": confidence (p or true), "p or q value": p or q,
  "st.inner": confidence st.inner, "st.inner.k": confidence st.inner.k, "st.list[0]": confidence st.list[0],
  "st.list": confidence st.list,
  "plain": confidence plain, "plain + 1": confidence (plain + 1), "literal": confidence "x"
};
`;

const REPLIES = [
  { match: '^a$', value: 4, confidence: 0.8 },
  { match: '^b$', value: 2, confidence: 0.5 },
  { match: '^p$', value: true, confidence: 0.8 },
  { match: '^q$', value: false, confidence: 0.5 },
  { match: '^s$', value: 'x', confidence: 0.8 },
  { match: '^t$', value: 'y', confidence: 0.5 },
  { match: '^st$', value: { inner: { k: 'v' }, list: [7] }, confidence: 0.7 },
];

test('confidence propagation: product, minimum, maximum, field reads, plain values', async () => {
  const r = await runWith(PROGRAM, script(REPLIES));
  const c = okJson(r) as Record<string, number | boolean>;
  const close = (k: string, want: number) => assert.ok(Math.abs((c[k] as number) - want) < 1e-12, `${k}: ${c[k]} != ${want}`);
  // inferred values carry the reported confidence
  close('a', 0.8); close('b', 0.5); close('st', 0.7);
  // arithmetic and concatenation multiply
  close('a + b', 0.4); close('a - b', 0.4); close('a * b', 0.4); close('a / b', 0.4);
  close('a + 1', 0.8); close('(a + b) * a', 0.32); close('-a', 0.8);
  close('s + t', 0.4); close('s + !', 0.8); close('n= + b', 0.5); close('s + a', 0.64);
  // comparisons and `!` take the minimum
  close('a > b', 0.5); close('a == b', 0.5); close('a != b', 0.5); close('a <= 10', 0.8);
  close('a == a', 0.8); close('s == t', 0.5);
  close('!p', 0.8); close('!q', 0.5);
  assert.equal(c['!p value'], false);
  // `and` takes the minimum, `or` the maximum (both evaluate an uncertain left side fully)
  close('p and q', 0.5); close('q and p', 0.5); close('p and true', 0.8);
  assert.equal(c['p and q value'], false);
  close('p or q', 0.8); close('q or p', 0.8); close('q or false', 0.5); // a certain operand is neutral: q keeps its own close('p or true', 1);
  assert.equal(c['p or q value'], true);
  // reading a field (or an element) of an uncertain struct keeps its confidence
  close('st.inner', 0.7); close('st.inner.k', 0.7); close('st.list[0]', 0.7); close('st.list', 0.7);
  // values not derived from inference have confidence 1
  close('plain', 1); close('plain + 1', 1); close('literal', 1);
});

test('confidence sources: token log-probabilities first, else the reported one, else unreported', async () => {
  const text = '{"value": 42, "confidence": 0.3}';
  // tokens that spell the reply exactly: only the value's tokens count
  const tokens = [
    { token: '{"', logprob: -0.01 }, { token: 'value', logprob: 0 }, { token: '":', logprob: 0 }, { token: ' ', logprob: -0.02 },
    { token: '42', logprob: -0.5 }, { token: ',', logprob: 0 }, { token: ' "', logprob: 0 }, { token: 'confidence', logprob: 0 },
    { token: '":', logprob: 0 }, { token: ' ', logprob: 0 }, { token: '0', logprob: -2 }, { token: '.', logprob: 0 }, { token: '3', logprob: -3 }, { token: '}', logprob: 0 },
  ];
  assert.equal(tokens.map((t) => t.token).join(''), text);
  const r = await runWith(
    'let x = infer Num { "x"; };\nlet y = infer Num { "y"; };\nlet z = infer Num { "z"; };\nlet w = infer Num { "w"; };\nreturn [confidence x, confidence y, confidence z, confidence w];',
    script([
      { match: 'x', text, logprobs: tokens },
      { match: 'y', value: 1, confidence: 0.3, logprobs: [-0.1, -0.3] },
      { match: 'z', value: 1, confidence: 0.3 },
      { match: 'w', value: 1 },
    ]),
  );
  const [x, y, z, w] = okJson(r) as number[];
  assert.equal(x, Math.exp(-0.5)); // the "42" token alone; the reported 0.3 and its tokens are left out
  assert.equal(y, Math.exp(-0.2)); // unaligned log-probabilities: the mean over all of them
  assert.equal(z, 0.3); // reported
  assert.equal(w, UNREPORTED_CONFIDENCE);
  const sources = r.events.filter(isEvent('infer.reply')).map((e) => e.confidence!.source);
  assert.deepEqual(sources, ['logprobs', 'logprobs', 'reported', 'unreported']);
  const first = r.events.find(isEvent('infer.reply'))!.confidence;
  assert.deepEqual(first, { value: Math.exp(-0.5), source: 'logprobs', reported: 0.3, fromLogprobs: Math.exp(-0.5), tokens: 1 });
});

test('a reported confidence outside [0, 1] is clamped and the repair recorded; mock reports 0.9', async () => {
  const r = await runWith('return [confidence infer Num { "x"; }, confidence infer Num { "y"; }];', script([
    { text: '{"value": 1, "confidence": 1.7}' },
    { text: '{"value": 1, "confidence": "0.25"}' },
  ]));
  assert.deepEqual(okJson(r), [1, 0.25]);
  const repairs = r.events.filter((e) => e.kind === 'infer.reply').map((e) => e.repairs);
  assert.deepEqual(repairs, [['clamped the confidence 1.7 to [0, 1]'], ['read the confidence from a string']]);
});

test('logprobConfidence is the geometric mean of token probabilities', () => {
  assert.equal(logprobConfidence(undefined, [{ logprob: Math.log(0.5) }, { logprob: Math.log(0.8) }])!.value, Math.exp((Math.log(0.5) + Math.log(0.8)) / 2));
  assert.equal(logprobConfidence(undefined, []), null);
  assert.equal(logprobConfidence(undefined, [{ logprob: 0.3 }])!.value, 1); // a positive log-probability is taken as 0
});
