// `turn test [PATHS] [--filter NAME] [--reporter spec|tap|junit|json] [--record | --update] [--model M]`
// (docs/testing.md): finds the `*_test.tn` files under PATHS (default: the working directory), runs
// the files in parallel — one child process per file, `--jobs` at a time — and each test in a fresh
// VM; prints the report and `N passed, N failed`; exits 1 when a test failed or a file could not run.
import { spawn } from 'node:child_process';
import * as os from 'node:os';
import {
  findTestFiles, InputError, report, REPORTERS, runTestFile, summarize, summaryLine, specReport, type FileResult, type FileRunOptions, type ReporterName,
} from '../runtime/index.js';
import { COMMANDS } from './commands.js';
import { runOptionsFrom, testRunOptions } from './run-options.js';
import { EXIT, UsageError, err, numberOption, parse } from './usage.js';

/** The options a worker process gets from its parent (JSON in this variable). */
const WORKER_ENV = 'TURN_TEST_WORKER_OPTIONS';

export async function testCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.test.options, 'test');
  if (values.worker !== undefined) return worker(values.worker);
  if (values.watch) {
    // every run after a save replays the recordings: a save never spends model calls
    if (values.record || values.update) throw new UsageError('--watch replays the recordings: record them first with `turn test --record`, then watch', 'test');
    const { watch, withoutWatch } = await import('./watch.js');
    return watch('test', withoutWatch(args), positionals.length > 0 ? positionals : ['.']);
  }
  const reporter = (values.reporter ?? 'spec') as ReporterName | 'json';
  if (reporter !== 'json' && !REPORTERS.includes(reporter)) throw new UsageError(`--reporter expects ${REPORTERS.join(', ')} or json, got \`${reporter}\``);
  if (values.record && values.update) throw new UsageError('--record and --update cannot be used together');
  if (values.json) throw new UsageError('`turn test` takes --reporter json, not --json');
  const run = runOptionsFrom(values);
  if (run.traceFile !== undefined) throw new UsageError('`turn test` does not write a trace; run one test with `turn run` for that');
  const options: FileRunOptions = {
    // every option of `turn run`, with the same meaning (--max-tokens, --temperature, --consistency, --seed, budgets...)
    ...testRunOptions(run),
    mode: values.record ? 'record' : values.update ? 'update' : 'replay',
    ...(values.filter !== undefined ? { filter: values.filter } : {}),
  };
  let files: string[];
  try {
    files = findTestFiles(positionals.length > 0 ? positionals : ['.']);
  } catch (e) {
    if (e instanceof InputError) {
      err(`turn: ${e.message}`);
      return EXIT.compileError;
    }
    throw e;
  }
  if (files.length === 0) {
    err(`turn: no test files (*_test.tn) under ${positionals.length > 0 ? positionals.join(', ') : 'the working directory'}`);
    return EXIT.runtimeError;
  }
  const jobs = numberOption(values.jobs, 'jobs') ?? Math.max(1, Math.min(files.length, os.availableParallelism()));
  const results: (FileResult | undefined)[] = new Array<FileResult | undefined>(files.length);
  let printed = 0;
  // spec prints each file as soon as the files before it are done, so the order never varies
  const flush = (): void => {
    while (reporter === 'spec' && printed < files.length && results[printed]) {
      process.stdout.write(specReport([results[printed]!]).replace(/\n\n[^\n]*\n$/, '\n'));
      printed++;
    }
  };
  let next = 0;
  const one = async (): Promise<void> => {
    while (next < files.length) {
      const k = next++;
      results[k] = files.length === 1 || jobs <= 1 ? await runTestFile(files[k], options) : await inChild(files[k], options);
      flush();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(jobs, files.length)) }, one));
  const all = results as FileResult[];
  if (reporter === 'spec') process.stdout.write(`\n${summaryLine(summarize(all))}\n`);
  else if (reporter === 'json') process.stdout.write(JSON.stringify({ files: all, summary: summarize(all) }) + '\n');
  else process.stdout.write(report(reporter, all));
  const s = summarize(all);
  return s.failed + s.broken > 0 ? EXIT.runtimeError : EXIT.ok;
}

/** Runs one file in a child `turn test --worker FILE` and reads its result (one JSON line). */
function inChild(file: string, options: FileRunOptions): Promise<FileResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...process.execArgv, process.argv[1], 'test', '--worker', file], {
      env: { ...process.env, [WORKER_ENV]: JSON.stringify(options) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line) as FileResult);
      } catch {
        resolve({ file, tests: [], error: `${file}: the test process ended (exit code ${String(code)}) without a result` });
      }
    });
  });
}

async function worker(file: string): Promise<number> {
  const options = JSON.parse(process.env[WORKER_ENV] ?? '{}') as FileRunOptions;
  const result = await runTestFile(file, options);
  process.stdout.write(JSON.stringify(result) + '\n');
  return EXIT.ok;
}
