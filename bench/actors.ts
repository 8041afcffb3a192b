// Actors: spawn + exit, send + receive, memory per live process, and remember/recall scaling —
// each beside a plain-JavaScript floor measured in the same run.
import { checkSource } from '../runtime/check/index.js';
import { compileBundle } from '../runtime/compile/index.js';
import { VM, runBundle } from '../runtime/vm/index.js';
import { measure, perOp, quantity, row, type Row } from './harness.js';

const host = { output: () => {}, infer: async () => ({ value: null, confidence: 1 }) };

async function compile(source: string) {
  const checked = await checkSource('bench.tn', source);
  if (checked.diagnostics.length > 0) throw new Error(`benchmark program does not compile: ${checked.diagnostics[0].message}`);
  return compileBundle([{ path: '/bench/bench.tn', file: checked.file, program: checked.program, uses: checked.uses }], '/bench/bench.tn');
}

async function timeProgram(source: string, ops: number) {
  const bundle = await compile(source);
  return perOp(
    await measure(async () => {
      const outcome = await runBundle(bundle, host, { maxSteps: 0 });
      if (!outcome.ok) throw new Error(outcome.error.message);
    }),
    ops,
  );
}

const N = 20_000;

export async function actorBenchmarks(): Promise<Row[]> {
  const rows: Row[] = [];

  // spawn + exit: every child runs to its end before gather returns.
  const spawnFloor = perOp(
    await measure(() => {
      const procs: { id: number; stack: unknown[]; mailbox: unknown[]; done: boolean }[] = [];
      for (let i = 0; i < N; i++) procs.push({ id: i, stack: [], mailbox: [], done: true });
      return procs.length;
    }),
    N,
  );
  rows.push(
    row(
      'spawn + exit of a trivial process (µs each; paper: 2–3 µs on Apple M4)',
      await timeProgram(`gather spawn_each(call("range", ${N}), turn(i: Num) -> Num { return i; });`, N),
      'JS floor: object allocation + array push',
      spawnFloor,
    ),
  );

  const sendFloor = perOp(
    await measure(() => {
      const mailbox: unknown[] = [];
      let got = 0;
      for (let i = 0; i < N; i++) {
        mailbox.push(i);
        got += mailbox.shift() as number;
      }
      return got;
    }),
    N,
  );
  rows.push(
    row(
      'send + receive of a message (µs each; paper: 2–3 µs)',
      await timeProgram(`let me = call("self"); let i = 0; while i < ${N} { send me, i; let m = receive; let i = i + 1; }`, N),
      'JS floor: array push + shift',
      sendFloor,
    ),
  );

  // Memory per live process: 100,000 processes blocked in receive.
  const live = 100_000;
  const bundle = await compile(`let i = 0; while i < ${live} { spawn turn() { return receive; }; let i = i + 1; } return null;`);
  global.gc?.();
  const before = process.memoryUsage().heapUsed;
  const vm = new VM(bundle, host, { maxSteps: 0 });
  await vm.run();
  global.gc?.();
  const perProcess = (process.memoryUsage().heapUsed - before) / live;
  if (vm.inspectProcesses().length !== live + 1) throw new Error('not every process is alive');
  global.gc?.();
  const beforeFloor = process.memoryUsage().heapUsed;
  const floor = Array.from({ length: live }, (_, id) => ({ id, stack: [] as unknown[], mailbox: [] as unknown[], memory: new Map() }));
  global.gc?.();
  const floorPer = (process.memoryUsage().heapUsed - beforeFloor) / live;
  if (floor.length !== live) throw new Error('unreachable');
  rows.push(row(`memory per live process, ${live.toLocaleString('en')} blocked in receive (bytes)`, quantity(perProcess, 'B'), 'JS floor: object + 2 arrays + Map', quantity(floorPer, 'B')));

  // remember/recall: per-operation cost at 1K, 10K and 100K entries.
  const perSize: Row[] = [];
  for (const size of [1_000, 10_000, 100_000]) {
    const ours = await timeProgram(
      `let i = 0; while i < ${size} { remember("k" + i, i); let i = i + 1; } let j = 0; let s = 0; while j < ${size} { let s = s + recall("k" + j); let j = j + 1; } return s;`,
      2 * size,
    );
    const anchor = perOp(
      await measure(() => {
        const m = new Map<string, number>();
        for (let i = 0; i < size; i++) m.set('k' + i, i);
        let s = 0;
        for (let j = 0; j < size; j++) s += m.get('k' + j)!;
        return s;
      }),
      2 * size,
    );
    perSize.push(row(`remember/recall at ${size.toLocaleString('en')} entries (µs per op)`, ours, 'JS Map set/get', anchor));
  }
  const growth = perSize[2].ours.medianMs / perSize[0].ours.medianMs;
  perSize[2].note = `100K vs 1K: ${growth.toFixed(2)}× per op → ${growth < 2 ? 'flat' : growth < 20 ? 'sub-linear' : 'linear or worse'}`;
  rows.push(...perSize);
  return rows;
}
