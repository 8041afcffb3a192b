// What a model call costs the run's host, per call (issue 45: with the mock model, `infer` cost 20–40×
// a plain JSON mock, and a quarter of its profile was an AbortSignal.any and the controllers made per
// call). The VM hands the host its effect's signal with its cancel, so the host makes no signal of
// its own; an interruption still cancels the call (test/cli/interrupt.test.ts). Counted, not timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRun } from '../../runtime/index.js';
import { prefixHash } from '../../runtime/context/render.js';
import { taskText, wireSchema } from '../../runtime/infer/prompt.js';

const CALLS = 50;

test(`${CALLS} model calls through the run's host make one abort controller each (the VM's) and no AbortSignal.any`, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-infer-calls-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), `let i = 0;\nwhile i < ${CALLS} {\n  let x = infer Num { "a number"; };\n  let i = i + 1;\n}\nreturn i;\n`);
  const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model: 'mock', onOutput: () => {} });
  const Original = globalThis.AbortController;
  const originalAny = AbortSignal.any.bind(AbortSignal);
  let controllers = 0;
  let combined = 0;
  globalThis.AbortController = class extends Original {
    constructor() {
      super();
      controllers++;
    }
  };
  AbortSignal.any = (signals: AbortSignal[]) => {
    combined++;
    return originalAny(signals);
  };
  try {
    const out = await run.start();
    assert.equal(out.kind, 'done');
    assert.equal(out.kind === 'done' ? out.json : null, CALLS);
  } finally {
    globalThis.AbortController = Original;
    AbortSignal.any = originalAny;
  }
  assert.equal(combined, 0, 'AbortSignal.any per call');
  assert.ok(controllers <= CALLS + 2, `${controllers} abort controllers for ${CALLS} calls`);

  // the reply format (made once per type) and the prefix hash (the last one kept) are what they were each time
  const wire = wireSchema({ type: 'object', properties: { score: { type: 'number', description: 'out of ten' } }, required: ['score'] });
  const first = taskText('rate it', 'Review', wire);
  assert.equal(taskText('rate it', 'Review', wire), first);
  assert.match(first, /^rate it\n\nReply with only a JSON object .* a Review .*What the parts of V mean:\n.*out of ten/s);
  assert.notEqual(taskText('rate it', 'Other', wire), first, 'the type name is part of the format');
  assert.equal(taskText('', 'Review', wire), first.slice('rate it\n\n'.length));
  const a = prefixHash('sys', 'ctx');
  assert.equal(prefixHash('sys', 'ctx'), a);
  assert.notEqual(prefixHash('sys', 'ctx2'), a);
  assert.notEqual(prefixHash('sys2', 'ctx'), a);
  assert.equal(prefixHash('sys', 'ctx'), a);
});
