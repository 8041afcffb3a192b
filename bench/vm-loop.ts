// The VM's arithmetic loop (1,000,000 iterations) against the same loop in plain JavaScript.
import { checkSource } from '../runtime/check/index.js';
import { compileBundle } from '../runtime/compile/index.js';
import { runBundle } from '../runtime/vm/index.js';
import { measurePair, row, type Row } from './harness.js';

export const LOOP_SOURCE = `
let i = 0;
let total = 0;
while i < 1000000 {
    let total = total + i;
    let i = i + 1;
}
return total;
`;

function plainJsLoop(): number {
  let i = 0;
  let total = 0;
  while (i < 1000000) {
    total = total + i;
    i = i + 1;
  }
  return total;
}

export async function vmLoopBenchmark(): Promise<Row> {
  const checked = await checkSource('loop.tn', LOOP_SOURCE);
  if (checked.diagnostics.length > 0) throw new Error('benchmark program does not compile');
  const bundle = compileBundle([{ path: '/bench/loop.tn', file: checked.file, program: checked.program, uses: checked.uses }], '/bench/loop.tn');
  const host = { output: () => {}, infer: async () => ({ value: null, confidence: 1 }) };
  let sink = 0;
  // Alternated (measurePair), and the anchor's sample runs the JS loop REPEAT times: a 1 ms sample
  // is rarely preempted on a loaded machine while a 20 ms one often is, which made the ratio move
  // with the load (17x quiet, 43x and more at load 10) rather than with the code.
  const REPEAT = 20;
  const m = await measurePair(
    async () => {
      const outcome = await runBundle(bundle, host, { maxSteps: 0 });
      if (!outcome.ok || outcome.json !== 499999500000) throw new Error('wrong result from the VM loop');
    },
    () => {
      for (let k = 0; k < REPEAT; k++) sink += plainJsLoop();
    },
    { warmup: 5, samples: 15 },
  );
  if (sink === 0) throw new Error('unreachable');
  return row('VM arithmetic loop, 1M iterations', m.ours, 'plain JavaScript, same loop', { ...m.anchor, medianMs: m.anchor.medianMs / REPEAT, minMs: m.anchor.minMs / REPEAT, maxMs: m.anchor.maxMs / REPEAT }, `the anchor's samples run the loop ${REPEAT} times each (divided), so both sides' samples last about as long`);
}
