// Runs that share a Node process (a warm worker: `turn test` over many files, watch mode,
// `turn mcp`, the editor's server) are isolated from each other (issue 45, docs/performance.md,
// *Repeated runs, warm*): a run numbers its scopes from 1 whatever ran before it in the process,
// so what it records (a durable snapshot holds its scopes' ids) does not depend on earlier runs.
// The scope counter was module-global; each run now takes its numbers from its own process table.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VM } from '../../runtime/vm/index.js';
import { mockReply } from '../../runtime/infer/mock.js';
import { compileFiles } from './harness.js';

// the main process opens two scopes, one inside the other; the infer of the inner one's task
// is where the test looks at the scopes still open
const SOURCE = `let ask = turn() -> Num {
  let x = infer Num { "a number"; };
  return x;
};
let outer = scope wait_all {
  task ask;
  let inner = scope wait_all { task ask; };
};
return 0;
`;

/** Runs SOURCE in a new VM; the ids of the open scopes of every process, at each model call. */
async function scopeIdsSeen(): Promise<number[][]> {
  const bundle = await compileFiles({ 'main.tn': SOURCE });
  const seen: number[][] = [];
  const vm: VM = new VM(bundle, {
    output: () => {},
    infer: async (r) => {
      seen.push([...vm.processes()].flatMap((p) => p.peek('scopes').map((s) => s.id)));
      return mockReply(r.schema);
    },
  });
  const outcome = await vm.run();
  assert.ok(outcome.ok, outcome.ok ? '' : outcome.error.message);
  return seen;
}

test('a run in a warm process numbers its scopes as the first run of a fresh process does', async () => {
  const first = await scopeIdsSeen();
  // both tasks ask while the main process is inside both scopes (the outer one is 1, the inner 2)
  assert.deepEqual(first, [[1, 2], [1, 2]]);
  // a second and a third run in the same process see exactly what the first saw
  assert.deepEqual(await scopeIdsSeen(), first);
  assert.deepEqual(await scopeIdsSeen(), first);
});
