// Durability (issue 5, issue 17): the time to resume a run whose journal holds 10,000 entries —
// re-executing the program from its start with the journal feeding every recorded result, and
// restoring the snapshot committed with its `suspend;` then replaying only the journal after it —
// beside the same program run without a store (the anchor, measured in the same run); and durable
// throughput under concurrency: 1,000 processes each taking 10 journaled steps, group commit beside
// one commit per journal write (the store before issue 17) on the same disk. Also the store's own
// rows (bench/store.ts) when this file is run alone.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStoreFile } from '../runtime/store/index.js';
import { Durable, JournalWriter, POLICY_VERSIONS, SEMANTICS_VERSION, restoreRun } from '../runtime/durable/index.js';
import { restorePoint } from '../runtime/durable/snapshot.js';
import { DEFAULT_SNAPSHOT_POLICY } from '../runtime/durable/checkpoints.js';
import { decodeSnapshot } from '../runtime/store/serialize.js';
import type { RunStore } from '../runtime/store/types.js';
import { VM, runBundle } from '../runtime/vm/index.js';
import { compile } from './actors.js';
import { measure, measurePair, perOp, row, type Row } from './harness.js';

export const JOURNAL_ENTRIES = 10_000;

const PROGRAM = `
let i = 0;
let total = 0;
while i < ${JOURNAL_ENTRIES - 1} {
  let total = total + call("now") * 0;
  let i = i + 1;
}
suspend;
return total;
`;

const host = { output: () => {}, infer: async () => ({ value: null, confidence: 1 }) };

export async function durabilityBenchmarks(): Promise<Row[]> {
  const bundle = await compile(PROGRAM);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-bench-durable-'));
  const store = openStoreFile(path.join(dir, 'store.db'));
  try {
    // the run: 9,999 clock readings and a suspend, each one journal entry committed with fsync
    const run = store.createRun({ entry: 'bench.tn', bytecodeHash: bundle.version, semanticsVersion: SEMANTICS_VERSION, policies: POLICY_VERSIONS });
    const t0 = performance.now();
    const vm = new VM(bundle, host, { maxSteps: 0 });
    const durable = new Durable(vm, run, new JournalWriter(store, run.id, undefined), []);
    vm.durable = durable;
    const stop = await Promise.race([vm.run(), durable.stopped]);
    const recordMs = performance.now() - t0;
    if (!('kind' in stop) || stop.kind !== 'suspended') throw new Error('the benchmark run did not suspend');
    const first = { commits: durable.journal.commits };
    const entries = store.readJournal(run.id).length;
    if (entries !== JOURNAL_ENTRIES) throw new Error(`expected ${JOURNAL_ENTRIES} journal entries, got ${entries}`);

    // resume = read the journal + re-execute with it (no new entry is written: the replay passes the suspend)
    const resume = async () => {
      const journal = store.readJournal(run.id);
      const vm2 = new VM(bundle, host, { maxSteps: 0 });
      const d = new Durable(vm2, run, new JournalWriter(store, run.id, undefined), journal);
      vm2.durable = d;
      const out = await Promise.race([vm2.run(), d.stopped]);
      if (!('ok' in out) || !out.ok || d.leftover().length > 0) throw new Error('the resume did not replay to the end');
    };
    const plain = async () => {
      const out = await runBundle(await compileOnce, { ...host }, { maxSteps: 0 });
      if (!out.ok) throw new Error(out.error.message);
    };
    // resume from the snapshot = read + decode the snapshot, read the journal after it, restore, run on
    const restore = async () => {
      const snap = store.latestSnapshot(run.id)!;
      const point = restorePoint(decodeSnapshot(snap.bytes));
      if (typeof point === 'string') throw new Error(`the snapshot cannot be restored: ${point}`);
      const tail = store.readJournal(run.id, snap.seq + 1);
      const vm2 = new VM(bundle, host, { maxSteps: 0 });
      const d = new Durable(vm2, run, new JournalWriter(store, run.id, undefined), tail);
      vm2.durable = d;
      restoreRun(vm2, d, point);
      const out = await Promise.race([vm2.run(), d.stopped]);
      if (!('ok' in out) || !out.ok || d.leftover().length > 0) throw new Error('the resume from the snapshot did not run to the end');
    };
    const m = await measurePair(resume, plain, { warmup: 2, samples: 10 });
    const s = await measurePair(restore, plain, { warmup: 2, samples: 10 });
    const rows: Row[] = [
      row(
        `resume a run with a ${JOURNAL_ENTRIES.toLocaleString('en')}-entry journal (read + replay)`,
        m.ours,
        'the same program without a store',
        m.anchor,
        `recording it took ${(recordMs / 1000).toFixed(2)} s (${((recordMs * 1000) / JOURNAL_ENTRIES).toFixed(0)} µs per entry, group-committed: ${first.commits} commit(s) for ${JOURNAL_ENTRIES.toLocaleString('en')} entries); the store holds ${(fs.statSync(path.join(dir, 'store.db')).size / 1000 + walSize(dir)).toFixed(0)} KB`,
      ),
      row(
        `resume the same run from its snapshot (restore + replay the tail)`,
        s.ours,
        'the same program without a store',
        s.anchor,
        `the snapshot committed with the suspend is restored (${store.latestSnapshot(run.id)!.bytes.length} bytes) and the journal after it (the suspend entry) replayed; the program's loop is not re-run`,
      ),
    ];
    rows.push(await resumeFromCheckpoint(dir));
    rows.push(...(await throughput(dir)));
    return rows;
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Issue 45: the same loop without `suspend;` (a run that never suspends, killed at its end before
 * its status was written), resumed from the latest snapshot the run took by itself as its journal
 * grew (runtime/durable/checkpoints.ts), and the journal after it. Also the recording's cost:
 * the run with automatic snapshots beside the same run with none (`snapshotEvery = null`).
 */
export async function resumeFromCheckpoint(dir: string): Promise<Row> {
  const bundle = await compileOnce;
  const file = path.join(dir, 'checkpoints.db');
  const store = openStoreFile(file);
  try {
    const record = async (snapshots: boolean) => {
      const run = store.createRun({ entry: 'bench.tn', bytecodeHash: bundle.version, semanticsVersion: SEMANTICS_VERSION, policies: POLICY_VERSIONS });
      const vm = new VM(bundle, host, { maxSteps: 0 });
      const durable = new Durable(vm, run, new JournalWriter(store, run.id, undefined), []);
      if (!snapshots) durable.snapshotEvery = null;
      vm.durable = durable;
      const out = await Promise.race([vm.run(), durable.stopped]);
      if (!('ok' in out) || !out.ok) throw new Error('the recorded run did not end');
      return { run, checkpoints: durable.checkpoints };
    };
    const rec = await measurePair(() => record(true), () => record(false), { warmup: 1, samples: 5 });
    const { run, checkpoints } = await record(true);
    let tailRead = 0;
    const restore = async () => {
      const snap = store.latestSnapshot(run.id)!;
      const point = restorePoint(decodeSnapshot(snap.bytes));
      if (typeof point === 'string' || point.suspended !== null) throw new Error(`the snapshot is not a checkpoint: ${String(point)}`);
      const from = store.readJournal(run.id, snap.seq);
      if (from[0]?.seq !== snap.seq || from[0].idempotencyKey !== point.last?.key) throw new Error('the checkpoint does not match the journal');
      const tail = from.slice(1);
      tailRead = from.length;
      const vm2 = new VM(bundle, host, { maxSteps: 0 });
      const d = new Durable(vm2, run, new JournalWriter(store, run.id, undefined), tail);
      vm2.durable = d;
      restoreRun(vm2, d, point, snap.bytes.length);
      const out = await Promise.race([vm2.run(), d.stopped]);
      if (!('ok' in out) || !out.ok || d.leftover().length > 0) throw new Error('the resume from the checkpoint did not run to the end');
    };
    const plain = async () => {
      const out = await runBundle(bundle, { ...host }, { maxSteps: 0 });
      if (!out.ok) throw new Error(out.error.message);
    };
    const m = await measurePair(restore, plain, { warmup: 2, samples: 10 });
    const entries = store.readJournal(run.id).length;
    return row(
      `resume a ${entries.toLocaleString('en')}-entry run that never suspended, from its latest automatic snapshot (restore + replay the tail)`,
      m.ours,
      'the same program without a store',
      m.anchor,
      `the run snapshotted itself ${checkpoints} times (every ${DEFAULT_SNAPSHOT_POLICY.entries.toLocaleString('en')} entries); the resume read the snapshot (${store.latestSnapshot(run.id)!.bytes.length} bytes) and ${tailRead} journal entries; ` +
        `recording with automatic snapshots ${rec.ours.medianMs.toFixed(1)} ms against ${rec.anchor.medianMs.toFixed(1)} ms without (${((rec.ours.medianMs / rec.anchor.medianMs - 1) * 100).toFixed(1)}%)`,
    );
  } finally {
    store.close();
  }
}

export const PROCESSES = 1_000;
export const STEPS = 10;

const CONCURRENT = `
let work = turn(k: Num) -> Num { let i = 0; while i < ${STEPS} { let t = call("time_now_ms"); let i = i + 1; } return 1; };
let results = gather spawn_each(call("range", ${PROCESSES}), work);
return call("len", results);
`;

/** The store as it was before group commit: every journal write its own commit (one fsync each). */
function perWriteCommits(store: RunStore): RunStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'beginGroup' || key === 'commitGroup' || key === 'rollbackGroup') return undefined;
      const v = Reflect.get(target, key) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

/** Durable throughput: 1,000 processes × 10 journaled host-tool steps in one run, on disk (fsync). */
async function throughput(dir: string): Promise<Row[]> {
  const bundle = await compile(CONCURRENT);
  const tools = { ...host, tool: async () => 1 };
  let commits = 0;
  let writes = 0;
  const once = async (file: string, grouped: boolean) => {
    fs.rmSync(file, { force: true });
    fs.rmSync(file + '-wal', { force: true });
    const opened = openStoreFile(file);
    const store = grouped ? opened : perWriteCommits(opened);
    try {
      const run = store.createRun({ entry: 'bench.tn', bytecodeHash: bundle.version, semanticsVersion: SEMANTICS_VERSION, policies: POLICY_VERSIONS });
      const vm = new VM(bundle, tools, { maxSteps: 0 });
      const journal = new JournalWriter(store, run.id, undefined);
      const durable = new Durable(vm, run, journal, []);
      vm.durable = durable;
      const out = await Promise.race([vm.run(), durable.stopped]);
      if (!('ok' in out) || !out.ok || out.json !== PROCESSES) throw new Error('the throughput run did not end with every process');
      store.setRunStatus(run.id, 'done');
      commits = journal.commits;
      writes = journal.writes;
    } finally {
      opened.close();
    }
  };
  const steps = PROCESSES * STEPS;
  const m = await measurePair(() => once(path.join(dir, 'group.db'), true), () => once(path.join(dir, 'each.db'), false), { warmup: 1, samples: 3 });
  await once(path.join(dir, 'group.db'), true);
  const plain = await measure(async () => {
    const out = await runBundle(bundle, tools, { maxSteps: 0 });
    if (!out.ok) throw new Error(out.error.message);
  }, { warmup: 1, samples: 3 });
  const stepsPerSecond = (ms: number) => Math.round(steps / (ms / 1000)).toLocaleString('en');
  return [
    row(
      `durable throughput: ${PROCESSES.toLocaleString('en')} processes × ${STEPS} journaled steps (µs per step)`,
      perOp(m.ours, steps),
      'one commit (fsync) per journal write, the store before group commit',
      perOp(m.anchor, steps),
      `group commit: ${stepsPerSecond(m.ours.medianMs)} steps/s against ${stepsPerSecond(m.anchor.medianMs)}; ${writes.toLocaleString('en')} journal writes in ${commits} commits; ` +
        `the same program without a store: ${(plain.medianMs / steps * 1000).toFixed(1)} µs per step; on ${os.tmpdir()} (fsync)`,
    ),
  ];
}

// the anchor runs the loop without `suspend;` (which needs a store)
const compileOnce = compile(PROGRAM.replace('suspend;', ''));

function walSize(dir: string): number {
  const wal = path.join(dir, 'store.db-wal');
  return fs.existsSync(wal) ? fs.statSync(wal).size / 1000 : 0;
}

if (require.main === module) {
  (async () => {
    const { storeBenchmarks } = await import('./store.js');
    const { markdownTable } = await import('./harness.js');
    const rows = [...(await durabilityBenchmarks()), ...(await storeBenchmarks())];
    process.stdout.write(markdownTable(rows) + '\n');
  })().catch((e) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
