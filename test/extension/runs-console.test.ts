// The Runs view as a console (extension/runs/console.ts): each run's tokens and cost read from its
// journal, forks nested under the run they came from, runs waiting on a person first, the sorts and
// the filter, and the row's columns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { forkRun, openStore, parsePriceTable, type RunStore } from '../../runtime/index.js';
import { FactsCache, columnsText, consoleRows, countRows, durationText, listConsoleRuns, matches, parseFilter, runFacts, type ConsoleRow, type ConsoleRun } from '../../extension/runs/console.js';

const enc = (v: unknown) => new TextEncoder().encode(JSON.stringify(v));

function withStore(fn: (store: RunStore) => void): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-console-'));
  const store = openStore(dir);
  try {
    fn(store);
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A finished run with model calls whose replies report `usage`. */
function runWithCalls(store: RunStore, entry: string, usages: unknown[], model = 'openai:gpt-4o-mini'): string {
  const run = store.createRun({ entry, bytecodeHash: 'h', semanticsVersion: 'turn-vm/1', meta: { cwd: '/w', options: { model } } });
  for (const usage of usages) {
    const seq = store.appendJournal(run.id, { kind: 'infer', name: 'Triage', status: 'intent', payload: enc({ typeName: 'Triage' }) });
    store.completeJournal(run.id, seq, 'ok', enc({ value: { ok: true }, usage }));
  }
  store.setRunStatus(run.id, 'done', enc(42));
  return run.id;
}

const TABLE = parsePriceTable(JSON.stringify({ currency: 'USD', per: 1000, models: { 'openai:gpt-4o-mini': { input: 1, output: 2 } } }), 'prices.json');

test('a run\'s tokens are the sum of its journaled replies\' usage, priced by the table for the run\'s model', () => {
  withStore((store) => {
    const id = runWithCalls(store, 'a.tn', [{ inputTokens: 100, outputTokens: 10, cachedTokens: 40 }, { inputTokens: 200, outputTokens: 20 }]);
    const facts = runFacts(store.getRun(id)!, store.readJournal(id), TABLE);
    assert.deepEqual(facts.tokens, { calls: 2, input: 300, output: 30, cached: 40 });
    // 300 prompt tokens at 1 per 1000 (cached defaults to input) + 30 at 2 per 1000
    assert.ok(facts.cost && Math.abs(facts.cost.total - 0.36) < 1e-9 && facts.cost.currency === 'USD', JSON.stringify(facts.cost));
    assert.equal(runFacts(store.getRun(id)!, store.readJournal(id)).cost, null, 'no table: no cost');
    const other = runWithCalls(store, 'b.tn', [{ inputTokens: 5 }], 'anthropic:claude');
    assert.equal(runFacts(store.getRun(other)!, store.readJournal(other), TABLE).cost, null, 'a model the table does not price costs nothing known, not 0');
  });
});

test('a journal\'s usage is outside data: negative, fractional, huge, string or nested numbers count as 0; a reply that is not JSON is skipped', () => {
  withStore((store) => {
    const id = runWithCalls(store, 'a.tn', [
      { inputTokens: -5, outputTokens: 1.5, cachedTokens: '7' },
      { inputTokens: 2 ** 60, outputTokens: { n: 3 } },
      null,
      'lots',
      { inputTokens: 4, outputTokens: 6 },
    ]);
    const seq = store.appendJournal(id, { kind: 'infer', name: 'T', status: 'intent', payload: enc({}) });
    store.completeJournal(id, seq, 'ok', new TextEncoder().encode('{not json'));
    const facts = runFacts(store.getRun(id)!, store.readJournal(id), TABLE);
    assert.deepEqual(facts.tokens, { calls: 6, input: 4, output: 6, cached: 0 });
  });
});

test('a finished run\'s result is its rendered value, not the stored {rendered, json} record', () => {
  withStore((store) => {
    const run = store.createRun({ entry: 'a.tn', bytecodeHash: 'h', semanticsVersion: 'turn-vm/1', meta: {} });
    store.setRunStatus(run.id, 'done', enc({ rendered: '"hello"', json: 'hello' }));
    assert.equal(listConsoleRuns(store)[0].outcome, '"hello"');
  });
});

test('a fork (what-if) is listed under the run it came from; a fork of a fork nests again', () => {
  withStore((store) => {
    const origin = runWithCalls(store, 'committee.tn', [{ inputTokens: 1, outputTokens: 1 }, { inputTokens: 1, outputTokens: 1 }]);
    const fork = forkRun({ store, runId: origin, step: 1, edit: { value: { ok: false } } }).run.id;
    const forkOfFork = forkRun({ store, runId: fork, step: 1, edit: { value: { ok: true } } }).run.id;
    const other = runWithCalls(store, 'other.tn', []);
    const runs = listConsoleRuns(store);
    assert.deepEqual(runs.find((r) => r.id === fork)?.forkOf, { runId: origin, step: 1 });
    const rows = consoleRows(runs);
    const shape = (list: ConsoleRow[]): unknown => list.map((r) => [r.run.id, shape(r.children)]);
    // two roots (both done, so their order is by start time, which may be the same millisecond here)
    assert.deepEqual(ids(rows).sort(), [origin, other].sort());
    assert.deepEqual(shape(rows.filter((r) => r.run.id === origin)), [[origin, [[fork, [[forkOfFork, []]]]]]]);
    assert.equal(countRows(rows), 4);
  });
});

/** A run for the pure functions, with defaults. */
function run(id: string, over: Partial<ConsoleRun> = {}): ConsoleRun {
  return {
    id, entry: `${id}.tn`, entryPath: `/w/${id}.tn`, state: 'done', createdAt: 1000, updatedAt: 2000, outcome: null, unknown: [],
    forkOf: null, tokens: { calls: 0, input: 0, output: 0, cached: 0 }, cost: null, ...over,
  };
}

const ids = (rows: ConsoleRow[]): string[] => rows.map((r) => r.run.id);

test('runs waiting on a person come first (an unknown outcome, then suspended or interrupted), then running, then finished; each by the chosen sort', () => {
  const runs = [
    run('old-done', { createdAt: 1 }),
    run('new-done', { createdAt: 50 }),
    run('suspended', { state: 'suspended', createdAt: 2 }),
    run('waiting', { state: 'waiting', createdAt: 3 }),
    run('running', { state: 'running', createdAt: 4 }),
    run('failed', { state: 'failed', createdAt: 40 }),
  ];
  assert.deepEqual(ids(consoleRows(runs, { now: 100 })), ['waiting', 'suspended', 'running', 'new-done', 'failed', 'old-done']);
  const bySize = [
    run('small', { tokens: { calls: 1, input: 10, output: 1, cached: 0 }, createdAt: 9, updatedAt: 12, cost: { total: 0.5, currency: 'USD' } }),
    run('big', { tokens: { calls: 1, input: 500, output: 9, cached: 0 }, createdAt: 0, updatedAt: 1, cost: { total: 0.1, currency: 'USD' } }),
    run('long', { createdAt: 0, updatedAt: 1000 }),
  ];
  assert.deepEqual(ids(consoleRows(bySize, { sort: 'tokens', now: 0 })), ['big', 'small', 'long']);
  assert.deepEqual(ids(consoleRows(bySize, { sort: 'duration', now: 0 })), ['long', 'small', 'big']);
  assert.deepEqual(ids(consoleRows(bySize, { sort: 'cost', now: 0 })), ['small', 'big', 'long'], 'a run without a cost sorts after those with one');
  // a running run's duration runs to now
  assert.deepEqual(ids(consoleRows([run('short-done', { createdAt: 0, updatedAt: 5 }), run('live', { state: 'running', createdAt: 0, updatedAt: 0 })], { sort: 'duration', now: 10_000 })).at(0), 'live');
});

test('the filter: every word must be in the file, id, status or result; status:X / is:X keeps a status; a fork that matches keeps its origin shown', () => {
  const runs = [
    run('a', { entry: 'examples/investment_committee.tn', outcome: '"approve"' }),
    run('b', { entry: 'triage.tn', state: 'failed', outcome: 'no credential OPENAI_API_KEY' }),
    run('c', { entry: 'triage.tn', forkOf: { runId: 'a', step: 3 }, state: 'failed', outcome: 'rejected' }),
  ];
  const shown = (text: string) => ids(consoleRows(runs, { filter: parseFilter(text), now: 0 }));
  assert.deepEqual(shown('committee'), ['a']);
  assert.deepEqual(shown('TRIAGE credential'), ['b'], 'case does not matter; all words must match');
  assert.deepEqual(shown('is:failed'), ['a', 'b'], 'the fork c fails, so its origin a shows with it');
  assert.deepEqual(consoleRows(runs, { filter: parseFilter('rejected'), now: 0 }).map((r) => [r.run.id, ids(r.children)]), [['a', ['c']]]);
  assert.deepEqual(shown('status:done'), ['a']);
  assert.deepEqual(shown('is:nonsense'), [], 'an unknown status is a word, which matches nothing here');
  assert.deepEqual(shown('zzz'), []);
  assert.deepEqual(parseFilter(`${'x'.repeat(500)} is:done`), { states: [], words: ['x'.repeat(200)] }, 'the text is bounded');
  assert.ok(matches(runs[0], parseFilter('')));
});

test('a fork chain that loops (a damaged store) does not hang nor lose runs: its runs are roots', () => {
  const runs = [run('x', { forkOf: { runId: 'y', step: 1 } }), run('y', { forkOf: { runId: 'x', step: 1 } }), run('z', { forkOf: { runId: 'z', step: 1 } })];
  const rows = consoleRows(runs, { now: 0 });
  assert.equal(countRows(rows), 3);
  assert.deepEqual(ids(rows).sort(), ['x', 'y', 'z']);
});

test('a row\'s columns: status, started, duration, tokens, cost, fork, result (one line, clipped)', () => {
  const r = run('a', {
    state: 'done', createdAt: 0, updatedAt: 65_000, tokens: { calls: 3, input: 12_000, output: 345, cached: 0 },
    cost: { total: 0.0123, currency: 'USD' }, forkOf: { runId: 'o', step: 4 }, outcome: `{"text":\n"${'y'.repeat(100)}"}`,
  });
  const text = columnsText(r, 0, () => 'started 1 min ago');
  assert.match(text, /^done · started 1 min ago · 1 min 5 s · 12k tokens · 0\.012\d* USD · fork at step 4 · → \{"text": "y+…$/);
  assert.ok(!text.includes('\n'));
  assert.equal(columnsText(run('f', { state: 'failed', outcome: 'boom', createdAt: 0, updatedAt: 300 }), 0, () => 's'), 'failed · s · 300 ms · ✗ boom');
  assert.equal(columnsText(run('m', { tokens: { calls: 2, input: 0, output: 0, cached: 0 }, createdAt: 0, updatedAt: 5 }), 0, () => 's'), 'done · s · 5 ms · 2 model calls', 'a model that reports no usage: its calls, not "0 tokens"');
  assert.deepEqual([durationText(999), durationText(1000), durationText(59_400), durationText(3_600_000 + 4 * 60_000)], ['999 ms', '1 s', '59 s', '1 h 4 min']);
});

test('the facts cache reads a finished run\'s journal once, and again when its status changes', () => {
  withStore((store) => {
    const id = runWithCalls(store, 'a.tn', [{ inputTokens: 1, outputTokens: 1 }]);
    let reads = 0;
    const counting = new Proxy(store, { get: (t, k) => (k === 'readJournal' ? (i: string) => (reads++, t.readJournal(i)) : Reflect.get(t, k, t)) });
    const cache = new FactsCache();
    listConsoleRuns(counting, { cache });
    const first = reads;
    listConsoleRuns(counting, { cache });
    assert.equal(reads, first, 'nothing changed: no journal read for the facts');
    store.setRunStatus(id, 'failed', enc({ message: 'x' }));
    listConsoleRuns(counting, { cache });
    assert.equal(reads, first + 1);
  });
});
