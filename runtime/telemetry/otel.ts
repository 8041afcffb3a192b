// The spans of one run, built from its event stream, named and attributed as the OpenTelemetry
// GenAI semantic conventions say (docs/observability.md):
//
//   invoke_workflow <program>            the run (a resumed run links to the run it continues)
//   └─ invoke_agent <process>            each process (actor), under the process that spawned it
//      ├─ chat <model>                   each model request (a re-ask is another chat span)
//      └─ execute_tool <tool>            each effect (HTTP, files, an MCP tool call, ...)
//
// Only this module imports OpenTelemetry; scripts/build.mjs bundles it apart (dist/telemetry.js)
// and runtime/telemetry/index.ts imports it when a run exports. It imports nothing else of the
// runtime but types: what it needs of the run (the redactor, names) is handed to it.
import { context as otelContext, trace, SpanKind, SpanStatusCode, type Attributes, type AttributeValue, type Context, type Link, type Span, type Tracer, type TracerProvider } from '@opentelemetry/api';
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, type ReadableSpan, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { RunEvent } from '../events/index.js';
import type { ToolRequest } from '../ports/host.js';
import { DEFAULT_OTLP_TRACES_URL, type TelemetryConfig } from './config.js';
import type { RunTelemetry, TelemetryContext, TelemetryRunView } from './types.js';

/** The longest attribute value exported, in characters: a runaway prompt never makes a span of megabytes. */
const MAX_ATTRIBUTE_CHARS = 16_384;
/** The most spans one run opens (past it, effects and calls go unrecorded, and the root says how many). */
const MAX_SPANS = 100_000;

/** Turn's provider names → the conventions' `gen_ai.provider.name` values. */
const PROVIDERS: Record<string, string> = {
  openai: 'openai',
  'openai-responses': 'openai',
  anthropic: 'anthropic',
  azure: 'azure.ai.openai',
  gemini: 'gcp.gemini',
  bedrock: 'aws.bedrock',
  ollama: 'ollama',
};

/** The tools whose effect reaches outside the machine (`gen_ai.tool.type` extension), the rest run here (function). */
const isExtension = (tool: string): boolean => tool === 'http_request' || tool.startsWith('mcp_');

/** Turn's tool names that are an MCP request, with the method each sends. */
const MCP_METHODS: Record<string, string> = { mcp_call: 'tools/call', mcp_tools: 'tools/list', mcp_resources: 'resources/list', mcp_read: 'resources/read', mcp_templates: 'resources/templates/list' };

/** `00-<trace>-<span>-<flags>` */
function traceparentOf(span: Span): string {
  const c = span.spanContext();
  return `00-${c.traceId}-${c.spanId}-${(c.traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A recorded traceparent as a link target, or undefined (a store is outside data: checked, never trusted). */
function linkTo(traceparent: string | undefined): Link | undefined {
  const m = typeof traceparent === 'string' ? TRACEPARENT.exec(traceparent) : null;
  if (!m || /^0+$/.test(m[1]) || /^0+$/.test(m[2])) return undefined;
  return { context: { traceId: m[1], spanId: m[2], traceFlags: parseInt(m[3], 16) & 1, isRemote: true }, attributes: { 'turn.link': 'resumes' } };
}

/** Whether the app registered a global TracerProvider (what trace.setGlobalTracerProvider writes, API 1.x). */
function globalProviderRegistered(): boolean {
  const g = (globalThis as Record<symbol, unknown>)[Symbol.for('opentelemetry.js.api.1')] as { trace?: unknown } | undefined;
  return g?.trace !== undefined;
}

interface Provider {
  tracer: Tracer;
  /** exports what is buffered (our own provider; an app's provider is the app's to flush) */
  flush(): Promise<void>;
}

function provider(config: TelemetryConfig): Provider {
  // an exporter the caller gave stays the caller's (shutting it down would clear an in-memory one): flushed only
  const own = (processor: SpanProcessor, callers = false): Provider => {
    const p = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': config.serviceName, 'telemetry.sdk.language': 'nodejs' }),
      spanProcessors: [processor],
      spanLimits: { attributeValueLengthLimit: MAX_ATTRIBUTE_CHARS, attributeCountLimit: 128, eventCountLimit: 256, linkCountLimit: 8 },
    });
    return { tracer: p.getTracer('turn'), flush: () => (callers ? p.forceFlush() : p.shutdown()) };
  };
  if (config.tracerProvider !== undefined) {
    return { tracer: (config.tracerProvider as TracerProvider).getTracer('turn'), flush: async () => {} };
  }
  if (config.exporter !== undefined) return own(new SimpleSpanProcessor(config.exporter as SpanExporter), true);
  if (config.console) return own(new SimpleSpanProcessor(new StderrSpanExporter()));
  // no endpoint given: an app that registered its own provider gets the spans there, under its active span
  if (config.url === undefined && globalProviderRegistered()) return { tracer: trace.getTracer('turn'), flush: async () => {} };
  const exporter = new OTLPTraceExporter({ url: config.url ?? DEFAULT_OTLP_TRACES_URL, headers: config.headers, timeoutMillis: config.timeoutMs });
  return own(new BatchSpanProcessor(exporter, { exportTimeoutMillis: config.timeoutMs }));
}

/**
 * OTEL_TRACES_EXPORTER=console: a JSON line per span on standard error. The SDK's ConsoleSpanExporter
 * prints to standard output, where it would mix with the program's own output (`turn run x.tn > out`).
 */
class StderrSpanExporter implements SpanExporter {
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    for (const s of spans) {
      const { traceId, spanId } = s.spanContext();
      const line = {
        name: s.name, traceId, spanId, parentSpanId: s.parentSpanContext?.spanId, kind: s.kind,
        startTime: s.startTime, duration: s.duration, attributes: s.attributes, status: s.status,
        events: s.events.map((e) => ({ name: e.name, attributes: e.attributes })),
      };
      process.stderr.write(JSON.stringify(line) + '\n');
    }
    done({ code: 0 }); // ExportResultCode.SUCCESS
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/** A span and the context that makes it a parent. */
interface Open {
  span: Span;
  ctx: Context;
  /** named after the process's function (a process has none yet when it is spawned) */
  named: boolean;
}

class RunSpans implements RunTelemetry {
  readonly root: string;
  private readonly rootSpan: Span;
  private readonly rootCtx: Context;
  private readonly agents = new Map<number, Open>();
  private readonly parents = new Map<number, number>();
  /** model requests by infer id (a self-consistent call's samples share one chat span) */
  private readonly chats = new Map<string, Span>();
  /** the effect each process waits on (a process waits on one at a time) */
  private readonly tools = new Map<number, Span>();
  private view: TelemetryRunView | undefined;
  private spans = 1;
  private ended = false;
  private dropped = 0;
  private readonly provider: string;
  private readonly requestModel: string;

  constructor(
    private readonly p: Provider,
    private readonly config: TelemetryConfig,
    private readonly ctx: TelemetryContext,
  ) {
    const colon = ctx.model.indexOf(':');
    const prefix = colon > 0 ? ctx.model.slice(0, colon) : ctx.model;
    this.provider = PROVIDERS[prefix] ?? prefix;
    this.requestModel = colon > 0 ? ctx.model.slice(colon + 1) : ctx.model;
    // the caller's active span (an embedded run inside a request handler) is the run's parent
    const parent = otelContext.active();
    const link = linkTo(ctx.resumes);
    this.rootSpan = p.tracer.startSpan(
      this.name(`invoke_workflow ${ctx.program}`),
      {
        kind: SpanKind.INTERNAL,
        attributes: this.safe({ 'gen_ai.operation.name': 'invoke_workflow', 'gen_ai.agent.name': ctx.program, 'turn.run.resumed': link !== undefined }),
        ...(link ? { links: [link] } : {}),
      },
      parent,
    );
    this.rootCtx = trace.setSpan(parent, this.rootSpan);
    this.root = traceparentOf(this.rootSpan);
  }

  bind(run: TelemetryRunView): void {
    this.view = run;
    if (run.runId !== undefined) this.rootSpan.setAttributes(this.safe({ 'turn.run.id': run.runId, 'gen_ai.conversation.id': run.runId }));
  }

  /** Every string of an attribute set through the run's redactor, bounded. */
  private safe(attrs: Record<string, AttributeValue | undefined | null>): Attributes {
    const out: Attributes = {};
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null) continue;
      if (typeof v === 'string') out[k] = this.text(v);
      else if (Array.isArray(v)) out[k] = v.map((x) => (typeof x === 'string' ? this.text(x) : x)) as AttributeValue;
      else out[k] = v;
    }
    return out;
  }

  private text(s: string): string {
    const r = this.ctx.redact(s);
    return r.length > MAX_ATTRIBUTE_CHARS ? r.slice(0, MAX_ATTRIBUTE_CHARS) + '…' : r;
  }

  private name(s: string): string {
    return this.text(s).slice(0, 200);
  }

  private start(name: string, kind: SpanKind, attributes: Record<string, AttributeValue | undefined | null>, parent: Context): Span | undefined {
    if (this.spans >= MAX_SPANS) {
      this.dropped++;
      return undefined;
    }
    this.spans++;
    return this.p.tracer.startSpan(this.name(name), { kind, attributes: this.safe(attributes) }, parent);
  }

  /** Process `pid`'s invoke_agent span, opened the first time the process is seen. */
  private agent(pid: number): Open {
    let a = this.agents.get(pid);
    if (a) return a;
    const parentPid = this.parents.get(pid);
    const parentCtx = parentPid !== undefined && parentPid !== pid && parentPid > 0 ? this.agent(parentPid).ctx : this.rootCtx;
    const known = this.view?.processName(pid) ?? null;
    const name = known ?? (pid === 1 ? 'main' : `process ${pid}`);
    const span = this.start(`invoke_agent ${name}`, SpanKind.INTERNAL, { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': name, 'turn.pid': pid, 'gen_ai.provider.name': this.provider }, parentCtx);
    a = span ? { span, ctx: trace.setSpan(parentCtx, span), named: known !== null } : { span: trace.wrapSpanContext(trace.getSpanContext(parentCtx) ?? this.rootSpan.spanContext()), ctx: parentCtx, named: true };
    this.agents.set(pid, a);
    return a;
  }

  /** Process `pid`'s span as a parent, named after its function once it runs one. */
  private acting(pid: number): Context {
    const a = this.agent(pid);
    if (!a.named) {
      const name = this.view?.processName(pid) ?? null;
      if (name !== null) {
        a.named = true;
        a.span.updateName(this.name(`invoke_agent ${name}`));
        a.span.setAttributes(this.safe({ 'gen_ai.agent.name': name }));
      }
    }
    return a.ctx;
  }

  private replaying(): boolean {
    return this.view?.replaying() ?? false;
  }

  sink(e: RunEvent): void {
    try {
      this.consume(e);
    } catch {
      // telemetry never fails a run
    }
  }

  private consume(e: RunEvent): void {
    switch (e.kind) {
      case 'process.spawn':
        this.parents.set(e.pid, e.parent);
        this.agent(e.pid);
        return;
      case 'process.exit': {
        const a = this.agents.get(e.pid);
        if (!a) return;
        if (e.status === 'failed') a.span.setStatus({ code: SpanStatusCode.ERROR, message: 'the process failed' });
        a.span.end();
        this.agents.delete(e.pid);
        return;
      }
      case 'infer.request': {
        const prior = this.chats.get(e.id);
        if (prior) prior.end();
        const options = e.options ?? {};
        const span = this.start(`chat ${this.requestModel}`, SpanKind.CLIENT, {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': this.provider,
          'gen_ai.request.model': this.requestModel,
          'gen_ai.output.type': 'json',
          'gen_ai.request.max_tokens': options.max_tokens,
          'gen_ai.request.temperature': options.temperature,
          'gen_ai.request.top_p': options.top_p,
          'gen_ai.request.seed': options.seed,
          'gen_ai.request.choice.count': options.consistency,
          'turn.infer.id': e.id,
          'turn.infer.type': e.type,
          'turn.infer.attempt': e.attempt,
          'turn.infer.reask': e.attempt > 1,
          'turn.replayed': this.replaying(),
          ...(this.config.captureContent ? contentOf(e) : {}),
        }, this.acting(e.pid));
        if (span) this.chats.set(e.id, span);
        return;
      }
      case 'http.retry': {
        const span = this.chats.get(e.id);
        span?.addEvent('turn.http.retry', this.safe({ 'turn.retry.attempt': e.attempt, 'http.response.status_code': e.status, 'turn.retry.wait_ms': e.waitMs, 'turn.retry.reason': e.reason }));
        return;
      }
      case 'infer.reply': {
        const span = this.chats.get(e.id);
        if (!span) return;
        const u = e.usage ?? {};
        const samples = Array.isArray(e.meta?.samples) ? e.meta.samples.length : undefined;
        span.setAttributes(
          this.safe({
            'gen_ai.response.model': this.requestModel,
            'gen_ai.response.finish_reasons': e.finishReason !== null ? [e.finishReason] : undefined,
            'gen_ai.usage.input_tokens': count(u.inputTokens),
            'gen_ai.usage.output_tokens': count(u.outputTokens),
            'gen_ai.usage.cache_read.input_tokens': count(u.cachedTokens),
            'turn.confidence': e.confidence?.value,
            'turn.confidence.source': e.confidence?.source,
            'turn.infer.valid': e.valid,
            'turn.infer.repairs': e.repairs.length,
            'turn.infer.errors': e.errors.length,
            'turn.infer.samples': samples,
            ...(this.config.captureContent ? { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: e.raw }], finish_reason: e.finishReason ?? 'stop' }]) } : {}),
          }),
        );
        span.end();
        this.chats.delete(e.id);
        return;
      }
      case 'infer.error': {
        const span = this.chats.get(e.id);
        if (!span) return;
        span.setAttributes(this.safe({ 'error.type': 'model_error' }));
        span.setStatus({ code: SpanStatusCode.ERROR, message: this.text(e.error) });
        span.end();
        this.chats.delete(e.id);
        return;
      }
      case 'infer.retry':
        this.agent(e.pid).span.addEvent('turn.infer.reask', this.safe({ 'turn.infer.id': e.id, 'turn.infer.attempt': e.attempt, 'turn.infer.errors': e.errors.length }));
        return;
      case 'tool.request': {
        this.tools.get(e.pid)?.end();
        const span = this.start(`execute_tool ${e.tool}`, SpanKind.INTERNAL, {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': e.tool,
          'gen_ai.tool.type': isExtension(e.tool) ? 'extension' : 'function',
          'gen_ai.tool.call.id': `${e.pid}:${e.seq}`,
          'turn.replayed': this.replaying(),
        }, this.acting(e.pid));
        if (span) this.tools.set(e.pid, span);
        return;
      }
      case 'tool.reply': {
        const span = this.tools.get(e.pid);
        if (!span) return;
        if (!e.ok) span.setStatus({ code: SpanStatusCode.ERROR, message: 'the effect failed' });
        span.end();
        this.tools.delete(e.pid);
        return;
      }
      case 'mcp.elicitation':
        this.agent(e.pid).span.addEvent('turn.wait', this.safe({ 'turn.wait.kind': 'elicitation', 'turn.wait.state': e.state, 'turn.mcp.server': e.server }));
        return;
      case 'interrupted':
        this.rootSpan.addEvent('turn.interrupted', this.safe({ 'turn.signal': e.signal, 'turn.inflight': e.inflight }));
        return;
      default:
        return;
    }
  }

  traceparent(pid: number): string | undefined {
    const span = this.tools.get(pid);
    return span ? traceparentOf(span) : undefined;
  }

  describeTool(request: ToolRequest): void {
    const span = this.tools.get(request.pid);
    if (!span) return;
    const method = MCP_METHODS[request.name];
    if (method) {
      const tool = request.args[2];
      const server = describeServer(request.args[1]);
      span.setAttributes(this.safe({ 'mcp.method.name': method, 'turn.mcp.server': server, ...(typeof tool === 'string' && request.name === 'mcp_call' ? { 'gen_ai.tool.name': tool } : {}) }));
      if (typeof tool === 'string' && request.name === 'mcp_call') span.updateName(this.name(`execute_tool ${tool}`));
      return;
    }
    if (request.name === 'http_request') {
      // http_request(auth, method, url, options)
      const [, method, url] = request.args;
      let where: string | undefined;
      try {
        // origin and path: a query string is where a careless program puts a key
        const u = new URL(String(url));
        where = u.origin + u.pathname;
      } catch {
        where = undefined;
      }
      span.setAttributes(this.safe({ 'http.request.method': typeof method === 'string' ? method.toUpperCase().slice(0, 16) : undefined, 'url.full': where }));
    }
  }

  async end(result: { kind: string; message?: string }): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    try {
      for (const s of this.chats.values()) s.end();
      for (const s of this.tools.values()) s.end();
      // children before parents
      for (const pid of [...this.agents.keys()].sort((a, b) => b - a)) this.agents.get(pid)!.span.end();
      this.chats.clear();
      this.tools.clear();
      this.agents.clear();
      this.rootSpan.setAttributes(this.safe({ 'turn.run.outcome': result.kind, 'turn.spans.dropped': this.dropped > 0 ? this.dropped : undefined }));
      if (result.kind === 'suspended' || result.kind === 'waiting') this.rootSpan.addEvent('turn.wait', this.safe({ 'turn.wait.kind': result.kind }));
      if (result.kind === 'failed' || result.kind === 'aborted') this.rootSpan.setStatus({ code: SpanStatusCode.ERROR, message: this.text(result.message ?? result.kind) });
      this.rootSpan.end();
    } finally {
      // the export's own time limit bounds this (OTEL_EXPORTER_OTLP_TIMEOUT); a collector that is down costs that, once
      await this.p.flush().catch(() => {});
    }
  }
}

/** A whole non-negative count, else nothing (a provider's usage is outside data). */
function count(x: unknown): number | undefined {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : undefined;
}

/** An MCP server argument (a URL, a launch map, a name) as a short description. */
function describeServer(server: unknown): string | undefined {
  if (typeof server === 'string') return server.slice(0, 500);
  if (server && typeof server === 'object') {
    const s = server as Record<string, unknown>;
    if (typeof s.url === 'string') return s.url.slice(0, 500);
    if (typeof s.command === 'string') return s.command.slice(0, 200);
  }
  return undefined;
}

/** The conventions' opt-in message attributes of a model request (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT). */
function contentOf(e: Extract<RunEvent, { kind: 'infer.request' }>): Record<string, string> {
  const user = [...e.prompt.P2, ...e.prompt.P1, e.prompt.task, ...e.feedback].filter((s) => s !== '');
  return {
    'gen_ai.system_instructions': JSON.stringify(e.prompt.P0.map((content) => ({ type: 'text', content }))),
    'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: user.map((content) => ({ type: 'text', content })) }]),
  };
}

export function startRunTelemetry(config: TelemetryConfig, ctx: TelemetryContext): RunTelemetry {
  return new RunSpans(provider(config), config, ctx);
}
