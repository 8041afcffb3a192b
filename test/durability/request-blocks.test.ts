// Model requests journaled as references to content-addressed blocks (issue 45,
// runtime/durable/request-blocks.ts): an agent loop whose prompt and context grow each step stores
// bytes in proportion to its steps, not their square; `turn inspect` (and the Runs panel, which
// reads the same inspection) shows each call's whole request, reassembled; replay and the steps'
// input hashes are what they were; a store written before blocks still resumes; a damaged or
// hostile store gives a located reason, never a wrong request.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { inspectRun, openStore, resumeRun, startRun, type RunStore } from '../../runtime/index.js';
import { earlierModelCalls } from '../../runtime/durable/runs.js';
import { exchangesOfRun } from '../../runtime/testing/from-journal.js';
import { BlockWriter, MAX_REQUEST_BLOCKS, RequestBlocksError, blockText, pieces, reassembleRequest, toRanges } from '../../runtime/durable/request-blocks.js';
import type { JournalAppend } from '../../runtime/store/types.js';
import { ChunkBuilder, decodeChunk } from '../../runtime/store/journal-chunk.js';

/** An agent loop: each step's prompt holds the whole conversation so far, and its context one more entry. */
const loop = (steps: number, suspendAt = -1) => `
let history = "";
let i = 0;
while i < ${steps} {
  let reply = infer Str { "Continue the conversation.\\n" + history; };
  context.append("turn " + i + ": " + reply);
  let history = history + "user " + i + ": a message of about forty characters\\n";
  if i == ${suspendAt} {
    suspend;
  }
  let i = i + 1;
}
return i;
`;

const expectedPrompt = (i: number) => 'Continue the conversation.\n' + Array.from({ length: i }, (_, k) => `user ${k}: a message of about forty characters\n`).join('');

function workdir(program: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-blocks-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), program);
  return dir;
}

/** The bytes a run's journal holds (deterministic: what each entry stores, not the file's pages). */
function journalBytes(store: RunStore, id: string): number {
  let n = 0;
  for (const e of store.readJournal(id)) n += (e.request?.length ?? 0) + (e.payload?.length ?? 0) + (e.idempotencyKey?.length ?? 0) + (e.inputHash?.length ?? 0) + e.kind.length + e.name.length;
  return n;
}

async function runLoop(steps: number): Promise<{ bytes: number; dir: string; id: string }> {
  const dir = workdir(loop(steps));
  const store = openStore(path.join(dir, 'st'));
  try {
    const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model: 'mock', store, onOutput: () => {} });
    const r = await run.start();
    assert.equal(r.kind, 'done');
    return { bytes: journalBytes(store, run.id!), dir, id: run.id! };
  } finally {
    store.close();
  }
}

test('a loop whose prompt and context grow each step stores bytes linearly in its steps (200 against 400)', async () => {
  const a = await runLoop(200);
  const b = await runLoop(400);
  // linear: ×2 (the fixed per-step part dominates); the whole prompt journaled each step: ×3.9
  const ratio = b.bytes / a.bytes;
  assert.ok(ratio < 2.4, `400 steps stored ${b.bytes} bytes, 200 steps ${a.bytes}: ×${ratio.toFixed(2)}, not linear`);
});

test('inspect shows each model call\'s whole request, prompt and context, reassembled from the blocks', async () => {
  const { dir, id } = await runLoop(30);
  const store = openStore(path.join(dir, 'st'));
  try {
    const inspection = inspectRun(store, id, 10_000);
    const infers = inspection.journal.filter((e) => e.kind === 'infer');
    assert.equal(infers.length, 30);
    assert.ok(inspection.journal.every((e) => e.kind !== 'block'), 'blocks are shown inside the requests, not as steps');
    infers.forEach((e, i) => {
      const r = e.request as { prompt: string; typeName: string; attempt: number; context: { P0: string[]; P2: string[]; P1: string[] } };
      assert.equal(r.typeName, 'Str');
      assert.equal(r.attempt, 1);
      assert.equal(r.prompt, expectedPrompt(i), `the prompt of call ${i}`);
      assert.deepEqual([...r.context.P2, ...r.context.P1], Array.from({ length: i }, (_, k) => `turn ${k}: mock`), `the context of call ${i}`);
      assert.deepEqual(e.grant, { capability: 'model', scope: 'no budget', from: 'every run' });
    });
    // the model budgets of a resume and a recording made from the run read the same prompts
    const entries = store.readJournal(id);
    assert.deepEqual(earlierModelCalls(id, entries).map((c) => c.prompt), infers.map((_, i) => expectedPrompt(i)));
    const recorded = exchangesOfRun(store, id).exchanges;
    assert.deepEqual(recorded.map((x) => x.request.prompt), infers.map((_, i) => expectedPrompt(i)));
    // a recording's fingerprint is the step's input hash, made from the whole request as before:
    // one per prompt, so a changed prompt misses the recording (and diverges on replay)
    const hashes = entries.filter((e) => e.kind === 'infer').map((e) => e.inputHash);
    assert.deepEqual(recorded.map((x) => x.fingerprint), hashes);
    assert.equal(new Set(hashes).size, 30);
  } finally {
    store.close();
  }
});

test('a resume from the snapshot mid-loop numbers new blocks after the old ones, and a full replay writes none', async () => {
  const dir = workdir(loop(12, 5));
  const store = openStore(path.join(dir, 'st'));
  try {
    const first = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model: 'mock', store, onOutput: () => {} });
    assert.equal((await first.start()).kind, 'suspended');
    const id = first.id!;
    const resumed = await resumeRun({ runId: id, cwd: dir, store, onOutput: () => {} });
    const end = await resumed.start();
    assert.ok(resumed.resumedFromSnapshot !== undefined, 'the resume restored the snapshot');
    assert.equal(end.kind, 'done', JSON.stringify(end).slice(0, 300));
    const prompts = inspectRun(store, id, 10_000).journal.filter((e) => e.kind === 'infer').map((e) => (e.request as { prompt: string }).prompt);
    assert.deepEqual(prompts, Array.from({ length: 12 }, (_, i) => expectedPrompt(i)));
    // every block key is unique (the store refuses a duplicate key; a collision would have failed the run)
    const keys = store.readJournal(id).filter((e) => e.kind === 'block').map((e) => e.idempotencyKey);
    assert.ok(keys.length > 0);
    assert.equal(new Set(keys).size, keys.length);
    // a call after the resume sees, reassembled, the context entries added before the snapshot
    const last = inspectRun(store, id, 10_000).journal.filter((e) => e.kind === 'infer').pop()!.request as { context: { P2: string[]; P1: string[] } };
    assert.deepEqual([...last.context.P2, ...last.context.P1], Array.from({ length: 11 }, (_, k) => `turn ${k}: mock`));

    // the same run replayed from its start (no snapshot) writes no block for the steps it replays:
    // it ends with as many blocks as the same loop run without a stop
    const dir2 = workdir(loop(12, 5));
    const store2 = openStore(path.join(dir2, 'st'));
    try {
      const again = await startRun({ file: path.join(dir2, 'p.tn'), cwd: dir2, model: 'mock', store: store2, onOutput: () => {} });
      assert.equal((await again.start()).kind, 'suspended');
      store2.pruneSnapshots(again.id!, 0);
      const replayed = await resumeRun({ runId: again.id!, cwd: dir2, store: store2, onOutput: () => {} });
      assert.equal((await replayed.start()).kind, 'done');
      assert.equal(replayed.resumedFromSnapshot, undefined);
      const straight = await runLoop(12);
      const straightStore = openStore(path.join(straight.dir, 'st'));
      const blocksOf = (s: RunStore, run: string) => s.readJournal(run).filter((e) => e.kind === 'block').length;
      try {
        assert.equal(blocksOf(store2, again.id!), blocksOf(straightStore, straight.id));
      } finally {
        straightStore.close();
      }
      // the steps' input hashes (what replay and a recording's fingerprint check) are the same in both runs
      const hashes = (s: RunStore, run: string) => s.readJournal(run).filter((e) => e.kind === 'infer').map((e) => e.inputHash);
      assert.deepEqual(hashes(store2, again.id!), hashes(store, id));
    } finally {
      store2.close();
    }
  } finally {
    store.close();
  }
});

test('a store written before blocks (requests journaled whole) resumes, from its snapshot and by full replay, and reads back', async () => {
  const fixture = path.join(__dirname, 'fixtures', 'pre-blocks');
  const runId = fs.readFileSync(path.join(fixture, 'run-id.txt'), 'utf8').trim();
  for (const fromSnapshot of [true, false]) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-pre-blocks-'));
    fs.copyFileSync(path.join(fixture, 'program.tn'), path.join(dir, 'program.tn'));
    fs.mkdirSync(path.join(dir, 'st'));
    fs.copyFileSync(path.join(fixture, 'store.db'), path.join(dir, 'st', 'store.db'));
    const store = openStore(path.join(dir, 'st'));
    try {
      assert.equal(store.readJournal(runId).filter((e) => e.kind === 'block').length, 0, 'the fixture has no blocks');
      if (!fromSnapshot) store.pruneSnapshots(runId, 0);
      const resumed = await resumeRun({ runId, cwd: dir, store, onOutput: () => {} });
      const end = await resumed.start();
      assert.equal(end.kind, 'done', JSON.stringify(end).slice(0, 300));
      assert.equal(end.kind === 'done' ? end.json : null, 4);
      assert.equal(resumed.resumedFromSnapshot !== undefined, fromSnapshot);
      const prompts = inspectRun(store, runId, 1000).journal.filter((e) => e.kind === 'infer').map((e) => e.request as { prompt: string; context?: unknown });
      const expected = (i: number) => 'Go on.\n' + Array.from({ length: i }, (_, k) => `user ${k}: a message\n`).join('');
      assert.deepEqual(prompts.map((p) => p.prompt), [0, 1, 2, 3].map(expected));
      assert.equal(prompts[0].context, undefined, 'an old request is shown as it was journaled');
      assert.deepEqual((prompts[3].context as { P1: string[] }).P1, ['turn 0: mock', 'turn 1: mock', 'turn 2: mock'], 'a new one with its context');
      assert.deepEqual(earlierModelCalls(runId, store.readJournal(runId)).map((c) => c.prompt), [0, 1, 2, 3].map(expected));
    } finally {
      store.close();
    }
  }
});

test('a damaged block is named when the request is shown, and never shown as a wrong request', async () => {
  const { dir, id } = await runLoop(4);
  const file = path.join(dir, 'st', fs.readdirSync(path.join(dir, 'st')).find((f) => f.endsWith('.db'))!);
  const db = new Database(file);
  // the block is a settled entry, packed in a chunk (schema 2): forge its payload there
  const forged = new TextEncoder().encode('"turn 0: forged"');
  let hit = 0;
  for (const c of db.prepare('SELECT first_seq, bytes FROM journal_chunks WHERE run_id = ?').all(id) as { first_seq: number; bytes: Buffer }[]) {
    const entries = decodeChunk(new Uint8Array(c.bytes), id);
    if (!entries.some((e) => e.idempotencyKey?.endsWith(':b1'))) continue;
    const chunk = new ChunkBuilder(entries[0].seq, `turn:${id}:`);
    for (const e of entries) chunk.add({ ...e, status: e.status as 'ok' | 'error', payload: e.idempotencyKey?.endsWith(':b1') ? forged : e.payload });
    db.prepare('UPDATE journal_chunks SET bytes = ? WHERE run_id = ? AND first_seq = ?').run(Buffer.from(chunk.finish()), id, c.first_seq);
    hit++;
  }
  db.close();
  assert.equal(hit, 1, 'the block was forged');
  const store = openStore(path.join(dir, 'st'));
  try {
    const infers = inspectRun(store, id, 100).journal.filter((e) => e.kind === 'infer');
    const last = infers[3].request as { unreadable?: string; prompt?: unknown };
    assert.match(last.unreadable ?? '', /refers to block b1, but its text \(step \d+\) does not match the hash it was stored with/);
    // a block that is not a JSON string at all is named so
    const entry = store.readJournal(id).find((e) => e.kind === 'block')!;
    assert.deepEqual(blockText({ ...entry, payload: new TextEncoder().encode('not json') }), { damaged: `its entry (step ${entry.seq}) is not a JSON string` });
    assert.deepEqual(blockText({ ...entry, payload: new TextEncoder().encode('7') }), { damaged: `its entry (step ${entry.seq}) is not a JSON string` });
    assert.equal(last.prompt, undefined, 'no reassembled prompt beside the reason');
    assert.equal((infers[0].request as { prompt: string }).prompt, expectedPrompt(0), 'a request that does not use the block reads back');
  } finally {
    store.close();
  }
});

test('hostile block references are refused with a reason, within bounds', () => {
  const lookup = () => null;
  const refused = (blocks: unknown, reason: RegExp) => assert.throws(() => reassembleRequest({ typeName: 'T', blocks }, lookup), (e: unknown) => e instanceof RequestBlocksError && reason.test(e.message));
  refused([1], /not an object/);
  refused({ prompt: 'x' }, /prompt references are not a list/);
  refused({ prompt: [0] }, /holds? 0, not a block number/);
  refused({ prompt: [[5, 2]] }, /empty range 5–2/);
  refused({ prompt: [[1, MAX_REQUEST_BLOCKS * 10]] }, /more than 200000 blocks/);
  refused({ prompt: [[1, -1e12]] }, /more than 200000 blocks/);
  refused({ prompt: [], rest: 7 }, /remainder is not text/);
  refused({ prompt: [3] }, /refers to block p3, but the journal does not hold it/);
  // a request without blocks (a tool's, an older model call's) is returned as it is
  assert.deepEqual(reassembleRequest({ typeName: 'T', prompt: 'p' }, lookup), { typeName: 'T', prompt: 'p' });
});

test('prompt pieces: cut by content, prefix-stable, bounded, never inside a surrogate pair', () => {
  const base = Array.from({ length: 300 }, (_, i) => `line ${i} ${'x'.repeat(i % 17)} 😀\n`).join('');
  const a = pieces(base);
  const b = pieces(base + 'one more line\n');
  assert.equal(a.map((p) => p.text).join(''), base);
  assert.ok(a.length > 10);
  const ended = a.filter((p) => p.ended);
  assert.deepEqual(b.slice(0, ended.length), ended, 'the longer text keeps every ended piece of the shorter');
  for (const p of [...a, ...pieces('z'.repeat(10_000))]) {
    assert.ok(p.text.length <= 1025, `a piece of ${p.text.length}`);
    const last = p.text.charCodeAt(p.text.length - 1);
    assert.ok(!(last >= 0xd800 && last <= 0xdbff), 'no piece ends with half a surrogate pair');
  }
  assert.deepEqual(toRanges([1, 2, 3, 7, 7, 7, 9]), [[1, 3], [7, -3], 9]);
});

test('the writer remembers a bounded number of texts: a forgotten one is stored again, never referenced wrongly', () => {
  const writer = new BlockWriter('r1');
  const appended: { key: string | null | undefined; text: unknown }[] = [];
  const append = (e: JournalAppend) => appended.push({ key: e.idempotencyKey, text: JSON.parse(new TextDecoder().decode(e.payload!)) }) && appended.length;
  const refs = (t: string) => writer.refs({ prompt: '', P0: [], P2: [], P1: [t] }, append).P1;
  assert.deepEqual(refs('first'), [1]);
  assert.deepEqual(refs('first'), [1], 'a text asked again is not stored again');
  for (let i = 0; i < 20_000; i++) refs(`text ${i}`);
  assert.equal(appended.length, 20_001);
  // 'first' was the least recently asked of more than 16,384 texts: forgotten, so stored again under a new ordinal
  assert.deepEqual(refs('first'), [20_002]);
  assert.deepEqual(appended[appended.length - 1], { key: 'turn:r1:b20002', text: 'first' });
  assert.deepEqual(refs('text 19999'), [20_001], 'a recent one is still known');
});
