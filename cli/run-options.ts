// `turn run`'s flags, read into the run API's one options object (runtime/run/options.ts). A
// durable run records the options (runtime/run), so `turn resume` needs only what changes.
import type { RunOptions, TestRunOptions } from '../runtime/index.js';
import { UsageError, numberOption } from './usage.js';

// the option groups themselves, with their help, are in the command table
export { AUTHORITY_OPTIONS, RUN_OPTIONS } from './commands.js';

export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

const list = (v: unknown): string[] | undefined =>
  v === undefined ? undefined : (v as string[]).flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);

/**
 * `--allow-run` values as grants (runtime/effects/capabilities.ts, parseRunGrant): a value with a
 * space (`"node server.js --root data"`) or a JSON list is one grant with its arguments; any other
 * is a comma-separated list of commands (`node,npx`).
 */
export function runGrantList(v: unknown): string[] | undefined {
  if (v === undefined) return undefined;
  return (v as string[]).flatMap((s) => {
    const t = s.trim();
    return t.startsWith('[') || /\s/.test(t) ? [t] : t.split(',').map((c) => c.trim()).filter(Boolean);
  });
}

function approveMode(value: unknown): 'all' | 'none' | 'ask' {
  if (value === undefined || value === 'ask') return 'ask';
  if (value === 'all' || value === 'none') return value;
  throw new UsageError(`--approve expects all, none or ask, got "${String(value)}"`);
}

/** A number of seconds >= 0 (fractions allowed), as milliseconds. */
function secondsOption(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (String(value).trim() === '' || !Number.isFinite(n) || n < 0) throw new UsageError(`--${name} needs a number of seconds >= 0, got \`${String(value)}\``);
  return Math.round(n * 1000);
}

function usage(message: string): never {
  throw new UsageError(message);
}

function temperatureOption(value: unknown): number {
  const n = Number(value);
  if (String(value).trim() === '' || !Number.isFinite(n) || n < 0 || n > 2) throw new UsageError(`--temperature needs a number from 0 to 2, got \`${String(value)}\``);
  return n;
}

/** `--answer KEY=ANSWER` (repeatable): answers to MCP servers' questions, by key (runtime/mcp/elicitation.ts checks each when it is used). */
function answersOption(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const flag of value as string[]) {
    const eq = flag.indexOf('=');
    const key = eq > 0 ? flag.slice(0, eq).trim() : '';
    if (!/^(q-[0-9a-f]{12}|\*)$/.test(key)) usage(`--answer takes KEY=ANSWER, KEY the question's key (q- and 12 hex digits, as the waiting run names it) or * for every question; got "${flag.slice(0, 80)}"`);
    out[key] = flag.slice(eq + 1);
  }
  return out;
}

/** A client ID metadata document's URL: https, with a path (SEP-991). */
function clientMetadataUrl(value: unknown): string {
  let u: URL | undefined;
  try {
    u = new URL(String(value));
  } catch {
    u = undefined;
  }
  if (!u || u.protocol !== 'https:' || u.pathname === '/') throw new UsageError(`--oauth-client-metadata needs an https URL with a path, got \`${String(value)}\``);
  return u.href;
}

/** The run options the flags describe (throws UsageError on a malformed value). */
export function runOptionsFrom(values: Values): RunOptions {
  if (values.offline === true && values['refresh-schemas'] === true) throw new UsageError('--offline and --refresh-schemas cannot be used together');
  const traceFile = values['trace-file'] !== undefined ? String(values['trace-file']) : values.trace ? '-' : undefined;
  return {
    ...(values.model !== undefined ? { model: String(values.model) } : {}),
    maxSteps: numberOption(values['max-steps'], 'max-steps'),
    maxAlloc: numberOption(values['max-alloc'], 'max-alloc'),
    ...(values['context-working'] !== undefined || values['context-episodic'] !== undefined
      ? { context: { working: numberOption(values['context-working'], 'context-working'), episodic: numberOption(values['context-episodic'], 'context-episodic') } }
      : {}),
    maxTimeMs: secondsOption(values['max-time'], 'max-time'),
    toolTimeoutMs: secondsOption(values['tool-timeout'], 'tool-timeout'),
    seed: numberOption(values.seed, 'seed'),
    ...(values.temperature !== undefined ? { temperature: temperatureOption(values.temperature) } : {}),
    maxTokens: values['max-tokens'] === '0' ? usage('--max-tokens needs a whole number >= 1') : numberOption(values['max-tokens'], 'max-tokens'),
    consistency: numberOption(values.consistency, 'consistency'),
    ...(values.calibration !== undefined ? { calibration: values.calibration === 'none' ? false : String(values.calibration) } : {}),
    refreshSchemas: values['refresh-schemas'] === true,
    ...(values.offline === true ? { fetchSchemas: false } : {}),
    ...(traceFile !== undefined ? { traceFile } : {}),
    ...(values.answer !== undefined ? { answers: answersOption(values.answer) } : {}),
    authority: {
      allowNet: list(values['allow-net']),
      allowRead: list(values['allow-read']),
      allowWrite: list(values['allow-write']),
      allowEnv: list(values['allow-env']),
      allowRun: runGrantList(values['allow-run']),
      maxModelCalls: numberOption(values['max-model-calls'], 'max-model-calls'),
      maxModelTokens: numberOption(values['max-model-tokens'], 'max-model-tokens'),
      approveEffects: list(values['approve-effects'] === undefined ? undefined : [values['approve-effects']]),
      ...(values.approve !== undefined ? { approve: approveMode(values.approve) } : {}),
      ...(values.secrets !== undefined ? { secretsFile: String(values.secrets) } : {}),
      ...(values['allow-knowledge'] === true ? { allowKnowledge: true } : {}),
      ...(values['oauth-client-metadata'] !== undefined ? { oauth: { clientMetadataUrl: clientMetadataUrl(values['oauth-client-metadata']) } } : {}),
    },
  };
}

/**
 * The options of `turn run` a test or an eval sample takes (runtime/testing TestRunOptions), the
 * defined ones only: they cross to a `turn test` worker process as JSON.
 */
export function testRunOptions(run: RunOptions): TestRunOptions {
  const out: Record<string, unknown> = {};
  for (const k of ['model', 'maxSteps', 'maxAlloc', 'maxTimeMs', 'toolTimeoutMs', 'seed', 'context', 'fetchSchemas', 'refreshSchemas', 'temperature', 'maxTokens', 'consistency', 'authority'] as const) {
    if (run[k] !== undefined) out[k] = run[k];
  }
  return out;
}
