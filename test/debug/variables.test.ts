// The debugger's values as trees (extension/debug/variables.ts): structs by type, lists and maps
// folded into ranges past FOLD children, long strings cut on their row and whole when expanded.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FOLD, LONG_STRING, children, row, type Row } from '../../extension/debug/variables.js';
import { StructVal, Uncertain, type Value } from '../../runtime/index.js';

const open = (r: Row): Row[] => {
  assert.ok(r.expand, `${r.name} expands`);
  return children(r.expand);
};

describe('debugger variables as trees', () => {
  test('a struct is named by its type and expands to its fields; nested values expand in turn', () => {
    const plan = new StructVal('Plan', new Map<string, Value>([['title', 'trip'], ['steps', ['pack', 'go']], ['meta', new Map([['by', 'ada']])]]));
    const r = row('plan', plan);
    assert.equal(r.type, 'Plan');
    assert.match(r.value, /^Plan \{ title: "trip"/);
    const fields = open(r);
    assert.deepEqual(fields.map((f) => [f.name, f.type]), [['title', 'Str'], ['steps', 'List'], ['meta', 'Map']]);
    assert.equal(fields[0].expand, null);
    assert.deepEqual(open(fields[1]).map((x) => [x.name, x.value]), [['[0]', 'pack'], ['[1]', 'go']]);
    assert.deepEqual(open(fields[2]).map((x) => [x.name, x.value]), [['by', 'ada']]);
    assert.equal(row('empty', new StructVal('Empty', new Map())).expand, null);
  });

  test('a list past FOLD items expands to ranges of rows; a range expands to its items', () => {
    const big = Array.from({ length: 250 }, (_, i) => i * 2);
    const r = row('xs', big);
    assert.match(r.value, /\(250 items\)$/, 'a long preview says the size');
    const ranges = open(r);
    assert.deepEqual(ranges.map((x) => [x.name, x.value]), [['[0…99]', '100 items'], ['[100…199]', '100 items'], ['[200…249]', '50 items']]);
    const last = open(ranges[2]);
    assert.equal(last.length, 50);
    assert.deepEqual([last[0].name, last[0].value, last[49].name, last[49].value], ['[200]', '400', '[249]', '498']);
    // a million: at most FOLD ranges on each level
    const huge = open(row('m', new Array<Value>(1_000_000).fill(0)));
    assert.ok(huge.length <= FOLD);
    assert.equal(huge[0].name, '[0…9999]');
    assert.equal(open(huge[0]).length, FOLD);
    assert.equal(open(open(huge[0])[1]).map((x) => x.name)[0], '[100]');
    assert.equal(row('none', []).expand, null);
  });

  test('a map past FOLD entries folds too, keeping its keys in order', () => {
    const m = new Map<string, Value>(Array.from({ length: 150 }, (_, i) => [`k${i}`, i]));
    const ranges = open(row('m', m));
    assert.deepEqual(ranges.map((x) => x.name), ['[0…99]', '[100…149]']);
    const second = open(ranges[1]);
    assert.deepEqual([second[0].name, second[0].value, second.length], ['k100', '100', 50]);
  });

  test('a long string is cut on its row and shown whole, line by line, when expanded', () => {
    const text = 'x'.repeat(LONG_STRING * 3) + '\nsecond line';
    const r = row('reply', text);
    assert.ok(r.value.length < LONG_STRING + 40, r.value);
    assert.match(r.value, new RegExp(`\\(${text.length} characters\\)$`));
    assert.deepEqual(open(r).map((x) => [x.name, x.value]), [['line 1', 'x'.repeat(LONG_STRING * 3)], ['line 2', 'second line']]);
    assert.deepEqual(row('short', 'hi'), { name: 'short', value: 'hi', type: 'Str', expand: null });
  });

  test('an uncertain value shows its confidence and expands as its value', () => {
    const r = row('v', new Uncertain(['a', 'b'], 0.75));
    assert.equal(r.value, '["a", "b"] (confidence 0.75)');
    assert.deepEqual(open(r).map((x) => x.value), ['a', 'b']);
  });
});
