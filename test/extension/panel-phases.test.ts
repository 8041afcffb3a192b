// A model call's phases in the run panel (issue 44): the transport times when a call left the host's
// queue, was sent, and when its first and last byte came (reply.meta.phases); the panel draws queue,
// network and generation as distinct parts of the call's bar, so a call that waited for a one-slot
// local server is not drawn as that long a model call.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Runner } from '../../extension/panel/runner.js';
import { lanesFromEvents, phasesOf } from '../../extension/panel/webview/lanes.js';
import { MemoryVault } from '../../runtime/effects/vault.js';
import { slowServer, type SlowServer } from '../providers/slow-server.js';

const servers: SlowServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

test('phases on a bar: clipped to the bar, none past its end, queue first', () => {
  assert.deepEqual(phasesOf(100, 400, { queuedMs: 120, sentMs: 120, firstByteMs: 150, lastByteMs: 290 }), [
    { kind: 'queue', start: 100, end: 220 },
    { kind: 'network', start: 220, end: 250 },
    { kind: 'generation', start: 250, end: 390 },
  ]);
  // hostile or skewed times never draw outside the bar
  assert.deepEqual(phasesOf(0, 50, { queuedMs: 500, sentMs: 500, firstByteMs: 900, lastByteMs: null }), [{ kind: 'queue', start: 0, end: 50 }]);
  assert.deepEqual(phasesOf(0, 50, { queuedMs: 0, sentMs: 0, firstByteMs: null, lastByteMs: null }), []);
});

test('three workers streaming from a one-slot local server: each call\'s time in the host\'s queue is drawn apart from its generation', async () => {
  const envelope = JSON.stringify({ value: { ok: true, note: 'fine' }, confidence: 0.8 });
  const s = await slowServer(() => ({ stream: envelope, piece: 8, everyMs: 15 }), { slots: 1 });
  servers.push(s);
  const dir = mkdtempSync(join(tmpdir(), 'turn-phases-'));
  const file = join(dir, 'p.tn');
  writeFileSync(file, `struct Verdict { ok: Bool, note: Str };
let worker = turn(n: Num) -> Verdict { return infer Verdict { "Judge item " + n + "."; }; };
turn { return call("len", gather spawn_each([1, 2, 3], worker)); }
`);
  const view = await new Runner({
    file,
    options: { model: `openai:slow?base_url=${s.url}/v1&logprobs=0&retries=0`, cwd: dir, env: { OPENAI_API_KEY: 'k-test-000000' }, authority: { vault: new MemoryVault({}) } },
    publish: () => {},
  }).start();
  assert.equal(view.status, 'done', JSON.stringify(view.error));
  const replies = view.timeline.filter((t) => t.kind === 'infer.reply');
  assert.equal(replies.length, 3);
  for (const r of replies) {
    assert.ok(r.phases, 'every reply has its phases');
    assert.ok(r.phases.firstByteMs !== null && r.phases.lastByteMs !== null && r.phases.lastByteMs >= r.phases.firstByteMs && r.phases.firstByteMs >= r.phases.sentMs && r.phases.sentMs >= r.phases.queuedMs);
  }
  const bars = lanesFromEvents(view).lanes.flatMap((l) => l.bars).filter((b) => b.kind === 'model').sort((a, b) => a.start - b.start);
  assert.equal(bars.length, 3);
  const part = (b: (typeof bars)[number], kind: string) => b.phases!.filter((p) => p.kind === kind).reduce((a, p) => a + p.end - p.start, 0);
  for (const b of bars) assert.ok(part(b, 'generation') > 0, `a generation phase: ${JSON.stringify(b.phases)}`);
  // the server answers one call at a time: the last call waited in the queue while the first was generated
  const queued = bars.map((b) => part(b, 'queue'));
  const last = queued.indexOf(Math.max(...queued));
  assert.ok(queued[last] >= part(bars[0], 'generation') * 0.9, `queue ${queued.join(', ')} against the first call's generation ${part(bars[0], 'generation')}`);
  assert.ok(part(bars[last], 'generation') < bars[last].end - bars[last].start - queued[last] + 1, 'its bar is not all model time');
});
