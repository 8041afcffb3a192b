// Automatic snapshots (issue 45): a durable run snapshots itself at the scheduler's safe points once
// its journal has grown enough (runtime/durable/checkpoints.ts), so a run killed long after its last
// `suspend;` — or that never suspends — resumes from its latest snapshot and reads only the journal
// after it. Each test kills a real run (SIGKILL, `TURN_CRASH_AT`) or resumes the image a SIGKILL
// would leave (`TURN_CRASH_IMAGES`), then resumes it in this process through a store that counts
// the journal entries it hands out, and compares with a full re-execution of the same journal.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStore, resumeRun, type RunStore } from '../../runtime/index.js';
import { checkpointDue, snapshotPolicyFromEnv, DEFAULT_SNAPSHOT_POLICY } from '../../runtime/durable/checkpoints.js';
import { turnAsync } from './helpers.js';

/** A loop of `n` clock readings (one journal entry each) beside a worker fed every 5th step; a line every `every` steps. */
const program = (n: number, every: number) => `
let worker = spawn turn() {
  let sum = 0;
  let k = 0;
  while k < ${n / 5} { let m = receive; let sum = sum + m; let k = k + 1; }
  return sum;
};
let i = 0;
let total = 0;
while i < ${n} {
  let total = total + call("now") * 0 + i;
  if i / 5 == call("floor", i / 5) { send worker, i; }
  if i / ${every} == call("floor", i / ${every}) { call("echo", "at " + i); }
  let i = i + 1;
}
let a = infer Str { "question"; };
return {"total": total, "worker": call("wait", worker), "a": a};
`;

const expected = (n: number) => ({ total: (n * (n - 1)) / 2, worker: Array.from({ length: n / 5 }, (_, j) => j * 5).reduce((x, y) => x + y, 0), a: 'mock' });

/** The store, counting the journal entries it hands out. */
function counting(store: RunStore): { store: RunStore; read: () => number } {
  let read = 0;
  const wrapped = new Proxy(store, {
    get(target, key) {
      const v = Reflect.get(target, key) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        const out = (v as (...a: unknown[]) => unknown).apply(target, args);
        if (Array.isArray(out) && typeof key === 'string' && /journal/i.test(key)) read += out.length;
        return out;
      };
    },
  });
  return { store: wrapped, read: () => read };
}

interface Resumed {
  kind: string;
  json: unknown;
  lines: string[];
  notes: string[];
  fromSnapshot: number | undefined;
  read: number;
}

async function resume(dir: string, id: string, before?: (store: RunStore) => void): Promise<Resumed> {
  const opened = openStore(path.join(dir, '.turn'));
  try {
    before?.(opened);
    const { store, read } = counting(opened);
    const lines: string[] = [];
    const run = await resumeRun({ runId: id, cwd: dir, store, onOutput: (l) => lines.push(l) });
    const result = await run.start();
    return { kind: result.kind, json: result.kind === 'done' ? result.json : null, lines, notes: run.notes, fromSnapshot: run.resumedFromSnapshot, read: read() };
  } finally {
    opened.close();
  }
}

function onlyRun(dir: string): string {
  const store = openStore(path.join(dir, '.turn'));
  try {
    const runs = store.listRuns();
    assert.equal(runs.length, 1);
    return runs[0].id;
  } finally {
    store.close();
  }
}

const N = 10_000;
let killed: { dir: string; id: string } | undefined;

/** A 10,000-step run killed (SIGKILL) at its 9,000th journal write, long after any suspend (it has none). */
async function killedRun(): Promise<{ dir: string; id: string }> {
  if (killed) return killed;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-checkpoints-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), program(N, 2_500));
  const r = await turnAsync(['run', 'p.tn', '--durable'], dir, { TURN_CRASH_AT: '9000:after' });
  assert.equal(r.signal, 'SIGKILL', r.stderr);
  killed = { dir, id: onlyRun(dir) };
  return killed;
}

function copyOf(dir: string): string {
  const to = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-checkpoints-copy-'));
  fs.cpSync(dir, to, { recursive: true, filter: (src) => !src.endsWith('-shm') });
  return to;
}

test('a run killed after 9,000 journal writes resumes from its latest automatic snapshot, reads only the journal after it, and ends as a full re-execution', async () => {
  const { dir, id } = await killedRun();
  const full = copyOf(dir);
  const fromSnapshot = await resume(copyOf(dir), id);
  const reExecuted = await resume(full, id, (store) => store.pruneSnapshots(id, 0));
  assert.equal(fromSnapshot.kind, 'done', JSON.stringify(fromSnapshot));
  assert.deepEqual(fromSnapshot.json, expected(N));
  assert.deepEqual(reExecuted.json, fromSnapshot.json);
  assert.deepEqual(fromSnapshot.lines, reExecuted.lines, 'the same lines printed (or printed again)');
  assert.deepEqual(fromSnapshot.notes, []);
  assert.ok(fromSnapshot.fromSnapshot !== undefined && fromSnapshot.fromSnapshot > 7_000, `resumed from the snapshot at step ${fromSnapshot.fromSnapshot}`);
  assert.equal(reExecuted.fromSnapshot, undefined);
  // the default policy snapshots every 1,000 entries: the tail is at most that and a part of a slice
  assert.ok(fromSnapshot.read <= DEFAULT_SNAPSHOT_POLICY.entries + 200, `the resume from the snapshot read ${fromSnapshot.read} journal entries`);
  assert.ok(reExecuted.read >= 8_900, `the re-execution read ${reExecuted.read} journal entries`);
});

test('a damaged or cut latest snapshot falls back to the one before it, and that one to re-execution, saying so, with the same result', async () => {
  const { dir, id } = await killedRun();
  const seqs: number[] = [];
  const cut = await resume(copyOf(dir), id, (store) => {
    const latest = store.latestSnapshot(id)!;
    const before = store.snapshotBefore!(id, latest.seq)!;
    assert.ok(before, 'the run keeps the snapshot before its latest');
    seqs.push(latest.seq, before.seq);
    store.putSnapshot(id, latest.seq, latest.bytes.subarray(0, latest.bytes.length >> 1)); // truncated
  });
  assert.equal(cut.kind, 'done');
  assert.deepEqual(cut.json, expected(N));
  assert.equal(cut.fromSnapshot, seqs[1] + 1, 'resumed from the snapshot before the damaged one');
  assert.equal(cut.notes.length, 1);
  assert.match(cut.notes[0], new RegExp(`^the snapshot of run ${id} at step ${seqs[0] + 1} is damaged \\(.+\\); resuming run ${id} from its snapshot at step ${seqs[1] + 1}$`));

  const both = await resume(copyOf(dir), id, (store) => {
    const latest = store.latestSnapshot(id)!;
    const before = store.snapshotBefore!(id, latest.seq)!;
    store.putSnapshot(id, latest.seq, latest.bytes.subarray(0, 40));
    const flipped = Uint8Array.from(before.bytes);
    flipped[flipped.length >> 1] ^= 0xff; // a byte changed in place: its checksum no longer matches
    store.putSnapshot(id, before.seq, flipped);
  });
  assert.equal(both.kind, 'done');
  assert.deepEqual(both.json, expected(N));
  assert.equal(both.fromSnapshot, undefined);
  assert.match(both.notes[0], /is damaged .*; the snapshot of run \S+ at step \d+ is damaged \(.*checksum.*\); replaying run \S+'s journal from the start$/);
});

test('a run killed at any journal write, snapshots included, resumes to the same result', async () => {
  // a short run that snapshots every 10 entries (the images a SIGKILL would leave at each write, taken by one run)
  const n = 80;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-checkpoints-images-'));
  const work = path.join(dir, 'work');
  const images = path.join(dir, 'images');
  fs.mkdirSync(work);
  fs.mkdirSync(images);
  fs.writeFileSync(path.join(work, 'p.tn'), program(n, 20));
  const r = await turnAsync(['run', 'p.tn', '--durable'], work, { TURN_SNAPSHOT_EVERY: '10', TURN_CRASH_IMAGES: images });
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(r.stdout.trim().split('\n'), ['at 0', 'at 20', 'at 40', 'at 60']);
  const id = onlyRun(work);
  const names = fs.readdirSync(images).sort((a, b) => Number(a.split('-')[0]) - Number(b.split('-')[0]));
  let fromCheckpoints = 0;
  let resumed = 0;
  process.env.TURN_SNAPSHOT_EVERY = '10'; // the resumes snapshot as they go, too
  try {
    for (const name of names) {
      const image = path.join(images, name);
      if (!fs.existsSync(path.join(image, '.turn', 'store.db'))) continue; // killed before the store existed
      const store = openStore(path.join(image, '.turn'));
      const status = store.listRuns()[0]?.status;
      store.close();
      if (status === undefined || status === 'done') continue;
      // resumed until it ends (a resume that took snapshots of its own is killed nowhere: it ends)
      const out = await resume(image, id);
      resumed++;
      if (out.fromSnapshot !== undefined) fromCheckpoints++;
      assert.equal(out.kind, 'done', `${name}: ${JSON.stringify(out)}`);
      assert.deepEqual(out.json, expected(n), name);
    }
  } finally {
    delete process.env.TURN_SNAPSHOT_EVERY;
  }
  assert.ok(resumed > 50, `${resumed} images resumed`);
  assert.ok(fromCheckpoints > resumed / 3, `${fromCheckpoints} of ${resumed} resumed from an automatic snapshot`);
});

test('the policy: every N entries or B bytes, never before the journal has grown by the last snapshot\'s size; TURN_SNAPSHOT_EVERY sets it', () => {
  const p = { entries: 10, bytes: 1_000 };
  assert.equal(checkpointDue(p, { entries: 9, bytes: 500 }, 0), false);
  assert.equal(checkpointDue(p, { entries: 10, bytes: 500 }, 0), true);
  assert.equal(checkpointDue(p, { entries: 2, bytes: 1_000 }, 0), true);
  assert.equal(checkpointDue(p, { entries: 10, bytes: 500 }, 800), false, 'a large state waits for as much journal');
  assert.equal(checkpointDue(p, { entries: 10, bytes: 800 }, 800), true);
  assert.deepEqual(snapshotPolicyFromEnv({}), DEFAULT_SNAPSHOT_POLICY);
  assert.deepEqual(snapshotPolicyFromEnv({ TURN_SNAPSHOT_EVERY: '50' }), { entries: 50, bytes: DEFAULT_SNAPSHOT_POLICY.bytes });
  assert.deepEqual(snapshotPolicyFromEnv({ TURN_SNAPSHOT_EVERY: '50:4096' }), { entries: 50, bytes: 4096 });
  assert.equal(snapshotPolicyFromEnv({ TURN_SNAPSHOT_EVERY: 'off' }), null);
  assert.equal(snapshotPolicyFromEnv({ TURN_SNAPSHOT_EVERY: '0' }), null);
  assert.deepEqual(snapshotPolicyFromEnv({ TURN_SNAPSHOT_EVERY: '-3' }), DEFAULT_SNAPSHOT_POLICY, 'a malformed setting is the default');
});
