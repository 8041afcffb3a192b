// The `turn` command line. It sits above the runtime library (runtime/index.ts): it reads flags
// into the run API's options, prints what a run says, and maps outcomes to exit codes:
// 0 success (or suspended), 1 the program failed at run time, 2 it cannot be compiled (or read),
// 3 a durable run waits for a decision, 64 the command line itself is wrong, 130/143 interrupted.
import packageJson from '../package.json';
// The run API itself, not runtime/index.ts: what the library index also exports (the debugger, the
// test runner, the MCP server, the knowledge store ...) is then initialised only by the commands
// that use it, not at every start (docs/performance.md, *Cold start, third pass*).
import { compileProgram, knownSecretsRedactor, RunSetupError } from '../runtime/run/index.js';
import { AUTHORITY_USAGE, runGrantList } from './run-options.js';
import { EXIT, UsageError, parse } from './usage.js';
import { turnFiles } from './files.js';
import { printSetupError } from './report.js';
import { enableEnvironScrub, scrubInitialEnvironment } from '../runtime/effects/environ.js';

export { EXIT, UsageError } from './usage.js';

const USAGE = `usage: turn <command> [options]

commands:
  run FILE      compile and run a Turn program
  check PATH... report diagnostics without running (same format and exit code as run); a folder
                stands for the .tn files under it;
                --refresh-schemas fetches the URL specs of use schema::... again; --offline fetches
                nothing at compile time (cached specs only); run takes both too; --allow-run GRANT
                (and --allow-env NAMES for its pass_env) lets it launch a stdio MCP server of
                use schema::mcp({...}) to list its tools; it shows the launch maps the program
                writes and warns where a grant leaves an interpreter's arguments free
  mcp FILE      serve the closures FILE returns as MCP tools over stdio, each call a run with the
                run options given (docs/mcp.md); --port N serves HTTP on 127.0.0.1 to clients
                sending the bearer token it prints (or the one in --token-file FILE, mode 0600);
                --store DIR makes each call a durable run, performed once per idempotency key
  resume RUN    continue a durable run (suspended, or killed) from its journal (docs/durability.md)
  runs          list the runs in a store, with their status
  inspect RUN   a run's processes, context tiers, memory, mailboxes, pending/unknown effects, journal tail
  resolve RUN STEP --ok JSON | --error MESSAGE | --retry   settle an effect whose outcome is unknown
  fmt PATH...   format files (or the .tn files under a folder) in place (--check: change nothing,
                exit 1 if a file would change)
  serve --restate-admin ADMIN_URL [--port N] [--advertise URL] [--ingress URL]
                a worker hosting Turn runs on Restate, registered with its admin API (docs/scale-out.md)
  submit FILE --restate URL [--wait] [--spread] [run options]
                start a run on Restate (URL: its ingress) and print its id; --wait prints its output
                and exits as run would; --spread may place its children on other workers;
                runs, inspect, resume and resolve take --restate URL too
  test [PATHS]  run the tests of *_test.tn files, replaying recorded model replies (docs/testing.md):
                --filter NAME, --reporter spec|tap|junit|json, --record / --update with --model M,
                --jobs N; run options (--max-steps, --max-time, --allow-*...) apply to each test
  record RUN    a stored run's model replies as a test's recording (--store DIR, --test FILE, --name NAME)
  eval FILE     run a program or test file N times against a model: pass rate, confidence, tokens,
                latency (--samples N, --model M, --json)
  lsp           start the language server on standard input and output
  version       print the version

run options:
  --json              print the program's result as one JSON line at the end
  --model NAME        model provider for \`infer\`: mock (the default), script:FILE, openai:MODEL,
                      ollama:MODEL, anthropic:MODEL, wasm:DRIVER.wasm or llama:MODEL.gguf (in process,
                      needs the node-llama-cpp package); options and time limits: docs/inference.md;
                      without it: TURN_MODEL, then Turn v1's TURN_LLM_PROVIDER (.turn_modules/NAME.wasm)
  --trace             print the run's events (model requests, replies, retries...) as JSON lines on stderr
  --trace-file FILE   write them to FILE instead
  --max-steps N       stop a runaway program after about N VM steps (loop turns, calls, resumptions
                      from a wait; default 200000000, 0 = no limit)
  --context-working N, --context-episodic N
                      token budgets of every process's P1 and P2 context tiers (default 8000, 32000)
  --max-alloc N       stop it once it has made N cells (about 8 bytes each) of lists, maps, structs
                      and text over the run (default 50000000, about 400 MB; 0 = no limit)
  --max-time SECONDS  stop it after SECONDS of wall-clock time, where main stands (default: no limit)
  --tool-timeout SECONDS  the most one effect tool call (files, HTTP, env...) may take, approvals not
                      counted; past it the call fails with an EffectError (default 30, 0 = no limit)
  --seed N            seed the scheduler: interleavings vary by seed and replay exactly (default: arrival
                      order); also sent as the seed of every model call
  --temperature T     the sampling temperature of every model call (default: the model spec's, else the server's)
  --max-tokens N      the output bound of every model call (default: the spec's max_tokens, else derived from the type)
  --consistency K     ask each model call K times and take their agreement as the confidence (default 1)
  --store DIR         a durable run: journal every nondeterministic step in the store in DIR (also for
                      resume, runs, inspect, resolve; default \$TURN_STORE_DIR, else .turn/)
  --durable           a durable run in the default store folder

${AUTHORITY_USAGE}

exit codes: 0 success (or suspended), 1 run-time error, 2 compile error or unreadable file,
  3 a durable run waits for a decision about an unknown outcome, 64 usage error,
  130 / 143 interrupted by SIGINT / SIGTERM (a durable run is saved: turn resume continues it)`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'run':
      return (await import('./run.js')).runCommand(rest);
    case 'resume':
    case 'runs':
    case 'inspect':
    case 'resolve':
      return (await import('./runs.js')).durableCommand(command, rest);
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

/** The package's version (the bundler inlines package.json). */
const VERSION = packageJson.version;

async function checkCommand(args: string[]): Promise<number> {
  const { values, positionals } = parse(args, { 'refresh-schemas': { type: 'boolean' }, offline: { type: 'boolean' }, 'allow-run': { type: 'string', multiple: true }, 'allow-env': { type: 'string', multiple: true } });
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
        write(`turn: ${e.message}\nrun \`turn help\` for the commands and their options\n`);
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
