// The requests `turn mcp` answers on the 2025-11-25 revision, one handler per method, each a plain
// function of (the served file, the request, the request's context) so that another revision's
// server can reuse them: tools/list, tools/call, prompts/list, prompts/get, resources/list,
// resources/templates/list, resources/read, resources/subscribe, resources/unsubscribe,
// completion/complete, logging/setLevel. Everything sent has passed the redactor of the command
// line's secrets (the call's own run redacted first what it returned).
import * as path from 'node:path';
import type { CallToolResult, GetPromptResult, LoggingLevel, ReadResourceResult, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import type { Redactor } from '../../effects/vault.js';
import type { ElicitAnswer, McpCaller } from '../../ports/mcp-caller.js';
import type { RunOptions } from '../../run/options.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../values/index.js';
import { callEntry, type CallOutcome, type CallSetup } from './call.js';
import { ContentError, isContentValue, promptMessages, replyBlocks } from './content.js';
import { matchTemplate, type Served, type ServedParam, type ServedResource, type ServedTool } from './discover.js';
import type { Server, ServerSdk } from './sdk.js';
import { checkArguments, INVALID_PARAMS, outputProblems, ProtocolError } from './validate.js';

/** What every handler of one connection shares. */
export interface ServedContext {
  file: string;
  served: Served;
  run: RunOptions;
  redactor: Redactor;
  /**
   * `turn mcp --store`: performs each `tools/call` (validated) in place of a plain run
   * (serve-next/durable-calls.ts); a ProtocolError it throws is the reply
   */
  perform?: PerformCall;
}

/** One validated `tools/call`, as `ServedContext.perform` is given it. */
export interface CallRequest {
  tool: ServedTool;
  args: Record<string, unknown>;
  /** the request's `_meta` (a client's idempotency key, trace context) */
  meta: unknown;
  req: RequestContext;
  /** the setup of the call's run (its lines logged, its caller this client, stopped when cancelled) */
  setup: CallSetup;
}
export type PerformCall = (call: CallRequest) => Promise<CallToolResult>;

/** What a served run may ask its client. */
export type AskMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** What a handler knows of the request it answers (the SDK's `extra`, narrowed to what is used). */
export interface RequestContext {
  /** the request's JSON-RPC id, and the session it came in (none over stdio, nor on 2026-07-28) */
  id: string | number;
  session?: string;
  signal: AbortSignal;
  /** sends a notification related to this request (over HTTP, on its stream) */
  notify(method: string, params: Record<string, unknown>): Promise<void>;
  /** settles once every notification sent so far is written: the reply goes after them (a client drops a progress notification that comes after the reply) */
  flush(): Promise<void>;
  /**
   * asks the client, related to this request: on 2025-11-25 a request sent to it; on 2026-07-28 an
   * entry of an `input_required` result, named `key` (serve-next/paused-calls.ts)
   */
  ask(method: AskMethod, params: Record<string, unknown>, signal: AbortSignal, key?: string): Promise<Record<string, unknown>>;
  /** what the client declared (at initialize; on 2026-07-28, in this request's `_meta`) */
  clientCapabilities(): { elicitation?: unknown; sampling?: unknown; roots?: unknown } | undefined;
  /** whether a log message of this level is wanted (logging/setLevel) */
  logs(level: LoggingLevel): boolean;
  /** told of a question refused because the client did not declare `capability` (2026-07-28 answers such a failed call with -32021) */
  missing?(capability: 'elicitation' | 'sampling' | 'roots'): void;
}

const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** The capabilities a served file's server declares: what it offers, nothing more. */
export function capabilitiesOf(served: Served): ServerCapabilities {
  const completable = served.prompts.length > 0 || served.resources.some((r) => r.template);
  return {
    tools: {},
    logging: {},
    ...(served.prompts.length > 0 ? { prompts: {} } : {}),
    ...(served.resources.length > 0 ? { resources: { subscribe: true } } : {}),
    ...(completable ? { completions: {} } : {}),
  };
}

/** A name or URI the client sent, as an error message quotes it: at most 200 characters. */
const quoted = (x: unknown): string => {
  const t = typeof x === 'string' ? x : JSON.stringify(x) ?? String(x);
  return JSON.stringify(t.length <= 200 ? t : `${t.slice(0, 200)}…`);
};

const failure = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });

/** The values of `params` in order from the arguments (a left-out optional one is null). */
export const valuesOf = (params: ServedParam[], args: Record<string, unknown>): unknown[] => params.map((p) => args[p.name] ?? null);

export function listTools(ctx: ServedContext) {
  return {
    tools: ctx.served.tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
      annotations: t.annotations,
    })),
  };
}

/** A client's answer, unless nested deeper than a value may be (it enters the run: measured by a walk with its own stack). */
function bounded(answer: Record<string, unknown>, what: string): Record<string, unknown> {
  if (nestedDeeperThan(answer, MAX_JSON_DEPTH)) throw new Error(`${what} is nested more than ${MAX_JSON_DEPTH} levels deep, the most a value may be: refused`);
  return answer;
}

/** The client that made a request, as the run's host tools reach it (progress, elicitation, sampling). */
function callerOf(req: RequestContext, progressToken: string | number | undefined): McpCaller {
  let last = -Infinity;
  return {
    progress(progress, total, message) {
      // the spec: progress increases with each notification; one that does not is not sent
      if (progressToken === undefined || !(progress > last)) return;
      last = progress;
      void req.notify('notifications/progress', { progressToken, progress, ...(total !== undefined ? { total } : {}), ...(message !== undefined ? { message } : {}) }).catch(() => undefined);
    },
    async elicit(message, requestedSchema, signal, key) {
      if (!req.clientCapabilities()?.elicitation) {
        req.missing?.('elicitation');
        throw new Error('mcp_elicit: the MCP client declared no elicitation capability: it cannot be asked');
      }
      const answer = await req.ask('elicitation/create', { mode: 'form', message, requestedSchema }, signal ? AbortSignal.any([signal, req.signal]) : req.signal, key);
      return bounded(answer, 'the answer to mcp_elicit') as unknown as ElicitAnswer;
    },
    async sample(request, signal, key) {
      if (!req.clientCapabilities()?.sampling) {
        req.missing?.('sampling');
        throw new Error('mcp_sample: the MCP client declared no sampling capability: it cannot be asked');
      }
      return bounded(await req.ask('sampling/createMessage', request, signal ? AbortSignal.any([signal, req.signal]) : req.signal, key), 'the answer to mcp_sample');
    },
    async roots(signal, key) {
      if (!req.clientCapabilities()?.roots) {
        req.missing?.('roots');
        throw new Error('mcp_roots: the MCP client declared no roots capability: it cannot be asked');
      }
      return bounded(await req.ask('roots/list', {}, signal ? AbortSignal.any([signal, req.signal]) : req.signal, key), 'the answer to mcp_roots');
    },
  };
}

/** A call's run setup: its printed lines are log messages (level info), its caller the client, stopped when the request is cancelled. */
export function setupOf(ctx: ServedContext, req: RequestContext, logger: string, progressToken?: string | number): CallSetup {
  const onLine = (line: string): void => {
    if (req.logs('info')) void req.notify('notifications/message', { level: 'info', logger, data: ctx.redactor.redact(line) }).catch(() => undefined);
  };
  return { options: ctx.run, onLine, caller: callerOf(req, progressToken), signal: req.signal };
}

/** A call's run. */
function run(ctx: ServedContext, req: RequestContext, key: string, logger: string, values: unknown[], progressToken?: string | number): Promise<CallOutcome> {
  return callEntry(ctx.file, key, values, setupOf(ctx, req, logger, progressToken)).finally(() => req.flush());
}

/** The reply of a tool whose run gave `value`. */
function toolReply(tool: ServedTool, value: unknown, printed: string[]): CallToolResult {
  const lines = printed.length > 0 ? [{ type: 'text' as const, text: printed.join('\n') }] : [];
  if (isContentValue(value)) {
    try {
      return { content: [...replyBlocks(value), ...lines] };
    } catch (e) {
      if (e instanceof ContentError) return failure(`${tool.name}: its value is not valid content: ${e.message}`);
      throw e;
    }
  }
  if (tool.outputSchema) {
    const wrong = outputProblems(value, tool.outputSchema);
    if (wrong !== undefined) return failure(`${tool.name}: its value does not match its own output schema (${wrong}); nothing else was sent`);
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value ?? null);
  const structured = tool.outputSchema && value && typeof value === 'object' && !Array.isArray(value) ? { structuredContent: value as Record<string, unknown> } : {};
  return { content: [{ type: 'text', text }, ...lines], ...structured };
}

/** The reply of a tool's run (not yet redacted by the command line's redactor). */
export function outcomeReply(tool: ServedTool, r: CallOutcome): CallToolResult {
  const lines = r.printed.length > 0 ? [{ type: 'text' as const, text: r.printed.join('\n') }] : [];
  return r.ok ? toolReply(tool, r.value, r.printed) : { isError: true, content: [{ type: 'text', text: r.message }, ...lines] };
}

/** The served tool `name` names. Throws the protocol error for an unknown one. */
export function toolNamed(ctx: ServedContext, name: unknown): ServedTool {
  const tool = ctx.served.tools.find((t) => t.name === name);
  // the spec's tools section: an unknown tool is a protocol error (invalid params), not a tool's failure
  if (!tool) throw new ProtocolError(INVALID_PARAMS, ctx.redactor.redact(`unknown tool ${quoted(name)} (tools: ${ctx.served.tools.map((t) => t.name).join(', ')})`));
  return tool;
}

export async function callTool(ctx: ServedContext, req: RequestContext, params: { name: string; arguments?: Record<string, unknown>; _meta?: { progressToken?: string | number } }): Promise<CallToolResult> {
  const tool = toolNamed(ctx, params.name);
  const args = params.arguments ?? {};
  checkArguments(`the tool ${tool.name}`, args, tool.inputSchema);
  let result: CallToolResult;
  try {
    if (ctx.perform) {
      const setup = setupOf(ctx, req, tool.name, params._meta?.progressToken);
      result = await ctx.perform({ tool, args, meta: params._meta, req, setup }).finally(() => req.flush());
    } else result = outcomeReply(tool, await run(ctx, req, tool.key, tool.name, valuesOf(tool.params, args), params._meta?.progressToken));
  } catch (e) {
    if (e instanceof ProtocolError) throw e;
    // not a failure of the program (those are replies): a message, never a stack
    result = failure(`${tool.name} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  return ctx.redactor.redactDeep(result);
}

export function listPrompts(ctx: ServedContext) {
  return {
    prompts: ctx.served.prompts.map((p) => ({
      name: p.name,
      description: p.description,
      arguments: p.params.map((a) => ({ name: a.name, required: !a.optional })),
    })),
  };
}

export async function getPrompt(ctx: ServedContext, req: RequestContext, params: { name: string; arguments?: Record<string, string> }): Promise<GetPromptResult> {
  const prompt = ctx.served.prompts.find((p) => p.name === params.name);
  if (!prompt) throw new ProtocolError(INVALID_PARAMS, ctx.redactor.redact(`unknown prompt ${quoted(params.name)} (prompts: ${ctx.served.prompts.map((p) => p.name).join(', ') || 'none'})`));
  const args = params.arguments ?? {};
  const schema = { type: 'object', properties: Object.fromEntries(prompt.params.map((p) => [p.name, p.schema])), required: prompt.params.filter((p) => !p.optional).map((p) => p.name), additionalProperties: false };
  checkArguments(`the prompt ${prompt.name}`, args, schema);
  const r = await run(ctx, req, prompt.key, `prompt ${prompt.name}`, valuesOf(prompt.params, args));
  if (!r.ok) throw new ProtocolError(-32603, ctx.redactor.redact(`the prompt ${prompt.name} failed: ${r.message}`));
  try {
    return ctx.redactor.redactDeep({ description: prompt.description, messages: promptMessages(r.value) });
  } catch (e) {
    if (e instanceof ContentError) throw new ProtocolError(-32603, `the prompt ${prompt.name}: ${e.message}`);
    throw e;
  }
}

export function listResources(ctx: ServedContext) {
  return { resources: ctx.served.resources.filter((r) => !r.template).map((r) => ({ uri: r.uri, name: r.name, description: r.description })) };
}

export function listResourceTemplates(ctx: ServedContext) {
  return { resourceTemplates: ctx.served.resources.filter((r) => r.template).map((r) => ({ uriTemplate: r.uri, name: r.name, description: r.description })) };
}

/** The resource `uri` names (a direct one, else the first template it matches) and its variables. */
function resourceAt(ctx: ServedContext, uri: string): { resource: ServedResource; vars: Record<string, string> } | undefined {
  const direct = ctx.served.resources.find((r) => !r.template && r.uri === uri);
  if (direct) return { resource: direct, vars: {} };
  for (const r of ctx.served.resources) {
    if (!r.template) continue;
    const vars = matchTemplate(r.template, uri);
    if (vars) return { resource: r, vars };
  }
  return undefined;
}

/** The spec's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

export async function readResource(ctx: ServedContext, req: RequestContext, params: { uri: string }): Promise<ReadResourceResult> {
  const found = resourceAt(ctx, params.uri);
  // the error's data names the URI (SEP-2164), as the client sent it: it is the client's own
  if (!found) throw new ProtocolError(RESOURCE_NOT_FOUND, ctx.redactor.redact(`no resource ${quoted(params.uri)}`), { uri: params.uri });
  const { resource, vars } = found;
  const r = await run(ctx, req, resource.key, `resource ${resource.uri}`, valuesOf(resource.params, vars));
  if (!r.ok) throw new ProtocolError(-32603, ctx.redactor.redact(`reading ${quoted(params.uri)} failed: ${r.message}`));
  const value = r.value;
  let contents: ReadResourceResult['contents'];
  if (isContentValue(value) && value.mcp_content === 'resource') {
    const block = replyBlocks(value)[0] as { resource: ReadResourceResult['contents'][number] };
    contents = [{ ...block.resource, uri: params.uri }];
  } else if (typeof value === 'string') contents = [{ uri: params.uri, mimeType: 'text/plain', text: value }];
  else contents = [{ uri: params.uri, mimeType: 'application/json', text: JSON.stringify(value ?? null) }];
  return ctx.redactor.redactDeep({ contents });
}

/** The completions of a prompt's argument or a template's variable: its literal values that start with what was typed. */
export function complete(ctx: ServedContext, params: { ref: { type: string; name?: string; uri?: string }; argument: { name: string; value: string } }) {
  const { ref, argument } = params;
  const owner = ref.type === 'ref/prompt' ? ctx.served.prompts.find((p) => p.name === ref.name) : ref.type === 'ref/resource' ? ctx.served.resources.find((r) => r.uri === ref.uri) : undefined;
  if (!owner) throw new ProtocolError(INVALID_PARAMS, ctx.redactor.redact(`nothing to complete for ${quoted(ref)}`));
  const param = owner.params.find((p) => p.name === argument.name);
  if (!param) throw new ProtocolError(INVALID_PARAMS, ctx.redactor.redact(`no argument ${quoted(argument.name)} to complete`));
  const values = (param.choices ?? []).filter((c) => c.startsWith(argument.value));
  // the spec bounds one answer at 100 values
  return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
}

/** What the SDK hands a request handler, narrowed to what is used. */
interface SdkExtra {
  requestId: string | number;
  sessionId?: string;
  signal: AbortSignal;
  sendNotification: (n: never) => Promise<void>;
  sendRequest: (r: never, schema: never, options?: { signal?: AbortSignal }) => Promise<unknown>;
}

/** A request's context over the SDK's `extra`; `level`: the connection's logging level now. */
function requestContextOf(sdk: ServerSdk, server: Server, extra: SdkExtra, level: () => LoggingLevel): RequestContext {
  const sent = new Set<Promise<void>>();
  return {
    id: extra.requestId,
    ...(extra.sessionId !== undefined ? { session: extra.sessionId } : {}),
    signal: extra.signal,
    notify: (method, params) => {
      const p = extra.sendNotification({ method, params } as never).finally(() => sent.delete(p));
      sent.add(p);
      return p;
    },
    flush: async () => {
      while (sent.size > 0) await Promise.allSettled([...sent]);
    },
    ask: async (method, params, signal) => {
      const schema = method === 'elicitation/create' ? sdk.types.ElicitResultSchema : method === 'sampling/createMessage' ? sdk.types.CreateMessageResultSchema : sdk.types.ListRootsResultSchema;
      return (await extra.sendRequest({ method, params } as never, schema as never, { signal })) as Record<string, unknown>;
    },
    clientCapabilities: () => server.getClientCapabilities(),
    logs: (l) => LEVELS.indexOf(l) >= LEVELS.indexOf(level()),
  };
}

/** The most resources one connection may be subscribed to. */
const MAX_SUBSCRIPTIONS = 1000;

/** Registers every handler on `server` (one SDK Server per connection). */
export function registerHandlers(sdk: ServerSdk, server: Server, ctx: ServedContext): void {
  const t = sdk.types;
  let level: LoggingLevel = 'debug';
  const subscribed = new Set<string>();
  const requestContext = (extra: SdkExtra): RequestContext => requestContextOf(sdk, server, extra, () => level);
  server.setRequestHandler(t.SetLevelRequestSchema, (request) => {
    level = request.params.level;
    return {};
  });
  server.setRequestHandler(t.ListToolsRequestSchema, () => listTools(ctx));
  server.setRequestHandler(t.CallToolRequestSchema, async (request, extra) => {
    const result = await callTool(ctx, requestContext(extra), request.params);
    // a call may change what a resource reads: every subscribed one is reported updated
    for (const uri of subscribed) void server.sendResourceUpdated({ uri }).catch(() => undefined);
    return result;
  });
  if (ctx.served.prompts.length > 0) {
    server.setRequestHandler(t.ListPromptsRequestSchema, () => listPrompts(ctx));
    server.setRequestHandler(t.GetPromptRequestSchema, (request, extra) => getPrompt(ctx, requestContext(extra), request.params));
  }
  if (ctx.served.resources.length > 0) {
    server.setRequestHandler(t.ListResourcesRequestSchema, () => listResources(ctx));
    server.setRequestHandler(t.ListResourceTemplatesRequestSchema, () => listResourceTemplates(ctx));
    server.setRequestHandler(t.ReadResourceRequestSchema, (request, extra) => readResource(ctx, requestContext(extra), request.params));
    server.setRequestHandler(t.SubscribeRequestSchema, (request) => {
      if (!resourceAt(ctx, request.params.uri)) throw new ProtocolError(RESOURCE_NOT_FOUND, ctx.redactor.redact(`no resource ${quoted(request.params.uri)}`));
      if (!subscribed.has(request.params.uri) && subscribed.size >= MAX_SUBSCRIPTIONS) throw new ProtocolError(INVALID_PARAMS, `this connection is subscribed to ${MAX_SUBSCRIPTIONS} resources, the most it may be: unsubscribe from one first`);
      subscribed.add(request.params.uri);
      return {};
    });
    server.setRequestHandler(t.UnsubscribeRequestSchema, (request) => {
      subscribed.delete(request.params.uri);
      return {};
    });
  }
  if (capabilitiesOf(ctx.served).completions) server.setRequestHandler(t.CompleteRequestSchema, (request) => complete(ctx, request.params as never));
}

/** One SDK Server for one connection, answering for `ctx.served`. */
export function servedServer(sdk: ServerSdk, ctx: ServedContext, version?: string): Server {
  const server = new sdk.Server({ name: `turn:${path.basename(ctx.file)}`, version: version ?? '1.0.0' }, { capabilities: capabilitiesOf(ctx.served) });
  registerHandlers(sdk, server, ctx);
  return server;
}
