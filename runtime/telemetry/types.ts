// What a run's telemetry is to the rest of the runtime (runtime/telemetry/index.ts opens one,
// ./otel.ts implements it): no OpenTelemetry type appears here.
import type { RunEvent } from '../events/index.js';
import type { ToolRequest } from '../ports/host.js';

/** What the spans of one run are built from, besides its events. */
export interface TelemetryContext {
  /** the run's redactor: applied to every attribute, span name and event (the events come redacted already) */
  redact(text: string): string;
  /** the run's model spec as its provider names it (`openai:gpt-4o-mini`) */
  model: string;
  /** the program (its entry file's name) */
  program: string;
  /** the traceparent of the run's first segment, when this one resumes it (the root span links to it) */
  resumes?: string;
}

/** The run as the telemetry sees it once the run exists (names of processes, replay state, id). */
export interface TelemetryRunView {
  runId?: string;
  replaying(): boolean;
  processName(pid: number): string | null;
}

/** One run's telemetry: fed the run's (redacted) events, ended with the run. */
export interface RunTelemetry {
  /** each event of the run, in order, already redacted */
  sink(event: RunEvent): void;
  /** the run's own span as a W3C traceparent (a durable run records it; its resumes link to it) */
  readonly root: string;
  /** the traceparent of the effect process `pid` performs now (its execute_tool span), for HTTP headers and MCP `_meta` */
  traceparent(pid: number): string | undefined;
  /** what an effect is about (the MCP server and tool, the HTTP method and URL), named on its span */
  describeTool(request: ToolRequest): void;
  bind(run: TelemetryRunView): void;
  /** ends every open span with the run's outcome and exports what is left (bounded by the export's time limit) */
  end(result: { kind: string; message?: string }): Promise<void>;
}
