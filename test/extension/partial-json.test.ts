// The run panel's lenient reader of a streamed JSON prefix (extension/panel/partial-json.ts): the
// fields of a struct as they arrive, while a model streams its reply.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { partialReplyValue, readPartialJson } from '../../extension/panel/partial-json.js';

describe('readPartialJson', () => {
  test('every prefix of a reply reads without throwing, and the complete fields grow in order', () => {
    const whole = JSON.stringify({ value: { title: 'Trip "north"', days: 12, tags: ['a', 'b'], plan: { go: true, at: null } }, confidence: 0.8 });
    let fields = 0;
    for (let n = 0; n <= whole.length; n++) {
      const p = partialReplyValue(whole.slice(0, n));
      const v = p?.value;
      const now = v && typeof v === 'object' ? Object.keys(v).length : 0;
      assert.ok(now >= fields, `prefix ${n}: fields went from ${fields} to ${now}`);
      fields = now;
    }
    const last = partialReplyValue(whole)!;
    assert.deepEqual(last.value, { title: 'Trip "north"', days: 12, tags: ['a', 'b'], plan: { go: true, at: null } });
    assert.equal(last.done, true);
  });

  test('a field being written is left out of the value and named with its text so far', () => {
    const p = partialReplyValue('{"value": {"title": "Trip", "summary": "The road goes no');
    assert.deepEqual(p, { value: { title: 'Trip' }, done: false, writing: { path: '/summary', text: 'The road goes no' } });
    // a number may go on: not taken until something follows it
    assert.deepEqual(readPartialJson('{"n": 12'), { value: {}, done: false, writing: { path: '/n', text: '12' } });
    assert.deepEqual(readPartialJson('{"n": 12, "ok": tr')!.value, { n: 12 });
    // an open container keeps its complete part
    assert.deepEqual(readPartialJson('{"steps": ["pack", "dr')!.value, { steps: ['pack'] });
    assert.deepEqual(readPartialJson('{"a": {"b": 1, "c": {"d": [1, 2')!.value, { a: { b: 1, c: { d: [1] } } });
  });

  test('text before the JSON (a fence, a sentence) is skipped; escapes cut in half are left out; no JSON yet is null', () => {
    assert.deepEqual(readPartialJson('Sure! ```json\n{"a": "x\\u00e9y", "b": "c\\u00')!, { value: { a: 'xéy' }, done: false, writing: { path: '/b', text: 'c' } });
    assert.equal(readPartialJson('Thinking about it'), null);
    assert.deepEqual(partialReplyValue('{"value": "hal'), { value: null, done: false, writing: { path: '/', text: 'hal' } });
    assert.deepEqual(partialReplyValue('{"value": {"a": 1}, "values": "x'), { value: { a: 1 }, done: false, writing: null }, 'a member after the value is not in it');
  });

  test('a member named __proto__ is a member; text that stops being JSON stops the reading', () => {
    const p = readPartialJson('{"__proto__": {"x": 1}, "y": 2}')!;
    assert.deepEqual(Object.keys(p.value as object), ['__proto__', 'y']);
    assert.equal(Object.getPrototypeOf(p.value), Object.prototype);
    assert.deepEqual(readPartialJson('{"a": 1, oops "b": 2}')!.value, { a: 1 });
    assert.deepEqual(readPartialJson('[' .repeat(10_000))!.done, false, 'deep nesting stops, no stack overflow');
  });
});
