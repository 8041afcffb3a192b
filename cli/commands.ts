// The `turn` command table: every command, its arguments, what it does, and its options with their
// help. One table feeds the options each command parses (node:util parseArgs), `turn --help`,
// `turn CMD --help` / `turn help CMD`, and the README's command table (scripts/readme-commands.ts
// writes it; test/cli/commands.test.ts fails when they differ). Adding an option is one line in
// its group or command here.
//
// This module imports nothing of the runtime: `turn --help` and option errors stay fast.

/** One option: its parseArgs shape, the placeholder of its value, and one line of help. */
export interface OptionSpec {
  readonly type: 'string' | 'boolean';
  readonly multiple?: boolean;
  readonly short?: string;
  /** the value's placeholder in help (`N`, `FILE`...) */
  readonly arg?: string;
  readonly help: string;
}

export type OptionGroup = Readonly<Record<string, OptionSpec>>;

export const AUTHORITY_OPTIONS = {
  secrets: { type: 'string', arg: 'FILE', help: 'secrets file (JSON or NAME=value lines, chmod 600); TURN_SECRET_<NAME> variables come first' },
  'allow-net': { type: 'string', multiple: true, arg: 'HOSTS', help: 'hosts the program may reach, comma-separated (host, *.suffix, host:port, *)' },
  'allow-read': { type: 'string', multiple: true, arg: 'DIRS', help: 'folders it may read' },
  'allow-write': { type: 'string', multiple: true, arg: 'DIRS', help: 'folders it may write' },
  'allow-env': { type: 'string', multiple: true, arg: 'NAMES', help: 'environment variables it may read (never TURN_SECRET_*)' },
  'allow-run': {
    type: 'string', multiple: true, arg: 'GRANT',
    help: 'an MCP server it may launch over stdio (no shell), repeatable: CMD (a name on PATH or a path; comma-separated) with the arguments of a launch map written literally in the program, or "CMD ARG..." / \'["CMD", "ARG"...]\' with exactly those arguments; granting an interpreter (node, python, bash...) with free arguments grants everything',
  },
  'allow-knowledge': { type: 'boolean', help: 'std/knowledge may open its store (.turn/knowledge.db) without --allow-write on it' },
  'max-model-calls': { type: 'string', arg: 'N', help: 'model call budget (a call past it is refused: an InferError)' },
  'max-model-tokens': { type: 'string', arg: 'N', help: 'model token budget: prompt + completion of every call, from the provider\'s usage, else counted; the call that cannot fit or crosses it ends the run' },
  'approve-effects': { type: 'string', arg: 'KINDS', help: 'effects that need approval: network, files, model, env (comma-separated)' },
  approve: { type: 'string', arg: 'all|none|ask', help: 'who approves them (default: ask on the terminal; deny without one)' },
  'oauth-client-metadata': {
    type: 'string', arg: 'URL',
    help: 'Turn\'s client ID metadata document (https), the client id where an MCP server\'s authorization server supports them (identity::oauth; docs/mcp.md, Authorization)',
  },
} as const satisfies OptionGroup;

/** The options of `turn run` that shape its host (plain and durable runs alike). */
export const RUN_OPTIONS = {
  json: { type: 'boolean', help: 'print the program\'s result as one JSON line at the end' },
  model: {
    type: 'string', arg: 'NAME',
    help: 'model provider for `infer`: mock (the default), script:FILE, openai:MODEL, ollama:MODEL, anthropic:MODEL, wasm:DRIVER.wasm or llama:MODEL.gguf (in process, needs the node-llama-cpp package); options and time limits: docs/inference.md; without it: TURN_MODEL, then Turn v1\'s TURN_LLM_PROVIDER (.turn_modules/NAME.wasm)',
  },
  trace: { type: 'boolean', help: 'print the run\'s events (model requests, replies, retries...) as JSON lines on stderr' },
  'trace-file': { type: 'string', arg: 'FILE', help: 'write them to FILE instead' },
  'max-steps': { type: 'string', arg: 'N', help: 'stop a runaway program after about N VM steps (loop turns, calls, resumptions from a wait; default 200000000, 0 = no limit)' },
  'context-working': { type: 'string', arg: 'N', help: 'token budget of every process\'s P1 context tier (default 8000)' },
  'context-episodic': { type: 'string', arg: 'N', help: 'token budget of every process\'s P2 context tier (default 32000)' },
  'max-alloc': { type: 'string', arg: 'N', help: 'stop it once it has made N cells (about 8 bytes each) of lists, maps, structs and text over the run (default 50000000, about 400 MB; 0 = no limit)' },
  'max-time': { type: 'string', arg: 'SECONDS', help: 'stop it after SECONDS of wall-clock time, where main stands (default: no limit)' },
  'tool-timeout': { type: 'string', arg: 'SECONDS', help: 'the most one effect tool call (files, HTTP, env...) may take, approvals not counted; past it the call fails with an EffectError (default 30, 0 = no limit)' },
  seed: { type: 'string', arg: 'N', help: 'seed the scheduler: interleavings vary by seed and replay exactly (default: arrival order); also sent as the seed of every model call' },
  temperature: { type: 'string', arg: 'T', help: 'the sampling temperature of every model call (default: the model spec\'s, else the server\'s)' },
  'max-tokens': { type: 'string', arg: 'N', help: 'the output bound of every model call (default: the spec\'s max_tokens, else derived from the type)' },
  consistency: { type: 'string', arg: 'K', help: 'ask each model call K times and take their agreement as the confidence (default 1)' },
  calibration: { type: 'string', arg: 'FILE|none', help: 'the calibration maps `turn calibrate` fitted, applied to this model\'s confidences (default .turn/calibration.json when it exists; none: raw confidences)' },
  'refresh-schemas': { type: 'boolean', help: 'fetch the URL specs of use schema::... again' },
  offline: { type: 'boolean', help: 'fetch nothing at compile time (cached specs only)' },
  answer: {
    type: 'string', multiple: true, arg: 'KEY=ANSWER',
    help: 'answer an MCP server\'s question (elicitation) KEY: accept, decline, cancel or a JSON map of its fields (repeatable; a waiting run names KEY; * answers all)',
  },
  ...AUTHORITY_OPTIONS,
} as const satisfies OptionGroup;

const STORE = { type: 'string', arg: 'DIR', help: 'the run store\'s folder (default $TURN_STORE_DIR, else .turn/)' } as const;
const JSON_LINES = { type: 'boolean', help: 'one JSON object per line' } as const;
const RESTATE = {
  restate: { type: 'string', arg: 'URL', help: 'a run on Restate: its ingress URL (docs/scale-out.md)' },
  'restate-admin': { type: 'string', arg: 'ADMIN_URL', help: 'Restate\'s admin API (default: port 9070 of the ingress host)' },
} as const;
const PRICES = { type: 'string', arg: 'FILE', help: 'a price table (JSON, docs/observability.md) that turns the token summary a run with a real model ends with into money (default $TURN_PRICES)' } as const;
const WATCH = { type: 'boolean', help: 'run again each time a .tn file beside it changes (stop with Ctrl-C)' } as const;

/** A command's options, in sections for its help: [title, options] ('' is the command's own). */
type Section = readonly [string, OptionGroup];

export interface CommandSpec {
  readonly name: string;
  /** its arguments, as usage shows them (`FILE`, `RUN STEP`...) */
  readonly args: string;
  /** one line: `turn --help` and the README's table show it */
  readonly summary: string;
  /** more, for `turn CMD --help` */
  readonly details?: string;
  readonly sections: readonly Section[];
}

type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;
type OptionsOf<S extends readonly Section[]> = UnionToIntersection<S[number][1]> & { help: { type: 'boolean'; short: 'h' } };

/** `--help` / `-h`, which every command takes. */
const HELP = { help: { type: 'boolean', short: 'h', help: 'show this help' } } as const;

function command<const S extends readonly Section[]>(spec: Omit<CommandSpec, 'sections'> & { sections: S }): CommandSpec & { options: OptionsOf<S> } {
  const options = Object.assign({}, ...spec.sections.map((s) => s[1]), HELP) as OptionsOf<S>;
  return { ...spec, options };
}

export const COMMANDS = {
  run: command({
    name: 'run', args: 'FILE',
    summary: 'compile and run a Turn program; `call("echo", x)` prints a line; a durable run (--store, --durable) journals every nondeterministic step, and `suspend;` exits 0 with `suspended: RUN_ID` (docs/durability.md)',
    sections: [['', { store: { ...STORE, help: 'a durable run: journal every nondeterministic step in the store in DIR' }, durable: { type: 'boolean', help: 'a durable run in the default store folder' }, watch: WATCH, prices: PRICES, call: { type: 'string', arg: 'NAME', help: 'run only the top-level function NAME (its file\'s entry and top-level printing do not run) and print its value as JSON (docs/editor.md, Playground)' }, args: { type: 'string', arg: 'JSON', help: 'with --call: the arguments, a JSON object by parameter name or an array in order, checked against the parameters\' types' } }], ['run options', RUN_OPTIONS]],
  }),
  check: command({
    name: 'check', args: 'PATH...',
    summary: 'report diagnostics without running, as `FILE:LINE:COL: message` (same format and exit code as run); a folder stands for the .tn files under it',
    details: 'With --allow-run it may launch a stdio MCP server of use schema::mcp({...}) to list its tools; it shows the launch maps the program writes and warns where a grant leaves an interpreter\'s arguments free.',
    sections: [['', { 'refresh-schemas': RUN_OPTIONS['refresh-schemas'], offline: RUN_OPTIONS.offline, 'allow-run': AUTHORITY_OPTIONS['allow-run'], 'allow-env': { ...AUTHORITY_OPTIONS['allow-env'], help: 'variables the pass_env of a launched server may read' } }]],
  }),
  mcp: command({
    name: 'mcp', args: 'FILE',
    summary: 'serve the closures FILE returns as MCP tools over stdio, each call a run with the run options given (docs/mcp.md)',
    sections: [['', { port: { type: 'string', arg: 'N', help: 'serve HTTP on 127.0.0.1 to clients sending the bearer token it prints' }, 'token-file': { type: 'string', arg: 'FILE', help: 'the token to expect, from FILE (mode 0600), with --port' }, store: { type: 'string', arg: 'DIR', help: 'make each call a durable run in the store in DIR, performed once per idempotency key (docs/mcp.md, Durable served agents)' } }], ['run options', RUN_OPTIONS]],
  }),
  resume: command({
    name: 'resume', args: 'RUN',
    summary: 'continue a durable run (suspended, or killed) from its journal: recorded results are replayed, never re-asked; exit 3 when an effect\'s outcome is unknown',
    sections: [['', { store: STORE, migrate: { type: 'boolean', help: 'move a run at a wait point to the file\'s current code (journaled)' }, prices: PRICES, ...RESTATE }], ['run options', RUN_OPTIONS]],
  }),
  runs: command({
    name: 'runs', args: '',
    summary: 'the runs of a store with their status (running, suspended, waiting, done, failed)',
    sections: [['', { store: STORE, json: JSON_LINES, status: { type: 'string', arg: 'S', help: 'only the runs with this status' }, ...RESTATE }]],
  }),
  inspect: command({
    name: 'inspect', args: 'RUN',
    summary: 'a run\'s processes, context tiers, memory, mailboxes, pending and unknown effects, and the journal\'s tail',
    sections: [['', { store: STORE, json: { type: 'boolean', help: 'as one JSON object' }, tail: { type: 'string', arg: 'N', help: 'journal rows to show (default 20)' }, ...RESTATE }]],
  }),
  resolve: command({
    name: 'resolve', args: 'RUN STEP',
    summary: 'settle an effect whose outcome is unknown: its result (--ok JSON), its error (--error MESSAGE), or run it again with the same idempotency key (--retry)',
    sections: [['', { store: STORE, ok: { type: 'string', arg: 'JSON', help: 'the effect succeeded with this result' }, error: { type: 'string', arg: 'MESSAGE', help: 'the effect failed with this message' }, retry: { type: 'boolean', help: 'run it again' }, ...RESTATE }]],
  }),
  answer: command({
    name: 'answer', args: 'RUN',
    summary: 'answer the question (`ask T`) a waiting run asks: the answer is checked against T and journaled; `turn resume RUN` continues with it',
    sections: [['', { store: STORE, value: { type: 'string', arg: 'JSON', help: 'the answer, as JSON (a text in quotes: \'"yes"\')' }, step: { type: 'string', arg: 'N', help: 'which question, when the run waits on several (its journal step)' } }]],
  }),
  fmt: command({
    name: 'fmt', args: 'PATH...',
    summary: 'format files (or the .tn files under a folder) in place; `turn fmt -` formats standard input to standard output',
    sections: [['', { check: { type: 'boolean', help: 'change nothing; exit 1 if a file would change' } }]],
  }),
  serve: command({
    name: 'serve', args: '',
    summary: 'a worker hosting Turn runs on Restate, registered with its admin API, serving until SIGTERM/SIGINT (docs/scale-out.md)',
    sections: [['', {
      'restate-admin': { type: 'string', arg: 'ADMIN_URL', help: 'Restate\'s admin API (required)' },
      port: { type: 'string', arg: 'N', help: 'the port to listen on' },
      host: { type: 'string', arg: 'HOST', help: 'the address to listen on' },
      advertise: { type: 'string', arg: 'URL', help: 'the URL Restate reaches the worker at (a balancer)' },
      ingress: { type: 'string', arg: 'URL', help: 'Restate\'s ingress, for the runs this worker starts' },
    }]],
  }),
  submit: command({
    name: 'submit', args: 'FILE',
    summary: 'start a run on Restate and print its id; with --wait, print its output and exit as run would',
    sections: [['', {
      restate: { type: 'string', arg: 'URL', help: 'the Restate ingress (required)' },
      wait: { type: 'boolean', help: 'wait for the run: print its output, exit as `turn run` would' },
      id: { type: 'string', arg: 'RUN', help: 'the run\'s id (default: a new one)' },
      spread: { type: 'boolean', help: 'its children may run on other workers' },
    }], ['run options', RUN_OPTIONS]],
  }),
  test: command({
    name: 'test', args: '[PATHS]',
    summary: 'run the tests of *_test.tn files, replaying recorded model replies (docs/testing.md)',
    sections: [['', {
      filter: { type: 'string', arg: 'NAME', help: 'only the tests whose name contains NAME' },
      reporter: { type: 'string', arg: 'spec|tap|junit|json', help: 'the report\'s format (default spec)' },
      record: { type: 'boolean', help: 'ask the model (--model M) and record its replies' },
      update: { type: 'boolean', help: 'record again only the tests whose recording no longer matches' },
      jobs: { type: 'string', arg: 'N', help: 'test files run at once (default: the cores)' },
      watch: { type: 'boolean', help: 'run the tests again each time a .tn file under PATHS changes (replaying; stop with Ctrl-C)' },
      worker: { type: 'string', arg: 'JSON', help: 'internal: a worker process of a parent `turn test`' },
    }], ['run options (applied to each test)', RUN_OPTIONS]],
  }),
  record: command({
    name: 'record', args: 'RUN',
    summary: 'a stored run\'s model replies as a test\'s recording (docs/testing.md)',
    sections: [['', { store: STORE, test: { type: 'string', arg: 'FILE', help: 'the test file (*_test.tn) to record into' }, name: { type: 'string', arg: 'NAME', help: 'the test\'s name' } }]],
  }),
  eval: command({
    name: 'eval', args: 'FILE',
    summary: 'run a program or test file N times against a model: pass rate, confidence, tokens, latency',
    sections: [['', { samples: { type: 'string', arg: 'N', help: 'how many runs (default 10)' }, jobs: { type: 'string', arg: 'N', help: 'runs at once (default 1)' }, filter: { type: 'string', arg: 'NAME', help: 'only the tests whose name contains NAME' } }], ['run options', RUN_OPTIONS]],
  }),
  gen: command({
    name: 'gen', args: 'ts FILE',
    summary: 'write a typed TypeScript client of the closures a Turn module exports: one async function each, one type per struct and type alias, values checked both ways (docs/embedding.md)',
    sections: [['', {
      out: { type: 'string', arg: 'DIR', help: 'the folder the client (FILE.ts) is written to (required)' },
      'import-from': { type: 'string', arg: 'PKG', help: 'where the client imports the Turn library from (default turn-vscode)' },
      watch: { type: 'boolean', help: 'write it again each time a .tn file beside FILE changes (stop with Ctrl-C)' },
    }]],
  }),
  calibrate: command({
    name: 'calibrate', args: 'DATASET|TESTS',
    summary: 'ask a model the labeled cases of a JSONL dataset (or the expectations of test files: a *_test.tn file or a folder), report ECE, Brier and AUROC per confidence source, and fit the maps a run then applies to that model\'s confidences (docs/inference.md, Calibration)',
    sections: [['', {
      out: { type: 'string', arg: 'FILE', help: 'the calibration file to write (default .turn/calibration.json; the maps of other models stay)' },
      holdout: { type: 'string', arg: 'SHARE', help: 'set this share of the cases apart (0 to 0.9, by a hash of their id) and measure the maps on them (default 0: measured on the cases they were fitted on)' },
      'dry-run': { type: 'boolean', help: 'measure and fit, write nothing' },
      json: { type: 'boolean', help: 'the report, every case included, as one JSON object' },
    }], ['run options', RUN_OPTIONS]],
  }),
  lsp: command({
    name: 'lsp', args: '',
    summary: 'the language server on standard input and output, for any LSP client (Neovim, Helix, Zed, Emacs)',
    sections: [],
  }),
  version: command({ name: 'version', args: '', summary: 'print the version', sections: [] }),
  help: command({ name: 'help', args: '[COMMAND]', summary: 'the commands, or one command\'s options', sections: [] }),
} as const;

export type CommandName = keyof typeof COMMANDS;

export function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

// ------------------------------------------------------------------ help text

const WIDTH = 100;

/** `text` wrapped to WIDTH, each line after the first indented by `indent`. */
function wrap(text: string, indent: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && indent + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

function optionLines(options: OptionGroup): string[] {
  const out: string[] = [];
  const col = 26;
  for (const [name, o] of Object.entries(options)) {
    const head = `  --${name}${o.short ? `, -${o.short}` : ''}${o.arg ? ' ' + o.arg : ''}`;
    const [first, ...rest] = wrap(o.help, col);
    if (head.length < col) out.push(head.padEnd(col) + first);
    else out.push(head, ' '.repeat(col) + first);
    for (const r of rest) out.push(' '.repeat(col) + r);
  }
  return out;
}

/** `turn NAME --help`: its usage, what it does, and every option it takes. */
export function commandHelp(name: CommandName): string {
  const c: CommandSpec = COMMANDS[name];
  const out = [`usage: turn ${c.name}${c.args ? ' ' + c.args : ''}${c.sections.length > 0 ? ' [options]' : ''}`, '', ...wrap(c.summary, 0)];
  if (c.details) out.push('', ...wrap(c.details, 0));
  for (const [title, options] of c.sections) out.push('', `${title || 'options'}:`, ...optionLines(options));
  // --help closes the command's own options (or is its only one)
  if (c.sections[0]?.[0] === '') out.splice(out.indexOf('options:') + 1 + Object.keys(c.sections[0][1]).length, 0, ...optionLines(HELP));
  else out.push('', 'options:', ...optionLines(HELP));
  return out.join('\n');
}

const EXIT_CODES = `exit codes: 0 success (or suspended), 1 run-time error, 2 compile error or unreadable file,
  3 a durable run waits for a decision about an unknown outcome, 64 usage error,
  130 / 143 interrupted by SIGINT / SIGTERM (a durable run is saved: turn resume continues it)`;

/** `turn --help`: every command, one line each. */
export function mainHelp(): string {
  const heads = Object.values(COMMANDS).map((c: CommandSpec) => `  ${c.name}${c.args ? ' ' + c.args : ''}`);
  const col = Math.max(...heads.map((h) => h.length)) + 2;
  const lines = ['usage: turn <command> [options]', '', 'commands:'];
  Object.values(COMMANDS).forEach((c: CommandSpec, i) => {
    const [first, ...rest] = wrap(c.summary, col);
    lines.push(heads[i].padEnd(col) + first, ...rest.map((r) => ' '.repeat(col) + r));
  });
  lines.push('', 'Each command lists its options with `turn COMMAND --help` (or `turn help COMMAND`).', '', EXIT_CODES);
  return lines.join('\n');
}

/** The README's command table (markdown), from the same table. */
export function readmeTable(): string {
  const rows = ['| command | what it does |', '| --- | --- |'];
  for (const c of Object.values(COMMANDS) as CommandSpec[]) {
    const own = c.sections.filter(([title]) => title === '').flatMap(([, o]) => Object.entries(o));
    const flags = own.filter(([n]) => n !== 'worker').map(([n, o]) => `[--${n}${o.arg ? ' ' + o.arg : ''}]`);
    if (c.sections.some(([title]) => title.startsWith('run options'))) flags.push('[run options]');
    const usage = `turn ${c.name}${c.args ? ' ' + c.args : ''}${flags.length ? ' ' + flags.join(' ') : ''}`;
    rows.push(`| \`${usage.replace(/\|/g, '\\|')}\` | ${c.summary.replace(/\|/g, '\\|')} |`);
  }
  return rows.join('\n');
}

export const README_BEGIN = '<!-- commands: generated from cli/commands.ts by scripts/readme-commands.ts; do not edit -->';
export const README_END = '<!-- end of commands -->';

/** README text with its command table replaced by the table's (undefined when the markers are missing). */
export function withReadmeTable(readme: string): string | undefined {
  const begin = readme.indexOf(README_BEGIN);
  const end = readme.indexOf(README_END);
  if (begin < 0 || end < begin) return undefined;
  return readme.slice(0, begin + README_BEGIN.length) + '\n' + readmeTable() + '\n' + readme.slice(end);
}
