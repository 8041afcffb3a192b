// Saving a checkpoint in a run (issue 29): a program that remembers 5,000 entries and reaches
// `suspend;` — the VM snapshot (runtime/durable/snapshot.ts), its encoding (runtime/store/
// serialize.ts) and its commit with the suspend entry — beside the same program without `suspend;`
// and without a store, alternated in the same run. The note splits the save into its parts.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStoreFile } from '../runtime/store/index.js';
import { Durable, JournalWriter, POLICY_VERSIONS, SEMANTICS_VERSION } from '../runtime/durable/index.js';
import { vmSnapshot } from '../runtime/durable/snapshot.js';
import { encodeSnapshot } from '../runtime/store/serialize.js';
import type { RunStore } from '../runtime/store/types.js';
import { VM, runBundle } from '../runtime/vm/index.js';
import { compile } from './actors.js';
import { measure, measurePair, row, type Row } from './harness.js';
import { ENTRIES } from './store.js';

const PROGRAM = `let i = 0; while i < ${ENTRIES} { remember("key_" + i, "value_" + i); let i = i + 1; } suspend; return i;`;
const host = { output: () => {}, infer: async () => ({ value: null, confidence: 1 }) };

async function suspendRun(store: RunStore, bundle: Awaited<ReturnType<typeof compile>>): Promise<VM> {
  const run = store.createRun({ entry: 'bench.tn', bytecodeHash: bundle.version, semanticsVersion: SEMANTICS_VERSION, policies: POLICY_VERSIONS });
  const vm = new VM(bundle, host, { maxSteps: 0 });
  const durable = new Durable(vm, run, new JournalWriter(store, run.id, undefined), []);
  vm.durable = durable;
  const stop = await Promise.race([vm.run(), durable.stopped]);
  if (!('kind' in stop) || stop.kind !== 'suspended') throw new Error('the checkpoint run did not suspend');
  return vm;
}

export async function checkpointSaveBenchmarks(): Promise<Row[]> {
  const bundle = await compile(PROGRAM);
  const plainBundle = await compile(PROGRAM.replace('suspend;', ''));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-bench-checkpoint-'));
  const store = openStoreFile(path.join(dir, 'store.db'));
  try {
    const m = await measurePair(
      () => suspendRun(store, bundle),
      async () => {
        const out = await runBundle(plainBundle, { ...host }, { maxSteps: 0 });
        if (!out.ok) throw new Error(out.error.message);
      },
      { warmup: 2, samples: 9 },
    );
    // the parts, on the state of one suspended run
    const vm = await suspendRun(store, bundle);
    const counters = { effects: 0, clocks: 0, checks: 0, waits: 0, suspends: 0, outputs: 0 };
    const snapshot = await measure(() => vmSnapshot(vm, 1, SEMANTICS_VERSION, counters, 0), { warmup: 2, samples: 9 });
    const data = vmSnapshot(vm, 1, SEMANTICS_VERSION, counters, 0);
    const encode = await measure(() => encodeSnapshot(data), { warmup: 2, samples: 9 });
    const bytes = encodeSnapshot(data);
    const run = store.createRun({ entry: 'bench.tn', bytecodeHash: bundle.version, semanticsVersion: SEMANTICS_VERSION, policies: POLICY_VERSIONS });
    let seq = 0;
    const commit = await measure(() => store.putSnapshot(run.id, ++seq, bytes), { warmup: 2, samples: 9 });
    const saveMs = m.ours.medianMs - m.anchor.medianMs;
    return [
      row(
        `checkpoint save in a run: ${ENTRIES.toLocaleString('en')} entries remembered, then suspend (ms)`,
        m.ours,
        'the same program without suspend and without a store',
        m.anchor,
        `the save costs about ${saveMs.toFixed(1)} ms over the anchor; its parts: VM snapshot ${snapshot.medianMs.toFixed(2)} ms, encode ${encode.medianMs.toFixed(2)} ms (${(bytes.length / 1000).toFixed(1)} KB), commit with fsync ${commit.medianMs.toFixed(2)} ms; on ${os.tmpdir()}`,
      ),
    ];
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  (async () => {
    const { markdownTable } = await import('./harness.js');
    process.stdout.write(markdownTable(await checkpointSaveBenchmarks()) + '\n');
  })().catch((e) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
