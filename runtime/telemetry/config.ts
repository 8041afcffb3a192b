// Whether a run exports OpenTelemetry traces, and where (docs/observability.md). Read from the
// standard OTEL_* variables, the editor's `turn.telemetry` setting or an embedding option. This
// module imports nothing of OpenTelemetry: with telemetry off, no package of it is loaded.

/** A run's telemetry, as the CLI, the editor or an embedding app gives it. */
export interface TelemetryOptions {
  /** true: export (to `endpoint`, else the OTEL_* variables, else the OTLP default); false: never, whatever the environment says */
  enabled?: boolean;
  /** the OTLP/HTTP base URL (`/v1/traces` is appended) */
  endpoint?: string;
  /** headers of every export request (a collector's API key) */
  headers?: Record<string, string>;
  /** the service.name resource attribute (default OTEL_SERVICE_NAME, else `turn`) */
  serviceName?: string;
  /** record prompts and replies as gen_ai.* message attributes (default OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT) */
  captureContent?: boolean;
  /**
   * An OpenTelemetry SpanExporter to export to instead of OTLP (a test's in-memory exporter, an
   * app's own). Typed loosely so this module needs no OpenTelemetry types.
   */
  exporter?: unknown;
  /**
   * An OpenTelemetry TracerProvider to create the spans with (an app's own, already exporting);
   * when unset and the app registered a global one, that one is used and the run's spans nest
   * under the caller's active span.
   */
  tracerProvider?: unknown;
}

/** What a run's telemetry resolved to: nothing is loaded unless this exists. */
export interface TelemetryConfig {
  /**
   * the OTLP/HTTP traces URL an option or variable gave; undefined otherwise: then an app's global
   * tracer provider if it registered one, else DEFAULT_OTLP_TRACES_URL (runtime/telemetry/otel.ts)
   */
  url?: string;
  headers: Record<string, string>;
  serviceName: string;
  captureContent: boolean;
  /** `console`: spans printed to standard error instead (OTEL_TRACES_EXPORTER=console) */
  console: boolean;
  exporter?: unknown;
  tracerProvider?: unknown;
  /** the export's time limit in ms (OTEL_EXPORTER_OTLP_TIMEOUT, default 10 s) */
  timeoutMs: number;
}

type Env = Record<string, string | undefined>;

const truthy = (v: string | undefined): boolean => v !== undefined && /^(true|1|yes|on)$/i.test(v.trim());

/** The OTLP default traces endpoint (a collector on this machine). */
export const DEFAULT_OTLP_TRACES_URL = 'http://localhost:4318/v1/traces';

/** A user's telemetry setting that cannot be used. */
export class TelemetryConfigError extends Error {}

/**
 * OTEL_EXPORTER_OTLP_HEADERS's `k=v,k2=v2` (values percent-encoded), bounded: a malformed pair is
 * an error naming the variable, never a silent export without the key a collector needs.
 */
export function parseOtlpHeaders(text: string | undefined, variable: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === undefined || text.trim() === '') return out;
  if (text.length > 16_384) throw new TelemetryConfigError(`${variable} is longer than 16 KiB`);
  for (const pair of text.split(',')) {
    if (pair.trim() === '') continue;
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new TelemetryConfigError(`${variable}: "${pair.trim().slice(0, 40)}" is not KEY=VALUE`);
    let key: string, value: string;
    try {
      key = decodeURIComponent(pair.slice(0, eq).trim());
      value = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      throw new TelemetryConfigError(`${variable}: a header is not valid percent-encoding`);
    }
    if (/[\r\n\0]/.test(key + value)) throw new TelemetryConfigError(`${variable}: a header contains a line break`);
    out[key] = value;
  }
  return out;
}

function checkedUrl(url: string, from: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TelemetryConfigError(`${from}: "${url.slice(0, 200)}" is not a URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TelemetryConfigError(`${from}: the OTLP endpoint must be http or https, got ${u.protocol}`);
  return u.href;
}

/** `/v1/traces` under a base endpoint, as the OTLP exporter specification says. */
function tracesUnder(base: string, from: string): string {
  return checkedUrl(base.replace(/\/+$/, '') + '/v1/traces', from);
}

/**
 * The run's telemetry, or undefined when it exports nothing. Off unless asked: an option or setting
 * with `enabled` (or an exporter or provider), or the environment naming an OTLP endpoint or
 * OTEL_TRACES_EXPORTER=otlp|console. OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none turn it
 * off whatever else says. Throws TelemetryConfigError.
 */
export function telemetryConfig(options: TelemetryOptions | undefined, env: Env): TelemetryConfig | undefined {
  if (truthy(env.OTEL_SDK_DISABLED)) return undefined;
  if (options?.enabled === false) return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (exporters.includes('none') && options?.enabled !== true && options?.exporter === undefined && options?.tracerProvider === undefined) return undefined;
  const envEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  const asked = options?.enabled === true || options?.endpoint !== undefined || options?.exporter !== undefined || options?.tracerProvider !== undefined || envEndpoint !== undefined || exporters.includes('otlp') || exporters.includes('console');
  if (!asked) return undefined;
  const timeout = Number(env.OTEL_EXPORTER_OTLP_TRACES_TIMEOUT ?? env.OTEL_EXPORTER_OTLP_TIMEOUT);
  const config: TelemetryConfig = {
    headers: {
      ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS, 'OTEL_EXPORTER_OTLP_HEADERS'),
      ...parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS'),
      ...(options?.headers ?? {}),
    },
    serviceName: options?.serviceName ?? (env.OTEL_SERVICE_NAME?.trim() || 'turn'),
    captureContent: options?.captureContent ?? truthy(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
    console: options?.exporter === undefined && options?.tracerProvider === undefined && options?.endpoint === undefined && exporters.includes('console') && !exporters.includes('otlp'),
    timeoutMs: Number.isFinite(timeout) && timeout > 0 ? Math.min(timeout, 120_000) : 10_000,
    ...(options?.exporter !== undefined ? { exporter: options.exporter } : {}),
    ...(options?.tracerProvider !== undefined ? { tracerProvider: options.tracerProvider } : {}),
  };
  if (config.exporter === undefined && config.tracerProvider === undefined && !config.console) {
    if (options?.endpoint !== undefined) config.url = tracesUnder(options.endpoint, 'the telemetry endpoint');
    else if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT !== undefined) config.url = checkedUrl(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
    else if (env.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined) config.url = tracesUnder(env.OTEL_EXPORTER_OTLP_ENDPOINT, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  }
  return config;
}
