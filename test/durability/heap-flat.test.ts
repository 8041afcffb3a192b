// A durable run's memory does not grow with its steps (issue 45): each time the scheduler waited
// for an effect it added a reaction to the run's `stopped` promise, which never settles in a run
// that ends normally, so every wait's closure stayed reachable until the run ended. Here a run of
// 12,000 model calls (each a scheduler wait and a journal entry) measures the live heap, after a
// full collection, at its 2,000th and its 12,000th call: the difference must stay under what the
// leak alone left behind (about 570 bytes per wait, 5.7 MB over these 10,000 waits).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { checkSource } from '../../runtime/check/index.js';
import { compileBundle } from '../../runtime/compile/index.js';
import { Durable, JournalWriter, POLICY_VERSIONS, SEMANTICS_VERSION } from '../../runtime/durable/index.js';
import { openStoreFile } from '../../runtime/store/index.js';
import { VM } from '../../runtime/vm/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const STEPS = 12_000;
const FIRST = 2_000;

test('a durable run of 12,000 model calls keeps a flat heap', async () => {
  const source = `
let i = 0;
while i < ${STEPS} {
  let n: Num = infer Num { "a number"; };
  let i = i + 1;
}
return i;
`;
  const checked = await checkSource('heap.tn', source);
  assert.deepEqual(checked.diagnostics, []);
  const bundle = compileBundle([{ path: '/t/heap.tn', file: checked.file, program: checked.program, uses: checked.uses }], '/t/heap.tn');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-heap-'));
  const store = openStoreFile(path.join(dir, 'store.db'));
  const heapAt = new Map<number, number>();
  let calls = 0;
  const host = {
    output: () => {},
    infer: async () => {
      calls++;
      if (calls === FIRST || calls === STEPS) {
        gc();
        heapAt.set(calls, process.memoryUsage().heapUsed);
      }
      return { value: 1, confidence: 1 };
    },
  };
  try {
    const run = store.createRun({ entry: 'heap.tn', bytecodeHash: bundle.version, semanticsVersion: SEMANTICS_VERSION, policies: POLICY_VERSIONS });
    const vm = new VM(bundle, host, { maxSteps: 0 });
    const durable = new Durable(vm, run, new JournalWriter(store, run.id, undefined), []);
    vm.durable = durable;
    const out = await Promise.race([vm.run(), durable.stopped]);
    assert.ok('ok' in out && out.ok, `the run ended: ${JSON.stringify(out).slice(0, 300)}`);
    assert.equal(calls, STEPS);
    const grown = heapAt.get(STEPS)! - heapAt.get(FIRST)!;
    console.log(`heap growth over ${STEPS - FIRST} durable model calls: ${(grown / 1e6).toFixed(2)} MB`);
    assert.ok(grown < 2_000_000, `the heap grew ${(grown / 1e6).toFixed(1)} MB over ${STEPS - FIRST} durable model calls`);
  } finally {
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
