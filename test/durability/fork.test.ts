// What-if forks (runtime/durable/fork.ts): a new run sharing a stored run's past up to one model
// reply or effect result, with that value edited, continued by the one resume (runtime/run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EDITED_CONFIDENCE, forkRun, ForkRefused, openStore, resumeRun, startRun, stepValue, type RunStore } from '../../runtime/index.js';

// Two model calls and an effect between them; what comes after each depends on its value.
const PROGRAM = `
let t = call("now");
let a = infer Str { "first question"; };
let r = call("math_random");
let big = r > 2;
let b = infer Str { "second about " + a; };
call("echo", "a=" + a + " b=" + b);
return {"a": a, "b": b, "big": big};
`;

const SCRIPT = {
  replies: [
    { match: '^first', value: 'alpha', repeat: true },
    { match: '^second about alpha', value: 'from alpha', repeat: true },
    { match: '^second about EDITED', value: 'from the edit', repeat: true },
  ],
};

function workdir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-fork-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), PROGRAM);
  fs.writeFileSync(path.join(dir, 'replies.json'), JSON.stringify(SCRIPT));
  return dir;
}

/** Every column of every journal entry, bytes as hex: two dumps are equal when the journals are byte-identical. */
function dump(store: RunStore, id: string): string {
  const hex = (b: Uint8Array | null) => (b === null ? null : Buffer.from(b).toString('hex'));
  return JSON.stringify(store.readJournal(id).map((e) => ({ ...e, request: hex(e.request), payload: hex(e.payload) })));
}

async function original(dir: string, store: RunStore): Promise<{ id: string; lines: string[] }> {
  const lines: string[] = [];
  const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model: `script:${path.join(dir, 'replies.json')}`, store, onOutput: (l) => lines.push(l) });
  const result = await run.start();
  assert.equal(result.kind, 'done', JSON.stringify(result));
  return { id: run.id!, lines };
}

async function resume(dir: string, store: RunStore, id: string): Promise<{ json: unknown; lines: string[] }> {
  const lines: string[] = [];
  const run = await resumeRun({ runId: id, cwd: dir, store, onOutput: (l) => lines.push(l) });
  const result = await run.start();
  assert.equal(result.kind, 'done', JSON.stringify(result));
  return { json: result.kind === 'done' ? result.json : null, lines };
}

test('a fork at a model reply continues from the edited value; the original journal stays byte-identical', async () => {
  const dir = workdir();
  const store = openStore(path.join(dir, 'st'));
  try {
    const { id, lines } = await original(dir, store);
    assert.deepEqual(lines, ['a=alpha b=from alpha']);
    const before = dump(store, id);
    const first = store.readJournal(id).find((e) => e.kind === 'infer')!;
    assert.equal(stepValue(first), 'alpha');

    const forked = forkRun({ store, runId: id, step: first.seq, edit: { value: 'EDITED' } });
    assert.notEqual(forked.run.id, id);
    assert.equal(forked.run.status, 'suspended');
    assert.deepEqual(forked.run.meta.forkOf, { runId: id, step: first.seq, confidence: 1 });
    assert.deepEqual(forked.before, { status: 'ok', value: 'alpha' });
    assert.equal(forked.confidence, 1);
    assert.equal(forked.copied, first.seq - 1);

    const fork = await resume(dir, store, forked.run.id);
    assert.deepEqual(fork.json, { a: 'EDITED', b: 'from the edit', big: false });
    assert.deepEqual(fork.lines, ['a=EDITED b=from the edit'], 'the steps after the edit run live');
    assert.equal(dump(store, id), before, "the original run's journal is byte-identical");
    assert.equal(store.getRun(id)!.status, 'done');
    // the fork's journal: the edited reply at the same step, then its own later steps
    const journal = store.readJournal(forked.run.id);
    assert.equal(stepValue(journal.find((e) => e.seq === first.seq)!), 'EDITED');
    assert.ok(journal.every((e) => e.idempotencyKey === null || e.idempotencyKey.startsWith(`turn:${forked.run.id}:`)), 'keys belong to the new run');
    await assert.rejects(resumeRun({ runId: id, cwd: dir, store }), /already ended \(done\)/, 'the original is still done');
  } finally {
    store.close();
  }
});

test("a fork at an effect's result replays the model reply before it and asks the model only after it", async () => {
  const dir = workdir();
  const store = openStore(path.join(dir, 'st'));
  try {
    const { id } = await original(dir, store);
    const before = dump(store, id);
    const effect = store.readJournal(id).find((e) => e.kind === 'tool' && e.name === 'math_random')!;
    assert.equal(typeof stepValue(effect), 'number');

    const forked = forkRun({ store, runId: id, step: effect.seq, edit: { value: 7 } });
    const fork = await resume(dir, store, forked.run.id);
    assert.deepEqual(fork.json, { a: 'alpha', b: 'from alpha', big: true });
    assert.equal(dump(store, id), before);
    // the first reply came from the copied journal (status ok, same payload), the second was asked anew
    const [o, f] = [store.readJournal(id), store.readJournal(forked.run.id)];
    const infers = (j: typeof o) => j.filter((e) => e.kind === 'infer');
    assert.deepEqual(infers(f)[0].payload, infers(o)[0].payload);
    assert.ok(infers(f)[1].seq > effect.seq);
  } finally {
    store.close();
  }
});

test('a fork is refused at a step that is not a model reply or an effect, and at a step that does not exist', async () => {
  const dir = workdir();
  const store = openStore(path.join(dir, 'st'));
  try {
    const { id } = await original(dir, store);
    const runs = store.listRuns().length;
    assert.throws(() => forkRun({ store, runId: id, step: 999, edit: { value: 1 } }), (e) => e instanceof ForkRefused && /has no step 999/.test(e.message));
    const clock = store.readJournal(id).find((e) => e.kind === 'clock')!;
    assert.throws(() => forkRun({ store, runId: id, step: clock.seq, edit: { value: 1 } }), (e) => e instanceof ForkRefused && /a clock step/.test(e.message));
    assert.equal(store.listRuns().length, runs, 'a refused fork makes no run');
  } finally {
    store.close();
  }
});

test("an edited model reply is certain (confidence 1) unless the fork gives its confidence; a bad one, or one for an effect, is refused", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-fork-conf-'));
  fs.writeFileSync(path.join(dir, 'c.tn'), 'let r = call("math_random");\nlet a = infer Str { "question"; };\nreturn {"a": a, "c": confidence a};\n');
  fs.writeFileSync(path.join(dir, 'replies.json'), JSON.stringify({ replies: [{ match: '^question', value: 'model', confidence: 0.25, repeat: true }] }));
  const store = openStore(path.join(dir, 'st'));
  try {
    const run = await startRun({ file: path.join(dir, 'c.tn'), cwd: dir, model: `script:${path.join(dir, 'replies.json')}`, store });
    const result = await run.start();
    assert.equal(result.kind, 'done', JSON.stringify(result));
    assert.deepEqual(result.kind === 'done' ? result.json : null, { a: 'model', c: 0.25 });
    const id = run.id!;
    const reply = store.readJournal(id).find((e) => e.kind === 'infer')!;
    const effect = store.readJournal(id).find((e) => e.kind === 'tool')!;
    const forkedWith = async (edit: { value: unknown; confidence?: number }) => {
      const forked = forkRun({ store, runId: id, step: reply.seq, edit });
      return (await resume(dir, store, forked.run.id)).json;
    };
    assert.deepEqual(await forkedWith({ value: 'person' }), { a: 'person', c: EDITED_CONFIDENCE });
    assert.equal(EDITED_CONFIDENCE, 1);
    assert.deepEqual(await forkedWith({ value: 'guess', confidence: 0.3 }), { a: 'guess', c: 0.3 });
    const runs = store.listRuns().length;
    for (const bad of [1.5, -0.1, Number.NaN]) {
      assert.throws(() => forkRun({ store, runId: id, step: reply.seq, edit: { value: 'x', confidence: bad } }), (e) => e instanceof ForkRefused && /must be a number from 0 to 1/.test(e.message));
    }
    assert.throws(() => forkRun({ store, runId: id, step: effect.seq, edit: { value: 2, confidence: 0.5 } }), (e) => e instanceof ForkRefused && /only a model reply has a confidence/.test(e.message));
    assert.equal(store.listRuns().length, runs, 'a refused fork makes no run');
  } finally {
    store.close();
  }
});
