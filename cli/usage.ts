// The command line's shared vocabulary: exit codes, the usage error, option parsing.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { editDistance } from '../runtime/index.js';

type Options = NonNullable<ParseArgsConfig['options']>;

/** 0 success (or suspended), 1 run-time error, 2 compile error or unreadable file, 3 waiting, 64 usage, 70 a bug. */
export const EXIT = { ok: 0, runtimeError: 1, compileError: 2, waiting: 3, usage: 64, internal: 70 } as const;

export class UsageError extends Error {
  constructor(
    message: string,
    /** the command whose line is wrong: the hint names its `--help` */
    readonly command?: string,
  ) {
    super(message);
  }
}

/** Parses a command's options (cli/commands.ts), saying what is wrong in Turn's words. */
export function parse<T extends Options>(args: string[], options: T, command: string) {
  try {
    return parseArgs<{ args: string[]; options: T; allowPositionals: true; strict: true }>({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(optionProblem(e, options, command), command);
  }
}

/** parseArgs's error, said in Turn's words: the option, and the nearest one there is. */
function optionProblem(e: unknown, options: Options, command: string): string {
  const code = (e as { code?: string }).code;
  const message = e instanceof Error ? e.message : String(e);
  // parseArgs quotes the option first: 'Unknown option '--foo'...', 'Option '--model <value>' argument missing'
  const quoted = /'(-{1,2}[^' <]*)/.exec(message)?.[1] ?? '';
  const name = quoted.replace(/^-+/, '');
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    return `\`turn ${command}\` has no option \`${quoted}\`${nearest(name, Object.keys(options))}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const spec = Object.hasOwn(options, name) ? options[name] : undefined;
    if (spec?.type === 'boolean') return `\`--${name}\` takes no value`;
    return `\`--${name}\` needs a value (\`--${name} VALUE\` or \`--${name}=VALUE\`)`;
  }
  return message;
}

/** ` (did you mean `--x`?)` for the closest option. */
function nearest(name: string, names: string[]): string {
  const best = closestName(name, names);
  return best ? ` (did you mean \`--${best}\`?)` : '';
}

/**
 * The name among `names` that `name` is a slip of: a close misspelling (`jsn`, `json`) or a name
 * typed too short (`max` for `max-steps`). Names are short: a long one is no slip (and bounds the
 * quadratic distance).
 */
export function closestName(name: string, names: readonly string[]): string | undefined {
  if (name.length === 0 || name.length > 40) return undefined;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const n of names) {
    const d = editDistance(name, n);
    if (d < bestDistance) [best, bestDistance] = [n, d];
  }
  if (best !== undefined && bestDistance <= Math.max(1, Math.floor(name.length / 3))) return best;
  return name.length >= 3 ? names.find((n) => n.startsWith(name)) : undefined;
}


export function numberOption(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} needs a whole number >= 0, got \`${String(value)}\``);
  return n;
}

export function singleFile(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`\`turn ${command}\` takes exactly one FILE, got ${positionals.length}`, command);
  return positionals[0];
}

export function err(line: string): void {
  process.stderr.write(line.endsWith('\n') ? line : line + '\n');
}
