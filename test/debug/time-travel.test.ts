// Time travel in the debugger: Step Back and Reverse Continue re-execute the run from its start with
// the journal feeding every recorded result. Going back to a step and forward again meets exactly
// the states the run had on the way forward: here for a program with four actors, model calls
// (the mock model) and effects (a clock, random numbers, output).
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';

const ROOT = path.resolve(__dirname, '../..');
const ADAPTER = path.join(ROOT, 'extension/debug/adapter-main.ts');
const TRAVEL = path.join(__dirname, 'fixtures', 'travel.tn');
// every line of the worker's body and of main's, so Continue stops at each line any actor runs
const LINES = [4, 5, 6, 7, 8, 9, 10, 14, 15, 16, 17, 18, 19, 20];
const LAST = { thread: 1, line: 20 };

type Stop = DebugProtocol.StoppedEvent & { body: { turnStep: number } };

/** Everything the debugger shows at a stop: threads, every actor's stack, locals, memory and context. */
async function snapshot(dc: DebugClient): Promise<string> {
  const threads = (await dc.threadsRequest()).body.threads;
  const out: unknown[] = [];
  for (const t of threads) {
    const frames = (await dc.stackTraceRequest({ threadId: t.id })).body.stackFrames;
    const top = frames[0];
    let scopes: unknown = null;
    if (top) {
      const all = (await dc.scopesRequest({ frameId: top.id })).body.scopes;
      scopes = await Promise.all(
        all.map(async (s) => [s.name, (await dc.variablesRequest({ variablesReference: s.variablesReference })).body.variables.map((v) => [v.name, v.value])]),
      );
    }
    out.push({ thread: t.name, frames: frames.map((f) => [f.name, f.line, f.column]), scopes });
  }
  return JSON.stringify(out, null, 1);
}

describe('time travel', { timeout: 240_000 }, () => {
  let dc!: DebugClient;
  before(async () => {
    dc = new DebugClient(process.execPath, ADAPTER, 'turn', { env: { ...process.env, NODE_OPTIONS: '--import tsx' }, cwd: ROOT });
    dc.defaultTimeout = 30_000;
    await dc.start();
  });
  after(async () => {
    await dc.stop();
  });

  test('reverse continue and step back reach the states recorded on the way forward, and forward again meets them too', async () => {
    const printed: string[] = [];
    const onOutput = (e: DebugProtocol.OutputEvent) => e.body.category === 'stdout' && printed.push(e.body.output);
    dc.on('output', onOutput);
    const initialized = dc.waitForEvent('initialized');
    const firstStop = dc.waitForEvent('stopped');
    const launched = dc.launch({ program: TRAVEL, model: 'mock' });
    await initialized;
    await dc.setBreakpointsRequest({ source: { path: TRAVEL }, breakpoints: LINES.map((line) => ({ line })) });
    await dc.configurationDoneRequest();
    await launched;

    // forward: record the state at every stop, by the step it stands on
    const recorded = new Map<number, string>();
    const order: number[] = [];
    let stop = (await firstStop) as Stop;
    const threadsSeen = new Set<number>();
    for (;;) {
      assert.equal(stop.body.reason, 'breakpoint');
      recorded.set(stop.body.turnStep, await snapshot(dc));
      order.push(stop.body.turnStep);
      threadsSeen.add(stop.body.threadId!);
      const top = (await dc.stackTraceRequest({ threadId: stop.body.threadId! })).body.stackFrames[0];
      if (stop.body.threadId === LAST.thread && top.line === LAST.line) break;
      const [, next] = await Promise.all([dc.continueRequest({ threadId: stop.body.threadId! }), dc.waitForEvent('stopped')]);
      stop = next as Stop;
    }
    assert.ok(threadsSeen.size === 4, `main and three workers stopped: ${[...threadsSeen].join(', ')}`);
    assert.deepEqual((await dc.threadsRequest()).body.threads.map((t) => t.name.replace(/ \(.*$/, '')), ['#1 main', '#2 worker', '#3 worker', '#4 worker'], 'named by their function, also once they ended');
    assert.ok(order.length > 20, `${order.length} stops`);
    assert.deepEqual(order, [...order].sort((a, b) => a - b), 'steps grow');

    // back: each Reverse Continue lands on the previous stop, in the state it had
    const back = Math.min(order.length - 1, 12);
    for (let i = order.length - 2; i >= order.length - 1 - back; i--) {
      const [, ev] = await Promise.all([dc.reverseContinueRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
      const s = ev as Stop;
      assert.equal(s.body.turnStep, order[i], `back to step ${order[i]}`);
      assert.equal(s.body.reason, 'breakpoint');
      assert.match(s.body.text ?? '', /re-executed from its start with the journal's recorded results/);
      assert.equal(await snapshot(dc), recorded.get(order[i]), `the state at step ${order[i]}, stepped back`);
    }

    // forward again from there: the same stops, the same states
    let at = order.length - 1 - back;
    while (at < order.length - 1) {
      const [, ev] = await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
      at++;
      const s = ev as Stop;
      assert.equal(s.body.turnStep, order[at]);
      assert.equal(await snapshot(dc), recorded.get(order[at]), `the state at step ${order[at]}, forward again`);
    }

    // Step Back on main: to main's previous line, in the state it had there
    const [, sb] = await Promise.all([dc.stepBackRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
    const stepped = sb as Stop;
    assert.equal(stepped.body.reason, 'step');
    assert.equal(stepped.body.threadId, 1);
    assert.ok(stepped.body.turnStep < order[order.length - 1]);
    const line = (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0].line;
    assert.equal(line, 19, 'main stood on line 19 before line 20');
    assert.equal(await snapshot(dc), recorded.get(stepped.body.turnStep), 'the state main had on line 19');

    // to the start: no breakpoint before the first stop
    for (let i = 0; i < order.length + 1; i++) {
      const [, ev] = await Promise.all([dc.reverseContinueRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
      if ((ev as Stop).body.reason === 'entry') break;
    }
    assert.equal((await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0].line, 3, 'the first line the program runs (`let worker = ...`)');

    // the actors keep their names, also the ones that ended
    const names = (await dc.threadsRequest()).body.threads.map((t) => t.name.replace(/ \(.*$/, ''));
    assert.deepEqual(names, ['#1 main']);
    // and on to the end: the run finishes; what the program printed was printed once, however often the run went back
    await dc.setBreakpointsRequest({ source: { path: TRAVEL }, breakpoints: [] });
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
    dc.removeListener('output', onOutput);
    assert.deepEqual(printed.join('').split('\n').filter(Boolean).sort(), ['results 10 20 30', 'worker 1 mock', 'worker 2 mock', 'worker 3 mock']);
  });

  test('a stop does not change the order actors run in: the replay meets the same interleaving', async () => {
    const INTERLEAVE = path.join(__dirname, 'fixtures', 'interleave.tn');
    const initialized = dc.waitForEvent('initialized');
    const firstStop = dc.waitForEvent('stopped');
    const launched = dc.launch({ program: INTERLEAVE });
    await initialized;
    // once, in the middle of worker "a"'s loop; and where main has heard from all three
    await dc.setBreakpointsRequest({ source: { path: INTERLEAVE }, breakpoints: [{ line: 5, hitCondition: '== 50' }, { line: 21 }] });
    await dc.configurationDoneRequest();
    await launched;
    const inLoop = (await firstStop) as Stop;
    const a = inLoop.body.threadId!;
    assert.equal((await dc.evaluateRequest({ expression: 'tag', frameId: (await dc.stackTraceRequest({ threadId: a })).body.stackFrames[0].id })).body.result, 'a');
    const [, end] = await Promise.all([dc.continueRequest({ threadId: a }), dc.waitForEvent('stopped')]);
    const atEnd = await snapshot(dc);
    const order = (await dc.evaluateRequest({ expression: 'order', frameId: (await dc.stackTraceRequest({ threadId: 1 })).body.stackFrames[0].id })).body.result;
    assert.equal(order, 'abc', 'the stopped worker finished its slice first, as it would have without the stop');
    // back to the stop in the loop, then forward: the replay passes that stop's step without stopping, and ends the same
    const [, back] = await Promise.all([dc.reverseContinueRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
    assert.equal((back as Stop).body.turnStep, inLoop.body.turnStep);
    const [, again] = await Promise.all([dc.continueRequest({ threadId: a }), dc.waitForEvent('stopped')]);
    assert.equal((again as Stop).body.turnStep, (end as Stop).body.turnStep);
    assert.equal(await snapshot(dc), atEnd);
    await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('terminated')]);
  });
});
