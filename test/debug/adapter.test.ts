// The Turn debug adapter through the DAP test client (@vscode/debugadapter-testsupport): the
// adapter runs as its own process (extension/debug/adapter-main.ts through tsx), as VS Code would
// run dist/debug-adapter.js.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DebugClient } from '@vscode/debugadapter-testsupport';

const ROOT = path.resolve(__dirname, '../..');
const ADAPTER = path.join(ROOT, 'extension/debug/adapter-main.ts');
const FIX = path.join(__dirname, 'fixtures');
const DEBUG_ME = path.join(FIX, 'debug_me.tn');
const ACTORS = path.join(FIX, 'actors.tn');

describe('Turn debug adapter', { timeout: 60_000 }, () => {
  let dc: DebugClient;

  before(async () => {
    dc = new DebugClient(process.execPath, ADAPTER, 'turn', { env: { ...process.env, NODE_OPTIONS: '--import tsx' }, cwd: ROOT });
    dc.defaultTimeout = 20_000;
    await dc.start();
  });

  after(async () => {
    await dc.stop();
  });

  test('stops at a breakpoint, shows locals, evaluates, steps over and out, runs to the end', async () => {
    await dc.hitBreakpoint({ program: DEBUG_ME }, { path: DEBUG_ME, line: 3 });
    const threads = await dc.threadsRequest();
    assert.ok(threads.body.threads.some((t) => t.id === 1));
    const stack = await dc.stackTraceRequest({ threadId: 1 });
    assert.equal(stack.body.stackFrames[0].line, 3);
    assert.equal(stack.body.stackFrames.length, 2, 'double() called from main');
    assert.equal(stack.body.stackFrames[1].line, 9);
    const scopes = await dc.scopesRequest({ frameId: stack.body.stackFrames[0].id });
    assert.deepEqual(scopes.body.scopes.map((s) => s.name), ['Locals', 'Context', 'Memory']);
    const locals = await dc.variablesRequest({ variablesReference: scopes.body.scopes[0].variablesReference });
    assert.ok(locals.body.variables.some((v) => v.name === 'n' && v.value === '20'), JSON.stringify(locals.body.variables));
    const ev = await dc.evaluateRequest({ expression: 'n', frameId: stack.body.stackFrames[0].id });
    assert.equal(ev.body.result, '20');
    // step over: line 4
    await Promise.all([dc.nextRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { path: DEBUG_ME, line: 4 })]);
    const after4 = await dc.evaluateRequest({ expression: 'doubled', frameId: (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0].id });
    assert.equal(after4.body.result, '40');
    // step out: back in main, on line 9 or 10
    await dc.stepOutRequest({ threadId: 1 });
    const out = await dc.waitForEvent('stopped');
    assert.equal(out.body.reason, 'step');
    const top = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    assert.equal(top.length, 1);
    assert.ok(top[0].line === 9 || top[0].line === 10, `line ${top[0].line}`);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  });
});

describe('Turn debug adapter: actors as threads, memory and context scopes', { timeout: 60_000 }, () => {
  let dc: DebugClient;
  before(async () => {
    dc = new DebugClient(process.execPath, ADAPTER, 'turn', { env: { ...process.env, NODE_OPTIONS: '--import tsx' }, cwd: ROOT });
    dc.defaultTimeout = 20_000;
    await dc.start();
  });
  after(async () => {
    await dc.stop();
  });

  test('each actor is a thread; memory and context scopes', async () => {
    await dc.hitBreakpoint({ program: ACTORS }, { path: ACTORS, line: 3 });
    const threads = (await dc.threadsRequest()).body.threads;
    assert.ok(threads.length >= 3, JSON.stringify(threads));
    // the worker that hit the breakpoint: its top frame is on line 3
    let stopped: { id: number } | undefined;
    for (const t of threads) {
      const frames = (await dc.stackTraceRequest({ threadId: t.id })).body.stackFrames;
      if (t.id !== 1 && frames[0]?.line === 3 && frames[0]?.name !== 'main') stopped = t;
    }
    assert.ok(stopped, 'a worker stands on line 3');
    // without breakpoints (the other worker would stop on line 3 too), step over `remember`
    await dc.setBreakpointsRequest({ source: { path: ACTORS }, breakpoints: [] });
    await Promise.all([dc.nextRequest({ threadId: stopped!.id }), dc.assertStoppedLocation('step', { path: ACTORS, line: 4 })]);
    const f2 = (await dc.stackTraceRequest({ threadId: stopped!.id })).body.stackFrames[0];
    const scopes = (await dc.scopesRequest({ frameId: f2.id })).body.scopes;
    const memory = await dc.variablesRequest({ variablesReference: scopes[2].variablesReference });
    assert.ok(memory.body.variables.some((v) => v.name === 'squared'), JSON.stringify(memory.body.variables));
    const main = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
    const ctx = await dc.variablesRequest({ variablesReference: (await dc.scopesRequest({ frameId: main.id })).body.scopes[1].variablesReference });
    assert.match(ctx.body.variables[0].value, /1 entries, \d+ tokens/);
    await Promise.all([dc.continueRequest({ threadId: stopped!.id }), dc.waitForEvent('terminated')]);
  });
});

describe('Turn debug adapter: pause, step in, stop on entry', { timeout: 60_000 }, () => {
  let dc: DebugClient;
  before(async () => {
    dc = new DebugClient(process.execPath, ADAPTER, 'turn', { env: { ...process.env, NODE_OPTIONS: '--import tsx' }, cwd: ROOT });
    dc.defaultTimeout = 20_000;
    await dc.start();
  });
  after(async () => {
    await dc.stop();
  });

  test('stop on entry, then step in into a function', async () => {
    await Promise.all([
      dc.configurationSequence(),
      dc.launch({ program: DEBUG_ME, stopOnEntry: true }),
      dc.assertStoppedLocation('entry', { path: DEBUG_ME, line: 2 }),
    ]);
    // next twice to reach `let b = double(a);` (line 9), then step in
    await Promise.all([dc.nextRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
    let line = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0].line;
    while (line < 9) {
      await Promise.all([dc.nextRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
      line = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0].line;
    }
    assert.equal(line, 9);
    await Promise.all([dc.stepInRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { path: DEBUG_ME, line: 3 })]);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  });
});

describe('Turn debug adapter: stops while waiting on a model reply', { timeout: 60_000 }, () => {
  let dc: DebugClient;
  before(async () => {
    dc = new DebugClient(process.execPath, ADAPTER, 'turn', { env: { ...process.env, NODE_OPTIONS: '--import tsx' }, cwd: ROOT });
    dc.defaultTimeout = 20_000;
    await dc.start();
  });
  after(async () => {
    await dc.stop();
  });

  test('stopOnEffects: the stop reason says the process waits on a model reply; pause; evaluate context', async () => {
    const INFER = path.join(FIX, 'infer.tn');
    const [stopped] = await Promise.all([
      dc.waitForEvent('stopped'),
      dc.configurationSequence(),
      dc.launch({ program: INFER, stopOnEffects: true }),
    ]);
    assert.equal(stopped.body.reason, 'waiting on a model reply');
    assert.match(stopped.body.description, /infer Verdict/);
    const frame = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
    assert.equal(frame.line, 5);
    const ctx = await dc.evaluateRequest({ expression: 'context.P0', frameId: frame.id });
    assert.match(ctx.body.result, /Judge briefly/);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  });
});

describe('Turn debug adapter: resume a suspended durable run', { timeout: 60_000 }, () => {
  let dc: DebugClient;
  before(async () => {
    dc = new DebugClient(process.execPath, ADAPTER, 'turn', { env: { ...process.env, NODE_OPTIONS: '--import tsx' }, cwd: ROOT });
    dc.defaultTimeout = 20_000;
    await dc.start();
  });
  after(async () => {
    await dc.stop();
  });

  test('replays the journal (recorded model reply) up to `suspend;`, then runs live; the store says done', async () => {
    const { spawnSync } = await import('node:child_process');
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const store = mkdtempSync(path.join(tmpdir(), 'turn-dbg-store-'));
    const DURABLE = path.join(FIX, 'durable.tn');
    const started = spawnSync(process.execPath, [path.join(ROOT, 'bin/turn.js'), 'run', DURABLE, '--store', store], { encoding: 'utf8' });
    const id = /suspended: (\S+)/.exec(started.stderr)?.[1];
    assert.ok(id, started.stderr);
    // stop on line 5, in the replayed part: `v` holds the recorded reply
    const firstStop = dc.waitForEvent('stopped');
    await dc.hitBreakpoint({ program: DURABLE, resume: id, store }, { path: DURABLE, line: 5 });
    assert.match((await firstStop).body.description, /replaying the journal/);
    const frame = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
    const v = await dc.evaluateRequest({ expression: 'v.note', frameId: frame.id });
    assert.equal(v.body.result, 'mock');
    // then past `suspend;`: line 8 runs live and prints
    await dc.setBreakpointsRequest({ source: { path: DURABLE }, breakpoints: [{ line: 8 }] });
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.assertStoppedLocation('breakpoint', { path: DURABLE, line: 8 })]);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.assertOutput('stdout', 'resumed with mock'), dc.waitForEvent('terminated')]);
    const runs = spawnSync(process.execPath, [path.join(ROOT, 'bin/turn.js'), 'runs', '--store', store], { encoding: 'utf8' });
    assert.match(runs.stdout + runs.stderr, new RegExp(`${id}\\s+done`));
  });
});
