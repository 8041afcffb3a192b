// The `turn` command line. It sits above the runtime library (runtime/index.ts): it reads flags
// into the run API's options, prints what a run says, and maps outcomes to exit codes:
// 0 success (or suspended), 1 the program failed at run time, 2 it cannot be compiled (or read),
// 3 a durable run waits for a decision, 64 the command line itself is wrong, 130/143 interrupted.
import packageJson from '../package.json';
// The run API itself, not runtime/index.ts: what the library index also exports (the debugger, the
// test runner, the MCP server, the knowledge store ...) is then initialised only by the commands
// that use it, not at every start (docs/performance.md, *Cold start, third pass*).
import { compileProgram, knownSecretsRedactor, RunSetupError } from '../runtime/run/index.js';
import { runGrantList } from './run-options.js';
import { COMMANDS, commandHelp, isCommand, mainHelp } from './commands.js';
import { EXIT, UsageError, closestName, parse } from './usage.js';
import { turnFiles } from './files.js';
import { printSetupError } from './report.js';
import { enableEnvironScrub, scrubInitialEnvironment } from '../runtime/effects/environ.js';

export { EXIT, UsageError } from './usage.js';

/** `--help` or `-h` among a command's arguments (before a `--`, after which arguments are not options). */
function asksForHelp(args: string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** `turn help [COMMAND]`. */
function help(args: string[]): number {
  if (args.length === 0) {
    process.stdout.write(mainHelp() + '\n');
    return EXIT.ok;
  }
  if (args.length > 1 || !isCommand(args[0])) throw new UsageError(args.length > 1 ? '`turn help` takes one COMMAND' : unknownCommand(args[0]));
  process.stdout.write(commandHelp(args[0]) + '\n');
  return EXIT.ok;
}

function unknownCommand(name: string): string {
  const close = closestName(name, Object.keys(COMMANDS));
  return `unknown command \`${name}\`${close ? ` (did you mean \`${close}\`?)` : ''}`;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // every command's help, before anything starts (`turn lsp --help` must not start the server)
  if (command !== undefined && isCommand(command) && asksForHelp(rest)) {
    process.stdout.write(commandHelp(command) + '\n');
    return EXIT.ok;
  }
  switch (command) {
    case 'run':
      return (await import('./run.js')).runCommand(rest);
    case 'resume':
    case 'runs':
    case 'inspect':
    case 'resolve':
      return (await import('./runs.js')).durableCommand(command, rest);
    case 'answer':
      return (await import('./runs.js')).answerCommand(rest);
    case 'serve':
      return (await import('./serve.js')).serveCommand(rest);
    case 'mcp':
      return (await import('./mcp.js')).mcpCommand(rest);
    case 'submit':
      return (await import('./submit.js')).submitCommand(rest);
    case 'check':
      return checkCommand(rest);
    case 'test':
      return (await import('./test.js')).testCommand(rest);
    case 'record':
      return (await import('./record.js')).recordCommand(rest);
    case 'eval':
      return (await import('./eval.js')).evalCommand(rest);
    case 'gen':
      return (await import('./gen.js')).genCommand(rest);
    case 'calibrate':
      return (await import('./calibrate.js')).calibrateCommand(rest);
    case 'fmt': {
      const { fmtCommand } = await import('./fmt.js');
      return fmtCommand(rest);
    }
    case 'lsp': {
      const { startServer } = await import('../language-server/server.js');
      startServer();
      return new Promise<number>(() => {}); // the server owns the process until its client exits
    }
    case 'version':
    case '--version':
      process.stdout.write(`turn ${VERSION}\n`);
      return EXIT.ok;
    case 'help':
      return help(rest);
    case undefined:
    case '--help':
    case '-h':
      process.stdout.write(mainHelp() + '\n');
      return command === undefined ? EXIT.usage : EXIT.ok;
    default:
      throw new UsageError(unknownCommand(command));
  }
}

/** The package's version (the bundler inlines package.json). */
const VERSION = packageJson.version;

async function checkCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, COMMANDS.check.options, 'check');
  if (positionals.length === 0) throw new UsageError('`turn check` needs a FILE or FOLDER');
  if (values.offline && values['refresh-schemas']) throw new UsageError('--offline and --refresh-schemas cannot be used together');
  const { files, missing } = turnFiles(positionals);
  // one FILE is checked as before (a missing one is the loader's message); a folder is its .tn files
  if (positionals.length === 1 && files.length <= 1 && missing.length <= 1) return checkOne(files[0] ?? positionals[0], values);
  let code: number = EXIT.ok;
  for (const m of missing) {
    process.stderr.write(`turn: ${m}: no such file or folder\n`);
    code = EXIT.compileError;
  }
  if (files.length === 0 && missing.length === 0) {
    process.stderr.write(`turn: no .tn files under ${positionals.join(', ')}\n`);
    return EXIT.compileError;
  }
  for (const file of files) code = Math.max(code, await checkOne(file, values));
  return code;
}

async function checkOne(file: string, values: { 'refresh-schemas'?: boolean; offline?: boolean; 'allow-run'?: string[]; 'allow-env'?: string[] }): Promise<number> {
  try {
    const allowRun = runGrantList(values['allow-run']) ?? [];
    const allowEnv = (values['allow-env'] ?? []).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
    const compiled = await compileProgram(file, { refreshSchemas: values['refresh-schemas'] === true, fetchSchemas: values.offline !== true, authority: { allowRun, allowEnv } });
    printSetupError(undefined, compiled.diagnostics);
    // the stdio MCP servers it may launch, and the grants that would let it (docs/authority.md)
    (await import('./launches.js')).reportLaunches(compiled, allowRun);
    return EXIT.ok;
  } catch (e) {
    if (e instanceof RunSetupError) return printSetupError(e);
    throw e;
  }
}

/** Commands that serve until their input or connection ends, rather than finish. */
const SERVING_COMMANDS = new Set(['mcp', 'lsp', 'serve']);

/** Runs the CLI as a process: maps every failure to a message and an exit code, never a stack trace. */
export function runAsProcess(argv: string[]): void {
  // before anything can launch a program: the run's secrets out of the environment block that
  // /proc/<turn>/environ shows to every process of this user (runtime/effects/environ.ts)
  enableEnvironScrub();
  scrubInitialEnvironment();
  let settled = false;
  // Node exits when nothing is left to wait on, even while a promise of ours is pending: a step
  // whose promise can never settle (a lost callback) would otherwise end the command with exit 0
  // and no word, as if the program had finished
  const drained = () => {
    if (settled) return;
    process.stderr.write('turn: internal error: the command stopped with a step still pending that can never finish (nothing left to wait on)\n(this is a bug in Turn, not in your program; a durable run can be resumed)\n');
    process.exitCode = EXIT.internal;
  };
  // a server (`turn mcp` over stdio, `turn lsp`, `turn serve`) ends when its input does, with its
  // promise still pending by design: only the commands that finish their work are watched
  if (!SERVING_COMMANDS.has(argv[0] ?? '')) process.once('beforeExit', drained);
  main(argv).then(
    (code) => {
      settled = true;
      process.exitCode = code;
    },
    async (e: unknown) => {
      settled = true;
      // a message may quote what it failed on (an argument, a server's answer): the secrets known here are redacted
      const redactor = await knownSecretsRedactor().catch(() => undefined);
      const write = (text: string): void => void process.stderr.write(redactor ? redactor.redact(text) : text);
      if (e instanceof UsageError) {
        write(`turn: ${e.message}\n${e.command ? `run \`turn ${e.command} --help\` for its options` : 'run `turn help` for the commands and their options'}\n`);
        process.exitCode = EXIT.usage;
        return;
      }
      const detail = e instanceof Error ? (process.env.TURN_DEBUG ? e.stack : e.message) : String(e);
      write(`turn: internal error: ${detail}\n(this is a bug in Turn, not in your program; TURN_DEBUG=1 shows more)\n`);
      process.exitCode = EXIT.internal;
    },
  );
}

if (require.main === module) runAsProcess(process.argv.slice(2));
