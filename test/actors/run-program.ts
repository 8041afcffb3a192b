// Runs Turn source through the real pipeline (loader, analyzer, compiler, VM) from a temp file.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadProgram } from '../../runtime/load.js';
import { compileBundle } from '../../runtime/compile/index.js';
import { VM, type RunOptions, type RunOutcome } from '../../runtime/vm/index.js';
import { mockReply } from '../../runtime/infer/mock.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-actors-'));
let counter = 0;

export interface ProgramRun {
  outcome: RunOutcome;
  lines: string[];
  vm: VM;
}

export async function runProgram(source: string, options: RunOptions = {}): Promise<ProgramRun> {
  const file = path.join(dir, `p${counter++}.tn`);
  fs.writeFileSync(file, source);
  const loaded = await loadProgram(file);
  const errors = loaded.diagnostics.filter((d) => d.diagnostic.severity === 'error');
  assert.deepEqual(errors.map((d) => d.diagnostic.message), [], 'the program compiles');
  const lines: string[] = [];
  const vm = new VM(compileBundle(loaded.units, loaded.entryPath), { output: (l) => lines.push(l), infer: async (r) => mockReply(r.schema) }, options);
  const outcome = await vm.run();
  return { outcome, lines, vm };
}

export function errorMessage(outcome: RunOutcome): string {
  assert.equal(outcome.ok, false, 'the run fails');
  return outcome.ok ? '' : outcome.error.message;
}
