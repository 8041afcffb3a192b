// The run panel's what-if, journal and scrubber, extension-host side (extension/panel/whatif.ts,
// scrub.ts) against a real store, and the protocol messages that carry them.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { FORK_DEFAULT_CONFIDENCE, isHostMessage, isWebviewMessage, missingCredential, type JournalStepView } from '../../extension/protocol/panel.js';
import { parseConfidence } from '../../extension/panel/webview/values.js';
import { EditRefused, journalForm, journalSteps, onOriginalClock, runWhatIf, withStore } from '../../extension/panel/whatif.js';
import { scrubAt } from '../../extension/panel/scrub.js';
import { SharedStores } from '../../extension/runs/shared-store.js';
import { EDITED_CONFIDENCE, startRun, type RunStore } from '../../runtime/index.js';

const PROGRAM = `
let worker = turn(topic: Str) -> Str {
    context.append("Topic: " + topic);
    remember("topic", topic);
    let n = call("math_random");
    return infer Str { "Summarise " + topic; };
};

turn {
    context.system("You plan.");
    let topics = infer List<Str> { "Plan topics"; };
    call("echo", "topics: " + call("len", topics));
    let kids = spawn_each(topics, worker);
    let out = gather kids;
    return out;
}
`;

const SCRIPT = {
  replies: [
    { match: '^Plan topics', value: ['a', 'b'], repeat: true },
    { match: '^Summarise', value: 'summary', repeat: true },
  ],
};

async function stored(): Promise<{ dir: string; storeDir: string; runId: string; model: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-whatif-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), PROGRAM);
  fs.writeFileSync(path.join(dir, 'replies.json'), JSON.stringify(SCRIPT));
  const model = `script:${path.join(dir, 'replies.json')}`;
  const storeDir = path.join(dir, '.turn');
  const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model, store: storeDir });
  const r = await run.start();
  assert.equal(r.kind, 'done', JSON.stringify(r));
  return { dir, storeDir, runId: run.id!, model };
}

const dump = (store: RunStore, id: string) => JSON.stringify(store.readJournal(id).map((e) => ({ ...e, request: e.request && Buffer.from(e.request).toString('hex'), payload: e.payload && Buffer.from(e.payload).toString('hex') })));

describe('what-if from the panel', () => {
  test('the journal view marks model replies and effect results as forkable, with their values', async () => {
    const s = await stored();
    const stores = new SharedStores();
    const steps = await withStore(s.storeDir, (store) => journalSteps(store, s.runId), stores);
    const plan = steps.find((x) => x.kind === 'infer')!;
    assert.equal(plan.value, '["a","b"]');
    assert.ok(plan.forkable);
    assert.ok(steps.some((x) => x.kind === 'tool' && x.name === 'math_random' && x.forkable));
    assert.ok(steps.filter((x) => x.kind === 'schedule').every((x) => !x.forkable));
    assert.ok(steps.every((x) => x.at >= 0 && (x.doneAt === null || x.doneAt >= x.at)));
    assert.equal(stores.holds(s.storeDir), false, 'the store is let go after the read');
  });

  test('each effect step carries the grant that allowed it (issue 26, point 6)', async () => {
    const s = await stored();
    const steps = await withStore(s.storeDir, (store) => journalSteps(store, s.runId), new SharedStores());
    assert.equal(steps.find((x) => x.kind === 'tool' && x.name === 'math_random')?.grant, 'random random numbers (every run)');
    assert.equal(steps.find((x) => x.kind === 'infer')?.grant, 'model no budget (every run)');
    assert.ok(steps.filter((x) => x.kind === 'schedule').every((x) => x.grant === undefined), 'an observation has none');
  });

  test('a fork at the plan reply runs with the edited value; both sides come back; the original is untouched', async () => {
    const s = await stored();
    const stores = new SharedStores();
    const before = await withStore(s.storeDir, (store) => dump(store, s.runId), stores);
    const plan = (await withStore(s.storeDir, (store) => journalSteps(store, s.runId), stores)).find((x) => x.kind === 'infer')!;
    let changed = 0;
    stores.onChange(() => changed++);
    const view = await runWhatIf({ storeDir: s.storeDir, runId: s.runId, step: plan.seq, value: '["only"]', options: { cwd: s.dir, model: s.model }, originalOutput: ['topics: 2'], stores });
    assert.equal(view.step, plan.seq);
    assert.equal(view.before, '["a","b"]');
    assert.equal(view.after, '["only"]');
    assert.equal(view.confidence, FORK_DEFAULT_CONFIDENCE, 'an edited reply is certain unless the form says otherwise');
    assert.equal(view.original.status, 'done');
    assert.equal(view.original.result, '["summary", "summary"]');
    assert.deepEqual(view.original.output, ['topics: 2']);
    assert.equal(view.fork.status, 'done');
    assert.equal(view.fork.result, '["summary"]');
    assert.deepEqual(view.fork.output, ['topics: 1'], 'the fork printed what came after the edit');
    assert.notEqual(view.fork.runId, view.original.runId);
    assert.equal(view.fork.journal.find((x) => x.seq === plan.seq)!.value, '["only"]');
    assert.ok(view.fork.journal.filter((x) => x.kind === 'tool').length === 1, 'one worker, one effect');
    assert.equal(await withStore(s.storeDir, (store) => dump(store, s.runId), stores), before, "the original's journal is byte-identical");
    assert.equal(changed, 1, 'the Runs view hears of the new run');
    assert.equal(stores.holds(s.storeDir), false);
  });

  test("the fork form's confidence reaches the journal; the form's default is the runtime's", async () => {
    assert.equal(FORK_DEFAULT_CONFIDENCE, EDITED_CONFIDENCE);
    const s = await stored();
    const stores = new SharedStores();
    const plan = (await withStore(s.storeDir, (store) => journalSteps(store, s.runId), stores)).find((x) => x.kind === 'infer')!;
    const view = await runWhatIf({ storeDir: s.storeDir, runId: s.runId, step: plan.seq, value: '["only"]', confidence: 0.2, options: { cwd: s.dir, model: s.model }, stores });
    assert.equal(view.confidence, 0.2);
    const reply = await withStore(s.storeDir, (store) => store.readJournal(view.fork.runId).find((e) => e.seq === plan.seq)!, stores);
    assert.deepEqual(JSON.parse(Buffer.from(reply.payload!).toString('utf8')), { value: ['only'], confidence: 0.2 });
    assert.deepEqual([parseConfidence(''), parseConfidence('0.4'), parseConfidence('1.2'), parseConfidence('x')], [undefined, 0.4, null, null]);
  });

  test('a refused fork (a step that is not a reply or result) leaves no run behind and says why', async () => {
    const s = await stored();
    const stores = new SharedStores();
    const other = (await withStore(s.storeDir, (store) => journalSteps(store, s.runId), stores)).find((x) => !x.forkable)!;
    await assert.rejects(runWhatIf({ storeDir: s.storeDir, runId: s.runId, step: other.seq, value: '1', options: { cwd: s.dir, model: s.model }, stores }), /a fork edits a model reply/);
    assert.equal(await withStore(s.storeDir, (store) => store.listRuns().length, stores), 1);
  });

  test('the fork is drawn on the original clock: copied steps keep their times, later ones follow the edit', () => {
    const st = (seq: number, at: number, doneAt: number | null): JournalStepView => ({ seq, kind: 'infer', name: 'S', pid: 1, status: 'ok', value: '1', at, doneAt, forkable: true });
    const original = [st(1, 0, 100), st(2, 100, 200), st(3, 200, 300)];
    const fork = [st(1, 0, 1), st(2, 1, 2), st(3, 50, 90)];
    assert.deepEqual(onOriginalClock(fork, original, 2).map((x) => [x.at, x.doneAt]), [[0, 100], [100, 200], [248, 288]]);
  });

  test('the journal comes with the schema of each model reply\'s type, from the bytecode the run started with', async () => {
    const s = await stored();
    const { steps, schemas } = await withStore(s.storeDir, (store) => journalForm(store, s.runId), new SharedStores());
    assert.ok(steps.some((x) => x.kind === 'infer' && x.name === 'List<Str>'));
    assert.deepEqual(Object.keys(schemas).sort(), ['List<Str>', 'Str', 'tool:math_random']);
    assert.deepEqual(schemas['tool:math_random'], { type: 'number' });
    assert.deepEqual({ ...schemas['List<Str>'], $schema: undefined }, { $schema: undefined, type: 'array', items: { type: 'string' } });
  });

  test('an ill-typed edit of a model reply is refused before any fork, at its field; a well-typed one forks and the view names what changed', async () => {
    const s = await stored();
    const stores = new SharedStores();
    const plan = (await withStore(s.storeDir, (store) => journalSteps(store, s.runId), stores)).find((x) => x.kind === 'infer')!;
    const attempt = (value: string) => runWhatIf({ storeDir: s.storeDir, runId: s.runId, step: plan.seq, value, options: { cwd: s.dir, model: s.model }, stores });
    await assert.rejects(attempt('["a", 2]'), (e: unknown) => e instanceof EditRefused && /step \d+ is not a List<Str>: \/1: /.test(e.message) && e.issues[0].path === '/1');
    await assert.rejects(attempt('"just text"'), /is not a List<Str>/);
    await assert.rejects(attempt('not json'), /is not a List<Str>: \/: is not JSON/);
    assert.equal(await withStore(s.storeDir, (store) => store.listRuns().length, stores), 1, 'no fork was made');
    const view = await attempt('["a", "c"]');
    assert.deepEqual(view.changes, ['1: "b" → "c"']);
    assert.equal(view.fork.status, 'done');
  });

  test("an effect's result is checked against its tool's result type (math_random: a Num)", async () => {
    const s = await stored();
    const stores = new SharedStores();
    const tool = (await withStore(s.storeDir, (store) => journalSteps(store, s.runId), stores)).find((x) => x.kind === 'tool' && x.name === 'math_random')!;
    const attempt = (value: string) => runWhatIf({ storeDir: s.storeDir, runId: s.runId, step: tool.seq, value, options: { cwd: s.dir, model: s.model }, stores });
    await assert.rejects(attempt('0.5 and more'), /is not a result of math_random: \/: is not JSON/);
    await assert.rejects(attempt('"0.5"'), /is not a result of math_random: \/: /);
    const view = await attempt('0.25');
    assert.equal(view.changes?.length, 1);
    assert.match(view.changes[0], /^the value: .* → 0\.25$/);
  });
});

describe('the scrubber', () => {
  test("every process's state, tiers and memory at a step, from the travel API", async () => {
    const s = await stored();
    const stores = new SharedStores();
    const steps = await withStore(s.storeDir, (store) => journalSteps(store, s.runId), stores);
    const first = await scrubAt({ storeDir: s.storeDir, runId: s.runId, step: 0, stores });
    assert.equal(first.step, 0);
    assert.equal(first.steps, steps[steps.length - 1].seq);
    assert.deepEqual(first.actors.map((a) => a.pid), [1], 'before the plan only main exists');
    assert.equal(first.actors[0].context.P0[0].text, 'You plan.');
    const tool = steps.find((x) => x.kind === 'tool')!;
    const later = await scrubAt({ storeDir: s.storeDir, runId: s.runId, step: tool.seq, names: new Map([[2, 'worker']]), stores });
    assert.equal(later.asked, tool.seq);
    assert.ok(later.step <= tool.seq);
    const worker = later.actors.find((a) => a.pid === tool.pid)!;
    assert.ok(worker, 'the worker exists at its effect');
    assert.deepEqual(worker.memory.map((m) => m.key), ['topic']);
    assert.match(worker.context.P1[0].text, /^Topic: /);
    assert.deepEqual(later.output, ['topics: 2']);
    assert.equal(stores.holds(s.storeDir), false);
  });
});

describe('protocol', () => {
  test('what-if, journal, scrub and notice messages validate; commands are limited to the list', () => {
    const side = { runId: 'r', status: 'done', output: [], result: null, error: null, journal: [] };
    assert.ok(isHostMessage({ type: 'whatif', v: 1, view: { step: 1, before: '1', after: '2', confidence: null, original: side, fork: side } }));
    assert.ok(isHostMessage({ type: 'journal', v: 1, runId: 'r', steps: [{ seq: 1, kind: 'infer', name: 'S', pid: 1, status: 'ok', value: '1', at: 0, doneAt: 1, forkable: true }] }));
    assert.ok(isHostMessage({ type: 'scrub', v: 1, view: { runId: 'r', asked: 0, step: 0, steps: 3, actors: [], output: [] } }));
    assert.ok(isHostMessage({ type: 'notice', v: 1, message: 'no' }));
    assert.equal(isHostMessage({ type: 'journal', v: 1, runId: 'r', steps: [{ seq: 1 }] }), false);
    // typed edits: the journal's schemas (type name → schema object) and the fork's changed fields
    assert.ok(isHostMessage({ type: 'journal', v: 1, runId: 'r', steps: [], schemas: { Triage: { type: 'object' } } }));
    assert.equal(isHostMessage({ type: 'journal', v: 1, runId: 'r', steps: [], schemas: { Triage: 'object' } }), false);
    assert.equal(isHostMessage({ type: 'journal', v: 1, runId: 'r', steps: [], schemas: [] }), false);
    assert.ok(isHostMessage({ type: 'whatif', v: 1, view: { step: 1, before: '1', after: '2', confidence: null, changes: ['the value: 1 → 2'], original: side, fork: side } }));
    assert.equal(isHostMessage({ type: 'whatif', v: 1, view: { step: 1, before: '1', after: '2', confidence: null, changes: [2], original: side, fork: side } }), false);
    assert.ok(isWebviewMessage({ type: 'fork', v: 1, runId: 'r', step: 2, value: '"x"' }));
    assert.ok(isWebviewMessage({ type: 'fork', v: 1, runId: 'r', step: 2, value: '"x"', confidence: 0.5 }));
    assert.equal(isWebviewMessage({ type: 'fork', v: 1, runId: 'r', step: 2, value: '"x"', confidence: 2 }), false);
    assert.ok(isWebviewMessage({ type: 'scrub', v: 1, runId: 'r', step: 0 }));
    assert.ok(isWebviewMessage({ type: 'command', v: 1, command: 'turn.vault.add' }));
    for (const m of [{ type: 'fork', v: 1, runId: 'r', step: 0, value: '1' }, { type: 'fork', v: 1, runId: 'r', step: 1 }, { type: 'scrub', v: 1, runId: 'r', step: -1 },
      { type: 'command', v: 1, command: 'workbench.action.terminal.new' }]) assert.equal(isWebviewMessage(m), false, JSON.stringify(m));
  });

  test('a missing credential is recognised in a run error', () => {
    assert.equal(missingCredential('the secret "github" for bearer identity github is not set (set TURN_SECRET_GITHUB or add it to the --secrets file)'), 'github');
    assert.equal(missingCredential('network access to x is not granted'), null);
    // An absorbed client's error arrives as a rendered EffectError value: its quotes are escaped
    // (examples/investment_committee.tn without TURN_SECRET_MARKET said so, and no button showed).
    const rendered = 'uncaught error: {"type": "EffectError", "tool": "http_request", "message": "the secret \\"market\\" for identity::bearer(\\"market\\") is not set (set TURN_SECRET_MARKET or add it to the --secrets file)", "line": 58}';
    assert.equal(missingCredential(rendered), 'market');
    // A name the vault would refuse is not offered; the words on another line do not join up.
    assert.equal(missingCredential('the secret "a b" for x is not set'), null);
    assert.equal(missingCredential('the secret "github" is fine\nthe rest is not set'), null);
    // Hostile length: scanned, linear, and only the head of the message is read.
    assert.equal(missingCredential('the secret "' + 'x'.repeat(1_000_000)), null);
  });
});
