import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseReply, rejectedExcerpt, REJECTED_EXCERPT_CHARS } from '../../runtime/infer/repair.js';
import { chatTurns } from '../../runtime/providers/messages.js';
import { okJson, runWith, script } from './helpers.js';

test('repairs: code fences, prose around the JSON, trailing commas — each recorded', () => {
  const cases: [string, unknown, RegExp[]][] = [
    ['{"value": 1, "confidence": 0.5}', { value: 1, confidence: 0.5 }, []],
    ['```json\n{"value": 1, "confidence": 0.5}\n```', { value: 1, confidence: 0.5 }, [/code fence \(```json\)/]],
    ['```\n[1, 2]\n```', [1, 2], [/code fence/]],
    ['Sure! Here is the answer:\n{"value": {"a": "}"}, "confidence": 1}\nHope that helps.', { value: { a: '}' }, confidence: 1 }, [/removed text around the JSON \(\d+ characters before, \d+ after\)/]],
    ['{"value": [1, 2, ], "confidence": 0.5,}', { value: [1, 2], confidence: 0.5 }, [/removed 2 trailing commas/]],
    ['{"value": "a,]", "confidence": 0.5,\n}', { value: 'a,]', confidence: 0.5 }, [/removed 1 trailing comma$/]],
    ['Here:\n```json\n{"value": {"x": [true,],}, "confidence": 0.9}\n```\nDone.', { value: { x: [true] }, confidence: 0.9 }, [/code fence/, /trailing commas/]],
  ];
  for (const [raw, want, repairs] of cases) {
    const r = parseReply(raw);
    assert.ok(r.ok, `${raw}: ${r.error}`);
    assert.deepEqual(r.value, want, raw);
    assert.equal(r.repairs.length, repairs.length, `${raw}: ${JSON.stringify(r.repairs)}`);
    repairs.forEach((re, i) => assert.match(r.repairs[i], re));
  }
});

test('what cannot be repaired is reported, not guessed', () => {
  for (const raw of ['', '   ', 'I am not sure.', '{"value": 1, "confidence"', '```json\n{"value": tru}\n```']) {
    const r = parseReply(raw);
    assert.equal(r.ok, false, raw);
    assert.match(r.error!, /empty|not JSON/);
  }
  // A reply that is not JSON can be the string itself — only when a string is expected.
  const s = parseReply('Paris', true);
  assert.deepEqual([s.ok, s.value, s.repairs.length], [true, 'Paris', 1]);
  assert.equal(parseReply('Paris', false).ok, false);
});

// A re-ask quotes the rejected reply bounded: a runaway reply (a model that wrote digits until its
// token limit) used to be sent back whole, 9,691 tokens against a 4,096-token context.
test('a re-ask sends the validation errors and a bounded excerpt of the rejected reply: head and tail, at most 2,000 characters', async () => {
  const runaway = '{"value": {"n": 1' + '7'.repeat(40_000) + 'END';
  const problems = Array.from({ length: 50 }, (_, i) => `"f${i}": 1`).join(', ');
  const ask = script([{ text: runaway }, { text: `{"value": {${problems}}}` }, { value: { n: 3 } }]);
  const r = await runWith('struct N { n: Num };\nreturn infer N with { retries: 2 } { "count"; };', ask);
  assert.deepEqual(okJson(r), { n: 3 });
  const [, second, third] = r.requests;
  const quoted = second.feedback[0].reply;
  assert.ok(quoted.length <= REJECTED_EXCERPT_CHARS, `${quoted.length} characters`);
  assert.ok(quoted.startsWith('{"value": {"n": 17777'), 'the head');
  assert.ok(quoted.endsWith('777END'), 'the tail');
  assert.match(quoted, /\[… \d+ characters of the rejected reply left out …\]/);
  assert.deepEqual(second.feedback[0].issues.map((i) => i.path), ['']);
  // what the provider sends: the assistant turn is the excerpt, the user turn the errors
  const turns = chatTurns(second).turns;
  assert.equal(turns[1].role, 'assistant');
  assert.equal(turns[1].content, quoted);
  assert.match(turns[2].content, /^That reply was rejected:\n- \/: /);
  // a reply with many problems: the first 20 are listed, the rest counted
  const listed = third.feedback[1].issues;
  assert.equal(listed.length, 21);
  assert.match(listed[20].message, /^and \d+ more problems like these$/);
  const body = chatTurns(third).turns.map((t) => t.content).join('\n');
  assert.ok(body.length < 8_000, `the whole re-ask conversation is ${body.length} characters`);
});

test('rejectedExcerpt: a short reply is quoted whole; a long one never splits a surrogate pair', () => {
  assert.equal(rejectedExcerpt('{"value": 1}'), '{"value": 1}');
  for (let shift = 0; shift < 4; shift++) {
    const raw = 'x'.repeat(shift) + '😀'.repeat(3000);
    const e = rejectedExcerpt(raw);
    assert.ok(e.length <= REJECTED_EXCERPT_CHARS);
    assert.ok(!/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(e), `an unpaired surrogate at shift ${shift}`);
  }
});
