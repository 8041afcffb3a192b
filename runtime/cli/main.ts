// The `turn` command line (spec §4). Exit codes: 0 success, 1 the program failed at run time,
// 2 the program cannot be compiled (or read), 64 the command line itself is wrong.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { formatDiagnostic, hasErrors } from '../diagnostics.js';
import { InputError, loadProgram, type LoadedProgram } from '../load.js';
import { compileBundle } from '../compile/index.js';
import { runBundle } from '../vm/index.js';
import { AUTHORITY_USAGE } from './authority.js';
import { RUN_OPTIONS, hostFrom } from './run-host.js';

export const EXIT = { ok: 0, runtimeError: 1, compileError: 2, usage: 64, internal: 70 } as const;

const USAGE = `usage: turn <command> [options]

commands:
  run FILE      compile and run a Turn program
  check FILE    report diagnostics without running (same format and exit code as run);
                --refresh-schemas fetches the URL specs of use schema::... again (run takes it too)
  resume RUN    continue a durable run (suspended, or killed) from its journal (docs/durability.md)
  runs          list the runs in a store, with their status
  inspect RUN   a run's processes, context tiers, memory, mailboxes, pending/unknown effects, journal tail
  resolve RUN STEP --ok JSON | --error MESSAGE | --retry   settle an effect whose outcome is unknown
  fmt FILE...   format files in place (--check: change nothing, exit 1 if a file would change)
  lsp           start the language server on standard input and output
  version       print the version

run options:
  --json              print the program's result as one JSON line at the end
  --model NAME        model provider for \`infer\`: mock (the default), script:FILE, openai:MODEL,
                      ollama:MODEL or anthropic:MODEL (options: docs/inference.md)
  --trace             print the run's events (model requests, replies, retries...) as JSON lines on stderr
  --trace-file FILE   write them to FILE instead
  --max-steps N       stop a runaway program after about N VM steps (default 200000000, 0 = no limit)
  --seed N            seed the scheduler: interleavings vary by seed and replay exactly (default: arrival order)
  --store DIR         a durable run: journal every nondeterministic step in the store in DIR (also for
                      resume, runs, inspect, resolve; default \$TURN_STORE_DIR, else .turn/)
  --durable           a durable run in the default store folder

${AUTHORITY_USAGE}

exit codes: 0 success (or suspended), 1 run-time error, 2 compile error or unreadable file,
  3 a durable run waits for a decision about an unknown outcome, 64 usage error`;

export class UsageError extends Error {}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      if (rest.some((a) => a === '--durable' || a === '--store' || a.startsWith('--store='))) return (await import('./durable.js')).durableRun(rest);
      return runCommand(rest);
    case 'resume':
    case 'runs':
    case 'inspect':
    case 'resolve':
      return (await import('./durable.js')).durableCommand(command, rest);
    case 'check':
      return checkCommand(rest);
    case 'fmt': {
      const { fmtCommand } = await import('./fmt.js');
      return fmtCommand(rest);
    }
    case 'lsp': {
      const { startServer } = await import('../../language-server/server.js');
      startServer();
      return new Promise<number>(() => {}); // the server owns the process until its client exits
    }
    case 'version':
    case '--version':
      process.stdout.write(`turn ${VERSION}\n`);
      return EXIT.ok;
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE + '\n');
      return command === undefined ? EXIT.usage : EXIT.ok;
    default:
      throw new UsageError(`unknown command \`${command}\``);
  }
}

declare const __TURN_VERSION__: string | undefined;
const VERSION = typeof __TURN_VERSION__ === 'string' ? __TURN_VERSION__ : 'dev';

export function parse(args: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function singleFile(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`\`turn ${command}\` takes exactly one FILE, got ${positionals.length}`);
  return positionals[0];
}

export function numberOption(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} needs a whole number >= 0, got \`${String(value)}\``);
  return n;
}

/** Loads and checks; prints diagnostics. Returns the program, or an exit code when it cannot run. */
/** Loads and checks; URL schema specs are fetched when not cached yet, or again with `refresh`. */
export async function loadChecked(file: string, refreshSchemas = false): Promise<LoadedProgram | number> {
  let program: LoadedProgram;
  try {
    program = await loadProgram(file, { fetch: true, refresh: refreshSchemas });
  } catch (e) {
    if (e instanceof InputError) {
      process.stderr.write(`turn: ${e.message}\n`);
      return EXIT.compileError;
    }
    throw e;
  }
  for (const { file: source, diagnostic } of program.diagnostics) {
    process.stderr.write(formatDiagnostic(source, diagnostic) + '\n');
  }
  if (hasErrors(program.diagnostics.map((d) => d.diagnostic))) return EXIT.compileError;
  return program;
}

async function checkCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { 'refresh-schemas': { type: 'boolean' } });
  const loaded = await loadChecked(singleFile(positionals, 'check'), values['refresh-schemas'] === true);
  return typeof loaded === 'number' ? loaded : EXIT.ok;
}

async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, RUN_OPTIONS);
  const file = singleFile(positionals, 'run');
  const setup = await hostFrom(values);
  if (typeof setup === 'number') return setup;
  const { stdout, redact } = setup;

  const loaded = await loadChecked(file, values['refresh-schemas'] === true);
  if (typeof loaded === 'number') return loaded;
  const entry = loaded.units.find((u) => u.path === loaded.entryPath);
  if (entry && entry.program.body.length === 0) {
    process.stderr.write(`turn: warning: ${file} has no statements; nothing to run\n`);
  }

  const bundle = compileBundle(loaded.units, loaded.entryPath);
  const outcome = await runBundle(bundle, setup.host, { maxSteps: setup.maxSteps, seed: setup.seed, inferRetries: setup.inferRetries });
  setup.close();
  await stdout.flush();
  if (!outcome.ok) {
    const { error } = outcome;
    const where = `${error.path}:${error.line}:${error.column}`;
    let text = `${where}: runtime error: ${redact(error.message)}\n`;
    for (const frame of error.stack.slice(1)) text += `    at ${frame.fn} (${frame.path}:${frame.line}:${frame.column})\n`;
    process.stderr.write(text);
    return EXIT.runtimeError;
  }
  if (values.json) {
    stdout.write(redact(JSON.stringify(outcome.json ?? null)));
    await stdout.flush();
  }
  return EXIT.ok;
}

/** Runs the CLI as a process: maps every failure to a message and an exit code, never a stack trace. */
export function runAsProcess(argv: string[]): void {
  main(argv).then(
    (code) => {
      process.exitCode = code;
    },
    (e: unknown) => {
      if (e instanceof UsageError) {
        process.stderr.write(`turn: ${e.message}\n\n${USAGE}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const detail = e instanceof Error ? (process.env.TURN_DEBUG ? e.stack : e.message) : String(e);
      process.stderr.write(`turn: internal error: ${detail}\n(this is a bug in Turn, not in your program; TURN_DEBUG=1 shows more)\n`);
      process.exitCode = EXIT.internal;
    },
  );
}

if (require.main === module) runAsProcess(process.argv.slice(2));
