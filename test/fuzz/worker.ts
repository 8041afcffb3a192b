// The fuzzer's child process (run.ts starts it): runs the targets with fast-check for a time
// budget, writing each case to the state file before running it (so the parent can name the case
// that hung or crashed the process) and printing JSON lines: failures (shrunk by fast-check) and
// how many inputs each target tried.
import * as fs from 'node:fs';
import { parseArgs } from 'node:util';
import fc from 'fast-check';
import { TARGETS } from './targets.js';

const { values } = parseArgs({ options: { seed: { type: 'string' }, seconds: { type: 'string' }, targets: { type: 'string' }, state: { type: 'string' } } });
const seed = Number(values.seed ?? 1);
const seconds = Number(values.seconds ?? 60);
const state = values.state!;
const chosen = TARGETS.filter((t) => !values.targets || values.targets.split(',').includes(t.name));
const say = (x: object) => process.stdout.write(JSON.stringify(x) + '\n');

async function main(): Promise<void> {
  const share = (seconds * 1000) / chosen.length;
  for (const [i, target] of chosen.entries()) {
    const property = fc.asyncProperty(target.arbitrary, async (input) => {
      fs.writeFileSync(state, JSON.stringify({ target: target.name, input }));
      const failure = await target.check(input);
      if (failure) throw new Error(failure);
    });
    const out = await fc.check(property, { seed: seed + i, numRuns: Number.MAX_SAFE_INTEGER, interruptAfterTimeLimit: share, markInterruptAsFailure: false });
    if (out.failed && out.counterexample) {
      const message = out.errorInstance instanceof Error ? out.errorInstance.message : String(out.errorInstance);
      say({ type: 'failure', target: target.name, input: out.counterexample[0], message });
    }
    say({ type: 'stats', target: target.name, tried: out.numRuns + out.numSkips });
  }
  fs.rmSync(state, { force: true });
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    say({ type: 'error', message: e instanceof Error ? e.stack : String(e) });
    process.exit(2);
  },
);
