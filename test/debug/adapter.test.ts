// The Turn debug adapter through the DAP test client (@vscode/debugadapter-testsupport): the
// adapter runs as its own process (extension/debug/adapter-main.ts through tsx), as VS Code would
// run dist/debug-adapter.js.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import { FIX, ROOT, adapterHooks } from './dap.js';

const DEBUG_ME = path.join(FIX, 'debug_me.tn');
const ACTORS = path.join(FIX, 'actors.tn');

describe('Turn debug adapter', { timeout: 60_000 }, () => {
  let dc!: DebugClient;
  adapterHooks((c) => (dc = c));

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
    // wait for the event together with the request: the adapter may send `stopped` in the same
    // chunk as the response, before an `await`ed request would let the wait begin
    const [, out] = await Promise.all([dc.stepOutRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
    assert.equal(out.body.reason, 'step');
    const top = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    assert.equal(top.length, 1);
    assert.ok(top[0].line === 9 || top[0].line === 10, `line ${top[0].line}`);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  });
});

describe('Turn debug adapter: actors as threads, memory and context scopes', { timeout: 60_000 }, () => {
  let dc!: DebugClient;
  adapterHooks((c) => (dc = c));

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
    await Promise.all([dc.nextRequest({ threadId: stopped.id }), dc.assertStoppedLocation('step', { path: ACTORS, line: 4 })]);
    const f2 = (await dc.stackTraceRequest({ threadId: stopped.id })).body.stackFrames[0];
    const scopes = (await dc.scopesRequest({ frameId: f2.id })).body.scopes;
    const memory = await dc.variablesRequest({ variablesReference: scopes[2].variablesReference });
    assert.ok(memory.body.variables.some((v) => v.name === 'squared'), JSON.stringify(memory.body.variables));
    const main = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
    const ctx = await dc.variablesRequest({ variablesReference: (await dc.scopesRequest({ frameId: main.id })).body.scopes[1].variablesReference });
    assert.match(ctx.body.variables[0].value, /1 entries, \d+ tokens/);
    await Promise.all([dc.continueRequest({ threadId: stopped.id }), dc.waitForEvent('terminated')]);
  });
});

describe('Turn debug adapter: pause, step in, stop on entry', { timeout: 60_000 }, () => {
  let dc!: DebugClient;
  adapterHooks((c) => (dc = c));

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

describe('Turn debug adapter: values as trees', { timeout: 60_000 }, () => {
  let dc!: DebugClient;
  adapterHooks((c) => (dc = c));

  test('a struct by its type with its fields, a 250-item list in ranges of 100, a string of two lines expanded whole', async () => {
    const TREES = path.join(FIX, 'trees.tn');
    await dc.hitBreakpoint({ program: TREES }, { path: TREES, line: 8 });
    const frame = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
    const scopes = (await dc.scopesRequest({ frameId: frame.id })).body.scopes;
    const locals = (await dc.variablesRequest({ variablesReference: scopes[0].variablesReference })).body.variables;
    const get = (name: string) => locals.find((v) => v.name === name)!;
    const under = async (ref: number) => (await dc.variablesRequest({ variablesReference: ref })).body.variables;
    assert.equal(get('plan').type, 'Plan');
    assert.match(get('plan').value, /^Plan \{ title: "trip"/);
    assert.deepEqual((await under(get('plan').variablesReference)).map((v) => v.name), ['title', 'steps']);
    const ranges = await under(get('xs').variablesReference);
    assert.deepEqual(ranges.map((v) => v.name), ['[0…99]', '[100…199]', '[200…249]']);
    const last = await under(ranges[2].variablesReference);
    assert.deepEqual([last.length, last[0].name, last[0].value], [50, '[200]', '200']);
    assert.deepEqual((await under(get('note').variablesReference)).map((v) => v.value), ['line one', 'line two']);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  });
});

describe('Turn debug adapter: stops while waiting on a model reply', { timeout: 60_000 }, () => {
  let dc!: DebugClient;
  adapterHooks((c) => (dc = c));

  test('stopOnEffects: the stop reason says the process waits on a model reply; pause; evaluate context', async () => {
    const INFER = path.join(FIX, 'infer.tn');
    const [stopped] = await Promise.all([
      dc.waitForEvent('stopped'),
      dc.configurationSequence(),
      dc.launch({ program: INFER, stopOnEffects: true }),
    ]);
    assert.equal(stopped.body.reason, 'model reply');
    assert.match(stopped.body.description, /^waiting on a model reply/);
    assert.match(stopped.body.text, /infer Verdict/);
    const frame = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
    assert.equal(frame.line, 5);
    const ctx = await dc.evaluateRequest({ expression: 'context.P0', frameId: frame.id });
    assert.match(ctx.body.result, /Judge briefly/);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  });
});

describe('Turn debug adapter: resume a suspended durable run', { timeout: 60_000 }, () => {
  let dc!: DebugClient;
  adapterHooks((c) => (dc = c));

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
    assert.match((await firstStop).body.text, /replaying the journal/);
    const frame = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0];
    const v = await dc.evaluateRequest({ expression: 'v.note', frameId: frame.id });
    assert.equal(v.body.result, 'mock (confidence 0.9)', 'an inferred value shows its confidence');
    // then past `suspend;`: line 8 runs live and prints
    await dc.setBreakpointsRequest({ source: { path: DURABLE }, breakpoints: [{ line: 8 }] });
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.assertStoppedLocation('breakpoint', { path: DURABLE, line: 8 })]);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.assertOutput('stdout', 'resumed with mock'), dc.waitForEvent('terminated')]);
    const runs = spawnSync(process.execPath, [path.join(ROOT, 'bin/turn.js'), 'runs', '--store', store], { encoding: 'utf8' });
    assert.match(runs.stdout + runs.stderr, new RegExp(`${id}\\s+done`));
  });
});

// The debugger runs programs through the same run API as `turn run` (runtime/run): the same
// budget, the same capabilities, the same resume. Each test here failed before they shared it.
describe('Turn debug adapter: the same host and resume as the CLI', { timeout: 90_000 }, () => {
  let dc!: DebugClient;
  adapterHooks((c) => (dc = c));

  /** Runs a launch configuration to its end; returns what it printed on stdout and stderr. */
  async function runToEnd(config: Record<string, unknown>): Promise<{ stdout: string; stderr: string; exitCode: number | undefined }> {
    let stdout = '';
    let stderr = '';
    let exitCode: number | undefined;
    const onOutput = (e: { body: { category?: string; output: string } }) => {
      if (e.body.category === 'stdout') stdout += e.body.output;
      if (e.body.category === 'stderr') stderr += e.body.output;
    };
    const onExited = (e: { body: { exitCode: number } }) => (exitCode = e.body.exitCode);
    dc.on('output', onOutput);
    dc.on('exited', onExited);
    try {
      await Promise.all([dc.configurationSequence(), dc.launch(config as never), dc.waitForEvent('terminated')]);
    } finally {
      dc.removeListener('output', onOutput);
      dc.removeListener('exited', onExited);
    }
    return { stdout, stderr, exitCode };
  }

  test('the model-call budget (turn.run.maxModelCalls / --max-model-calls) holds under the debugger', async () => {
    const program = path.join(FIX, 'budget.tn');
    const limited = await runToEnd({ program, authority: { maxModelCalls: 1 } });
    assert.match(limited.stderr, /budget.tn:2:\d+: runtime error: .*model call budget is exhausted \(1 of 1 calls used\)/);
    assert.doesNotMatch(limited.stdout, /both answered/);
    assert.equal(limited.exitCode, 1);
    const free = await runToEnd({ program });
    assert.match(free.stdout, /both answered/);
  });

  test('allowRead and allowWrite (turn.run.allowRead/allowWrite) reach the run', async () => {
    const { mkdtempSync, mkdirSync, writeFileSync, readFileSync, copyFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'turn-dbg-caps-'));
    mkdirSync(path.join(dir, 'data'));
    mkdirSync(path.join(dir, 'out'));
    writeFileSync(path.join(dir, 'data', 'in.txt'), 'hello');
    copyFileSync(path.join(FIX, 'reads.tn'), path.join(dir, 'reads.tn'));
    const program = path.join(dir, 'reads.tn');
    const denied = await runToEnd({ program, cwd: dir });
    assert.match(denied.stderr, /runtime error: .*(not allowed|denied|no files capability|read)/i);
    assert.doesNotMatch(denied.stdout, /read: hello/);
    const granted = await runToEnd({ program, cwd: dir, authority: { allowRead: [path.join(dir, 'data')], allowWrite: [path.join(dir, 'out')] } });
    assert.equal(granted.stderr, '');
    assert.match(granted.stdout, /read: hello\nwrote/);
    assert.equal(readFileSync(path.join(dir, 'out', 'copy.txt'), 'utf8'), 'copied');
  });

  test('a run settled with `turn resolve --retry` resumes under the debugger', async () => {
    const { spawn, spawnSync } = await import('node:child_process');
    const { mkdtempSync, mkdirSync, copyFileSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(path.join(tmpdir(), 'turn-dbg-retry-'));
    mkdirSync(path.join(dir, 'out'));
    copyFileSync(path.join(FIX, 'append.tn'), path.join(dir, 'p.tn'));
    const turn = (args: string[], env: Record<string, string> = {}) =>
      spawnSync(process.execPath, [path.join(ROOT, 'bin/turn.js'), ...args], { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env } });
    // killed right after the append's intent was journaled: its outcome is unknown, and it is not idempotent
    const killed = await new Promise<{ stderr: string; signal: string | null }>((resolve) => {
      const child = spawn(process.execPath, [path.join(ROOT, 'bin/turn.js'), 'run', 'p.tn', '--store', 'st', '--allow-write', 'out', '--allow-read', 'out'], {
        cwd: dir, env: { ...process.env, TURN_CRASH_AT: '1:after' },
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('close', (_code, signal) => resolve({ stderr, signal }));
    });
    assert.equal(killed.signal, 'SIGKILL', killed.stderr);
    const id = /run (\S+) \(store/.exec(killed.stderr)![1];
    const waiting = turn(['resume', id, '--store', 'st']);
    assert.equal(waiting.status, 3, waiting.stderr);
    const step = /unknown: step (\d+)/.exec(waiting.stderr)![1];
    assert.equal(turn(['resolve', id, step, '--retry', '--store', 'st']).status, 0);
    // the recorded grants come back with the run: the launch configuration names none
    const resumed = await runToEnd({ program: path.join(dir, 'p.tn'), resume: id, store: path.join(dir, 'st'), cwd: dir });
    assert.equal(resumed.stderr, '');
    assert.match(resumed.stdout, /appended/);
    assert.equal(resumed.exitCode, 0);
    assert.equal(readFileSync(path.join(dir, 'out', 'log.txt'), 'utf8'), 'A', 'the retried append ran once');
    assert.match(turn(['runs', '--store', 'st']).stdout, new RegExp(`${id}\\s+done`));
  });
});
