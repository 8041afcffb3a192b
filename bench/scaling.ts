// Scaling: how each cost grows from 1K to 100K — processes (spawns), memory entries
// (remember/recall) and journal entries (append + read through runtime/store) — each size beside a
// plain-JavaScript floor at the same size, and a verdict (flat, sub-linear, linear or worse) fitted
// on the measured points. Turn's paper reports remember/recall flat from 1K to 100K entries.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStoreFile } from '../runtime/store/open.js';
import type { SqliteRunStore } from '../runtime/store/sqlite-schema.js';
import { encodeValue } from '../runtime/store/serialize.js';
import type { Value } from '../runtime/values/index.js';
import { floorLinkExits, floorSpawnGather, linkProgram, perOpPair, programRunner, spawnProgram } from './actors.js';
import { inSection, perOp, quantity, row, summarize, verdict, verdictText, withPaper, type Point, type Row, type Sample } from './harness.js';

export const SCALING_SECTION = 'Scaling, 1K → 100K (per-operation cost at each size)';
export const SIZES = [1_000, 10_000, 100_000];
/** Journal entries per group commit in the grouped append row. */
const GROUP = 256;

/** More samples where a sample is short: small sizes are the noisiest on a shared machine. */
function samplesFor(n: number): { warmup: number; samples: number } {
  return n <= 1_000 ? { warmup: 5, samples: 21 } : n <= 10_000 ? { warmup: 5, samples: 15 } : { warmup: 2, samples: 9 };
}

/** Repetitions inside one sample, so that a sample at 1K does as many operations as one at 10K. */
const repsFor = (n: number) => Math.max(1, Math.round(10_000 / n));

const size = (n: number) => `${n / 1000}K`;

/** The rows of one series: one per size, then the verdict row (ours' growth beside the floor's). */
function series(
  what: string,
  unit: string,
  floorName: string,
  points: { n: number; ours: Sample; floor: Sample }[],
  paper?: string,
  note?: string,
): Row[] {
  const rows = points.map((p) => row(`${what} at ${p.n.toLocaleString('en')} (${unit})`, p.ours, floorName, p.floor));
  const ours: Point[] = points.map((p) => ({ n: p.n, perOp: p.ours.medianMs }));
  const floor: Point[] = points.map((p) => ({ n: p.n, perOp: p.floor.medianMs }));
  const first = points[0].n;
  const last = points[points.length - 1].n;
  const summary = row(
    `${what}: per-op cost at ${size(last)} ÷ at ${size(first)}`,
    quantity(verdict(ours).growth, '×'),
    "the floor's growth",
    quantity(verdict(floor).growth, '×'),
    note,
  );
  summary.verdict = verdictText(ours, floor);
  if (paper) withPaper(summary, paper);
  return [...rows, summary];
}

async function processes(): Promise<Row[]> {
  const points = [];
  for (const n of SIZES) {
    const reps = repsFor(n);
    const { ours, floor } = await perOpPair(
      await programRunner(spawnProgram(n), reps),
      async () => {
        for (let r = 0; r < reps; r++) await floorSpawnGather(n);
      },
      n * reps,
      samplesFor(n),
    );
    points.push({ n, ours, floor });
  }
  return series('processes: spawn + exit', 'µs per process', 'JS floor: async function per actor, O(1) mailbox', points, undefined,
    'gather spawn_each of n trivial processes: the scheduler holds all n at once; a sample at 1K runs the program 10 times');
}

/**
 * Spawn + exit through the mailbox (issue 29): the case that was quadratic at 100,000 processes
 * (receive shifted a mailbox of tens of thousands of exit signals). Fewer samples at 100K: a sample
 * took 12 s on a quiet machine before the mailbox became O(1).
 */
async function linkedExits(): Promise<Row[]> {
  const points = [];
  for (const n of SIZES) {
    const reps = repsFor(n);
    const { ours, floor } = await perOpPair(
      await programRunner(linkProgram(n), reps),
      async () => {
        for (let r = 0; r < reps; r++) await floorLinkExits(n);
      },
      n * reps,
      n >= 100_000 ? { warmup: 0, samples: 3 } : samplesFor(n),
    );
    points.push({ n, ours, floor });
  }
  return series('processes: spawn_link + exit, exit signals received', 'µs per process', 'JS floor: async function per actor, O(1) mailbox', points, undefined,
    'n spawn_link of a trivial child, then n receive of their exit signals in the parent; the mailbox holds up to n messages (3 samples at 100K)');
}

async function memoryEntries(): Promise<Row[]> {
  const points = [];
  for (const n of SIZES) {
    const reps = repsFor(n);
    const { ours, floor } = await perOpPair(
      await programRunner(
        `let i = 0; while i < ${n} { remember("k" + i, i); let i = i + 1; } let j = 0; let s = 0; while j < ${n} { let s = s + recall("k" + j); let j = j + 1; } return s;`,
        reps,
      ),
      () => {
        let s = 0;
        for (let r = 0; r < reps; r++) {
          const m = new Map<string, number>();
          for (let i = 0; i < n; i++) m.set('k' + i, i);
          for (let j = 0; j < n; j++) s += m.get('k' + j)!;
        }
        return s;
      },
      2 * n * reps,
      samplesFor(n),
    );
    points.push({ n, ours, floor });
  }
  return series('memory entries: remember/recall', 'µs per op', 'JS Map set/get', points, 'flat from 1K to 100K',
    'n remember then n recall in one process (a fresh run each time); the figure includes the VM loop that builds each key');
}

/** Per-sample times of appending n journal entries and reading them back, through RunStore. */
export async function journalEntries(): Promise<Row[]> {
  const base = fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();
  const dir = fs.mkdtempSync(path.join(base, 'turn-bench-journal-'));
  const payload = encodeValue(new Map<string, Value>([['prompt', 'Summarize the report in three bullet points.'], ['model', 'mock']]));
  const sample = (times: number[], n: number): Sample => perOp(summarize(times), n);
  const elapsed = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e6;
  const append: { n: number; ours: Sample; floor: Sample }[] = [];
  const grouped: { n: number; ours: Sample; floor: Sample }[] = [];
  const read: { n: number; ours: Sample; floor: Sample }[] = [];
  const bytesPerEntry: string[] = [];
  let file = 0;
  try {
    for (const n of SIZES) {
      const { warmup, samples } = samplesFor(n);
      const runs = Math.min(samples, n >= 100_000 ? 7 : samples);
      const warm = Math.min(warmup, 2);
      const oursAppend: number[] = [];
      const oursGrouped: number[] = [];
      const oursRead: number[] = [];
      let storeBytes = 0;
      const floorAppend: number[] = [];
      const floorRead: number[] = [];
      for (let s = 0; s < warm + runs; s++) {
        // Ours: a fresh store, one run, n entries appended (each its own durable commit), read back.
        const dbFile = path.join(dir, `store-${file++}.db`);
        const store = openStoreFile(dbFile);
        const run = store.createRun({ entry: 'bench.tn', bytecodeHash: 'sha256:' + '0'.repeat(64), semanticsVersion: 'turn-vm/1' });
        let t = process.hrtime.bigint();
        for (let i = 0; i < n; i++) store.appendJournal(run.id, { kind: 'random', name: 'random', pid: 0, status: 'ok', payload });
        const a = elapsed(t);
        // As a run journals: each entry with its run's key (as the VM gives every step), the
        // writes group-committed (runtime/durable JournalWriter): one commit per GROUP entries here.
        const keyed = store.createRun({ entry: 'bench.tn', bytecodeHash: 'sha256:' + '0'.repeat(64), semanticsVersion: 'turn-vm/1' });
        const sqlite = store as SqliteRunStore;
        t = process.hrtime.bigint();
        for (let i = 0; i < n; i++) {
          if (i % GROUP === 0) sqlite.beginGroup();
          store.appendJournal(keyed.id, { kind: 'random', name: 'random', pid: 0, status: 'ok', idempotencyKey: `turn:${keyed.id}:r${i}`, payload });
          if (i % GROUP === GROUP - 1 || i === n - 1) sqlite.commitGroup();
        }
        const g = elapsed(t);
        t = process.hrtime.bigint();
        const entries = store.readJournal(keyed.id);
        const r = elapsed(t);
        if (entries.length !== n || store.readJournal(run.id).length !== n) throw new Error('journal lost entries');
        store.close();
        storeBytes = fs.statSync(dbFile).size + (fs.existsSync(dbFile + '-wal') ? fs.statSync(dbFile + '-wal').size : 0);
        for (const f of [dbFile, dbFile + '-wal', dbFile + '-shm', dbFile + '.owner']) fs.rmSync(f, { force: true });
        // Floor: the same payloads appended to a plain file (one write each), read back and split.
        const logFile = path.join(dir, `log-${file++}.bin`);
        const fd = fs.openSync(logFile, 'w');
        t = process.hrtime.bigint();
        for (let i = 0; i < n; i++) fs.writeSync(fd, payload);
        const fa = elapsed(t);
        fs.closeSync(fd);
        t = process.hrtime.bigint();
        const bytes = fs.readFileSync(logFile);
        const back: Buffer[] = [];
        for (let off = 0; off < bytes.length; off += payload.length) back.push(bytes.subarray(off, off + payload.length));
        const fr = elapsed(t);
        if (back.length !== n) throw new Error('floor lost entries');
        fs.rmSync(logFile, { force: true });
        if (s >= warm) {
          oursAppend.push(a);
          oursGrouped.push(g);
          oursRead.push(r);
          floorAppend.push(fa);
          floorRead.push(fr);
        }
      }
      append.push({ n, ours: sample(oursAppend, n), floor: sample(floorAppend, n) });
      grouped.push({ n, ours: sample(oursGrouped, n), floor: sample(floorAppend, n) });
      bytesPerEntry.push(`${(storeBytes / (2 * n)).toFixed(0)} at ${size(n)}`);
      read.push({ n, ours: sample(oursRead, n), floor: sample(floorRead, n) });
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const where = base === '/dev/shm' ? 'on tmpfs (/dev/shm), so the figure is the store\'s own work, not the disk\'s fsync (measured on disk in the journal commit latency rows)' : `in ${base}`;
  return [
    ...series('journal entries: append', 'µs per entry', 'JS floor: fs.writeSync of the same bytes to a file', append, undefined,
      `RunStore.appendJournal, each entry its own SQLite commit (synchronous=FULL), ${where}`),
    ...series('journal entries: append, group-committed as a run does', 'µs per entry', 'JS floor: fs.writeSync of the same bytes to a file', grouped, undefined,
      `RunStore.appendJournal of entries keyed as the VM keys them, one commit (synchronous=FULL) per ${GROUP} entries as the durable layer groups them, ${where}; the store holds ${bytesPerEntry.join(', ')} bytes per entry (file + WAL, both runs)`),
    ...series('journal entries: read back', 'µs per entry', 'JS floor: readFileSync + split', read, undefined,
      'RunStore.readJournal of the whole run (as a replay does), decoded into entries (the group-committed run)'),
  ];
}

export async function scalingBenchmarks(): Promise<Row[]> {
  return inSection(SCALING_SECTION, [...(await processes()), ...(await linkedExits()), ...(await memoryEntries()), ...(await journalEntries())]);
}
