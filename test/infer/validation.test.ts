import { test } from 'node:test';
import assert from 'node:assert/strict';
import { failure, okJson, runWith, script, type Ask } from './helpers.js';
import { validate } from '../../runtime/infer/validate.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import type { InferReply } from '../../runtime/infer/types.js';

const DECLS = `
struct Tag { name: Str, weight: Num };
struct Review { ok: Bool, score: Num, mood: "happy" | "sad", tags: List<Tag>, main: Tag };
`;
const GOOD = { ok: true, score: 3, mood: 'sad', tags: [{ name: 'a', weight: 1 }], main: { name: 'm', weight: 2 } };

/** Runs `infer Review` against a model that always answers `reply`; returns what bound or what was thrown. */
async function attempt(reply: InferReply, retries?: number) {
  let calls = 0;
  const r = await runWith(
    `${DECLS}
    try { let v = infer Review { "review"; }; return {"bound": v}; } catch (e) { return {"thrown": e}; }`,
    () => {
      calls++;
      return reply;
    },
    { inferRetries: retries },
  );
  return { json: okJson(r) as { bound?: unknown; thrown?: Record<string, unknown> }, calls, r };
}

const BAD: [string, InferReply][] = [
  ['not JSON', { text: 'I think it is fine.' }],
  ['empty', { text: '' }],
  ['a number', { text: '{"value": 5, "confidence": 1}' }],
  ['null', { text: '{"value": null, "confidence": 1}' }],
  ['a list', { text: JSON.stringify({ value: [GOOD], confidence: 1 }) }],
  ['missing field', { text: JSON.stringify({ value: { ...GOOD, score: undefined }, confidence: 1 }) }],
  ['extra field', { text: JSON.stringify({ value: { ...GOOD, extra: 1 }, confidence: 1 }) }],
  ['wrong type', { text: JSON.stringify({ value: { ...GOOD, score: '3' }, confidence: 1 }) }],
  ['bad enum', { text: JSON.stringify({ value: { ...GOOD, mood: 'angry' }, confidence: 1 }) }],
  ['nested wrong', { text: JSON.stringify({ value: { ...GOOD, main: { name: 'm' } }, confidence: 1 }) }],
  ['nested extra', { text: JSON.stringify({ value: { ...GOOD, main: { name: 'm', weight: 1, x: 0 } }, confidence: 1 }) }],
  ['list item wrong', { text: JSON.stringify({ value: { ...GOOD, tags: [{ name: 'a', weight: 1 }, { name: 2, weight: 1 }] }, confidence: 1 }) }],
  ['list not a list', { text: JSON.stringify({ value: { ...GOOD, tags: { name: 'a', weight: 1 } }, confidence: 1 }) }],
  ['bool as string', { text: JSON.stringify({ value: { ...GOOD, ok: 'true' }, confidence: 1 }) }],
  ['truncated', { text: '{"value": {"ok": true, "score": 3, "mo', finishReason: 'length' }],
  ['cut off but parseable', { text: JSON.stringify({ value: GOOD, confidence: 1 }), finishReason: 'length' }],
  ['envelope with extra key taken as bare', { text: JSON.stringify({ value: GOOD, confidence: 1, note: 'x' }) }],
  ['parsed value, wrong', { value: { ...GOOD, score: null }, confidence: 1 }],
  ['no reply at all', {}],
];

test('no non-conforming reply ever binds: each bad reply is re-asked, then thrown as a catchable InferError', async () => {
  for (const [name, reply] of BAD) {
    const { json, calls } = await attempt(reply);
    assert.equal(json.bound, undefined, `${name}: must not bind`);
    const e = json.thrown!;
    assert.equal(e.type, 'InferError', name);
    assert.equal(e.reason, 'invalid', name);
    assert.equal(e.attempts, 3, name);
    assert.equal(calls, 3, `${name}: asked 1 + 2 times`);
    assert.equal(e.infer, 'Review');
    assert.ok(Array.isArray(e.errors) && (e.errors as unknown[]).length > 0, `${name}: says what was wrong`);
    assert.equal(typeof e.reply, 'string', name);
    assert.match(String(e.message), /^infer Review: the reply does not match the schema after 3 attempts: /);
  }
});

test('the error value names the last raw reply, each error with its path, and the attempts', async () => {
  const raw = JSON.stringify({ value: { ...GOOD, score: 'high', main: { name: 'm', weight: 2, extra: true } }, confidence: 0.4 });
  const { json } = await attempt({ text: raw }, 1);
  const e = json.thrown!;
  assert.equal(e.reply, raw);
  assert.equal(e.attempts, 2);
  assert.deepEqual(e.errors, [
    { path: '/value/score', message: 'must be a number' },
    { path: '/value/main', message: 'must not have the property "extra"' },
  ]);
  assert.match(String(e.message), /\/value\/score: must be a number; \/value\/main: must not have the property "extra"/);
});

test('the retry carries the validation errors, and the corrected reply binds', async () => {
  const ask = script([
    { value: { ...GOOD, mood: 'angry', tags: [{ name: 'a' }] }, confidence: 0.9 },
    { value: GOOD, confidence: 0.7 },
  ]);
  const r = await runWith(`${DECLS}\nlet v = infer Review { "review"; };\nreturn [v, confidence v];`, ask);
  assert.deepEqual(okJson(r), [GOOD, 0.7]);
  assert.equal(r.requests.length, 2);
  const second = r.requests[1];
  assert.equal(second.attempt, 2);
  assert.deepEqual(second.feedback[0].issues, [
    { path: '/value/mood', message: 'must be one of "happy", "sad"' },
    { path: '/value/tags/0', message: 'must have the property "weight"' },
  ]);
  // What the model is sent: its rejected reply, then the errors with their paths.
  const { turns } = chatTurns(second);
  assert.equal(turns.length, 3);
  assert.equal(turns[1].role, 'assistant');
  assert.equal(turns[1].content, JSON.stringify({ value: { ...GOOD, mood: 'angry', tags: [{ name: 'a' }] }, confidence: 0.9 }));
  assert.match(turns[2].content, /- \/value\/mood: must be one of "happy", "sad"\n- \/value\/tags\/0: must have the property "weight"/);
  // The events record the retry.
  const kinds = r.events.filter((e) => e.kind.startsWith('infer.')).map((e) => e.kind);
  assert.deepEqual(kinds, ['infer.request', 'infer.reply', 'infer.retry', 'infer.request', 'infer.reply']);
});

test('the number of re-asks is configurable (inferRetries), 2 by default', async () => {
  const bad: InferReply = { text: '{"value": 1, "confidence": 1}' };
  assert.equal((await attempt(bad, 0)).calls, 1);
  assert.equal((await attempt(bad, 4)).calls, 5);
  assert.equal((await attempt(bad)).calls, 3);
});

test('repaired replies bind, and the repairs are recorded in the events', async () => {
  const ask = script([{ text: 'Here you go:\n```json\n{"value": {"ok": true, "score": 3, "mood": "happy", "tags": [], "main": {"name": "m", "weight": 2,},}, "confidence": 0.6}\n```' }]);
  const r = await runWith(`${DECLS}\nreturn infer Review { "review"; };`, ask);
  assert.deepEqual(okJson(r), { ok: true, score: 3, mood: 'happy', tags: [], main: { name: 'm', weight: 2 } });
  const reply = r.events.find((e) => e.kind === 'infer.reply')!;
  assert.deepEqual(reply.repairs, ['removed a Markdown code fence (```json)', 'removed 2 trailing commas']);
  const prose = await runWith(`${DECLS}\nreturn infer Num { "n"; };`, script([{ text: 'The answer is {"value": 4, "confidence": 0.5} as asked.' }]));
  assert.equal(okJson(prose), 4);
  assert.deepEqual(prose.events.find((e) => e.kind === 'infer.reply')!.repairs, ['removed text around the JSON (13 characters before, 9 after)']);
});

test('an uncaught InferError ends the run with its message at the infer line', async () => {
  const r = await runWith(`${DECLS}\n\nlet v = infer Review { "review"; };`, () => ({ text: 'nope' }));
  const e = failure(r);
  assert.equal(e.line, 6); // DECLS starts with a newline and holds two lines
  assert.match(e.message, /^infer Review: the reply does not match the schema after 3 attempts: \/: the reply is not JSON/);
});

test('fuzz: whatever a model replies, a value that binds conforms to the type', async () => {
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const atoms = [null, 0, -1.5, 'x', '', true, false, [], {}, [1], { name: 'n', weight: 1 }];
  const mutate = (v: unknown, depth: number): unknown => {
    if (depth > 3 || rnd() < 0.15) return atoms[Math.floor(rnd() * atoms.length)];
    if (Array.isArray(v)) return rnd() < 0.2 ? [] : v.map((x) => mutate(x, depth + 1)).concat(rnd() < 0.2 ? [atoms[Math.floor(rnd() * atoms.length)]] : []);
    if (v && typeof v === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) if (rnd() > 0.08) o[k] = rnd() < 0.7 ? x : mutate(x, depth + 1);
      if (rnd() < 0.08) o.extra = 1;
      return o;
    }
    return rnd() < 0.5 ? v : atoms[Math.floor(rnd() * atoms.length)];
  };
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: 'Review', type: 'object',
    properties: {
      ok: { type: 'boolean' }, score: { type: 'number' }, mood: { type: 'string', enum: ['happy', 'sad'] },
      tags: { type: 'array', items: { title: 'Tag', type: 'object', properties: { name: { type: 'string' }, weight: { type: 'number' } }, required: ['name', 'weight'], additionalProperties: false } },
      main: { title: 'Tag', type: 'object', properties: { name: { type: 'string' }, weight: { type: 'number' } }, required: ['name', 'weight'], additionalProperties: false },
    },
    required: ['ok', 'score', 'mood', 'tags', 'main'], additionalProperties: false,
  };
  let bound = 0;
  let thrown = 0;
  for (let i = 0; i < 150; i++) {
    const value = mutate(GOOD, 0);
    const { json } = await attempt({ text: JSON.stringify({ value, confidence: 0.5 }) }, 0);
    if (json.bound !== undefined) {
      bound++;
      assert.equal(validate(schema, json.bound), null, `bound a non-conforming value: ${JSON.stringify(json.bound)}`);
      assert.deepEqual(json.bound, value);
    } else {
      thrown++;
      assert.notEqual(validate(schema, value), null, `rejected a conforming value: ${JSON.stringify(value)}`);
    }
  }
  assert.ok(bound > 5 && thrown > 50, `both outcomes exercised (${bound} bound, ${thrown} thrown)`);
});

test('infer of Num, Str, Bool, List and an enum', async () => {
  const ask: Ask = (r) => ({
    text: JSON.stringify({ value: { Num: 2.5, Str: 'hi', Bool: false, 'List<Num>': [1, 2], '"a" | "b"': 'b' }[r.typeName], confidence: 0.8 }),
  });
  const r = await runWith('return [infer Num { "n"; }, infer Str { "s"; }, infer Bool { "b"; }, infer List<Num> { "l"; }, infer "a" | "b" { "e"; }];', ask);
  assert.deepEqual(okJson(r), [2.5, 'hi', false, [1, 2], 'b']);
});
