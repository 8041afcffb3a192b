import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseReply } from '../../runtime/infer/repair.js';

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
