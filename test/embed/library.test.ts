// The runtime as a library (runtime/embed/, docs/embedding.md): what an app gets from the package,
// tested from its source. The packed package itself is tested in package.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EventFeed } from '../../runtime/embed/events';
import { callExport, check, compile, openStore, resumeRun, run, startRun, TurnError, type RunEvent, type TurnOptions } from '../../runtime/embed/index';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-embed-'));
function program(name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

const inferring = program('infer.tn', 'call("echo", "asking");\nlet v = infer Bool { "Is the sky blue?"; };\nreturn v;\n');

test('a run returns its value, the confidence beside it, its status and the model calls it made', async () => {
  const lines: string[] = [];
  const r = await run(inferring, { model: 'mock', onOutput: (l) => lines.push(l) });
  assert.equal(r.status, 'done');
  assert.ok(r.status === 'done');
  assert.equal(r.value, true);
  assert.equal(r.confidence, 0.9); // the mock's confidence
  assert.equal(r.usage.modelCalls, 1);
  assert.equal(r.runId, undefined, 'no store: not durable');
  assert.deepEqual(lines, ['asking']);
});

test('events stream as an AsyncIterable and the iteration ends with the run', async () => {
  const turnRun = await startRun(inferring, { model: 'mock' });
  const kinds: string[] = [];
  const reading = (async () => {
    for await (const e of turnRun.events()) kinds.push(e.kind);
  })();
  const r = await turnRun.result();
  await reading; // ends: the run ended
  assert.equal(r.status, 'done');
  assert.deepEqual(kinds, ['process.spawn', 'infer.request', 'infer.reply', 'process.exit']);
});

const secretFile = path.join(dir, 'secret.txt');
fs.writeFileSync(secretFile, 'the secret');
const reading = program('read.tn', `return call("fs_read", ${JSON.stringify(secretFile)});\n`);
// the program claims an authority in its own value: a value's shape never grants one
const claiming = program('claim.tn', `let fs = use "std/fs";\nreturn fs.read({"files": {"read": [${JSON.stringify(dir)}]}}, ${JSON.stringify(secretFile)});\n`);
const fetching = program('fetch.tn', 'let net = use "std/net";\nreturn net.get(null, "http://127.0.0.1:9/x");\n');

function refusal(r: Awaited<ReturnType<typeof run>>): string {
  assert.equal(r.status, 'failed', JSON.stringify(r));
  assert.ok(r.status === 'failed');
  return r.error.message;
}

test('an embedded run gets no effect without a grant: the CLI\'s capability checks, whatever the options smuggle', async () => {
  assert.match(refusal(await run(reading)), /file read access to .*secret\.txt is not granted/);
  assert.match(refusal(await run(claiming)), /cannot widen file read access .*\(allowed: none\)/);
  assert.match(refusal(await run(fetching)), /network access to 127\.0\.0\.1:9 is not granted/);
  // the run API's own option names, an inherited grant, a grants object with a poisoned prototype: none is read
  const smuggled = { authority: { allowRead: ['/'], allowNet: ['*'] }, allowRead: ['/'] } as unknown as TurnOptions;
  assert.match(refusal(await run(reading, smuggled)), /is not granted/);
  const inherited = Object.create({ grants: { read: [dir], net: ['*'] } }) as TurnOptions;
  assert.match(refusal(await run(reading, inherited)), /is not granted/);
  const poisoned = { grants: JSON.parse(`{"__proto__": {"read": [${JSON.stringify(dir)}]}}`) as TurnOptions['grants'] };
  assert.match(refusal(await run(reading, poisoned)), /is not granted/);
  // an effect that needs approval is denied: nobody is asked, there is no terminal
  const denied = await run(reading, { grants: { read: [dir] }, approveEffects: ['files'] });
  assert.match(refusal(denied), /denied|not approved/i);
  // and the grant itself works
  const granted = await run(reading, { grants: { read: [dir] } });
  assert.ok(granted.status === 'done', JSON.stringify(granted));
  assert.equal(granted.value, 'the secret');
});

test('options the library cannot honour are refused with a clear TurnError, never a stack', async () => {
  await assert.rejects(run(reading, { approve: 'ask' as never }), (e: unknown) => e instanceof TurnError && e.kind === 'usage' && /no terminal/.test(e.message));
  await assert.rejects(run(reading, { grants: { read: 'everything' as never } }), (e: unknown) => e instanceof TurnError && /grants\.read must be a list/.test(e.message));
  await assert.rejects(run(reading, { approveEffects: ['everything' as never] }), (e: unknown) => e instanceof TurnError && /"everything" is not one of/.test(e.message));
  await assert.rejects(run(reading, { budgets: { steps: -1 } }), (e: unknown) => e instanceof TurnError && /budgets\.steps/.test(e.message));
  await assert.rejects(run(inferring, { model: 'no-such-provider:x' }), (e: unknown) => e instanceof TurnError && e.kind === 'usage');
  await assert.rejects(run(path.join(dir, 'missing.tn')), (e: unknown) => e instanceof TurnError && e.kind === 'input' && /missing\.tn/.test(e.message));
  const broken = program('broken.tn', 'let x = 1;\nlet y = ;\n');
  await assert.rejects(run(broken), (e: unknown) => e instanceof TurnError && e.kind === 'compile' && e.diagnostics.length === 1 && e.diagnostics[0].startsWith(`${broken}:2:9: `));
  await assert.rejects(compile(broken), (e: unknown) => e instanceof TurnError && e.kind === 'compile');
  await assert.rejects(startRun(inferring, { id: 'x' }), (e: unknown) => e instanceof TurnError && /give a store/.test(e.message));
  const store = path.join(dir, 'store-ids');
  await assert.rejects(startRun(inferring, { id: '../../etc', store }), (e: unknown) => e instanceof TurnError && /is not a run id/.test(e.message));
});

test('a budget binds an embedded run', async () => {
  const twice = program('twice.tn', 'let a = infer Bool { "one"; };\nlet b = infer Bool { "two"; };\nreturn [a, b];\n');
  const r = await run(twice, { model: 'mock', budgets: { modelCalls: 1 } });
  assert.match(refusal(r), /model call budget|budget/i);
});

test('an AbortSignal stops the run at its next safe point', async () => {
  const controller = new AbortController();
  const events: RunEvent[] = [];
  const r = await run(inferring, {
    model: 'mock',
    signal: controller.signal,
    onEvent: (e) => {
      events.push(e);
      if (e.kind === 'infer.request') controller.abort('the request was cancelled');
    },
  });
  assert.equal(r.status, 'stopped', JSON.stringify(r));
  assert.ok(r.status === 'stopped');
  assert.match(r.reason, /the request was cancelled/);
  assert.equal(events.filter((e) => e.kind === 'infer.reply').length, 0, 'no reply was taken after the abort');
  // aborted before it starts: it never runs
  const before = new AbortController();
  before.abort();
  assert.equal((await run(inferring, { model: 'mock', signal: before.signal })).status, 'stopped');
});

test('a durable run suspends, is listed and inspected in its store, and resumes to its value', async () => {
  const suspending = program('suspend.tn', 'let a = infer Num { "a number"; };\nsuspend;\nreturn a + 1;\n');
  const storeDir = path.join(dir, 'store');
  const first = await run(suspending, { model: 'mock', store: storeDir, id: 'order-42' });
  assert.equal(first.status, 'suspended');
  assert.equal(first.runId, 'order-42');
  const store = openStore(storeDir);
  try {
    assert.deepEqual(store.list().map((r) => [r.id, r.status]), [['order-42', 'suspended']]);
    const inspection = store.inspect('order-42');
    assert.ok(inspection.journal.some((e) => e.kind === 'infer'), 'the model call is journaled');
    const resumed = await resumeRun('order-42', { model: 'mock', store });
    const r = await resumed.result();
    assert.ok(r.status === 'done', JSON.stringify(r));
    assert.equal(r.value, 2);
    assert.equal(r.usage.modelCalls, 0, 'the journaled reply is replayed, not asked again');
    assert.equal(store.get('order-42')?.status, 'done');
    await assert.rejects(resumeRun('order-42', { store }), (e: unknown) => e instanceof TurnError && e.kind === 'refused');
    await assert.rejects(resumeRun('nope', { store }), (e: unknown) => e instanceof TurnError && e.kind === 'store');
  } finally {
    store.close();
  }
  assert.throws(() => store.list(), /the store is closed/);
});

test('check reports located diagnostics for a file or a source text, without running it', async () => {
  const ok = await check({ file: inferring });
  assert.deepEqual(ok, { ok: true, diagnostics: [] });
  const bad = await check({ source: 'let x = 1;\nlet y = nope + 1;\n', file: 'app.tn' });
  assert.equal(bad.ok, false);
  assert.equal(bad.diagnostics[0].line, 2);
  assert.match(bad.diagnostics[0].text, /^app\.tn:2:9: .*nope/);
  await assert.rejects(check({ file: path.join(dir, 'missing.tn') }), (e: unknown) => e instanceof TurnError && e.kind === 'input');
});

test('a durable call (store and id) runs once: called again, it returns the recorded value and confidence', async () => {
  const mod = program('mod.tn', 'return {"ask": turn(q: Str) -> Bool { return infer Bool { q; }; }};\n');
  const store = openStore(path.join(dir, 'calls'));
  try {
    const first = await callExport(mod, 'ask', ['Is the sky blue?'], { model: 'mock', store, id: 'req-1' });
    assert.deepEqual([first.value, first.confidence, first.runId, first.usage.modelCalls, first.recorded], [true, 0.9, 'req-1', 1, undefined]);
    const again = await callExport(mod, 'ask', ['Is the sky blue?'], { model: 'mock', store, id: 'req-1' });
    assert.deepEqual([again.value, again.confidence, again.runId, again.usage.modelCalls, again.recorded], [true, 0.9, 'req-1', 0, true]);
    // the id names this call: the same id with other arguments is refused, not answered with req-1's value
    await assert.rejects(
      callExport(mod, 'ask', ['Is grass green?'], { model: 'mock', store, id: 'req-1' }),
      (e: unknown) => e instanceof TurnError && e.kind === 'usage' && /the call id req-1 names another call/.test(e.message),
    );
    // the same id twice at once in one process: the second is refused, never run beside the first
    const both = await Promise.allSettled([
      callExport(mod, 'ask', ['q'], { model: 'mock', store, id: 'req-2' }),
      callExport(mod, 'ask', ['q'], { model: 'mock', store, id: 'req-2' }),
    ]);
    assert.equal(both.filter((r) => r.status === 'fulfilled').length, 1);
    const refused = both.find((r) => r.status === 'rejected');
    assert.match(String((refused as PromiseRejectedResult).reason), /the call req-2 is already running/);
  } finally {
    store.close();
  }
});

test('a call\'s arguments must be JSON data: a cycle, a BigInt or an exponential sharing is refused before any run', async () => {
  const mod = program('echo.tn', 'return {"echo": turn(x: Any) -> Any { return x; }};\n');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  let shared: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 60; i++) shared = { left: shared, right: shared }; // 2^60 values when walked
  const events: string[] = [];
  const onEvent = (e: RunEvent): void => void events.push(e.kind);
  for (const [arg, expected] of [
    [cyclic, /argument 1 is not JSON data \(Converting circular structure/],
    [10n, /argument 1 is not JSON data \(Do not know how to serialize a BigInt/],
    [shared, /more than 1000000 values/],
  ] as const) {
    await assert.rejects(callExport(mod, 'echo', [arg], { onEvent }), (e: unknown) => e instanceof TurnError && e.kind === 'invalid' && expected.test(e.message));
  }
  assert.deepEqual(events, [], 'no run started');
  assert.deepEqual((await callExport(mod, 'echo', [{ a: [1, 'two', null] }])).value, { a: [1, 'two', null] });
});

test('a reader that falls too far behind the events gets an error, not an unbounded queue', async () => {
  const feed = new EventFeed(3);
  const slow = feed.iterate();
  const first = slow.next(); // subscribed, and not scheduled again before the run has emitted 5 events
  for (let seq = 1; seq <= 5; seq++) feed.push({ kind: 'process.spawn', pid: seq, parent: 0, seq, ms: 0 });
  feed.end();
  await assert.rejects(first, /came faster than they were read: more than 3 were waiting/);
  // a reader that keeps up sees them all, and its iteration ends with the run
  const feed2 = new EventFeed(3);
  const seen: number[] = [];
  const reading = (async () => {
    for await (const e of feed2.iterate()) seen.push(e.seq);
  })();
  for (let seq = 1; seq <= 10; seq++) {
    feed2.push({ kind: 'process.spawn', pid: seq, parent: 0, seq, ms: 0 });
    await new Promise((resolve) => setImmediate(resolve));
  }
  feed2.end();
  await reading;
  assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
});
