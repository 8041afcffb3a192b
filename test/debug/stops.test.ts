// The debugger's stops through the DAP test client: a breakpoint several actors hit, exception
// breakpoints, conditional breakpoints, hit counts, logpoints, and Stop in a loop without effects.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { STOP_LABEL_MAX } from '../../extension/debug/adapter.js';
import { FIX, adapterHooks } from './dap.js';

const THREE = path.join(FIX, 'three_actors.tn');
const ERRORS = path.join(FIX, 'errors.tn');
const COUNTING = path.join(FIX, 'counting.tn');
const LOOP = path.join(FIX, 'loop.tn');
const LONG_ERROR = path.join(FIX, 'long_error.tn');

/** Collects the adapter's output by category while `fn` runs. */
async function collecting<T>(dc: DebugClient, fn: () => Promise<T>): Promise<{ value: T; out: Record<string, string> }> {
  const out: Record<string, string> = {};
  const on = (e: DebugProtocol.OutputEvent) => (out[e.body.category ?? 'console'] = (out[e.body.category ?? 'console'] ?? '') + e.body.output);
  dc.on('output', on);
  try {
    return { value: await fn(), out };
  } finally {
    dc.removeListener('output', on);
  }
}

/** Launches `program`, with `configure` run between `initialized` and configurationDone (breakpoints, exception filters). */
async function launch(dc: DebugClient, program: string, configure: () => Promise<unknown> = async () => {}): Promise<void> {
  const initialized = dc.waitForEvent('initialized');
  const launched = dc.launch({ program });
  await initialized;
  await configure();
  await dc.configurationDoneRequest();
  await launched;
}

async function topFrame(dc: DebugClient, threadId: number): Promise<DebugProtocol.StackFrame> {
  return (await dc.stackTraceRequest({ threadId })).body.stackFrames[0];
}

async function localsOf(dc: DebugClient, frameId: number): Promise<DebugProtocol.Variable[]> {
  const scopes = (await dc.scopesRequest({ frameId })).body.scopes;
  return (await dc.variablesRequest({ variablesReference: scopes[0].variablesReference })).body.variables;
}

describe('a breakpoint in code three actors run', { timeout: 90_000 }, () => {
  let dc!: DebugClient;
  adapterHooks((c) => (dc = c));

  test('stops once in each actor, Continue runs every actor on, the run ends; threads are named by their function; locals listed once', async () => {
    const { out } = await collecting(dc, async () => {
      const first = dc.waitForEvent('stopped');
      await launch(dc, THREE, () => dc.setBreakpointsRequest({ source: { path: THREE }, breakpoints: [{ line: 3 }] }));
      let stopped = await first;
      const seen: number[] = [];
      for (;;) {
        assert.equal(stopped.body.reason, 'breakpoint');
        assert.equal(stopped.body.allThreadsStopped, true);
        const tid = stopped.body.threadId!;
        seen.push(tid);
        const frame = await topFrame(dc, tid);
        assert.equal(frame.line, 3);
        const names = (await localsOf(dc, frame.id)).map((v) => v.name);
        assert.deepEqual(names, [...new Set(names)], `each local once: ${names.join(', ')}`);
        assert.ok(names.includes('n'), names.join(', '));
        const threads = (await dc.threadsRequest()).body.threads;
        assert.match(threads.find((t) => t.id === tid)!.name, /^#\d+ square \(/);
        assert.match(threads.find((t) => t.id === 1)!.name, /^#1 main \(/);
        const next = Promise.race([dc.waitForEvent('stopped').then((e) => ({ e })), dc.waitForEvent('terminated').then(() => null)]);
        await dc.continueRequest({ threadId: tid });
        const r = await next;
        if (r === null) break;
        stopped = r.e;
        assert.ok(seen.length < 3, 'no actor stops twice on one visit');
      }
      assert.equal(seen.length, 3, `three stops: ${seen.join(', ')}`);
      assert.equal(new Set(seen).size, 3, 'one in each actor');
    });
    assert.match(out.stdout ?? '', /sum 14/);
  });
});

describe('exception breakpoints', { timeout: 90_000 }, () => {
  let dc!: DebugClient;
  adapterHooks((c) => (dc = c));

  test('"uncaught": stops at the failing line with its locals, before the run ends; exceptionInfo tells the error', async () => {
    const stopped = dc.waitForEvent('stopped');
    const { out } = await collecting(dc, async () => {
      await launch(dc, ERRORS, () => dc.setExceptionBreakpointsRequest({ filters: ['uncaught'] }));
      const e = (await stopped) as DebugProtocol.StoppedEvent;
      assert.equal(e.body.reason, 'exception');
      assert.match(e.body.text ?? '', /uncaught error: cannot apply \* to Null and Num/);
      const frame = await topFrame(dc, 1);
      assert.equal(frame.line, 15);
      const locals = await localsOf(dc, frame.id);
      assert.ok(locals.some((v) => v.name === 'table' && /tea/.test(v.value)), JSON.stringify(locals));
      assert.ok(locals.some((v) => v.name === 'handled' && v.value === '1'), JSON.stringify(locals));
      const info = await dc.exceptionInfoRequest({ threadId: 1 });
      assert.equal(info.body.breakMode, 'unhandled');
      assert.match(info.body.description ?? '', /cannot apply \*/);
      await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
    });
    assert.match(out.stderr ?? '', /errors\.tn:15:\d+: runtime error: cannot apply \*/);
    assert.doesNotMatch(out.stdout ?? '', /not reached/);
  });

  test('"all": also stops where a caught error is thrown; stepping from there goes to its catch (line 11)', async () => {
    const first = dc.waitForEvent('stopped');
    await launch(dc, ERRORS, () => dc.setExceptionBreakpointsRequest({ filters: ['all'] }));
    const e = (await first) as DebugProtocol.StoppedEvent;
    assert.equal(e.body.reason, 'exception');
    assert.match(e.body.description ?? '', /^error: too big: 5/);
    assert.match(e.body.text ?? '', /^error: too big: 5/);
    const stack = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames;
    assert.deepEqual(stack.map((f) => [f.name, f.line]), [['risky', 3], ['main', 10]]);
    assert.equal((await dc.exceptionInfoRequest({ threadId: 1 })).body.breakMode, 'always');
    await Promise.all([dc.nextRequest({ threadId: 1 }), dc.assertStoppedLocation('step', { path: ERRORS, line: 11 })]);
    const second = dc.waitForEvent('stopped');
    await dc.continueRequest({ threadId: 1 });
    assert.equal(((await second) as DebugProtocol.StoppedEvent).body.reason, 'exception');
    assert.equal((await topFrame(dc, 1)).line, 15);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  });

  test('a long error: the stop\'s description is a short label (the Call Stack shows it beside the thread\'s name), the whole message is its text', async () => {
    const stopped = dc.waitForEvent('stopped');
    await launch(dc, LONG_ERROR, () => dc.setExceptionBreakpointsRequest({ filters: ['uncaught'] }));
    const e = (await stopped) as DebugProtocol.StoppedEvent;
    assert.equal(e.body.reason, 'exception');
    assert.ok((e.body.description ?? '').length <= STOP_LABEL_MAX, e.body.description);
    assert.match(e.body.description ?? '', /^uncaught error: the ledger/);
    assert.match(e.body.text ?? '', /uncaught error: the ledger .* and the last entry was never written$/);
    const threads = (await dc.threadsRequest()).body.threads;
    assert.match(threads.find((t) => t.id === 1)!.name, /^#1 main \(\w+( on \w+)?\)$/);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  });

  test('no filter: the error ends the run without a stop', async () => {
    let stops = 0;
    const count = () => stops++;
    dc.on('stopped', count);
    try {
      const ended = dc.waitForEvent('terminated');
      await launch(dc, ERRORS, () => dc.setExceptionBreakpointsRequest({ filters: [] }));
      await ended;
    } finally {
      dc.removeListener('stopped', count);
    }
    assert.equal(stops, 0);
  });
});

describe('conditional breakpoints, hit counts and logpoints', { timeout: 90_000 }, () => {
  let dc!: DebugClient;
  adapterHooks((c) => (dc = c));

  async function launchWith(bp: DebugProtocol.SourceBreakpoint): Promise<{ stops: { i: string; total: string }[]; out: Record<string, string>; verified: boolean }> {
    const stops: { i: string; total: string }[] = [];
    let verified = false;
    const { out } = await collecting(dc, async () => {
      const ended = dc.waitForEvent('terminated');
      const onStop = (e: DebugProtocol.StoppedEvent) => {
        void (async () => {
          const frame = await topFrame(dc, e.body.threadId!);
          const i = (await dc.evaluateRequest({ expression: 'i', frameId: frame.id })).body.result;
          const total = (await dc.evaluateRequest({ expression: 'total', frameId: frame.id })).body.result;
          stops.push({ i, total });
          await dc.continueRequest({ threadId: e.body.threadId! });
        })();
      };
      dc.on('stopped', onStop);
      try {
        await launch(dc, COUNTING, async () => {
          const set = await dc.setBreakpointsRequest({ source: { path: COUNTING }, breakpoints: [bp] });
          verified = set.body.breakpoints[0].verified;
        });
        await ended;
      } finally {
        dc.removeListener('stopped', onStop);
      }
    });
    return { stops, out, verified };
  }

  test('a condition: stops only where it holds', async () => {
    const r = await launchWith({ line: 6, condition: 'i == 3 || (total >= 100 && !false)' });
    assert.deepEqual(r.stops, [{ i: '3', total: '3' }]);
    assert.match(r.out.stdout ?? '', /total 10/);
  });

  test('a hit count: from the 4th hit on', async () => {
    const r = await launchWith({ line: 6, hitCondition: '>= 4' });
    assert.deepEqual(r.stops.map((s) => s.i), ['3', '4']);
  });

  test('a hit count: every 2nd hit', async () => {
    const r = await launchWith({ line: 6, hitCondition: '% 2' });
    assert.deepEqual(r.stops.map((s) => s.i), ['1', '3']);
  });

  test('a logpoint: prints with its expressions evaluated, never stops', async () => {
    const r = await launchWith({ line: 6, logMessage: 'i={i} total={total}' });
    assert.deepEqual(r.stops, []);
    assert.equal(r.out.console?.match(/i=\d total=\d+/g)?.join(';'), 'i=0 total=0;i=1 total=0;i=2 total=1;i=3 total=3;i=4 total=6');
  });

  test('a condition the debugger cannot read is refused with the reason', async () => {
    const r = await launchWith({ line: 6, condition: 'i = 3' });
    assert.equal(r.verified, false);
    assert.deepEqual(r.stops, []);
  });
});

describe('Stop', { timeout: 60_000 }, () => {
  let dc!: DebugClient;
  adapterHooks((c) => (dc = c));

  test('ends a loop that performs no effect', async () => {
    await launch(dc, LOOP);
    // the loop runs: a pause stops it inside, which proves it is still going
    await Promise.all([dc.pauseRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
    assert.equal((await topFrame(dc, 1)).line, 5);
    await dc.continueRequest({ threadId: 1 });
    await Promise.all([dc.terminateRequest({}), dc.waitForEvent('terminated')]);
  });
});
