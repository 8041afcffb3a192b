// The run panel's timeline model (extension/panel/webview/lanes.ts) and the runner's waits
// (extension/panel/waits.ts): lanes per actor, bars with durations, unknown outcomes, waits.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { emptyRun, type JournalStepView, type RunView, type TimelineItem } from '../../extension/protocol/panel.js';
import { actorLabel, duration, lanesFromEvents, lanesFromJournal, ticks } from '../../extension/panel/webview/lanes.js';
import { WaitTracker } from '../../extension/panel/waits.js';
import { Runner } from '../../extension/panel/runner.js';
import { MemoryVault } from '../../runtime/effects/vault.js';

const ROOT = join(__dirname, '../..');

const item = (seq: number, ms: number, kind: string, pid: number | null, summary: string, state: TimelineItem['state'] = 'done'): TimelineItem =>
  ({ seq, ms, kind, pid, summary, state, site: pid === null ? null : { path: '/p.tn', line: seq } });

describe('lanes from events', () => {
  test('model calls and effects are bars from request to reply; an effect the run ended without is unknown', () => {
    const run: RunView = {
      ...emptyRun(1, '/p.tn'),
      status: 'done',
      timeline: [
        item(1, 0, 'infer.request', 1, 'infer Plan (attempt 1)', 'done'),
        item(2, 40, 'infer.reply', 1, 'reply, confidence 0.9'),
        item(3, 41, 'process.spawn', 2, 'spawn #2 (parent #1)'),
        item(4, 45, 'tool.request', 2, 'effect http_request', 'done'),
        item(5, 80, 'tool.reply', 2, 'effect http_request failed'),
        item(6, 81, 'tool.request', 2, 'effect fs_write', 'unknown'),
        item(7, 100, 'process.exit', 1, '#1 done'),
      ],
    };
    const { lanes, end } = lanesFromEvents(run);
    assert.equal(end, 100);
    assert.deepEqual(lanes.map((l) => l.label), ['main #1', '#2']);
    const [main, worker] = lanes;
    assert.deepEqual(main.bars.map((b) => [b.kind, b.start, b.end, b.state]), [['model', 0, 40, 'done']]);
    assert.equal(main.bars[0].site?.line, 1, 'a bar opens the line of its request');
    assert.equal(worker.start, 41);
    assert.deepEqual(worker.bars.map((b) => [b.kind, b.label, b.start, b.end, b.state]), [
      ['effect', 'http_request', 45, 80, 'failed'],
      ['effect', 'fs_write', 81, 100, 'unknown'],
    ]);
    assert.deepEqual(main.marks.map((m) => m.kind), ['exit']);
  });

  test('a running run keeps an unanswered request pending; a suspend is a wait, not an unknown outcome', () => {
    const timeline = [item(1, 0, 'tool.request', 1, 'effect __suspend', 'unknown'), item(2, 5, 'infer.request', 1, 'infer Str (attempt 1)', 'pending')];
    const running = lanesFromEvents({ ...emptyRun(1), status: 'running', timeline });
    assert.deepEqual(running.lanes[0].bars.map((b) => [b.kind, b.label, b.state]), [['wait', 'suspend', 'pending'], ['model', 'infer Str (attempt 1)', 'pending']]);
    const ended = lanesFromEvents({ ...emptyRun(1), status: 'suspended', timeline });
    assert.deepEqual(ended.lanes[0].bars.map((b) => b.state), ['pending', 'unknown']);
  });

  test('actors are named by the function they run', () => {
    assert.equal(actorLabel(2, 'research'), 'research #2');
    assert.equal(actorLabel(1, null), 'main #1');
    assert.equal(actorLabel(1, '<main>'), 'main #1');
    assert.equal(actorLabel(3, undefined), '#3');
  });
});

describe('lanes from a journal', () => {
  const step = (seq: number, kind: string, name: string, pid: number, status: JournalStepView['status'], at: number, doneAt: number | null, value = 'null'): JournalStepView =>
    ({ seq, kind, name, pid, status, value, at, doneAt, forkable: kind === 'infer' || kind === 'tool' });
  test('steps become bars by their timestamps; an unknown outcome is marked; timers and suspends are marks', () => {
    const { lanes, end } = lanesFromJournal([
      step(1, 'infer', 'Plan', 1, 'ok', 0, 30),
      step(2, 'tool', 'http_request', 2, 'unknown', 35, null),
      step(3, 'timer', 'timers', -1, 'ok', 50, 50, '{"pids":[2],"awaited":true}'),
      step(4, 'suspend', 'suspend', 1, 'ok', 60, 60),
    ], [{ pid: 2, name: 'research' }]);
    assert.equal(end, 60);
    assert.deepEqual(lanes.map((l) => l.label), ['main #1', 'research #2']);
    assert.deepEqual(lanes[0].bars.map((b) => [b.kind, b.start, b.end, b.state]), [['model', 0, 30, 'done']]);
    assert.deepEqual(lanes[1].bars.map((b) => [b.kind, b.start, b.end, b.state]), [['effect', 35, 60, 'unknown']]);
    assert.deepEqual(lanes[1].marks.map((m) => m.kind), ['timer']);
    assert.deepEqual(lanes[0].marks.map((m) => m.kind), ['suspend']);
  });
});

describe('axis', () => {
  test('ticks fall on 1, 2, 5 × 10^k and durations read well', () => {
    assert.deepEqual(ticks(1000, 5), [0, 200, 400, 600, 800, 1000]);
    assert.deepEqual(ticks(7, 6), [0, 2, 4, 6]);
    assert.equal(duration(0), '0');
    assert.equal(duration(0.25), '0.25 ms');
    assert.equal(duration(12.4), '12 ms');
    assert.equal(duration(1250), '1.25 s');
  });
});

describe('waits', () => {
  test('a process waiting on something other than an effect opens a wait; it closes when the process stops waiting or ends', () => {
    const w = new WaitTracker();
    assert.deepEqual(w.observe(1, 0, [{ pid: 1, status: 'waiting', waitingOn: 'effect' }]), [], 'an effect is a bar already');
    const opened = w.observe(2, 10, [{ pid: 1, status: 'waiting', waitingOn: 'gather' }, { pid: 2, status: 'waiting', waitingOn: 'receive' }]);
    assert.deepEqual(opened.map((t) => [t.kind, t.pid, t.summary, t.state]), [['process.wait', 1, 'waits on gather', 'pending'], ['process.wait', 2, 'waits on receive', 'pending']]);
    assert.deepEqual(w.observe(3, 12, [{ pid: 1, status: 'waiting', waitingOn: 'gather' }, { pid: 2, status: 'waiting', waitingOn: 'receive' }]), [], 'no change, no item');
    const closed = w.observe(4, 30, [{ pid: 1, status: 'ready', waitingOn: null }]);
    assert.deepEqual(closed.map((t) => [t.kind, t.pid, t.ms]), [['process.wake', 1, 30], ['process.wake', 2, 30]]);
    assert.deepEqual(opened.map((t) => t.state), ['done', 'done'], 'a wait that ended is done');
  });

  test('the triage run: main waits on its gather while the workers infer; names and waits reach the view', async () => {
    const runner = new Runner({ file: join(ROOT, 'examples/triage_agent.tn'), options: { model: 'mock', cwd: ROOT, authority: { vault: new MemoryVault({}) } }, publish: () => {}, throttleMs: 5 });
    const view = await runner.start();
    assert.equal(view.status, 'done');
    assert.deepEqual(view.actors.slice(1).map((a) => a.name), ['triage', 'triage', 'triage'], 'finished workers keep the name of the function they ran');
    assert.equal(actorLabel(1, view.actors[0].name), 'main #1');
    const { lanes } = lanesFromEvents(view);
    const main = lanes.find((l) => l.pid === 1)!;
    const wait = main.bars.find((b) => b.kind === 'wait');
    assert.ok(wait, 'main has a wait bar');
    assert.match(wait.label, /waits on (gather|join)/);
    assert.equal(wait.state, 'done');
    const worker = lanes.find((l) => l.pid === 2)!;
    assert.equal(worker.label, 'triage #2');
    assert.ok(worker.bars.some((b) => b.kind === 'model' && b.state === 'done'));
  });
});

describe('a streamed reply (infer.delta events)', () => {
  test('the attempt shows the text so far and the pending model bar grows and counts tokens', () => {
    let published: RunView | undefined;
    const runner = new Runner({ file: '/p.tn', options: {}, runId: 1, throttleMs: 1, publish: (v) => (published = v) });
    const feed = runner as unknown as { onEvent(e: unknown): void; snapshot(): RunView };
    const prompt = { P0: [], P1: [], P2: [], task: 'Say hi.\nReply with only a JSON object\n{"type":"object"}' };
    feed.onEvent({ kind: 'infer.request', seq: 1, ms: 10, id: 'i1', pid: 1, type: 'Str', attempt: 1, prompt, feedback: [], schema: { type: 'string' } });
    feed.onEvent({ kind: 'infer.delta', seq: 2, ms: 50, id: 'i1', pid: 1, attempt: 1, delta: '{"value": "he', tokens: 3, elapsedMs: 40 });
    feed.onEvent({ kind: 'infer.delta', seq: 3, ms: 90, id: 'i1', pid: 1, attempt: 1, delta: 'llo"', tokens: 5, elapsedMs: 80 });
    const view = feed.snapshot();
    assert.deepEqual(view.infers[0].attempts[0].streamed, { text: '{"value": "hello"', tokens: 5, elapsedMs: 80, partial: { value: '"hello"', writing: null } });
    assert.equal(view.timeline.filter((t) => t.kind === 'infer.delta').length, 1, 'one item per attempt, moved along');
    const { lanes, end } = lanesFromEvents({ ...view, status: 'running' });
    assert.equal(end, 90, 'the timeline reaches the latest chunk');
    const [bar] = lanes[0].bars;
    assert.deepEqual([bar.kind, bar.state, bar.start, bar.end], ['model', 'pending', 10, 90], 'the bar grows with the stream');
    assert.match(bar.label, /streaming: 5 tokens in 0\.1 s$/);
    assert.ok(published === undefined || published.runId === 1);
  });

  test("a struct's complete fields show as they arrive, with the field being written; the reply replaces them", () => {
    const runner = new Runner({ file: '/p.tn', options: {}, runId: 1, throttleMs: 1, publish: () => {} });
    const feed = runner as unknown as { onEvent(e: unknown): void; snapshot(): RunView };
    const prompt = { P0: [], P1: [], P2: [], task: 'Plan.' };
    feed.onEvent({ kind: 'infer.request', seq: 1, ms: 10, id: 'i1', pid: 1, type: 'Plan', attempt: 1, prompt, feedback: [], schema: { type: 'object' } });
    const chunks = ['{"value": {"tit', 'le": "Trip", "steps": ["pack", "dr', 'ive"], "note": "a long ', 'way'];
    const partials = chunks.map((delta, i) => {
      feed.onEvent({ kind: 'infer.delta', seq: 2 + i, ms: 20 + i, id: 'i1', pid: 1, attempt: 1, delta, tokens: i + 1, elapsedMs: 10 * i });
      return feed.snapshot().infers[0].attempts[0].streamed!.partial;
    });
    assert.deepEqual(partials, [
      { value: '{}', writing: null },
      { value: '{"title":"Trip","steps":["pack"]}', writing: { path: '/steps/1', text: 'dr' } },
      { value: '{"title":"Trip","steps":["pack","drive"]}', writing: { path: '/note', text: 'a long ' } },
      { value: '{"title":"Trip","steps":["pack","drive"]}', writing: { path: '/note', text: 'a long way' } },
    ]);
    feed.onEvent({ kind: 'infer.reply', seq: 9, ms: 40, id: 'i1', pid: 1, attempt: 1, raw: '{"value": {"title": "Trip"}}', repairs: [], errors: [], valid: true, confidence: { value: 1, source: 'reported' } });
    assert.equal(feed.snapshot().infers[0].attempts[0].streamed, null);
  });
});
