// The run panel's updates proportional to the change (extension/protocol/run-delta.ts, issue 44):
// the host's producer and the webview's consumer, over messages that go through JSON as
// postMessage sends them. The webview's copy after the deltas equals the host's view; a delta's size
// follows the change; a missed delta is noticed; a hostile delta is refused; every event is kept.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { emptyRun, isHostMessage, type ActorView, type HostMessage, type RunView, type TimelineItem } from '../../extension/protocol/panel.js';
import { applyRunDelta, RunDeltaProducer } from '../../extension/protocol/run-delta.js';
import { Runner } from '../../extension/panel/runner.js';
import { MemoryVault } from '../../runtime/effects/vault.js';
import { lanesFromEvents } from '../../extension/panel/webview/lanes.js';
import { slowServer } from '../providers/slow-server.js';

/** The webview's side: what it holds after each message (validated and through JSON, as postMessage delivers it). */
class Webview {
  run: RunView | null = null;
  n = 0;
  resyncs = 0;
  bytes = 0;
  messages: HostMessage[] = [];

  receive(message: HostMessage): void {
    const text = JSON.stringify(message);
    this.bytes += text.length;
    const m: unknown = JSON.parse(text);
    assert.ok(isHostMessage(m), `an invalid message: ${text.slice(0, 300)}`);
    this.messages.push(m);
    if (m.type === 'run') {
      this.run = m.run;
      this.n = 0;
    } else if (m.type === 'runDelta') {
      const next = this.run ? applyRunDelta(this.run, m.delta, this.n) : null;
      if (!next) {
        this.resyncs++;
        return;
      }
      this.run = next;
      this.n = m.delta.n;
    }
  }
}

const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

const workersProgram = (workers: number) => `struct Verdict { ok: Bool, note: Str };
let worker = turn(n: Num) -> Verdict {
    context.append("item " + n);
    let v = infer Verdict { "Judge item " + n + "."; };
    remember("v", v.note);
    return v;
};
turn {
    let ns = [];
    let k = 0;
    while k < ${workers} {
        let ns = call("list_push", ns, k);
        let k = k + 1;
    }
    let results = gather spawn_each(ns, worker);
    call("echo", "judged " + call("len", results));
    return call("len", results);
}
`;

async function runWorkers(workers: number, onMessage: (view: RunView, producer: RunDeltaProducer) => void, model = 'mock', env: Record<string, string> = {}, throttleMs = 2): Promise<{ view: RunView; eventBytes: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'turn-delta-'));
  const file = join(dir, 'workers.tn');
  writeFileSync(file, workersProgram(workers));
  const producer = new RunDeltaProducer();
  let eventBytes = 0;
  const runner = new Runner({
    file,
    options: { model, cwd: dir, env, authority: { vault: new MemoryVault({}) } },
    throttleMs,
    publish: (view) => onMessage(view, producer),
    tap: (e) => (eventBytes += JSON.stringify(e).length),
  });
  const view = await runner.start();
  return { view, eventBytes };
}

const actor = (pid: number, status: ActorView['status'] = 'ready'): ActorView => ({
  pid, parent: pid === 1 ? 0 : 1, name: `worker`, status, waitingOn: null, linked: false, detached: false, restarts: 0, site: null,
  context: { P0: [], P1: [{ text: `item ${pid} with some context text to make the row a realistic size`, tokens: 12 }], P2: [], tokens: { P0: 0, P1: 12, P2: 0 }, limits: { working: 4096, episodic: 8192 }, demoted: { entries: 0, tokens: 0 }, dropped: { entries: 0, tokens: 0 } },
  memory: [], mailbox: [], result: null, error: null,
});

const item = (seq: number, pid: number, state: TimelineItem['state'] = 'done'): TimelineItem =>
  ({ seq, ms: seq, kind: 'tool.request', pid, summary: `effect now`, state, site: { path: '/p.tn', line: 3 } });

describe('run deltas', () => {
  test('a real 60-worker run: one whole view, then deltas; the webview ends with the host\'s view, in fewer bytes than the run\'s own events', async () => {
    const webview = new Webview();
    const { view, eventBytes } = await runWorkers(60, (v, producer) => {
      const m = producer.next(v);
      if (m) webview.receive(m);
    });
    assert.equal(view.status, 'done', JSON.stringify(view.error));
    assert.equal(webview.resyncs, 0);
    assert.deepEqual(webview.run, plain(view));
    assert.equal(webview.messages.filter((m) => m.type === 'run').length, 1, 'the whole view only at the start');
    assert.equal(webview.messages[0].type, 'run');
    console.log(`60 workers: ${webview.messages.length} messages, ${webview.bytes} bytes sent for ${eventBytes} bytes of events`);
    assert.equal(view.actors.length, 61);
    assert.equal(view.infers.length, 60);
    // what the whole view on every update cost: each message the size of the view at that time
    assert.ok(webview.bytes <= 2 * eventBytes, `sent ${webview.bytes} bytes for ${eventBytes} bytes of events`);
  });

  test('60 workers streaming from a one-slot local server: every chunk shown as it comes, in about the run\'s own event bytes; every model call drawn', async () => {
    const envelope = JSON.stringify({ value: { ok: true, note: 'fine, nothing to add' }, confidence: 0.8 });
    const server = await slowServer(() => ({ stream: envelope, piece: 6, everyMs: 1 }), { slots: 1 });
    try {
      const webview = new Webview();
      let published = 0;
      const { view, eventBytes } = await runWorkers(60, (v, producer) => {
        published++;
        const m = producer.next(v);
        if (m) webview.receive(m);
      }, `openai:slow?base_url=${server.url}/v1&logprobs=0&retries=0`, { OPENAI_API_KEY: 'k-test-000000' }, 20);
      console.log(`60 streamed workers: ${published} updates, ${webview.messages.length} messages, ${webview.bytes} bytes sent for ${eventBytes} bytes of events`);
      assert.equal(view.status, 'done', JSON.stringify(view.error));
      assert.ok(published > 10, `a streamed run publishes as it goes (${published})`);
      assert.deepEqual(webview.run, plain(view));
      assert.equal(webview.resyncs, 0);
      assert.ok(webview.bytes <= 2 * eventBytes, `sent ${webview.bytes} bytes for ${eventBytes} bytes of events`);
      const bars = lanesFromEvents(webview.run).lanes.flatMap((l) => l.bars).filter((b) => b.kind === 'model');
      assert.equal(bars.length, 60, 'every model call drawn');
      assert.ok(bars.every((b) => b.state === 'done' && b.phases && b.phases.length > 0));
    } finally {
      await server.close();
    }
  });

  test('a delta carries only the changed rows: one actor of 1,000 changes, one actor is sent', () => {
    const producer = new RunDeltaProducer();
    const view: RunView = { ...emptyRun(7, '/p.tn'), status: 'running', actors: Array.from({ length: 1000 }, (_, i) => actor(i + 1)), timeline: Array.from({ length: 3000 }, (_, i) => item(i + 1, (i % 1000) + 1)) };
    const first = producer.full(view);
    const webview = new Webview();
    webview.receive(plain(first));
    assert.equal(producer.next(view), null, 'nothing changed: nothing sent');

    view.actors[500] = actor(501, 'done');
    view.timeline.push(item(3001, 501));
    view.timeline[10] = { ...view.timeline[10], state: 'done', summary: 'effect now done' };
    const m = producer.next(view)!;
    assert.equal(m.type, 'runDelta');
    const d = (m).delta;
    assert.deepEqual(d.actors?.map((a) => a.pid), [501]);
    assert.deepEqual(d.timeline?.items.map((t) => t.seq), [3001]);
    assert.deepEqual(d.timelineSet?.map((t) => t.i), [10]);
    assert.equal(d.actorOrder, undefined);
    const size = JSON.stringify(m).length;
    const change = JSON.stringify(view.actors[500]).length + 2 * JSON.stringify(view.timeline[10]).length;
    assert.ok(size < change + 200, `a delta of ${size} bytes for a change of ${change}`);
    assert.doesNotMatch(JSON.stringify(d.actors), /context/, 'the actor\'s fields that did not change are not sent');
    assert.ok(size * 100 < JSON.stringify(first).length);
    webview.receive(m);
    assert.deepEqual(webview.run, plain(view));
  });

  test('a streaming reply sends the text that came since, and all of it once its start is clipped', () => {
    const producer = new RunDeltaProducer();
    const view: RunView = { ...emptyRun(1, '/p.tn'), status: 'running' };
    const attempt = { attempt: 1, prompt: { P0: [], P2: [], P1: [], task: 'Judge the item, a prompt of some length that must not be sent again.' }, feedback: [], schema: { type: 'object' }, raw: null, repairs: [], errors: [], valid: null, confidence: null, streamed: { text: '{"ok": tr', tokens: 3, elapsedMs: 10, partial: null } };
    view.infers = [{ id: 'i1', pid: 2, type: 'Verdict', site: null, attempts: [attempt], state: 'pending' }];
    const webview = new Webview();
    webview.receive(plain(producer.full(view)));

    attempt.streamed = { text: '{"ok": true, "note": "fi', tokens: 8, elapsedMs: 30, partial: null };
    const m = producer.next(view)!;
    const text = JSON.stringify(m);
    assert.doesNotMatch(text, /must not be sent again/, 'the prompt is not sent again');
    assert.match(text, /"append":"ue, \\"note\\": \\"fi"/);
    webview.receive(m);
    assert.deepEqual(webview.run, plain(view));

    attempt.streamed = { text: '…clipped start', tokens: 900, elapsedMs: 900, partial: null };
    const clipped = producer.next(view)!;
    assert.match(JSON.stringify(clipped), /"text":"…clipped start"/);
    webview.receive(clipped);
    assert.deepEqual(webview.run, plain(view));

    Object.assign(attempt, { streamed: null, raw: '{"ok": true, "note": "fine"}', valid: true });
    view.infers[0].state = 'ok';
    const reply = producer.next(view)!;
    assert.doesNotMatch(JSON.stringify(reply), /must not be sent again|"schema"/, 'the reply sends the fields that changed, not the prompt or schema');
    webview.receive(reply);
    assert.deepEqual(webview.run, plain(view));
  });

  test('a missed delta, a delta of another run, or one that does not line up is not applied (the webview asks again)', () => {
    const producer = new RunDeltaProducer();
    const view: RunView = { ...emptyRun(3, '/p.tn'), status: 'running', actors: [actor(1)] };
    const base = plain((producer.full(view) as Extract<HostMessage, { type: 'run' }>).run);
    view.output.push('one');
    const d1 = (producer.next(view) as Extract<HostMessage, { type: 'runDelta' }>).delta;
    view.output.push('two');
    const d2 = (producer.next(view) as Extract<HostMessage, { type: 'runDelta' }>).delta;
    assert.equal(applyRunDelta(base, d2, 0), null, 'delta 2 without delta 1');
    assert.equal(applyRunDelta({ ...base, runId: 4 }, d1, 0), null, 'another run');
    assert.equal(applyRunDelta({ ...base, output: ['x', 'y'] }, d1, 0), null, 'output that does not line up');
    const after1 = applyRunDelta(base, d1, 0)!;
    assert.deepEqual(applyRunDelta(after1, d2, 1)!.output, ['one', 'two']);
    // a patch for an actor or attempt the webview does not have, or an item past its timeline
    assert.equal(applyRunDelta(base, { runId: 3, n: 1, actors: [{ pid: 9, status: 'done' }] }, 0), null);
    assert.equal(applyRunDelta(base, { runId: 3, n: 1, infers: [{ id: 'x', pid: 1, type: 'T', site: null, state: 'ok', attempts: [{ i: 0, fields: { raw: '{}' } }] }] }, 0), null);
    assert.equal(applyRunDelta(base, { runId: 3, n: 1, timelineSet: [{ i: 0, item: item(1, 1) }] }, 0), null);
    // a new run (another runId) is sent whole
    assert.equal(producer.next({ ...view, runId: 5 })?.type, 'run');
  });

  test('the validator refuses a hostile delta', () => {
    const ok = { type: 'runDelta', v: 1, delta: { runId: 1, n: 1, set: { status: 'done' }, output: { from: 0, lines: ['x'] } } };
    assert.ok(isHostMessage(ok));
    for (const delta of [
      { runId: 1, n: 1, set: { actors: [] } }, // not a field `set` may carry
      { runId: 1, n: 1, set: { status: 'exploded' } },
      { runId: 1, n: -1 },
      { runId: 1, n: 1.5 },
      { runId: 1, n: 1, output: { from: -1, lines: [] } },
      { runId: 1, n: 1, actors: [{ pid: 1, status: 'exploded' }] },
      { runId: 1, n: 1, actors: [{ pid: 1, secret: 'ghp_x' }] }, // not a field of an actor
      { runId: 1, n: 1, actors: [{ status: 'done' }] },
      { runId: 1, n: 1, infers: [{ id: 'a', pid: 1, type: 'T', site: null, state: 'ok', attempts: [{ i: 0, fields: { raw: 3 } }] }] },
      { runId: 1, n: 1, infers: [{ id: 'a', pid: 1, type: 'T', site: null, state: 'ok', attempts: [{ i: 0, fields: { streamed: null } }] }] },
      { runId: 1, n: 1, timelineSet: [{ i: 'x', item: item(1, 1) }] },
      { runId: 1, n: 1, infers: [{ id: 'a', pid: 1, type: 'T', site: null, state: 'ok', attempts: [{ i: -1, fields: {} }] }] },
      { runId: 1, n: 1, infers: [{ id: 'a', pid: 1, type: 'T', site: null, state: 'ok', attempts: [{ i: 0, streamed: { append: 3, tokens: 1, elapsedMs: 1 } }] }] },
      { runId: '1', n: 1 },
    ]) assert.equal(isHostMessage({ type: 'runDelta', v: 1, delta }), false, JSON.stringify(delta));
  });

  test('the live timeline keeps every event (past 2,000)', async () => {
    const { view } = await runWorkers(600, () => {});
    assert.equal(view.status, 'done', JSON.stringify(view.error));
    assert.ok(view.timeline.length > 2000, `${view.timeline.length} events`);
    assert.equal(view.timeline.filter((t) => t.kind === 'process.spawn').length, 601, 'every spawn (main\'s too), the first ones too');
    assert.equal(view.timeline.filter((t) => t.kind === 'infer.reply').length, 600, 'every model call');
  });
});
