// The run panel's pieces that decide what is drawn, without a DOM: the windowed range of a list
// (virtual.ts), values parsed for the value tree and copied as JSON (values.ts), the actor tree's
// order (actors.ts), token tracks sized to their budgets (tokens.ts), a prompt's schema split off
// its task (infers.ts), and main's lane in a journal's timeline (lanes.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { visibleRange } from '../../extension/panel/webview/virtual.js';
import { childCount, parseValue, preview, toJson } from '../../extension/panel/webview/values.js';
import { lanesFromJournal } from '../../extension/panel/webview/lanes.js';
import type { ActorView, JournalStepView } from '../../extension/protocol/panel.js';

import { treeOrder } from '../../extension/panel/webview/actor-order.js';
import { trackWidths } from '../../extension/panel/webview/token-bars.js';
import { splitSchema } from '../../extension/panel/webview/prompt-parts.js';
import { taskText } from '../../runtime/infer/index.js';

describe('windowed lists', () => {
  test('only the rows in view and a few either side are drawn, whatever the length', () => {
    assert.deepEqual(visibleRange(0, 220, 22, 20_000), { first: 0, last: 16 });
    assert.deepEqual(visibleRange(22 * 10_000, 220, 22, 20_000), { first: 9_994, last: 10_016 });
    assert.deepEqual(visibleRange(22 * 19_995, 220, 22, 20_000), { first: 19_989, last: 20_000 });
    assert.deepEqual(visibleRange(0, 220, 22, 3), { first: 0, last: 3 });
    assert.deepEqual(visibleRange(500, 220, 22, 0), { first: 0, last: 0 });
    const small = visibleRange(0, 220, 22, 10);
    const big = visibleRange(0, 220, 22, 1_000_000);
    assert.equal(big.last - big.first, 16, 'a million rows draw as many as sixteen would');
    assert.equal(small.last - small.first, 10);
  });
});

describe('values for the value tree', () => {
  test('a Turn struct, map, list, pid and vec parse into a tree; copy gives JSON', () => {
    const v = parseValue('Plan { topics: ["a", "b"], tone: "upbeat", meta: {"n": 2, "ok": true, "none": null}, who: <pid 3>, v: vec [0.5, 1] }');
    assert.equal(v.kind, 'struct');
    assert.equal(v.kind === 'struct' && v.name, 'Plan');
    assert.equal(childCount(v), 5);
    assert.deepEqual(toJson(v), { topics: ['a', 'b'], tone: 'upbeat', meta: { n: 2, ok: true, none: null }, who: '<pid 3>', v: [0.5, 1] });
    assert.equal(preview(v, 200), 'Plan { topics: [2 items], tone: "upbeat", meta: {3 keys}, who: <pid 3>, v: [2 items] }');
    assert.equal(preview(v, 30).length, 30, 'a preview is cut to its length');
  });

  test('JSON parses as JSON; escapes in strings are kept', () => {
    const text = JSON.stringify({ a: [1, 2, { b: 'x "quoted" \n line' }], c: -1.5e3 });
    assert.deepEqual(toJson(parseValue(text)), JSON.parse(text));
  });

  test('text that is not a whole value stays one string (a plain string result, a clipped value)', () => {
    for (const text of ['hello world', '{"a": 1, "b": … (120 more characters)', 'Plan { topics: [', '[1, 2] and more', '']) {
      const v = parseValue(text);
      assert.equal(v.kind, 'string', text);
      assert.equal(v.kind === 'string' && v.value, text);
    }
  });

  test('a deep value does not overflow the stack: past the depth limit it is text', () => {
    const deep = '['.repeat(50_000) + ']'.repeat(50_000);
    assert.equal(parseValue(deep).kind, 'string');
    assert.equal(parseValue('['.repeat(100) + ']'.repeat(100)).kind, 'list');
  });
});

const actor = (pid: number, parent: number, tokens = { P0: 0, P1: 0, P2: 0 }): ActorView => ({
  pid, parent, name: `w${pid}`, status: 'done', waitingOn: null, linked: false, detached: false, restarts: 0, site: null,
  context: { P0: [], P1: [], P2: [], tokens, limits: { working: 8000, episodic: 32000 }, demoted: { entries: 0, tokens: 0 }, dropped: { entries: 0, tokens: 0 } },
  memory: [], mailbox: [], result: null, error: null,
});

describe('actor tree order', () => {
  test('depth first, children under their parent, each with its depth; 1,000 actors without recursion', () => {
    const order = treeOrder([actor(1, 0), actor(2, 1), actor(3, 2), actor(4, 1)]);
    assert.deepEqual(order.map((r) => [r.a.pid, r.depth]), [[1, 0], [2, 1], [3, 2], [4, 1]]);
    const chain = Array.from({ length: 20_000 }, (_, i) => actor(i + 1, i));
    assert.equal(treeOrder(chain).length, 20_000);
  });
});

describe('token bars', () => {
  test('tracks are as long as their budgets; a small use is still seen', () => {
    const a = actor(1, 0, { P0: 120, P1: 40, P2: 0 });
    const p1 = trackWidths(a, 'P1', 400);
    const p2 = trackWidths(a, 'P2', 400);
    const p0 = trackWidths(a, 'P0', 400);
    assert.equal(p2.track, 400, 'the largest budget fills the chart');
    assert.equal(p1.track, 100, 'P1 (8,000) is a quarter of P2 (32,000)');
    assert.equal(p1.used, 2, '40 of 8,000 tokens is at least 2 px');
    assert.equal(p2.used, 0);
    assert.equal(p0.used, p0.track, 'P0 has no budget: its track is what it uses');
    const full = trackWidths(actor(2, 0, { P0: 0, P1: 8000, P2: 0 }), 'P1', 400);
    assert.equal(full.used, full.track);
  });
});

describe('prompt schema', () => {
  test('the reply format a task ends with is split off as data (pretty-printed and folded in the panel)', () => {
    const schema = { type: 'object', properties: { value: { type: 'string' }, confidence: { type: 'number' } } };
    const task = taskText('Summarize the ticket.', 'Str', schema);
    const { text, schema: got } = splitSchema(task);
    assert.deepEqual(got, schema);
    assert.match(text, /^Summarize the ticket\.\n\nReply with only a JSON object/);
    assert.doesNotMatch(text, /"properties"/);
    assert.deepEqual(splitSchema('no schema here'), { text: 'no schema here', schema: undefined });
  });
});

describe('journal lanes', () => {
  const step = (seq: number, pid: number, kind = 'tool'): JournalStepView => ({ seq, kind, name: 'now', pid, status: 'ok', value: '1', at: seq, doneAt: seq + 1, forkable: true });
  test('main keeps its lane when only its workers journaled steps (a fork\'s timeline)', () => {
    const { lanes } = lanesFromJournal([step(1, 2), step(2, 3)], [{ pid: 1, name: null }, { pid: 2, name: 'research' }]);
    assert.deepEqual(lanes.map((l) => l.label), ['main #1', 'research #2', '#3']);
  });
});
