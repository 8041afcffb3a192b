// Resume from a snapshot (issue 17): a resumed run restores the snapshot committed with its latest
// `suspend;` and replays only the journal after it. It must end exactly as a full replay from the
// start does; a snapshot that is damaged, missing or cannot be restored falls back to the full
// replay, with a note.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { openStore, resumeRun, startRun, type RunStore } from '../../runtime/index.js';

// Several actors (a worker blocked in receive, a monitored sleeper, a task that already ended),
// model calls, host effects, the clock, memory, context, methods and a timer around the suspend.
const PROGRAM = `
struct Acc { total: Num };
impl Acc { let add = turn(n: Num) -> Acc { return Acc { total: total + n }; }; };
let me = call("self");
let worker = spawn turn() {
  let job = receive;
  let reply = infer Str { "work on " + job["what"]; };
  send job["from"], {"done": reply};
};
let sleeper = spawn turn() { let m = receive(5); return m; };
call("monitor", sleeper);
call("wait", sleeper);
let quick = spawn turn() { return 41 + 1; };
let t0 = call("now");
let r = call("math_random");
remember("seen", "before the suspend");
context.append("fact: the sky is blue");
let a = infer Str { "first question"; };
let acc = Acc { total: 1 }.add(2);
let napper = spawn turn() { call("sleep", 20); return "rested"; };
call("echo", "before: " + a);
suspend;
let down = receive;
send worker, {"from": me, "what": a};
let got = receive;
let none = receive(1);
let t1 = call("now");
let b = infer Str { "second about " + got["done"]; };
let acc2 = acc.add(10);
let nap = call("wait", napper);
suspend;
call("echo", "after: " + b);
return {"a": a, "b": b, "got": got["done"], "down": down["type"], "none": none, "nap": nap, "total": acc2.total, "seen": recall("seen"), "r": r < 1, "later": t1 > 0, "quick": call("wait", quick)};
`;

function workdir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-snapshot-resume-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), PROGRAM);
  return dir;
}

interface Ended {
  kind: string;
  json: unknown;
  lines: string[];
  notes: string[];
  fromSnapshot: boolean;
  processes: unknown;
}

async function resumeOnce(dir: string, store: RunStore, id: string): Promise<Ended> {
  const lines: string[] = [];
  const run = await resumeRun({ runId: id, cwd: dir, store, onOutput: (l) => lines.push(l) });
  const result = await run.start();
  return {
    kind: result.kind,
    json: result.kind === 'done' ? result.json : null,
    lines,
    notes: run.notes,
    fromSnapshot: run.resumedFromSnapshot !== undefined,
    processes: JSON.stringify(run.processes()).split(dir).join('<dir>'),
  };
}

/** Runs the program to its first suspend, then resumes it until it ends; `between` runs before every resume. */
async function runToEnd(between: (store: RunStore, id: string) => void): Promise<{ resumes: Ended[]; journal: unknown }> {
  const dir = workdir();
  const store = openStore(path.join(dir, 'st'));
  try {
    const first = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model: 'mock', store, onOutput: () => {} });
    assert.equal((await first.start()).kind, 'suspended');
    const id = first.id!;
    const resumes: Ended[] = [];
    for (;;) {
      between(store, id);
      const r = await resumeOnce(dir, store, id);
      resumes.push(r);
      if (r.kind !== 'suspended') break;
    }
    const journal = store.readJournal(id).map((e) => [e.seq, e.kind, e.name, e.status, e.idempotencyKey?.split(':').pop(), e.inputHash, Buffer.from(e.payload ?? []).toString('hex')]);
    return { resumes, journal };
  } finally {
    store.close();
  }
}

test('a resume from the snapshot ends exactly as a full replay: output, result, every process, the journal', async () => {
  const restored = await runToEnd(() => {});
  const replayed = await runToEnd((store, id) => store.pruneSnapshots(id, 0));
  assert.equal(restored.resumes.length, 2);
  assert.ok(restored.resumes.every((r) => r.fromSnapshot && r.notes.length === 0), 'both resumes started from their snapshot');
  assert.ok(replayed.resumes.every((r) => !r.fromSnapshot), 'without a snapshot the resume replays from the start');
  assert.match(replayed.resumes[0].notes[0], /has no snapshot; replaying run \S+'s journal from the start/);
  const last = restored.resumes[1];
  assert.equal(last.kind, 'done');
  const result = last.json as Record<string, unknown>;
  assert.deepEqual(result, { a: 'mock', b: 'mock', got: 'mock', down: 'Down', none: null, nap: 'rested', total: 13, seen: 'before the suspend', r: true, later: true, quick: 42 });
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(restored.resumes[i].lines, replayed.resumes[i].lines, `output of resume ${i + 1}`);
    assert.deepEqual(restored.resumes[i].json, replayed.resumes[i].json, `result of resume ${i + 1}`);
    assert.equal(restored.resumes[i].processes, replayed.resumes[i].processes, `processes at the end of resume ${i + 1}`);
  }
  assert.deepEqual(restored.resumes[1].lines, [`after: ${String(result.b)}`]);
  // the same effects and suspends with the same inputs and results (the two runs are separate live
  // runs: how often the scheduler checked its timers, the times and the random value differ).
  // Blocks of model requests are storage, not steps: a resume from a snapshot has not read the
  // blocks before it, so it stores the context it asks with once more (request-blocks.ts)
  const shape = (j: unknown) => (j as unknown[][]).filter((e) => e[1] !== 'timer' && e[1] !== 'clock' && e[1] !== 'block').map((e) => (e[1] === 'infer' ? e.slice(1) : e.slice(1, 5)));
  assert.deepEqual(shape(restored.journal), shape(replayed.journal));
});

test('a store written by earlier builds (snapshots in formats 3 and 2: no checksum) resumes from its snapshots and ends the same', async () => {
  // this program's maps are small, so its stream holds no MAP_TEXT: format 5's stream without its
  // checksum is the one earlier builds wrote: as format 3 (the build before checksums), and as format 2
  // (Brotli, above 4 KB) before that (format 1 reads as 3 does: test/store/serialize.test.ts)
  let resume = 0;
  const older = await runToEnd((store, id) => {
    const snap = store.latestSnapshot(id)!;
    assert.equal(snap.bytes[3], 5);
    const stream = Buffer.from(snap.bytes.subarray(4, snap.bytes.length - 32));
    const header = (format: number) => Buffer.from([0x54, 0x4e, 0x53, format]);
    const format = [3, 2][resume++];
    const bytes = format === 2 ? Buffer.concat([header(2), zlib.brotliCompressSync(stream)]) : Buffer.concat([header(format), stream]);
    store.putSnapshot(id, snap.seq, bytes);
  });
  const restored = await runToEnd(() => {});
  assert.equal(resume, 2);
  assert.ok(older.resumes.every((r) => r.fromSnapshot && r.notes.length === 0), 'both resumes started from their old-format snapshot');
  assert.deepEqual(older.resumes.map((r) => r.lines), restored.resumes.map((r) => r.lines));
  assert.deepEqual(older.resumes[1].json, restored.resumes[1].json);
  assert.equal(older.resumes[1].processes, restored.resumes[1].processes);
});

test('a damaged snapshot falls back to the full replay with a note, and the run ends the same', async () => {
  const damaged = await runToEnd((store, id) => {
    const snap = store.latestSnapshot(id)!;
    const bytes = Buffer.from(snap.bytes);
    bytes.fill(0xff, bytes.length >> 1, (bytes.length >> 1) + 24);
    store.putSnapshot(id, snap.seq, bytes);
  });
  const restored = await runToEnd(() => {});
  for (const r of damaged.resumes) {
    assert.equal(r.fromSnapshot, false);
    assert.match(r.notes[0] ?? '', /the snapshot of run \S+ at step \d+ (is damaged|cannot be restored).*; replaying run \S+'s journal from the start/);
  }
  assert.equal(damaged.resumes[1].kind, 'done');
  assert.deepEqual(damaged.resumes.map((r) => r.lines), restored.resumes.map((r) => r.lines));
  assert.equal(damaged.resumes[1].processes, restored.resumes[1].processes);
});

test('a resume under the debugger replays the whole journal from the start, and ends as the restored one', async () => {
  const dir = workdir();
  const store = openStore(path.join(dir, 'st'));
  try {
    const first = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model: 'mock', store, onOutput: () => {} });
    assert.equal((await first.start()).kind, 'suspended');
    const lines: string[] = [];
    const run = await resumeRun({ runId: first.id!, cwd: dir, store, onOutput: (l) => lines.push(l) });
    run.attachDebugger(false);
    assert.equal(run.resumedFromSnapshot, undefined, 'a debugged resume does not restore the snapshot');
    const result = await run.start();
    assert.equal(result.kind, 'suspended', JSON.stringify(result));
    assert.deepEqual(lines, [], 'nothing printed again: the replayed part stays silent, and the run suspends before its next line');
  } finally {
    store.close();
  }
});
