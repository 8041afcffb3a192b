// What an embedding app may say about a run (docs/embedding.md), and how it becomes the run API's
// RunOptions. The mapping is deliberately narrow: the only authority a run gets is what `grants`,
// `approve` and `budgets` say, read from the options' own properties. Nothing the CLI or the
// editor plug into a run (a debugger's `beforeEffect`, an MCP caller, a Restate placement, the
// terminal) is reachable from here, so an embedder has exactly the CLI's capability checks.
import type { ApprovalHook } from '../effects/capabilities.js';
import { MemoryVault, type Vault } from '../effects/vault.js';
import type { RunEvent } from '../events/index.js';
import type { RunOptions } from '../run/options.js';
import type { RunStore } from '../store/types.js';
import { EmbedError } from './errors.js';
import type { TurnStore } from './store.js';
import type { TelemetryOptions } from '../telemetry/config.js';

/** What a run may reach beyond computing (docs/authority.md): nothing unless listed. */
export interface Grants {
  /** hosts it may reach: `host`, `*.suffix`, `host:port`, `*` */
  net?: string[];
  /** folders it may read / write (relative to `cwd`) */
  read?: string[];
  write?: string[];
  /** environment variables it may read (never TURN_SECRET_*) */
  env?: string[];
  /** stdio MCP servers it may launch: `CMD` or `CMD ARG...` (docs/authority.md) */
  run?: string[];
  /** std/knowledge may open its store without a write grant on its folder */
  knowledge?: boolean;
}

/** Budgets of one run; a run past one fails (or its next model call is refused). */
export interface Budgets {
  modelCalls?: number;
  modelTokens?: number;
  /** VM steps (default 200,000,000; 0 = none) */
  steps?: number;
  /** allocation, in cells of about 8 bytes (default 50,000,000; 0 = none) */
  alloc?: number;
  /** wall-clock time of the run in this process, in milliseconds */
  timeMs?: number;
  /** the most one effect tool call may take, in milliseconds (default 30,000) */
  toolTimeoutMs?: number;
}

/** Effect kinds that can need an approval. */
export type EffectKind = 'network' | 'files' | 'model' | 'spawn' | 'env';

/**
 * Telemetry of a run (OpenTelemetry, docs/observability.md): `true` exports as the OTEL_* variables
 * say, `false` never exports, an object says where and how (TelemetryOptions).
 */
export type TelemetryOption = TelemetryOptions | boolean;

export interface TurnOptions {
  /** the model spec (`mock`, `script:FILE`, `openai:MODEL?...`; docs/inference.md); default: env TURN_MODEL, else mock */
  model?: string;
  /** where file effects and relative grants resolve (default: the process's cwd) */
  cwd?: string;
  /** where TURN_MODEL, provider keys and TURN_SECRET_* are read (default: process.env) */
  env?: Record<string, string | undefined>;
  /** the secrets `secret("NAME")` resolves: a vault, or a plain map (kept in memory) */
  secrets?: Vault | Readonly<Record<string, string>>;
  grants?: Grants;
  budgets?: Budgets;
  /** effects that need approval each time */
  approveEffects?: EffectKind[];
  /** who approves them: a function, or `all` / `none` (default `none`: nobody is asked, they are denied) */
  approve?: ApprovalHook | 'all' | 'none';
  /** a durable run: the store folder, or a store opened with `openStore` (which the caller closes) */
  store?: string | TurnStore;
  /** aborting stops the run at its next safe point (a durable run stays resumable) */
  signal?: AbortSignal;
  /** each line the program prints (secrets redacted) */
  onOutput?(line: string): void;
  /** each run event (secrets redacted) */
  onEvent?(event: RunEvent): void;
  /** seeds the scheduler and every model call */
  seed?: number;
  temperature?: number;
  maxTokens?: number;
  /** ask each model call k times; their agreement is the confidence */
  consistency?: number;
  telemetry?: TelemetryOption;
}

const EFFECT_KINDS: readonly string[] = ['network', 'files', 'model', 'spawn', 'env'];

/** `o[key]` when it is the object's own property (an inherited or smuggled one is not read). */
function own<T extends object, K extends keyof T>(o: T | undefined, key: K): T[K] | undefined {
  return o !== undefined && o !== null && Object.hasOwn(o, key) ? o[key] : undefined;
}

function strings(value: unknown, what: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new EmbedError('usage', `${what} must be a list of strings`);
  return [...value];
}

function count(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new EmbedError('usage', `${what} must be a whole number >= 0`);
  return value;
}

function isVault(v: unknown): v is Vault {
  return typeof v === 'object' && v !== null && typeof (v as Vault).resolve === 'function' && typeof (v as Vault).list === 'function';
}

/** The store option as the run API takes it. */
export function storeOf(store: string | TurnStore | undefined): string | RunStore | undefined {
  if (store === undefined || typeof store === 'string') return store;
  return store.runStore;
}

/** The run API's options for `options` (file, id and store are the caller's to add). Throws EmbedError. */
export function runOptionsOf(options: TurnOptions = {}): RunOptions {
  const grants = own(options, 'grants');
  const budgets = own(options, 'budgets');
  const approve = own(options, 'approve');
  if (approve !== undefined && approve !== 'all' && approve !== 'none' && typeof approve !== 'function') {
    throw new EmbedError('usage', 'approve must be a function, "all" or "none" (an embedded run has no terminal to ask on)');
  }
  const approveEffects = strings(own(options, 'approveEffects'), 'approveEffects');
  const unknownKind = approveEffects?.find((k) => !EFFECT_KINDS.includes(k));
  if (unknownKind !== undefined) throw new EmbedError('usage', `approveEffects: "${unknownKind}" is not one of ${EFFECT_KINDS.join(', ')}`);
  const secrets = own(options, 'secrets');
  const vault = secrets === undefined ? undefined : isVault(secrets) ? secrets : new MemoryVault({ ...secrets });
  const authority: NonNullable<RunOptions['authority']> = { approve: approve ?? 'none', grantedBy: 'flags' };
  const put = <K extends keyof typeof authority>(k: K, v: (typeof authority)[K] | undefined): void => {
    if (v !== undefined) authority[k] = v;
  };
  put('allowNet', strings(own(grants, 'net'), 'grants.net'));
  put('allowRead', strings(own(grants, 'read'), 'grants.read'));
  put('allowWrite', strings(own(grants, 'write'), 'grants.write'));
  put('allowEnv', strings(own(grants, 'env'), 'grants.env'));
  put('allowRun', strings(own(grants, 'run'), 'grants.run'));
  put('allowKnowledge', own(grants, 'knowledge') === true ? true : undefined);
  put('maxModelCalls', count(own(budgets, 'modelCalls'), 'budgets.modelCalls'));
  put('maxModelTokens', count(own(budgets, 'modelTokens'), 'budgets.modelTokens'));
  put('approveEffects', approveEffects);
  put('vault', vault);
  const run: RunOptions = {
    authority,
    // nobody is at a terminal: an MCP server's question is refused unless the app answers it
    askOnTerminal: false,
  };
  const set = <K extends keyof RunOptions>(k: K, v: RunOptions[K] | undefined): void => {
    if (v !== undefined) run[k] = v;
  };
  set('model', own(options, 'model'));
  set('cwd', own(options, 'cwd'));
  set('env', own(options, 'env'));
  set('maxSteps', count(own(budgets, 'steps'), 'budgets.steps'));
  set('maxAlloc', count(own(budgets, 'alloc'), 'budgets.alloc'));
  set('maxTimeMs', count(own(budgets, 'timeMs'), 'budgets.timeMs'));
  set('toolTimeoutMs', count(own(budgets, 'toolTimeoutMs'), 'budgets.toolTimeoutMs'));
  set('seed', own(options, 'seed'));
  set('temperature', own(options, 'temperature'));
  set('maxTokens', own(options, 'maxTokens'));
  set('consistency', own(options, 'consistency'));
  set('onOutput', own(options, 'onOutput'));
  // read by the telemetry layer (docs/observability.md); a boolean is its `enabled`
  const telemetry = own(options, 'telemetry');
  if (typeof telemetry === 'boolean') run.telemetry = { enabled: telemetry };
  else if (telemetry !== undefined && telemetry !== null && typeof telemetry === 'object') run.telemetry = telemetry;
  else if (telemetry !== undefined) throw new EmbedError('usage', 'telemetry must be true, false or an object (docs/observability.md)');
  return run;
}
