// `turn run FILE [--store DIR | --durable]`: a plain or durable run through the run API. A program
// that contains `suspend;` always runs durable (in the default store without --store), as in Turn v1.
import { RunSetupError, startRun } from '../runtime/run/index.js';
import { InputError, readSourceText } from '../runtime/load.js';
import { PlaygroundError, prepareCall } from '../runtime/playground/index.js';
import { defaultStoreDir } from '../runtime/store/open.js';
import { reportInterrupted, withInterrupts } from './interrupt.js';
import { StdoutLines } from './output.js';
import { enableParseCache } from './parse-cache.js';
import { ProgressLine } from './progress.js';
import { printSetupError, reportResult } from './report.js';
import { COMMANDS } from './commands.js';
import { runOptionsFrom } from './run-options.js';
import { err, EXIT, parse, singleFile, UsageError } from './usage.js';
import { priceTableFrom, printTokenSummary } from './tokens.js';

export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.run.options, 'run');
  const file = singleFile(positionals, 'run');
  if (values.watch) {
    const { watch, withoutWatch } = await import('./watch.js');
    return watch('run', withoutWatch(args), [file]);
  }
  enableParseCache();
  const prices = priceTableFrom(values.prices);
  const durable = values.durable === true || values.store !== undefined;
  if (values.args !== undefined && values.call === undefined) throw new UsageError('--args needs --call NAME (the function they are given to)', 'run');
  let entryText: string | undefined;
  if (values.call !== undefined) {
    try {
      entryText = (await prepareCall(file, readSourceText(file), values.call, values.args ?? '{}')).entryText;
    } catch (e) {
      if (!(e instanceof PlaygroundError || e instanceof InputError)) throw e;
      err(e instanceof InputError ? `turn: ${e.message}` : e.message);
      return EXIT.compileError;
    }
  }
  const progress = ProgressLine.wanted(values.json === true) ? new ProgressLine() : undefined;
  const stdout = new StdoutLines(undefined, progress);
  let run;
  try {
    run = await startRun({
      ...runOptionsFrom(values),
      file,
      ...(entryText !== undefined ? { entryText } : {}),
      onOutput: (line) => stdout.write(line), flushOutput: () => stdout.drain(),
      ...(progress ? { onEvent: (e) => progress.onEvent(e) } : {}),
      ...(durable ? { store: values.store ?? defaultStoreDir() } : { storeIfSuspends: defaultStoreDir() }),
    });
  } catch (e) {
    if (e instanceof RunSetupError) return printSetupError(e);
    throw e;
  }
  printSetupError(undefined, run.diagnostics);
  for (const note of run.notes) err(`turn: warning: ${note}`);
  if (run.id) err(`turn: run ${run.id} (store ${run.storeFile})`);
  const { value: result, signal } = await withInterrupts(run, () => run.start());
  progress?.close();
  if (signal !== undefined && result.kind === 'stopped') {
    await stdout.flush();
    printTokenSummary(run.tokens(), prices, values.json === true);
    return reportInterrupted(signal, run.id, values.store);
  }
  // before the run's last word, which scripts read as the last line (`suspended: ID`, the error)
  printTokenSummary(run.tokens(), prices, values.json === true);
  // a call's value is what it is run for: printed as JSON (--json prints it anyway)
  if (entryText !== undefined && result.kind === 'done' && values.json !== true) stdout.write(run.redact(JSON.stringify(result.json ?? null)));
  return reportResult(run, result, stdout, values.json === true);
}
