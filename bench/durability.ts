// Durability (issue 5): the time to resume a run whose journal holds 10,000 entries — re-executing
// the program from its start with the journal feeding every recorded result — beside the same
// program run without a store (the anchor, measured in the same run). Also the store's own rows
// (bench/store.ts) when this file is run alone.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStoreFile } from '../runtime/store/index.js';
import { Durable, JournalWriter, POLICY_VERSIONS, SEMANTICS_VERSION } from '../runtime/durable/index.js';
import { VM, runBundle } from '../runtime/vm/index.js';
import { compile } from './actors.js';
import { measurePair, row, type Row } from './harness.js';

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
    const first = await Promise.race([vm.run(), durable.stopped]);
    const recordMs = performance.now() - t0;
    if (!('kind' in first) || first.kind !== 'suspended') throw new Error('the benchmark run did not suspend');
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
    const m = await measurePair(resume, plain, { warmup: 2, samples: 10 });
    const rows: Row[] = [
      row(
        `resume a run with a ${JOURNAL_ENTRIES.toLocaleString('en')}-entry journal (read + replay)`,
        m.ours,
        'the same program without a store',
        m.anchor,
        `recording it took ${(recordMs / 1000).toFixed(1)} s (${((recordMs * 1000) / JOURNAL_ENTRIES).toFixed(0)} µs per entry, fsync each); the store holds ${(fs.statSync(path.join(dir, 'store.db')).size / 1000 + walSize(dir)).toFixed(0)} KB`,
      ),
    ];
    return rows;
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
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
