// Options of one `infer` (`infer T with { max_tokens: 200, consistency: 3 } { ... }`): the same
// knobs a run sets for every model call (`--max-tokens`, `--temperature`, `--seed`,
// `--consistency`, TURN_INFER_RETRIES, the model spec's time limits), here for one call, over the
// run's values. One table serves the analyzer (unknown names, values it can see), the VM (values
// computed at run time), hover/completion in the editor and the docs (docs/language.md).

/** The options of one model call, as the driver and the host read them. */
export interface InferOptions {
  maxTokens?: number;
  temperature?: number;
  seed?: number;
  consistency?: number;
  retries?: number;
  timeoutMs?: number;
  connectTimeoutMs?: number;
  firstByteTimeoutMs?: number;
  idleTimeoutMs?: number;
  /** native tool calls: the most model rounds that call tools, and calls in one reply (runtime/infer/tools.ts) */
  maxToolRounds?: number;
  maxToolCalls?: number;
}

/** The option that is not a number: `tools: [f, api.op, ...]`, the closures an infer offers the model (native tool calls). */
export const TOOLS_OPTION = 'tools';
/** Its text for hover, completion and the unknown-option message. */
export const TOOLS_OPTION_DOC = 'native tool calls: the functions (closures, absorbed API operations, MCP tools) the model may call before it answers; each call runs as a child process under the run\'s grants and budgets (docs/inference.md)';

/** The most samples of a self-consistent call (per run and per infer). */
export const MAX_CONSISTENCY = 16;
/** The most re-asks after an invalid reply (TURN_INFER_RETRIES has the same bound). */
export const MAX_RETRIES = 20;

export interface InferOptionSpec {
  key: keyof InferOptions;
  integer: boolean;
  min: number;
  max?: number;
  /** what it does, over which run-wide setting (hover, completion, errors) */
  doc: string;
}

export const INFER_OPTIONS: Readonly<Record<string, InferOptionSpec>> = {
  max_tokens: { key: 'maxTokens', integer: true, min: 1, doc: 'the output token bound of this call, over --max-tokens and the model spec\'s max_tokens (default: derived from the type\'s schema)' },
  temperature: { key: 'temperature', integer: false, min: 0, max: 2, doc: 'the sampling temperature sent with this call, over --temperature and the model spec\'s' },
  seed: { key: 'seed', integer: true, min: 0, doc: 'the sampler\'s seed for this call, over --seed (the mock model varies its values by it)' },
  consistency: { key: 'consistency', integer: true, min: 1, max: MAX_CONSISTENCY, doc: 'self-consistency: ask k samples and take their agreement as the confidence, over --consistency' },
  retries: { key: 'retries', integer: true, min: 0, max: MAX_RETRIES, doc: 're-asks after an invalid reply, over TURN_INFER_RETRIES (default 2)' },
  timeout_ms: { key: 'timeoutMs', integer: true, min: 0, doc: 'the deadline of this model call, every HTTP attempt and back-off wait included, 0 = no limit (the model spec\'s timeout_ms, default 600 000)' },
  connect_timeout_ms: { key: 'connectTimeoutMs', integer: true, min: 0, doc: 'the most connecting may take (the model spec\'s connect_timeout_ms, default 10 000)' },
  first_byte_timeout_ms: { key: 'firstByteTimeoutMs', integer: true, min: 0, doc: 'the most the first byte of the reply may take (the model spec\'s first_byte_timeout_ms, default 300 000)' },
  idle_timeout_ms: { key: 'idleTimeoutMs', integer: true, min: 0, doc: 'the longest silence between streamed chunks (the model spec\'s idle_timeout_ms, default 60 000)' },
  max_tool_rounds: { key: 'maxToolRounds', integer: true, min: 1, max: 100, doc: 'native tool calls: the most model replies that call tools before the answer (default 8); one more is an InferError' },
  max_tool_calls: { key: 'maxToolCalls', integer: true, min: 1, max: 128, doc: 'native tool calls: the most calls one reply may make (default 16); more is an InferError' },
};

/** Every option name, `tools` included. */
export const INFER_OPTION_NAMES = [...Object.keys(INFER_OPTIONS), TOOLS_OPTION];

/** What the value should be, in words: `a whole number from 1 to 16`. */
export function expectation(spec: InferOptionSpec): string {
  const kind = spec.integer ? 'a whole number' : 'a number';
  return spec.max !== undefined ? `${kind} from ${spec.min} to ${spec.max}` : `${kind} >= ${spec.min}`;
}

/** What option `name` takes and does, in words (hover, completion); undefined for a name that is no option. */
export function optionHelp(name: string): { expectation: string; doc: string } | undefined {
  if (name === TOOLS_OPTION) return { expectation: 'a List of functions', doc: TOOLS_OPTION_DOC };
  const spec = Object.hasOwn(INFER_OPTIONS, name) ? INFER_OPTIONS[name] : undefined;
  return spec ? { expectation: expectation(spec), doc: spec.doc } : undefined;
}

/** Why `value` cannot be option `name`, or undefined when it can. */
export function optionProblem(name: string, value: unknown): string | undefined {
  if (name === TOOLS_OPTION) return Array.isArray(value) ? undefined : `infer option tools needs a List of functions, got ${describe(value)}`;
  const spec = Object.hasOwn(INFER_OPTIONS, name) ? INFER_OPTIONS[name] : undefined;
  if (!spec) return `unknown infer option \`${name}\` (options: ${INFER_OPTION_NAMES.join(', ')})`;
  const ok =
    typeof value === 'number' && Number.isFinite(value) && (!spec.integer || Number.isInteger(value)) && value >= spec.min && (spec.max === undefined || value <= spec.max);
  return ok ? undefined : `infer option ${name} needs ${expectation(spec)}, got ${describe(value)}`;
}

function describe(v: unknown): string {
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return `the Str ${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)}`;
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'boolean') return `the Bool ${v}`;
  return 'a value that is not a Num';
}

export class InferOptionError extends Error {}

/** The options of `names` with `values` (as the VM computed them); throws InferOptionError naming the first bad one. */
export function readInferOptions(names: readonly string[], values: readonly unknown[]): InferOptions {
  const out: InferOptions = {};
  names.forEach((name, i) => {
    if (name === TOOLS_OPTION) return; // the VM reads the tools itself (runtime/vm/tool-loop.ts)
    const problem = optionProblem(name, values[i]);
    if (problem) throw new InferOptionError(problem);
    out[INFER_OPTIONS[name].key] = values[i] as number;
  });
  return out;
}

/** The options as written in Turn (`max_tokens`, ...), for the journal, the trace and `turn inspect`. */
export function optionsRecord(options: InferOptions | undefined): Record<string, number> | undefined {
  if (!options) return undefined;
  const out: Record<string, number> = {};
  for (const [name, spec] of Object.entries(INFER_OPTIONS)) {
    const v = options[spec.key];
    if (v !== undefined) out[name] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** Options as written in Turn (`optionsRecord`'s form) shown the way a program writes them: `with {seed: 7, consistency: 3}`; '' for none. */
export function optionsText(options: unknown): string {
  if (!options || typeof options !== 'object') return '';
  const parts = Object.entries(options as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`);
  return parts.length > 0 ? `with {${parts.join(', ')}}` : '';
}
