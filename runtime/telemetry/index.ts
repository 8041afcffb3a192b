// OpenTelemetry export of a run (docs/observability.md): a consumer of the run's event stream
// (runtime/events/) that turns it into spans named as the GenAI semantic conventions say. This
// module is light: the OpenTelemetry packages are in ./otel.ts, imported only when a run exports
// (scripts/build.mjs bundles it apart, as dist/telemetry.js), so a run without telemetry loads none.
import type { TelemetryConfig } from './config.js';
import type { RunTelemetry, TelemetryContext } from './types.js';

export { telemetryConfig, TelemetryConfigError, type TelemetryOptions, type TelemetryConfig } from './config.js';
export type { RunTelemetry, TelemetryContext, TelemetryRunView } from './types.js';

/** The run's telemetry under `config` (loads the OpenTelemetry packages: call only when it is on). */
export async function openTelemetry(config: TelemetryConfig, ctx: TelemetryContext): Promise<RunTelemetry> {
  const { startRunTelemetry } = await import('./otel.js');
  return startRunTelemetry(config, ctx);
}
