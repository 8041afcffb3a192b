// `turn mcp --port`: the 2026-07-28 revision beside 2025-11-25 (docs/mcp.md). The two SDK lines are
// combined at the HTTP request: a POST that carries the 2026-07-28 envelope (the SDK's own
// `isLegacyRequest` decides, so the routing is the SDK's) is answered by the 2.x server SDK
// (`@modelcontextprotocol/server`: stateless, `server/discover`, per-request `_meta`, `input_required`
// results), a fresh Server per request; everything else stays with serve/http.ts's sessionful 1.x
// serving. The 2.x line could also serve 2025-11-25 itself, but only statelessly (its fallback
// answers GET and DELETE with 405: no sessions, no standalone SSE stream, no resumption), which the
// 2025-11-25 clients and scenarios rely on.
//
// Both revisions answer with the same handlers (serve/handlers.ts: tools, prompts, resources,
// completion, validation, content, progress), each given a RequestContext made here from the 2.x
// SDK's `ctx`. What this revision drops: server-initiated requests, subscriptions and
// logging/setLevel (a log level comes in each request's `_meta`).
//
// A served program's questions to its client (mcp.elicit, mcp.sample, mcp.roots) become an
// `input_required` result: the run waits in memory for the client's retry (paused-calls.ts), for
// `tools/call` and `prompts/get`; the questions asked are only those the request's `_meta` client
// capabilities allow (another is refused in the program). With --store the state also names the
// durable run, so a retry after a restart resumes it from its journal (callDurably).
//
// A served run that suspends (with --store) becomes an `input_required` result: one elicitation
// ("go on?") and a requestState naming the run, signed with the store's secret (request-state.ts).
// The client's retry with the answer and the state resumes that run; a state that does not verify is
// refused by the SDK's seam (-32602) before the handler runs, so it resumes nothing.
import type * as http from 'node:http';
import { Readable } from 'node:stream';
import type { CallToolResult, LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import type { ModernHandler } from '../serve/options.js';
import { callTool, capabilitiesOf, complete, getPrompt, listPrompts, listResources, listResourceTemplates, listTools, readResource, setupOf, toolNamed, type RequestContext, type ServedContext } from '../serve/handlers.js';
import { checkArguments, ProtocolError as ServedProtocolError } from '../serve/validate.js';
import { hostFailure, RESUME_SCHEMA, resumeQuestion } from './durable-calls.js';
import { CallKeyError, callFingerprint, callKey, traceOf } from './call-key.js';
import { PausedCalls } from './paused-calls.js';
import { DEFAULT_TASK_LIMITS, TASKS_EXTENSION, type TaskLimits, type Tasks } from './tasks.js';
import { DurableTasks } from './durable-tasks.js';
import { mintState, openState, type RunClaim } from './request-state.js';
import type { DurableOutcome, DurableServing } from './served-runs.js';

export interface ModernServing {
  /** with --store: each call a durable run */
  durable?: { serving: DurableServing; dir: string; tasks?: TaskLimits };
  /** without a store: the calls that wait in memory for their client's answers */
  paused?: PausedCalls;
  /** without a store: the tasks of the tasks extension (tasks.ts) */
  tasks?: Tasks;
  /** signs requestState (the store's secret; without a store, nothing is ever minted) */
  secret: Buffer;
  version?: string;
}

const RESUME = 'resume';
const failure = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });
const LEVELS: LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];
const LOG_LEVEL_KEY = 'io.modelcontextprotocol/logLevel';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
/** Whether a handler's value is a tool's error result. */
const failed = (value: unknown): boolean => !!value && typeof value === 'object' && (value as { isError?: unknown }).isError === true;

/** The client capabilities a 2026-07-28 request declares in its `_meta` envelope (none when it declares none). */
const capabilitiesIn = (req: ModernCtx['mcpReq']): Record<string, unknown> | undefined => {
  const c = req.envelope?.[CAPABILITIES_KEY] ?? req._meta?.[CAPABILITIES_KEY];
  return c && typeof c === 'object' && !Array.isArray(c) ? (c as Record<string, unknown>) : undefined;
};

/** What the 2.x SDK hands a handler, narrowed to what is used. */
interface ModernCtx {
  mcpReq: {
    id: string | number;
    _meta?: Record<string, unknown>;
    /** the reserved `_meta` keys of this revision's envelope, which the SDK lifts off `_meta` */
    envelope?: Record<string, unknown>;
    inputResponses?: Record<string, unknown>;
    requestState: <T>() => T | undefined;
    signal: AbortSignal;
    notify: (n: { method: string; params?: Record<string, unknown> }) => Promise<void>;
  };
}

/** A request's context for the shared handlers, over the 2.x SDK's `ctx`. */
function requestContextOf(ctx: ModernCtx): RequestContext {
  const sent = new Set<Promise<void>>();
  // 2026-07-28 has no logging/setLevel: a client that wants log messages names the level in each request
  const level = ctx.mcpReq.envelope?.[LOG_LEVEL_KEY] ?? ctx.mcpReq._meta?.[LOG_LEVEL_KEY];
  return {
    id: ctx.mcpReq.id,
    signal: ctx.mcpReq.signal,
    notify: (method, params) => {
      const p = ctx.mcpReq.notify({ method, params }).finally(() => sent.delete(p));
      sent.add(p);
      return p;
    },
    flush: async () => {
      while (sent.size > 0) await Promise.allSettled([...sent]);
    },
    // a question is an input_required result: only a call paused in memory asks (paused-calls.ts gives its own `ask`)
    ask: () => Promise.reject(new Error('on the 2026-07-28 revision a server cannot send the client a request, and a durable served run asks only to go on (suspend)')),
    clientCapabilities: () => capabilitiesIn(ctx.mcpReq),
    logs: (l) => typeof level === 'string' && LEVELS.includes(level as LoggingLevel) && LEVELS.indexOf(l) >= LEVELS.indexOf(level as LoggingLevel),
  };
}

/** The request context of a durable task's run: no request waits on it, so it reports nothing and asks nothing. */
const taskRequest = (signal: AbortSignal): RequestContext => ({
  id: 'task',
  signal,
  notify: () => Promise.resolve(),
  flush: () => Promise.resolve(),
  ask: () => Promise.reject(new Error('a durable task asks its client only to go on (suspend)')),
  clientCapabilities: () => undefined,
  logs: () => false,
});

/** Params passed as sent to a custom method's handler: each handler checks what it uses. */
const ANY_PARAMS = { params: { '~standard': { version: 1, vendor: 'turn', validate: (value: unknown) => ({ value }) } } };

/** The handler serve/http.ts's `modern` hook calls: answers a 2026-07-28 POST and says so; false for a 2025-11-25 one. */
export async function modernHandler(options: ModernServing, ctx: ServedContext): Promise<ModernHandler> {
  // loaded on the first serve, as serve/sdk.ts loads the 1.x server (start-up cost of every other command)
  const sdk = await import('@modelcontextprotocol/server');
  const { Server, ProtocolError, ProtocolErrorCode, inputRequired, inputResponse, createMcpHandler, isLegacyRequest, hostHeaderValidationResponse, originValidationResponse, localhostAllowedHostnames, localhostAllowedOrigins } = sdk;
  const invalid = (message: string): never => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, ctx.redactor.redact(message));
  };
  /** The -32021 error of a call whose run needed client capabilities the request did not declare. */
  const missingCapability = (missing: string[]) =>
    new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, `the call needs the client capabilities ${missing.join(', ')}, which this request did not declare`, {
      requiredCapabilities: Object.fromEntries(missing.map((m) => [m, {}])),
    });
  /** A handler's protocol errors as the 2.x SDK's, so their codes reach the client. */
  const answer = async <T>(f: () => T | Promise<T>): Promise<T> => {
    try {
      return await f();
    } catch (e) {
      if (e instanceof ServedProtocolError) {
        const missing = e.data?.missing;
        if (Array.isArray(missing)) throw missingCapability(missing as string[]);
        throw new ProtocolError(e.code, e.message, e.data);
      }
      throw e;
    }
  };

  const suspendedReply = (o: Extract<DurableOutcome, { kind: 'suspended' }>, name: string) =>
    inputRequired({
      inputRequests: { [RESUME]: inputRequired.elicit({ message: resumeQuestion(name, o.runId), requestedSchema: RESUME_SCHEMA as never }) },
      requestState: mintState(options.secret, { run: o.runId, call: o.call }),
    });

  /**
   * A durable `tools/call` (--store): a retry bringing an answer resumes its run; else the call runs
   * durably under its key. Its run's questions (mcp.elicit, mcp.sample, mcp.roots) pause it in memory
   * (paused-calls.ts) and become an input_required result whose state names the durable run too: a
   * retry after a restart, when nothing waits in memory, resumes that run from its journal, and the
   * question it asks again is answered from the retry's inputResponses (then journaled).
   */
  const callDurably = async (durable: NonNullable<ModernServing['durable']>, params: { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> }, c: ModernCtx) => {
    const tool = toolNamed(ctx, params.name);
    const args = params.arguments ?? {};
    checkArguments(`the tool ${tool.name}`, args, tool.inputSchema);
    const req = requestContextOf(c);
    const progressToken = params._meta?.progressToken as string | number | undefined;
    const setup = (r: RequestContext) => setupOf(ctx, r, tool.name, progressToken);
    const call = callFingerprint(tool.name, args);
    try {
      const claim = c.mcpReq.requestState<RunClaim>();
      let o: DurableOutcome | ReturnType<typeof inputRequired>;
      if (claim !== undefined && claim.round === undefined) {
        // a retry answering a suspended run's "go on?": the state is ours (the seam verified it), and must be for this very call
        if (claim.call !== call) return invalid('requestState is for another call');
        const given = inputResponse(c.mcpReq.inputResponses, RESUME);
        if (given.kind === 'missing') return suspendedReply({ kind: 'suspended', runId: claim.run, call: claim.call }, tool.name);
        if (given.kind !== 'elicit' || given.action !== 'accept' || given.content?.resume !== true) {
          return ctx.redactor.redactDeep(failure(`declined: the run stays suspended (run ${claim.run}); resume it with turn resume ${claim.run} --store ${durable.dir}`));
        }
        o = await asking(c, tool.name, args, undefined, () => claim.run, (r) => durable.serving.resume(claim.run, call, tool, setup(r)));
      } else if (claim !== undefined) {
        // a retry answering questions the run asked mid-call
        if (claim.durable === undefined) return invalid('requestState names no durable run');
        const runId = claim.durable;
        // waiting here: its answers let it go on; else (a restart, or it expired) its run is resumed from the store
        o = options.paused!.holds(claim.run)
          ? await asking(c, tool.name, args, claim, () => runId, () => Promise.reject(new Error('unreachable: a held call is not started')))
          : await asking(c, tool.name, args, undefined, () => runId, (r) => durable.serving.resume(runId, call, tool, setup(r)), claim.call);
      } else {
        let key: string;
        try {
          key = callKey(params._meta, undefined, c.mcpReq.id);
        } catch (e) {
          if (e instanceof CallKeyError) return invalid(e.message);
          throw e;
        }
        o = await asking(c, tool.name, args, undefined, () => durable.serving.find(key)?.id, (r) => durable.serving.call(ctx.file, tool, args, key, setup(r), traceOf(params._meta)));
      }
      if ('resultType' in o) return o;
      return o.kind === 'suspended' ? suspendedReply(o, tool.name) : ctx.redactor.redactDeep(o.result);
    } catch (e) {
      if (e instanceof ProtocolError) throw e;
      if (e instanceof ServedProtocolError) throw e;
      // not a failure of the program (those are replies): a message, never a stack, and redacted
      return ctx.redactor.redactDeep(hostFailure(tool.name, e));
    } finally {
      await req.flush();
    }
  };

  /**
   * A durable run served through the paused calls: its outcome, or the input_required result of the
   * questions it asked (the state naming the paused call and, as `durable`, the run `runId()` gives).
   * `expected` is the call a claim that opens nothing in memory was minted for (checked before anything runs).
   */
  const asking = async (c: ModernCtx, name: string, args: Record<string, unknown>, claim: RunClaim | undefined, runId: () => string | undefined, start: (req: RequestContext) => Promise<DurableOutcome>, expected?: string) => {
    const paused = options.paused!;
    const call = callFingerprint(`tools/call:${name}`, args);
    if (expected !== undefined && expected !== call) invalid('requestState is for another call (another tool, prompt or arguments)');
    const settled = await paused.serve({ call, argsBytes: JSON.stringify(args).length, claim, responses: c.mcpReq.inputResponses, capabilities: capabilitiesIn(c.mcpReq), req: requestContextOf(c), start });
    if (settled.kind === 'done') return settled.value;
    const run = runId();
    return ctx.redactor.redactDeep(
      inputRequired({
        inputRequests: settled.inputRequests as never,
        requestState: mintState(options.secret, { ...settled.claim, ...(run !== undefined ? { durable: run } : {}) }),
      }),
    );
  };

  /**
   * A `tools/call` or `prompts/get` without a store whose run may ask its client: answered with its
   * value, or with an input_required result naming its questions and a state naming the paused call.
   */
  const callAsking = async <T>(method: string, name: string, args: unknown, c: ModernCtx, start: (req: RequestContext) => Promise<T>) => {
    const paused = options.paused!;
    const settled = await paused.serve({
      call: callFingerprint(`${method}:${name}`, args ?? {}),
      argsBytes: JSON.stringify(args ?? {}).length,
      claim: c.mcpReq.requestState<RunClaim>(),
      responses: c.mcpReq.inputResponses,
      capabilities: capabilitiesIn(c.mcpReq),
      req: requestContextOf(c),
      start,
    });
    if (settled.kind === 'done') {
      // a run that failed because it asked what the client cannot answer: -32021 names what it needed
      if (settled.missing.length > 0 && failed(settled.value)) throw missingCapability(settled.missing);
      return settled.value;
    }
    return ctx.redactor.redactDeep(
      inputRequired({
        inputRequests: settled.inputRequests as never,
        requestState: mintState(options.secret, settled.claim, undefined, Math.ceil(paused.limits.maxAgeMs / 1000)),
      }),
    );
  };

  /** Whether a request declares the tasks extension (its envelope's client capabilities). */
  const declaresTasks = (c: ModernCtx): boolean => {
    const extensions = capabilitiesIn(c.mcpReq)?.extensions;
    return !!extensions && typeof extensions === 'object' && !!(extensions as Record<string, unknown>)[TASKS_EXTENSION];
  };
  const needsTasks = () =>
    new ProtocolError(ProtocolErrorCode.MissingRequiredClientCapability, `this needs the ${TASKS_EXTENSION} extension, which this request did not declare`, {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
  const taskTools = ctx.served.tools.some((t) => t.taskSupport);
  const tasks = options.tasks && taskTools ? options.tasks : undefined;
  // with --store a task is a durable run (durable-tasks.ts): its record is the store's, so it outlives this process
  const durableTasks =
    options.durable && taskTools
      ? new DurableTasks(
          options.durable.serving,
          {
            file: ctx.file,
            tool: (name) => ctx.served.tools.find((t) => t.name === name),
            // a task's run reports to nobody (no request waits on a stream) and asks nothing mid-call
            setup: (tool, signal) => setupOf(ctx, taskRequest(signal), tool.name),
            redact: (v) => ctx.redactor.redactDeep(v),
          },
          options.durable.tasks ?? DEFAULT_TASK_LIMITS,
        )
      : undefined;

  // the capabilities of 2025-11-25 less what this revision has not: subscriptions (listened for otherwise)
  const capabilities = capabilitiesOf(ctx.served) as ReturnType<typeof capabilitiesOf> & { extensions?: Record<string, unknown> };
  if (capabilities.resources) capabilities.resources = {};
  if (tasks || durableTasks) capabilities.extensions = { [TASKS_EXTENSION]: {} };
  const factory = () => {
    const server = new Server(
      { name: `turn:${ctx.file.split(/[\\/]/).pop() ?? ctx.file}`, version: options.version ?? '1.0.0' },
      // the seam checks an echoed requestState before the handler runs: a forged or expired one is -32602
      { capabilities: capabilities as never, requestState: { verify: (state: string) => openState(options.secret, state) } },
    );
    // the schemas are JSON (made by infer/schema.ts); the 1.x and 2.x type packages spell JSON differently
    const handle = server.setRequestHandler.bind(server) as (method: string, h: (request: { params: never }, c: ModernCtx) => unknown) => void;
    handle('tools/list', () => {
      const listed = listTools(ctx);
      if (!tasks) return listed;
      // the tasks extension's declaration: which tools may (optional) or must (required) run as a task
      return { tools: listed.tools.map((t, i) => (ctx.served.tools[i].taskSupport ? { ...t, execution: { taskSupport: ctx.served.tools[i].taskSupport } } : t)) };
    });
    if (tasks) {
      // params pass as sent: each handler checks what it uses
      const anyParams = { params: { '~standard': { version: 1, vendor: 'turn', validate: (value: unknown) => ({ value }) } } };
      const custom = server.setRequestHandler.bind(server) as unknown as (method: string, schemas: unknown, h: (params: Record<string, unknown>, c: ModernCtx) => unknown) => void;
      const gated = (f: (params: Record<string, unknown>, c: ModernCtx) => unknown) => (params: Record<string, unknown>, c: ModernCtx) => {
        if (!declaresTasks(c)) throw needsTasks();
        return answer(() => f(params, c));
      };
      // a task's result was redacted when its call ended; its questions are redacted here, as an input_required result's are
      custom('tasks/get', anyParams, gated((p) => ctx.redactor.redactDeep(tasks.get(p.taskId))));
      // the SDK lifts inputResponses off the params, as on a retried tools/call
      custom('tasks/update', anyParams, gated((p, c) => tasks.update(p.taskId, c.mcpReq.inputResponses ?? p.inputResponses)));
      custom('tasks/cancel', anyParams, gated((p) => tasks.cancel(p.taskId)));
    } else if (durableTasks) {
      const custom = server.setRequestHandler.bind(server) as unknown as (method: string, schemas: unknown, h: (params: Record<string, unknown>, c: ModernCtx) => unknown) => void;
      const gated = (f: (params: Record<string, unknown>, c: ModernCtx) => unknown) => (params: Record<string, unknown>, c: ModernCtx) => {
        if (!declaresTasks(c)) throw needsTasks();
        return answer(() => f(params, c));
      };
      custom('tasks/get', ANY_PARAMS, gated((p) => durableTasks.get(p.taskId).then((t) => ctx.redactor.redactDeep(t))));
      custom('tasks/update', ANY_PARAMS, gated((p, c) => durableTasks.update(p.taskId, c.mcpReq.inputResponses ?? p.inputResponses)));
      custom('tasks/cancel', ANY_PARAMS, gated((p) => durableTasks.cancel(p.taskId)));
    }
    handle('tools/call', (request, c) => {
      const params = request.params as { name: string; arguments?: Record<string, unknown>; _meta?: Record<string, unknown> };
      const durableTask = durableTasks ? ctx.served.tools.find((t) => t.name === params.name && t.taskSupport) : undefined;
      if (durableTask && durableTasks) {
        if (declaresTasks(c)) {
          return answer(() => {
            const args = params.arguments ?? {};
            checkArguments(`the tool ${durableTask.name}`, args, durableTask.inputSchema);
            return durableTasks.create(durableTask, args, traceOf(params._meta));
          });
        }
        if (durableTask.taskSupport === 'required') throw needsTasks();
      }
      if (options.durable) return answer(() => callDurably(options.durable!, params, c));
      const task = tasks ? ctx.served.tools.find((t) => t.name === params.name && t.taskSupport) : undefined;
      if (task && tasks) {
        if (declaresTasks(c)) {
          return answer(() => {
            checkArguments(`the tool ${task.name}`, params.arguments ?? {}, task.inputSchema);
            return tasks.create(requestContextOf(c), capabilitiesIn(c.mcpReq), (req) => callTool(ctx, req, params));
          });
        }
        if (task.taskSupport === 'required') throw needsTasks();
      }
      if (options.paused) {
        // an unknown tool or arguments that do not match are refused before a run starts or a state is opened
        const tool = answer(() => {
          const t = toolNamed(ctx, params.name);
          checkArguments(`the tool ${t.name}`, params.arguments ?? {}, t.inputSchema);
          return t;
        });
        return tool.then(() => answer(() => callAsking('tools/call', params.name, params.arguments, c, (req) => callTool(ctx, req, params))));
      }
      return answer(() => callTool(ctx, requestContextOf(c), params));
    });
    if (ctx.served.prompts.length > 0) {
      handle('prompts/list', () => listPrompts(ctx));
      handle('prompts/get', (request, c) => {
        const params = request.params as { name: string; arguments?: Record<string, string> };
        if (!options.paused) return answer(() => getPrompt(ctx, requestContextOf(c), params));
        return answer(() => callAsking('prompts/get', params.name, params.arguments, c, (req) => getPrompt(ctx, req, params)));
      });
    }
    if (ctx.served.resources.length > 0) {
      handle('resources/list', () => listResources(ctx));
      handle('resources/templates/list', () => listResourceTemplates(ctx));
      handle('resources/read', (request, c) => answer(() => readResource(ctx, requestContextOf(c), request.params)));
    }
    if (capabilities.completions) handle('completion/complete', (request) => answer(() => complete(ctx, request.params)));
    return server;
  };
  const handler = createMcpHandler(factory, { legacy: 'reject' });

  const http: ModernHandler = async (req, res, body) => {
    const request = webRequest(req, body);
    if (await isLegacyRequest(request, body)) return false;
    // DNS rebinding: the modern entry validates nothing itself
    const refused = hostHeaderValidationResponse(request, localhostAllowedHostnames()) ?? originValidationResponse(request, localhostAllowedOrigins());
    await send(res, refused ?? (await handler.fetch(request, { parsedBody: body })));
    return true;
  };
  // the same server over standard input/output (serve/stdio-opening.ts)
  return Object.assign(http, { factory });
}

/** A web Request for a Node request whose body serve/http.ts has read and parsed. */
function webRequest(req: http.IncomingMessage, body: unknown): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return new Request(new URL(req.url ?? '/', 'http://127.0.0.1'), { method: req.method ?? 'POST', headers, body: JSON.stringify(body) });
}

async function send(res: http.ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  res.writeHead(response.status, headers);
  if (!response.body) return void res.end();
  await new Promise<void>((resolve, reject) => {
    Readable.fromWeb(response.body as import('node:stream/web').ReadableStream).on('error', reject).pipe(res).on('finish', resolve).on('error', reject);
  });
}
