// One call of one top-level function of a file, with arguments given as JSON (the playground's Run
// lens, `turn run FILE --call NAME --args JSON`). The call is an ordinary run (startRun, so the
// settings' model, grants and budgets apply unchanged) of a synthetic entry: the file's own text
// with every top-level statement that is not a declaration (`let`, `struct`, `impl`, `type`)
// blanked out — its `turn { }` entry, its printing, its `return` — and one line appended:
// `return NAME(ARG, ...);`. Blanking keeps every other character where it was, so an error in the
// function is reported at its real FILE:LINE:COL, and the file's relative `use`s resolve as before.
// Top-level `let`s still run first (the function may read them); that is where a file's top level
// and a call of its function meet, and the docs say so.
//
// The arguments are checked before anything runs, each against its parameter's type (the JSON
// Schema `infer` uses), and a wrong one is refused at the parameter: `FILE:LINE:COL: the argument
// ...`. An argument reaches the function as `call("json_parse", TEXT)`, so a struct parameter gets
// the map JSON gives, as a served tool's does.
import { turnString } from '../absorb/module.js';
import { outputProblems } from '../mcp/serve/validate.js';
import { parseSource } from '../syntax/parse.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../values/index.js';
import { playableFunctions, type PlayableFunction } from './functions.js';

/** A call the playground refuses before running: its message is located (`FILE:LINE:COL: ...`). */
export class PlaygroundError extends Error {
  override name = 'PlaygroundError';
}

/** The most bytes the arguments' JSON text may have. */
export const MAX_ARGUMENT_BYTES = 1024 * 1024;

/** Top-level statements a call keeps: the declarations its function may need. */
const KEPT = new Set(['Let', 'Struct', 'Impl', 'TypeAlias']);

/** `text` with the characters in `[start, end)` replaced by spaces, line breaks kept. */
function blank(text: string, start: number, end: number): string {
  return text.slice(0, start) + text.slice(start, end).replace(/[^\r\n]/g, ' ') + text.slice(end);
}

/** The arguments as values by parameter name: a JSON object by name, or a JSON array in parameter order. */
function argumentsOf(where: string, fn: PlayableFunction, args: string | Record<string, unknown> | unknown[]): Map<string, unknown> {
  let given: unknown = args;
  if (typeof args === 'string') {
    if (Buffer.byteLength(args) > MAX_ARGUMENT_BYTES) throw new PlaygroundError(`${where}: the arguments of ${fn.name} are larger than ${MAX_ARGUMENT_BYTES / 1024} KiB`);
    try {
      given = JSON.parse(args === '' ? '{}' : args);
    } catch (e) {
      throw new PlaygroundError(`${where}: the arguments of ${fn.name} are not JSON (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
    }
  }
  if (nestedDeeperThan(given, MAX_JSON_DEPTH)) throw new PlaygroundError(`${where}: the arguments of ${fn.name} are nested more than ${MAX_JSON_DEPTH} levels deep`);
  const named = new Map<string, unknown>();
  if (Array.isArray(given)) {
    if (given.length > fn.params.length) throw new PlaygroundError(`${where}: ${fn.name} takes ${fn.params.length} argument${fn.params.length === 1 ? '' : 's'}, not ${given.length}`);
    given.forEach((v, i) => named.set(fn.params[i].name, v));
  } else if (given !== null && typeof given === 'object') {
    for (const [k, v] of Object.entries(given)) {
      if (!fn.params.some((p) => p.name === k)) {
        const known = fn.params.map((p) => `\`${p.name}\``).join(', ');
        throw new PlaygroundError(`${where}: ${fn.name} has no parameter \`${k}\` (${fn.params.length === 0 ? 'it takes none' : `its parameters: ${known}`})`);
      }
      named.set(k, v);
    }
  } else throw new PlaygroundError(`${where}: the arguments of ${fn.name} are a JSON object by parameter name (or an array in order)`);
  return named;
}

/** What a call runs: the synthetic entry's text and the function it calls. */
export interface PreparedCall {
  entryText: string;
  fn: PlayableFunction;
  /** the arguments in parameter order, as the function gets them */
  args: unknown[];
}

/**
 * Prepares a call of `name` in `file` (whose text is `text`, e.g. an unsaved editor's) with `args`.
 * Throws PlaygroundError, located, for a name that is no top-level function and for arguments that
 * do not fit its parameters.
 */
export async function prepareCall(file: string, text: string, name: string, args: string | Record<string, unknown> | unknown[]): Promise<PreparedCall> {
  const { program, file: source } = await parseSource(file, text);
  const functions = playableFunctions(program, source);
  const fn = functions.find((f) => f.name === name);
  if (!fn) {
    const names = functions.map((f) => f.name);
    throw new PlaygroundError(`${file}:1:1: no top-level function \`${name}\` (${names.length === 0 ? 'the file binds none: let NAME = turn(...) { ... };' : `its functions: ${names.join(', ')}`})`);
  }
  const named = argumentsOf(`${file}:${fn.line}:${fn.column}`, fn, args);
  const values = fn.params.map((p) => {
    const at = `${file}:${p.line}:${p.column}`;
    const given = named.has(p.name) ? named.get(p.name) : undefined;
    if (given === undefined || given === null) {
      if (p.optional || p.type === undefined) return null;
      throw new PlaygroundError(`${at}: the argument \`${p.name}\` of ${fn.name} is missing (a ${p.type})`);
    }
    const problems = outputProblems(given, p.schema);
    if (problems !== undefined) throw new PlaygroundError(`${at}: the argument \`${p.name}\` of ${fn.name} is not a ${p.type ?? 'value'}: ${problems.replace('(the value)', 'it')}`);
    return given;
  });
  let entryText = text;
  for (const s of program.body) if (!KEPT.has(s.kind)) entryText = blank(entryText, s.span.start, s.span.end);
  const call = values.map((v) => (v === null ? 'null' : `call("json_parse", ${turnString(JSON.stringify(v))})`)).join(', ');
  entryText += `\nreturn ${fn.name}(${call});\n`;
  return { entryText, fn, args: values };
}
