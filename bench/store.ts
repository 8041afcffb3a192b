// The store (issue 5): snapshot size and save + load round trip of an agent holding 5,000 memory
// entries, and journal commit latency with full fsync — each beside an anchor measured in the same
// run on the same disk (JSON + a file + fsync; a bare write + fsync of the same bytes).
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openStoreFile } from '../runtime/store/open.js';
import { decodeSnapshot, encodeSnapshot, encodeValue, type SnapshotData } from '../runtime/store/serialize.js';
import type { Value } from '../runtime/values/index.js';
import { measure, quantity, row, withPaper, type Row, type Sample } from './harness.js';

export const ENTRIES = 5_000;
const COMMITS = 300;

/** One agent process holding ENTRIES memory entries (`remember("key_" + i, "value_" + i)`). */
export function agent(): SnapshotData {
  const memory = new Map<string, Value>();
  for (let i = 0; i < ENTRIES; i++) memory.set(`key_${i}`, `value_${i}`);
  return {
    bytecodeHash: 'sha256:' + '0'.repeat(64),
    semanticsVersion: 'turn-vm/1',
    seq: 1,
    scheduler: { queue: [0], nextPid: 1, clock: 0 },
    processes: [
      {
        pid: 0,
        state: { status: 0, frames: [{ proto: 0, ip: 12, bp: 0, ret: 0, module: -1 }], handlers: [] },
        stack: [null],
        memory,
        mailbox: [],
        context: { limits: { working: 8000, episodic: 32000 }, system: ['You are an agent.'], working: [], episodic: [] },
        values: {},
      },
    ],
  };
}

/** What a JSON snapshot of the same agent would hold. */
export function asJson(data: SnapshotData): unknown {
  return { ...data, processes: data.processes.map((p) => ({ ...p, memory: Object.fromEntries(p.memory) })) };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

/** Per-commit latencies as a median sample and a p99 sample (ms). */
function latencies(times: number[]): { median: Sample; p99: Sample } {
  const sorted = times.slice().sort((a, b) => a - b);
  const base = { minMs: sorted[0], maxMs: sorted[sorted.length - 1], samples: sorted.length };
  return { median: { ...base, medianMs: percentile(sorted, 50) }, p99: { ...base, medianMs: percentile(sorted, 99) } };
}

function time(fn: () => void): number {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function storeBenchmarks(): Promise<Row[]> {
  const rows: Row[] = [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-bench-store-'));
  const store = openStoreFile(path.join(dir, 'store.db'));
  try {
    const data = agent();
    const run = store.createRun({ entry: 'bench.tn', bytecodeHash: data.bytecodeHash, semanticsVersion: data.semanticsVersion });

    // Size
    const bytes = encodeSnapshot(data);
    const json = Buffer.from(JSON.stringify(asJson(data)));
    rows.push(withPaper(
      row(
        `checkpoint of an agent with ${ENTRIES.toLocaleString('en')} memory entries: size`,
        quantity(bytes.length / 1000, 'KB'),
        'the same state as JSON',
        quantity(json.length / 1000, 'KB'),
        `${(bytes.length / ENTRIES).toFixed(1)} bytes per entry; entries are key_i → value_i (the paper does not give its payload)`,
      ),
      '~203 KB',
      203,
    ));

    // Save + load round trip, durable: encode, commit with fsync, read back, decode.
    const ours = await measure(
      () => {
        store.putSnapshot(run.id, 1, encodeSnapshot(data));
        const back = decodeSnapshot(store.latestSnapshot(run.id)!.bytes);
        if (back.processes[0].memory.size !== ENTRIES) throw new Error('snapshot lost entries');
      },
      { warmup: 3, samples: 15 },
    );
    const file = path.join(dir, 'snapshot.json');
    const anchor = await measure(
      () => {
        const fd = fs.openSync(file, 'w');
        fs.writeSync(fd, JSON.stringify(asJson(data)));
        fs.fsyncSync(fd);
        fs.closeSync(fd);
        const back = JSON.parse(fs.readFileSync(file, 'utf8')) as { processes: { memory: object }[] };
        if (Object.keys(back.processes[0].memory).length !== ENTRIES) throw new Error('JSON lost entries');
      },
      { warmup: 3, samples: 15 },
    );
    rows.push(withPaper(
      row(
        'checkpoint save + load round trip, fsync (ms)',
        ours,
        'JSON.stringify + write + fsync + read + JSON.parse',
        anchor,
        'ours: encodeSnapshot + putSnapshot (SQLite WAL commit, synchronous=FULL) + latestSnapshot + decodeSnapshot',
      ),
      '< 7 ms',
      7,
    ));
    rows.push(
      row(
        'snapshot encode + decode in memory (ms)',
        await measure(() => decodeSnapshot(encodeSnapshot(data)), { warmup: 5, samples: 21 }),
        'JSON.stringify + JSON.parse',
        await measure(() => JSON.parse(JSON.stringify(asJson(data))), { warmup: 5, samples: 21 }),
      ),
    );

    // Journal commit latency: an effect's intent, committed with fsync before the effect may run.
    const payload = encodeValue(new Map<string, Value>([['prompt', 'Summarize the report in three bullet points.'], ['model', 'mock']]));
    const journal: number[] = [];
    for (let i = 0; i < COMMITS + 10; i++) {
      const t = time(() => store.appendJournal(run.id, { kind: 'infer', name: 'mock', pid: 0, inputHash: 'h', status: 'intent', payload }));
      if (i >= 10) journal.push(t); // warm-up
    }
    const completes: number[] = [];
    for (let seq = 11; seq <= COMMITS + 10; seq++) completes.push(time(() => store.completeJournal(run.id, seq, 'ok', payload)));
    const walFile = path.join(dir, 'bare.log');
    const fd = fs.openSync(walFile, 'w');
    const bare: number[] = [];
    try {
      for (let i = 0; i < COMMITS + 10; i++) {
        const t = time(() => {
          fs.writeSync(fd, payload);
          fs.fsyncSync(fd);
        });
        if (i >= 10) bare.push(t);
      }
    } finally {
      fs.closeSync(fd);
    }
    const j = latencies(journal);
    const c = latencies(completes);
    const b = latencies(bare);
    const anchorName = `bare fs.writeSync + fs.fsyncSync of the same ${payload.length} bytes`;
    rows.push(row(`journal commit latency, median (ms; appendJournal of an intent, ${COMMITS} commits, full fsync)`, j.median, anchorName, b.median));
    rows.push(row('journal commit latency, p99 (ms)', j.p99, anchorName, b.p99, 'the min–max column shows the spread of all commits'));
    rows.push(row('journal result commit latency, median (ms; completeJournal)', c.median, anchorName, b.median));
    rows.push(row('journal result commit latency, p99 (ms)', c.p99, anchorName, b.p99));
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
