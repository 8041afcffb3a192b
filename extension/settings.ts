// The one typed reading of the `turn.*` settings, for every way the editor runs a program: the
// Run File task (as `turn run` flags), the run panel and the debugger (as run options). No
// `vscode` import: callers pass the configuration's `get`, and test/extension/ tests this file.
import * as path from 'node:path';
import { hostModelsOption } from './lm/host-models.js';
import { DEFAULT_MODEL, DEFAULT_STORE_DIR, defaultAdminUrl, readPriceTable, type AuthorityOptions, type PriceTable, type RunOptions, type TelemetryOptions } from '../runtime/index.js';

/** `vscode.WorkspaceConfiguration.get` of the `turn` section, as this file needs it. */
export type SettingsGet = <T>(key: string, defaultValue: T) => T;

export interface RunSettings {
  model: string;
  allowNet: string[];
  allowRead: string[];
  allowWrite: string[];
  allowEnv: string[];
  /** commands programs may launch as stdio MCP servers (`turn.run.allowRun`, as `--allow-run`) */
  allowRun: string[];
  approveEffects: string[];
  /** the model-call budget of a run (0 or unset: none) */
  maxModelCalls: number | undefined;
  /** the instruction budget (unset: the runtime's default) */
  maxSteps: number | undefined;
  /** the allocation budget in cells (unset: the runtime's default) */
  maxAlloc: number | undefined;
  /** the wall-clock limit of a run, in seconds (unset: none) */
  maxTimeSeconds: number | undefined;
  /** the per-call limit of effect tools, in seconds (unset: the runtime's default) */
  toolTimeoutSeconds: number | undefined;
  /** token budgets of the P1 and P2 context tiers (unset: the runtime's defaults) */
  contextWorking: number | undefined;
  contextEpisodic: number | undefined;
  /** runs from the run panel are durable, in the workspace's `.turn/` store (`turn.durableRuns`, default true) */
  durableRuns: boolean;
  /** `turn.telemetry`: OpenTelemetry export of runs started in the editor (docs/observability.md); unset: the OTEL_* variables decide */
  telemetry: TelemetryOptions | undefined;
  /** `turn.pricesFile`: a price table that turns a run's token summary into money (docs/observability.md, *Costs*) */
  pricesFile: string | undefined;
}

/** The price table `turn.pricesFile` names (relative to the workspace folder `cwd`), or undefined. Throws PriceTableError. */
export function priceTableFromSettings(s: RunSettings, cwd: string): PriceTable | undefined {
  return s.pricesFile === undefined ? undefined : readPriceTable(path.isAbsolute(s.pricesFile) ? s.pricesFile : path.join(cwd, s.pricesFile));
}

/** `turn.telemetry` as the settings give it: known fields of the right type only (headers stay in OTEL_EXPORTER_OTLP_HEADERS, never in plain-text settings). */
function telemetrySetting(v: unknown): TelemetryOptions | undefined {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  const t: TelemetryOptions = {};
  if (typeof o.enabled === 'boolean') t.enabled = o.enabled;
  if (typeof o.endpoint === 'string' && o.endpoint.trim() !== '') t.endpoint = o.endpoint.trim();
  if (typeof o.captureContent === 'boolean') t.captureContent = o.captureContent;
  if (typeof o.serviceName === 'string' && o.serviceName.trim() !== '') t.serviceName = o.serviceName.trim();
  return Object.keys(t).length > 0 ? t : undefined;
}

/** `turn.telemetry` as the OTEL_* variables of a `turn run` process (the Run File task). */
export function telemetryEnv(s: RunSettings): Record<string, string> {
  const t = s.telemetry;
  if (!t) return {};
  if (t.enabled === false) return { OTEL_SDK_DISABLED: 'true' };
  const env: Record<string, string> = {};
  if (t.endpoint !== undefined) env.OTEL_EXPORTER_OTLP_ENDPOINT = t.endpoint;
  else if (t.enabled === true) env.OTEL_TRACES_EXPORTER = 'otlp';
  if (t.serviceName !== undefined) env.OTEL_SERVICE_NAME = t.serviceName;
  if (t.captureContent !== undefined) env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT = String(t.captureContent);
  return env;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : []);
const count = (v: unknown): number | undefined => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : undefined);

export function readRunSettings(get: SettingsGet): RunSettings {
  const model = get<string>('model', DEFAULT_MODEL);
  const prices = get<unknown>('pricesFile', '');
  return {
    model: typeof model === 'string' && model.trim() !== '' ? model.trim() : DEFAULT_MODEL,
    allowNet: strings(get<string[]>('run.allowNet', [])),
    allowRead: strings(get<string[]>('run.allowRead', [])),
    allowWrite: strings(get<string[]>('run.allowWrite', [])),
    allowEnv: strings(get<string[]>('run.allowEnv', [])),
    allowRun: strings(get<string[]>('run.allowRun', [])),
    approveEffects: strings(get<string[]>('run.approveEffects', [])),
    maxModelCalls: count(get<number | null>('run.maxModelCalls', null)),
    maxSteps: count(get<number | null>('run.maxSteps', null)),
    maxAlloc: count(get<number | null>('run.maxAlloc', null)),
    maxTimeSeconds: count(get<number | null>('run.maxTimeSeconds', null)),
    toolTimeoutSeconds: count(get<number | null>('run.toolTimeoutSeconds', null)),
    contextWorking: count(get<number | null>('run.contextWorking', null)),
    contextEpisodic: count(get<number | null>('run.contextEpisodic', null)),
    durableRuns: get<boolean>('durableRuns', true) !== false,
    telemetry: telemetrySetting(get<unknown>('telemetry', null)),
    pricesFile: typeof prices === 'string' && prices.trim() !== '' ? prices.trim() : undefined,
  };
}

/** Folders in the settings are relative to the workspace folder (`cwd`). */
const resolveDirs = (dirs: string[], cwd: string) => dirs.map((d) => (path.isAbsolute(d) ? d : path.join(cwd, d)));

/** The store of the editor's durable runs: `.turn/` in the workspace folder (`cwd`). */
export function workspaceStoreDir(cwd: string): string {
  return path.join(cwd, DEFAULT_STORE_DIR);
}

/**
 * The run options the settings describe (the editor adds its vault and approval prompt). With
 * `durableRuns`, `store` is the workspace's store: the run panel's runs are durable (the debugger
 * takes only the authority and budgets from here).
 */
export function runOptionsFromSettings(s: RunSettings, cwd: string, extra: Pick<AuthorityOptions, 'vault' | 'approve' | 'oauth'> = {}): RunOptions {
  return {
    cwd,
    model: s.model,
    ...hostModelsOption(),
    ...(s.durableRuns ? { store: workspaceStoreDir(cwd) } : {}),
    ...(s.maxSteps !== undefined ? { maxSteps: s.maxSteps } : {}),
    ...(s.maxAlloc !== undefined ? { maxAlloc: s.maxAlloc } : {}),
    ...(s.maxTimeSeconds !== undefined ? { maxTimeMs: s.maxTimeSeconds * 1000 } : {}),
    ...(s.toolTimeoutSeconds !== undefined ? { toolTimeoutMs: s.toolTimeoutSeconds * 1000 } : {}),
    ...(s.contextWorking !== undefined || s.contextEpisodic !== undefined ? { context: { working: s.contextWorking, episodic: s.contextEpisodic } } : {}),
    ...(s.telemetry ? { telemetry: s.telemetry } : {}),
    authority: {
      allowNet: s.allowNet,
      allowRead: resolveDirs(s.allowRead, cwd),
      allowWrite: resolveDirs(s.allowWrite, cwd),
      allowEnv: s.allowEnv,
      allowRun: s.allowRun,
      approveEffects: s.approveEffects,
      ...(s.maxModelCalls !== undefined ? { maxModelCalls: s.maxModelCalls } : {}),
      grantedBy: 'settings',
      ...extra,
    },
  };
}

/** The same settings as `turn run` flags (the Run File task runs the CLI in a terminal). */
export function cliArgsFromSettings(s: RunSettings, cwd: string): string[] {
  const args = ['--model', s.model];
  const list = (flag: string, xs: string[]) => (xs.length > 0 ? [flag, xs.join(',')] : []);
  args.push(...list('--allow-net', s.allowNet), ...list('--allow-read', resolveDirs(s.allowRead, cwd)), ...list('--allow-write', resolveDirs(s.allowWrite, cwd)));
  // one --allow-run per grant: a grant may hold its arguments (`node server.js`), which a comma would run together
  args.push(...list('--allow-env', s.allowEnv), ...s.allowRun.flatMap((g) => ['--allow-run', g]), ...list('--approve-effects', s.approveEffects));
  if (s.maxModelCalls !== undefined) args.push('--max-model-calls', String(s.maxModelCalls));
  if (s.maxSteps !== undefined) args.push('--max-steps', String(s.maxSteps));
  if (s.maxAlloc !== undefined) args.push('--max-alloc', String(s.maxAlloc));
  if (s.maxTimeSeconds !== undefined) args.push('--max-time', String(s.maxTimeSeconds));
  if (s.toolTimeoutSeconds !== undefined) args.push('--tool-timeout', String(s.toolTimeoutSeconds));
  if (s.contextWorking !== undefined) args.push('--context-working', String(s.contextWorking));
  if (s.contextEpisodic !== undefined) args.push('--context-episodic', String(s.contextEpisodic));
  return args;
}

/** Where the Runs view finds runs on Restate (docs/scale-out.md): `turn.restate.ingressUrl` and `turn.restate.adminUrl`. */
export interface RestateSettings {
  ingress: string;
  /** `turn.restate.adminUrl`, else the ingress host on port 9070 (as the CLI's `--restate-admin` default) */
  admin: string;
}

/** The Restate server the Runs view shows, or undefined when `turn.restate.ingressUrl` is not set. */
export function readRestateSettings(get: SettingsGet): RestateSettings | undefined {
  const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
  const ingress = text(get<string>('restate.ingressUrl', ''));
  if (ingress === '') return undefined;
  const admin = text(get<string>('restate.adminUrl', ''));
  if (admin !== '') return { ingress, admin };
  try {
    return { ingress, admin: defaultAdminUrl(ingress) };
  } catch {
    // not a URL: the Runs view says so when it asks the server (client.ts names the setting's value)
    return { ingress, admin: ingress };
  }
}
