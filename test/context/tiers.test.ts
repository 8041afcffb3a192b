import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Context, contextText, countTokens, renderPrompt } from '../../runtime/context/index.js';
import { StructVal, type Value } from '../../runtime/values/index.js';
import { mock, okJson, runWith } from '../infer/helpers.js';

test('token counts come from a real BPE tokenizer (o200k_base), not from characters', () => {
  assert.equal(countTokens('hello world'), 2);
  assert.equal(countTokens(''), 0);
  assert.equal(countTokens('a'.repeat(64)), 8); // 64 characters, 8 tokens
  assert.equal(countTokens('The quick brown fox jumps over the lazy dog.'), 10);
  assert.ok(countTokens('語'.repeat(10)) < 20);
});

/** An entry of exactly `n` tokens. */
function entry(tag: string, n: number): string {
  const s = tag + ' word'.repeat(n - 1);
  assert.equal(countTokens(s), n, `entry ${tag} has ${n} tokens`);
  return s;
}

test('P1 overflow demotes its oldest entries to P2; P2 overflow drops its oldest; P0 is never evicted', () => {
  const c = new Context({ working: 10, episodic: 12 });
  const sys = entry('system', 50);
  c.addSystem(sys); // far over every budget: P0 is not budgeted and never evicted
  const [a, b, d, e, f] = ['alpha', 'beta', 'delta', 'eps', 'phi'].map((t) => entry(t, 4));
  assert.deepEqual(c.append(a), { demoted: [], dropped: [] });
  assert.deepEqual(c.append(b), { demoted: [], dropped: [] }); // P1: 8 tokens
  assert.deepEqual(c.append(d), { demoted: [{ text: a, tokens: 4 }], dropped: [] }); // 12 > 10: a → P2
  assert.deepEqual([c.system, c.episodic, c.working], [[sys], [a], [b, d]]);
  c.append(e); // b → P2 (P2: a, b = 8)
  assert.deepEqual([c.episodic, c.working], [[a, b], [d, e]]);
  const moved = c.append(f); // d → P2 (12 tokens, fits)
  assert.deepEqual(moved, { demoted: [{ text: d, tokens: 4 }], dropped: [] });
  const g = entry('gamma', 4);
  assert.deepEqual(c.append(g), { demoted: [{ text: e, tokens: 4 }], dropped: [{ text: a, tokens: 4 }] }); // P2 16 > 12: a dropped
  assert.deepEqual(c.render(), [sys, b, d, e, f, g]); // P0, then P2, then P1
  assert.deepEqual(c.usage(), { system: 50, episodic: 12, working: 8 });
  assert.deepEqual(c.system, [sys]);
});

test('one entry larger than the whole P1 budget never wipes the context: it stays, cut to the budget with a marker', () => {
  const c = new Context({ working: 30, episodic: 40 });
  const [a, b] = ['alpha', 'beta'].map((t) => entry(t, 10));
  c.append(a);
  c.append(b);
  const big = entry('big', 500);
  const r = c.append(big);
  assert.equal(r.truncated, 500, 'the append reports the entry was cut');
  assert.equal(c.working.length, 1, 'the newest entry stays in P1');
  const kept = c.working[0];
  assert.ok(big.startsWith(kept.slice(0, kept.indexOf(' … [truncated'))), 'what stays is the start of the entry');
  assert.match(kept, / … \[truncated: \d+ of 500 tokens kept\]$/);
  assert.ok(countTokens(kept) <= 30 && countTokens(kept) >= 20, `fills the budget: ${countTokens(kept)} tokens`);
  // the older entries moved by the stated policy only: demoted to P2, which holds them
  assert.deepEqual(r.demoted.map((x) => x.text), [a, b]);
  assert.deepEqual(r.dropped, []);
  assert.deepEqual(c.episodic, [a, b]);
  // an entry within the budget is never cut
  assert.equal(c.append(entry('small', 5)).truncated, undefined);
});

test('budgets count tokens, not entries or characters', () => {
  const c = new Context({ working: 6, episodic: 100 });
  const long = 'a'.repeat(40); // 40 characters, 5 tokens
  assert.equal(countTokens(long), 5);
  c.append(long);
  c.append('b');
  assert.deepEqual(c.working, [long, 'b']); // 6 tokens: fits, though 41 characters
  c.append('c');
  assert.deepEqual([c.episodic, c.working], [[long], ['b', 'c']]);
});

test('a demotion never changes the rendered bytes; only a drop from P2 changes the prefix', () => {
  const c = new Context({ working: 8, episodic: 8 });
  c.addSystem('You are careful.');
  const items = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'].map((t) => entry(t, 4));
  const render = () => renderPrompt(c.tiers(), 'task');
  c.append(items[0]);
  c.append(items[1]);
  const before = render();
  c.append(items[2]); // demotes items[0]
  const after = render();
  assert.equal(c.episodic.length, 1);
  assert.ok(after.context.startsWith(before.context), 'the earlier rendering is a byte prefix of the later one');
  c.append(items[3]);
  c.append(items[4]); // P2 now over budget: items[0] dropped
  assert.ok(!render().context.startsWith(before.context));
  assert.equal(render().prefixHash, renderPrompt(c.snapshot().tiers(), 'other task').prefixHash, 'the hash covers the prefix only');
});

test('entries are rendered byte-stably: strings raw, maps with sorted keys, no timestamps', () => {
  const m = new Map<string, Value>([['b', 1], ['a', new Map<string, Value>([['z', true], ['y', null]])]]);
  assert.equal(contextText(m), '{"a":{"y":null,"z":true},"b":1}');
  assert.equal(contextText('plain text'), 'plain text');
  assert.equal(contextText([1, 'x', 2.5]), '[1,"x",2.5]');
  assert.equal(contextText(new StructVal('P', new Map<string, Value>([['n', 1], ['a', 'x']]))), 'P{"a":"x","n":1}');
});

test('a snapshot is independent of its original', () => {
  const c = new Context({ working: 8, episodic: 8 });
  c.append('one');
  const s = c.snapshot();
  s.append('two');
  s.addSystem('sys');
  assert.deepEqual(c.render(), ['one']);
  assert.deepEqual(s.render(), ['sys', 'one', 'two']);
});

test('the VM reports demotions and drops as events, never into a context; budgets come from RunOptions', async () => {
  const r = await runWith(
    `
    context.system("rules");
    let i = 0;
    while i < 6 { context.append("item " + i + " of the list"); let i = i + 1; }
    return infer Str { "summarize"; };
    `,
    mock(),
    { context: { working: 12, episodic: 12 } },
  );
  okJson(r);
  const tiers = r.requests[0].tiers;
  assert.equal(countTokens('item 0 of the list'), 6); // so P1 and P2 hold two items each
  assert.deepEqual(tiers, { system: ['rules'], episodic: ['item 2 of the list', 'item 3 of the list'], working: ['item 4 of the list', 'item 5 of the list'] });
  const demotes = r.events.filter((e) => e.kind === 'context.demote');
  const drops = r.events.filter((e) => e.kind === 'context.drop');
  assert.equal(demotes.length, 4);
  assert.equal(drops.length, 2);
  assert.deepEqual(drops[0], { ...drops[0], pid: 1, entries: 1, tokens: 6 });
  // Events stay out of the context: the request holds exactly what the program put there.
  assert.deepEqual(r.requests[0].context, ['rules', 'item 2 of the list', 'item 3 of the list', 'item 4 of the list', 'item 5 of the list']);
});

test('runtime events never enter a model context: a failed infer leaves no trace in the next one', async () => {
  let n = 0;
  const r = await runWith(
    `
    context.append("fact");
    try { infer Num { "first"; }; } catch (e) { call("echo", e["attempts"]); }
    return infer Num { "second"; };
    `,
    (req) => ({ text: req.prompt === 'first' ? 'not json ' + ++n : '{"value": 5, "confidence": 1}' }),
  );
  assert.equal(okJson(r), 5);
  const last = r.requests[r.requests.length - 1];
  assert.deepEqual(last.context, ['fact']);
  assert.deepEqual(last.feedback, []);
  assert.equal(last.attempt, 1);
});

test('tier budgets are set from the program (context_budget) and from the run options (turn run --context-working)', async () => {
  const r = await runWith(
    'let b = call("context_budget", {"working": 5});\ncontext.append("alpha word word word");\ncontext.append("beta word word word");\nlet x = infer Str { "q"; };\nreturn b;\n',
    mock(),
  );
  assert.deepEqual(okJson(r), { working: 5, episodic: 32000 });
  assert.deepEqual(r.requests[0].tiers.working, ['beta word word word'], 'P1 holds 5 tokens: the older entry moved to P2');
  assert.deepEqual(r.requests[0].tiers.episodic, ['alpha word word word']);
  const bad = await runWith('call("context_budget", {"working": -1});\n', mock());
  assert.equal(bad.outcome.ok, false);
  const opt = await runWith('context.append("alpha word word word");\ncontext.append("beta word word word");\nlet x = infer Str { "q"; };\n', mock(), { context: { working: 5 } });
  okJson(opt);
  assert.deepEqual(opt.requests[0].tiers.working, ['beta word word word']);
});
