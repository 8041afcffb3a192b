// `turn eval FILE --samples N [--model M] [--json]` (docs/testing.md): runs a program or a test file
// N times against a model and reports pass rate, confidence distribution, tokens and latency.
import { evalTable, evaluate, EvalError } from '../runtime/index.js';
import { COMMANDS } from './commands.js';
import { runOptionsFrom, testRunOptions } from './run-options.js';
import { EXIT, UsageError, err, numberOption, parse, singleFile } from './usage.js';

export async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.eval.options, 'eval');
  const file = singleFile(positionals, 'eval');
  const samples = numberOption(values.samples, 'samples') ?? 10;
  if (samples < 1) throw new UsageError('--samples needs at least 1');
  const run = runOptionsFrom(values);
  if (run.traceFile !== undefined) throw new UsageError('`turn eval` does not write a trace');
  try {
    const report = await evaluate(file, {
      samples,
      jobs: numberOption(values.jobs, 'jobs') ?? 1,
      ...(values.filter !== undefined ? { filter: values.filter } : {}),
      // every option of `turn run`, with the same meaning (--max-tokens, --temperature, --consistency, --seed, budgets...)
      ...testRunOptions(run),
    });
    process.stdout.write(values.json ? JSON.stringify(report) + '\n' : evalTable(report));
    return EXIT.ok;
  } catch (e) {
    if (e instanceof EvalError) {
      err(`turn: ${e.message}`);
      return EXIT.compileError;
    }
    throw e;
  }
}
