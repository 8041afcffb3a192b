// One MCP client session on the official SDK (the 2025-11-25 revision): initialize and capability
// negotiation, tools (task-augmented too), resources and their templates and subscriptions,
// prompts, the server's progress and log notifications, and what the server asks the client —
// roots, sampling and elicitation, answered by the run (ServerRequests; sessions.ts wires it). Over stdio the server is launched
// under the run's grant (launch.ts, stdio.ts); over Streamable HTTP (SSE replies, session id,
// reconnection: the SDK's transport) every request is held to the run's network capability and
// carries the identity's credential, resolved from the vault when the session opens.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ErrorCode,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError as SdkMcpError,
  ResourceUpdatedNotificationSchema,
  type CallToolResult,
  type GetPromptResult,
  type Progress,
  type Prompt,
  type ReadResourceResult,
  type Resource,
  type ResourceTemplate,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { check, requireApproval, EffectDenied } from '../effects/capabilities.js';
import { describeIdentity, injectIdentity, secretName, secretOptional, type IdentityHandle } from '../effects/identity.js';
import type { Redactor, Vault } from '../effects/vault.js';
import { boundedResponse, requestIds } from './http-bound.js';
import { oauthSessionFetch, type OAuthOptions } from './oauth/index.js';
import { authorizeLaunch, type LaunchAuthority } from './launch.js';
import { boundedDepth } from './reply.js';
import { questionOf, type ElicitationAnswer, type ElicitationQuestion } from './elicitation.js';
import { samplingAsk, samplingResult, type Sampler } from './sampling.js';
import { McpError, describeServer, type McpServerSpec } from './server.js';
import { DEFAULT_MAX_REPLY_BYTES, LaunchedStdioTransport, REPLY_TOO_LARGE } from './stdio.js';
import { connectModern, connectModernStdio, ModernClient, type ModernHooks } from './modern-client.js';
import { probeStdio, STDIO_PROBE_TIMEOUT_MS } from './stdio-revision.js';

/** Turn's name and version as an MCP client. */
export const CLIENT_INFO = { name: 'turn', version: '1.0.0' };

export interface SessionAuthority extends LaunchAuthority {
  vault?: Vault;
  redactor?: Redactor;
  /** how an `identity::oauth` session signs in (runtime/mcp/oauth) */
  oauth?: OAuthOptions;
  /** Defaults to Node's global fetch. */
  fetch?: typeof globalThis.fetch;
}

export interface LogMessage {
  level: string;
  logger: string | null;
  data: unknown;
}

export interface CallOptions {
  onProgress?: (p: Progress) => void;
  signal?: AbortSignal;
  /** the most a request may take, in ms (the SDK's default is 60 s) */
  timeoutMs?: number;
  /** a durable run's journal key of the call, sent as `_meta["turn/idempotency-key"]` (the same on every retry of the effect) */
  idempotencyKey?: string;
  /** the W3C trace context of the call's span (runtime/telemetry), sent as `_meta.traceparent` */
  traceparent?: string;
}

/** The `_meta` key a server that deduplicates calls reads (`turn mcp --store`: serve-next/call-key.ts). */
export const IDEMPOTENCY_META_KEY = 'turn/idempotency-key';

/** A tools/call's `_meta`: its idempotency key and its trace context (the key MCP's trace-context proposal names), when it has them. */
function callMeta(o: CallOptions): { _meta?: Record<string, string> } {
  const meta: Record<string, string> = {};
  if (o.idempotencyKey !== undefined) meta[IDEMPOTENCY_META_KEY] = o.idempotencyKey;
  if (o.traceparent !== undefined) meta.traceparent = o.traceparent;
  return Object.keys(meta).length > 0 ? { _meta: meta } : {};
}

/**
 * What the run answers when a server asks the client something (runtime/mcp/sessions.ts passes
 * the run's: runtime/run/host.ts). Absent: the roots are none, sampling is refused and every
 * elicitation is declined (the compile-time listing of a server's tools).
 */
export interface ServerRequests {
  /** the folders the run may read, as `roots/list` answers them */
  roots(): { uri: string; name: string }[];
  /** the run's model; undefined: the run has none, and a sampling request is refused */
  sample?: Sampler;
  /** the operator's answer (elicitation.ts says who answers) */
  elicit(q: ElicitationQuestion, signal?: AbortSignal): Promise<ElicitationAnswer>;
}

export interface SessionHooks {
  onLog?: (m: LogMessage) => void;
  /** the connection ended on its own (the server exited or crashed), not by close() */
  onEnded?: () => void;
  /** a subscribed resource changed (`notifications/resources/updated`) */
  onResourceUpdated?: (uri: string) => void;
  requests?: ServerRequests;
  /** how long a stdio server launched with `"protocol": "auto"` may take to answer server/discover (stdio-revision.ts) */
  stdioProbeTimeoutMs?: number;
}

/**
 * The client's capabilities (2025-11-25): elicitation in form mode (defaults the server gives are
 * filled into an accepted answer, SEP-1034) and URL mode, sampling, and roots (the grants do not
 * change during a run: no list_changed). Declared whoever answers, so the compile-time listing
 * sees the tools a server offers only to clients that can answer them.
 */
export const CLIENT_CAPABILITIES = { elicitation: { form: { applyDefaults: true }, url: {} }, sampling: {}, roots: { listChanged: false } };

/** How long a task-augmented call waits between `tasks/get` polls when the server suggests none, and at least. */
const TASK_POLL_MS = 1000;
const TASK_POLL_MIN_MS = 50;
/** The SDK's own limit of a request when none is given (its DEFAULT_REQUEST_TIMEOUT_MSEC), kept for a call without --tool-timeout. */
const SDK_REQUEST_TIMEOUT_MS = 60_000;
/** The SDK's timer is given this (about 24 days): a CallClock is the call's limit. */
const NO_SDK_TIMEOUT = 2 ** 31 - 1;

/**
 * The time limit of one tools/call: past it the call is aborted (the SDK sends
 * notifications/cancelled). Stopped while a person is asked a question the call waits on, and
 * started again, whole, once answered, or at each progress notification.
 */
class CallClock {
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private paused = 0;

  constructor(
    private readonly ms: number,
    private readonly what: string,
  ) {
    this.restart();
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  restart(): void {
    clearTimeout(this.timer);
    if (this.paused > 0 || this.abort.signal.aborted || this.ms <= 0) return;
    this.timer = setTimeout(() => this.abort.abort(new McpError(`${this.what} took longer than ${this.ms / 1000} s, the time limit of a tool call; raise it with --tool-timeout`)), this.ms);
  }

  pause(): void {
    this.paused++;
    clearTimeout(this.timer);
  }

  resume(): void {
    this.paused = Math.max(0, this.paused - 1);
    this.restart();
  }

  stop(): void {
    this.paused = Number.POSITIVE_INFINITY;
    clearTimeout(this.timer);
  }
}

/** The JSON-RPC error a server answers a call with when the operator must open a page first (2025-11-25). */
const URL_ELICITATION_REQUIRED = -32042;

/** The most of a server's standard error a message quotes: its last lines, at most 1 KB. */
const STDERR_QUOTED = 1024;

export class McpSession {
  private closed = false;
  /** set when the connection ended without close() (a stdio server that exited or crashed) */
  private lost = false;

  /** the time limits of the tools/call requests in flight */
  private readonly clocks = new Set<CallClock>();
  /** the tools whose `execution.taskSupport` is `required` (known once the tools are listed) */
  private taskTools: Set<string> | undefined;

  private constructor(
    readonly spec: McpServerSpec,
    /** 2025-11-25: the 1.x client; 2026-07-28: the 2.x one (modern-client.ts) */
    private readonly client: Client | ModernClient,
    /** the 1.x client's transport (the 2.x one keeps its own) */
    private readonly transport: LaunchedStdioTransport | StreamableHTTPClientTransport | undefined,
    /** what the server wrote to standard error reaches a message only through it */
    private readonly redactor?: Redactor,
    private readonly requests?: ServerRequests,
  ) {}

  /** Connects (launching a stdio server first): throws EffectDenied when not granted, McpError when it fails. */
  /** `onEnded`: the connection ended on its own (the server exited or crashed), not by close(). */
  static async open(spec: McpServerSpec, a: SessionAuthority, identity?: IdentityHandle, hooks: SessionHooks = {}): Promise<McpSession> {
    const { onLog, onEnded } = hooks;
    // the session is made once connected; a question comes only during a call, after that
    let made: McpSession | undefined;
    const hold = <T>(f: () => Promise<T>): Promise<T> => (made ? made.whileAsking(f) : f());
    let transport: LaunchedStdioTransport | StreamableHTTPClientTransport;
    const modernHooks = {
      answer: (on: Parameters<ModernHooks['answer']>[0], fail: Parameters<ModernHooks['answer']>[1]) => answerServerRequests(on, fail, describeServer(spec), hooks.requests, hold),
      ...(onLog ? { onLog: (n: { level: string; logger?: string; data?: unknown }) => onLog({ level: n.level, logger: n.logger ?? null, data: n.data ?? null }) } : {}),
      ...(hooks.onResourceUpdated ? { onResourceUpdated: hooks.onResourceUpdated } : {}),
    };
    /** A session on the 2.x client: the connection's end is reported like the 1.x one's. */
    const modernSession = (modern: ModernClient, stdio?: LaunchedStdioTransport) => {
      const session = new McpSession(spec, modern, stdio, a.redactor, hooks.requests);
      made = session;
      modern.onclose = () => {
        if (session.closed) return;
        session.lost = true;
        onEnded?.();
      };
      return session;
    };
    if (spec.kind === 'stdio') {
      const launch = await authorizeLaunch(spec, a);
      transport = new LaunchedStdioTransport(launch, spec.maxReplyBytes);
      // the revision: 2025-11-25 unless the launch map asks for 2026-07-28 or "auto" (stdio-revision.ts)
      if (spec.protocol === '2026-07-28' || spec.protocol === 'auto') {
        const stdio = transport;
        let revision: Awaited<ReturnType<typeof probeStdio>>;
        try {
          revision = await probeStdio(stdio, CLIENT_INFO, CLIENT_CAPABILITIES, hooks.stdioProbeTimeoutMs ?? STDIO_PROBE_TIMEOUT_MS);
        } catch (e) {
          await stdio.close().catch(() => undefined);
          throw new McpError(`cannot connect to the MCP server ${describeServer(spec)}: ${failure(e, stdio, a.redactor)}`);
        }
        if (revision === 'modern') {
          try {
            return modernSession(await connectModernStdio(stdio, CLIENT_INFO, CLIENT_CAPABILITIES, modernHooks), stdio);
          } catch (e) {
            await stdio.close().catch(() => undefined);
            throw new McpError(`cannot connect to the MCP server ${describeServer(spec)}: ${failure(e, stdio, a.redactor)}`);
          }
        }
        if (spec.protocol === '2026-07-28') {
          await stdio.close().catch(() => undefined);
          throw new McpError(`cannot connect to the MCP server ${describeServer(spec)}: its launch map asks for protocol 2026-07-28, and the server ${revision === 'exited' ? `exited when asked server/discover${stdio.stderr ? ` (${stdio.stderr.slice(-STDERR_QUOTED)})` : ''}` : 'does not offer it (server/discover)'}`);
        }
        // a 2025-11-25 server: the same process for the 1.x client, or a new one if it exited on the question
        if (revision === 'exited') transport = new LaunchedStdioTransport(launch, spec.maxReplyBytes);
      }
    } else {
      const { target, fetch } = await httpFetch(spec.url, a, identity);
      // 2026-07-28 when the server answers server/discover (modern-client.ts), else 2025-11-25 below
      let modern: ModernClient | undefined;
      try {
        modern = await connectModern(target, fetch, CLIENT_INFO, CLIENT_CAPABILITIES, modernHooks);
      } catch (e) {
        if (e instanceof EffectDenied) throw e;
        throw new McpError(`cannot connect to the MCP server ${describeServer(spec)}: ${failure(e, undefined, a.redactor)}`);
      }
      if (modern) return modernSession(modern);
      transport = new StreamableHTTPClientTransport(target, { fetch });
    }
    const client = new Client(CLIENT_INFO, { capabilities: CLIENT_CAPABILITIES });
    answerServerRequests(legacyHandlers(client), (code, message) => new SdkMcpError(code, message), describeServer(spec), hooks.requests, hold);
    if (hooks.onResourceUpdated) {
      const updated = hooks.onResourceUpdated;
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => updated(n.params.uri));
    }
    if (onLog) {
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        onLog({ level: n.params.level, logger: n.params.logger ?? null, data: n.params.data ?? null });
      });
    }
    try {
      await client.connect(transport);
    } catch (e) {
      await transport.close().catch(() => undefined);
      throw new McpError(`cannot connect to the MCP server ${describeServer(spec)}: ${failure(e, transport, a.redactor)}`);
    }
    const session = new McpSession(spec, client, transport, a.redactor, hooks.requests);
    made = session;
    client.onclose = () => {
      if (session.closed) return;
      session.lost = true;
      onEnded?.();
    };
    return session;
  }

  /** Whether the connection ended on its own (the server exited or crashed): sessions.ts starts it again. */
  get ended(): boolean {
    return this.lost;
  }

  /** The revision this session speaks. */
  get revision(): '2025-11-25' | '2026-07-28' {
    return this.client instanceof ModernClient ? '2026-07-28' : '2025-11-25';
  }

  /** The 1.x client, for what only 2025-11-25 has (its experimental tasks). */
  private legacy(what: string): Client {
    if (this.client instanceof ModernClient) throw new McpError(`${what}: the MCP server ${describeServer(this.spec)} speaks 2026-07-28, where the experimental tasks of 2025-11-25 are not`);
    return this.client;
  }

  get capabilities(): ReturnType<Client['getServerCapabilities']> {
    return this.client.getServerCapabilities();
  }

  get serverInfo(): ReturnType<Client['getServerVersion']> {
    return this.client.getServerVersion();
  }

  /** The launched server's process id (stdio). */
  get pid(): number | undefined {
    return this.transport instanceof LaunchedStdioTransport ? this.transport.pid : undefined;
  }

  /** Asks the server to send log messages from `level` up (when it offers logging). */
  async setLogLevel(level: 'debug' | 'info' | 'notice' | 'warning' | 'error'): Promise<void> {
    if (this.capabilities?.logging) await this.client.setLoggingLevel(level);
  }

  async listTools(): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request(() => this.client.listTools(cursor !== undefined ? { cursor } : {}), 'tools/list');
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor !== undefined && tools.length < 10_000);
    this.taskTools = new Set(tools.filter((t) => t.execution?.taskSupport === 'required').map((t) => t.name));
    return tools;
  }

  /** Whether `tool` must be called as a task (the server runs tools as tasks and lists it `taskSupport: "required"`). */
  async needsTask(tool: string): Promise<boolean> {
    if (!this.capabilities?.tasks?.requests?.tools?.call) return false;
    if (!this.taskTools) await this.listTools();
    return this.taskTools?.has(tool) ?? false;
  }

  /**
   * `tools/call`. A server that needs the operator to open a page first answers with the error
   * -32042 (URL elicitation required): each page is asked about like a URL elicitation, and when
   * all are accepted the call is sent once more.
   */
  async callTool(name: string, args: Record<string, unknown>, o: CallOptions = {}): Promise<CallToolResult> {
    try {
      return await this.callToolOnce(name, args, o);
    } catch (e) {
      const pages = urlElicitationsOf(e);
      if (!pages) throw e;
      if (!this.requests) throw new McpError(`tools/call ${name} on ${describeServer(this.spec)} needs a page opened first (${pages.length} URL elicitation(s)), and nobody here can open it`);
      for (const p of pages) {
        const q = questionOf(describeServer(this.spec), { ...p, mode: 'url' });
        const requests = this.requests;
        const answer = await this.whileAsking(() => requests.elicit(q, o.signal));
        if (answer.action !== 'accept') throw new McpError(`tools/call ${name} on ${describeServer(this.spec)} needs ${q.url} opened first, and the operator answered ${answer.action}`);
      }
      return this.callToolOnce(name, args, o);
    }
  }

  private async callToolOnce(name: string, args: Record<string, unknown>, o: CallOptions): Promise<CallToolResult> {
    // the call's time limit is a CallClock, not the SDK's timer: it stops while the operator is
    // asked a question the call waits on (whileAsking), and starts again on each progress notification
    const clock = new CallClock(o.timeoutMs ?? SDK_REQUEST_TIMEOUT_MS, `tools/call ${name}`);
    this.clocks.add(clock);
    const signal = o.signal ? AbortSignal.any([o.signal, clock.signal]) : clock.signal;
    try {
      const result = await this.request(
        () =>
          this.client.callTool({ name, arguments: args, ...callMeta(o) }, undefined, {
            onprogress: (p) => {
              clock.restart();
              o.onProgress?.(p);
            },
            signal,
            timeout: NO_SDK_TIMEOUT,
          }),
        `tools/call ${name}`,
      );
      return result as CallToolResult;
    } finally {
      clock.stop();
      this.clocks.delete(clock);
    }
  }

  /** Runs `f` (a question to a person) with the time limits of the calls in flight stopped; they start again after. */
  async whileAsking<T>(f: () => Promise<T>): Promise<T> {
    const held = [...this.clocks];
    for (const c of held) c.pause();
    try {
      return await f();
    } finally {
      for (const c of held) c.resume();
    }
  }

  async listResources(): Promise<Resource[]> {
    const out: Resource[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request(() => this.client.listResources(cursor !== undefined ? { cursor } : {}), 'resources/list');
      out.push(...page.resources);
      cursor = page.nextCursor;
    } while (cursor !== undefined && out.length < 10_000);
    return out;
  }

  readResource(uri: string): Promise<ReadResourceResult> {
    return this.request(() => this.client.readResource({ uri }), `resources/read ${uri}`);
  }

  async listResourceTemplates(): Promise<ResourceTemplate[]> {
    const out: ResourceTemplate[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request(() => this.client.listResourceTemplates(cursor !== undefined ? { cursor } : {}), 'resources/templates/list');
      out.push(...page.resourceTemplates);
      cursor = page.nextCursor;
    } while (cursor !== undefined && out.length < 10_000);
    return out;
  }

  async subscribe(uri: string): Promise<void> {
    if (!this.capabilities?.resources?.subscribe) throw new McpError(`the MCP server ${describeServer(this.spec)} offers no resource subscriptions`);
    await this.request(() => this.client.subscribeResource({ uri }), `resources/subscribe ${uri}`);
  }

  async unsubscribe(uri: string): Promise<void> {
    if (!this.capabilities?.resources?.subscribe) throw new McpError(`the MCP server ${describeServer(this.spec)} offers no resource subscriptions`);
    await this.request(() => this.client.unsubscribeResource({ uri }), `resources/unsubscribe ${uri}`);
  }

  async listPrompts(): Promise<Prompt[]> {
    const out: Prompt[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.request(() => this.client.listPrompts(cursor !== undefined ? { cursor } : {}), 'prompts/list');
      out.push(...page.prompts);
      cursor = page.nextCursor;
    } while (cursor !== undefined && out.length < 10_000);
    return out;
  }

  getPrompt(name: string, args: Record<string, string>): Promise<GetPromptResult> {
    return this.request(() => this.client.getPrompt({ name, arguments: args }), `prompts/get ${name}`);
  }

  /** `tasks/get`: a task's status as the server reports it. */
  async taskStatus(taskId: string): Promise<{ status: string; statusMessage?: string }> {
    const client = this.legacy(`tasks/get ${taskId}`);
    const t = await this.request(() => client.experimental.tasks.getTask(taskId), `tasks/get ${taskId}`);
    return { status: t.status, ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}) };
  }

  /**
   * A task-augmented `tools/call` (2025-11-25 experimental tasks): the server answers with a task
   * at once, the client polls `tasks/get` (at the server's pollInterval) until the task is done,
   * then takes its result with `tasks/result`. Aborting `o.signal` sends `tasks/cancel`.
   * `onTask` hears the task's id and each status it reports.
   */
  async callToolAsTask(name: string, args: Record<string, unknown>, o: CallOptions & { onTask?: (t: { taskId: string; status: string; statusMessage?: string }) => void } = {}): Promise<CallToolResult> {
    const what = `tools/call ${name} (as a task)`;
    if (!this.capabilities?.tasks?.requests?.tools?.call) throw new McpError(`the MCP server ${describeServer(this.spec)} does not run tools/call as tasks`);
    const client = this.legacy(what);
    const created = await this.request(
      () => client.request({ method: 'tools/call', params: { name, arguments: args, task: {}, ...(o.traceparent !== undefined ? { _meta: { traceparent: o.traceparent } } : {}) } }, CreateTaskResultSchema, { ...(o.signal ? { signal: o.signal } : {}), ...(o.timeoutMs !== undefined ? { timeout: o.timeoutMs } : {}) }),
      what,
    );
    const taskId = created.task.taskId;
    let status = created.task.status;
    let interval = created.task.pollInterval;
    // the server's task is cancelled whenever the call is: already aborted, or aborted while it runs
    let cancelling: Promise<unknown> | undefined;
    const cancel = () => void (cancelling ??= client.experimental.tasks.cancelTask(taskId).catch(() => undefined));
    if (o.signal?.aborted) cancel();
    else o.signal?.addEventListener('abort', cancel, { once: true });
    try {
      o.onTask?.({ taskId, status, ...(created.task.statusMessage !== undefined ? { statusMessage: created.task.statusMessage } : {}) });
      while (status === 'working' || status === 'input_required') {
        if (status === 'input_required') break; // tasks/result delivers the server's questions (elicitation) and waits
        await sleep(Math.max(TASK_POLL_MIN_MS, Math.min(interval ?? TASK_POLL_MS, 10_000)), o.signal);
        const t = await this.request(() => client.experimental.tasks.getTask(taskId), `tasks/get ${taskId}`);
        status = t.status;
        interval = t.pollInterval ?? interval;
        o.onTask?.({ taskId, status, ...(t.statusMessage !== undefined ? { statusMessage: t.statusMessage } : {}) });
      }
      if (status === 'cancelled') throw new McpError(`the task ${taskId} of ${what} on ${describeServer(this.spec)} was cancelled`);
      return await this.request(() => client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, o.timeoutMs !== undefined ? { timeout: o.timeoutMs } : {}), `tasks/result ${taskId}`);
    } catch (e) {
      // a cancelled call ends once the server has the cancellation (or failed to take it)
      if (cancelling) await cancelling;
      throw e;
    } finally {
      o.signal?.removeEventListener('abort', cancel);
    }
  }

  private async request<T>(f: () => Promise<T>, what: string): Promise<T> {
    if (this.closed) throw new McpError(`the MCP server ${describeServer(this.spec)} is closed`);
    let result: T;
    try {
      result = await f();
    } catch (e) {
      if (e instanceof EffectDenied) throw e;
      if (urlElicitationsOf(e)) throw e; // callTool asks the operator, then calls again
      throw new McpError(`${what} on ${describeServer(this.spec)} failed: ${failure(e, this.transport, this.redactor)}`);
    }
    // every reply is held to the depth the journal and the VM can take before anything walks it
    return boundedDepth(result, `the reply of ${what} on ${describeServer(this.spec)}`);
  }

  /** Ends the session (a stdio server is stopped; an HTTP session is ended with DELETE when it has an id). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.transport instanceof StreamableHTTPClientTransport && this.transport.sessionId !== undefined) {
      await this.transport.terminateSession().catch(() => undefined);
    }
    await this.client.close().catch(() => undefined);
  }
}

/** The URL elicitations of a -32042 error (at most 4, each with a url), or undefined for any other error. */
function urlElicitationsOf(e: unknown): Record<string, unknown>[] | undefined {
  if (!(e instanceof SdkMcpError) || e.code !== URL_ELICITATION_REQUIRED) return undefined;
  const list = (e.data as { elicitations?: unknown } | undefined)?.elicitations;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const pages = list.slice(0, 4).filter((x): x is Record<string, unknown> => !!x && typeof x === 'object' && typeof (x as { url?: unknown }).url === 'string');
  return pages.length > 0 ? pages : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason instanceof Error ? signal.reason : new Error('cancelled'));
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', abort);
      resolve();
    }
    function abort() {
      clearTimeout(t);
      reject(signal?.reason instanceof Error ? signal.reason : new Error('cancelled'));
    }
    signal?.addEventListener('abort', abort, { once: true });
  });
}

type Answer = (params: Record<string, unknown>, signal: AbortSignal) => unknown;
type On = (method: 'roots/list' | 'sampling/createMessage' | 'elicitation/create', answer: Answer) => void;
type Fail = (code: number, message: string) => Error;

/** The 1.x client's registration of an answer (its handlers are keyed by schema). */
function legacyHandlers(client: Client): On {
  const schemas = { 'roots/list': ListRootsRequestSchema, 'sampling/createMessage': CreateMessageRequestSchema, 'elicitation/create': ElicitRequestSchema } as const;
  return (method, answer) => client.setRequestHandler(schemas[method] as typeof ElicitRequestSchema, ((request: { params: Record<string, unknown> }, extra: { signal: AbortSignal }) => answer(request.params, extra.signal)) as never);
}

/**
 * The handlers of what a server may ask the client: `roots/list` (the run's read grants),
 * `sampling/createMessage` (the run's model, or a refusal when it has none) and
 * `elicitation/create` (the operator, never the model). A malformed request is an invalid-params
 * error the server sees; nothing a server sends reaches a model or a person unbounded. The same
 * handlers answer a 2025-11-25 server's requests (1.x client) and the requests a 2026-07-28
 * server embeds in an `input_required` result (2.x client: modern-client.ts).
 */
function answerServerRequests(on: On, fail: Fail, server: string, requests: ServerRequests | undefined, hold: <T>(f: () => Promise<T>) => Promise<T>): void {
  on('roots/list', () => ({ roots: requests?.roots() ?? [] }));
  on('sampling/createMessage', async (params, signal) => {
    const sample = requests?.sample;
    if (!sample) throw fail(ErrorCode.InvalidRequest, `this Turn run has no model to sample with (run it with --model): sampling refused`);
    let ask;
    try {
      ask = samplingAsk(server, params);
    } catch (e) {
      throw fail(ErrorCode.InvalidParams, (e as Error).message);
    }
    try {
      return samplingResult(await sample(ask, signal));
    } catch (e) {
      throw fail(ErrorCode.InternalError, `the Turn run's model did not answer: ${(e as Error).message}`);
    }
  });
  on('elicitation/create', async (params, signal) => {
    let q: ElicitationQuestion;
    try {
      q = questionOf(server, params);
    } catch (e) {
      throw fail(ErrorCode.InvalidParams, (e as Error).message);
    }
    if (!requests) return { action: 'decline' as const };
    const answer = await hold(() => requests.elicit(q, signal));
    return answer.content !== undefined && answer.action === 'accept' ? { action: 'accept' as const, content: answer.content } : { action: answer.action, ...(answer.action === 'accept' && q.mode === 'form' ? { content: {} } : {}) };
  });
}

function failure(e: unknown, transport: LaunchedStdioTransport | StreamableHTTPClientTransport | undefined, redactor: Redactor | undefined): string {
  // the error stdio.ts answers an oversized reply with says it all: no "MCP error -32099:" before it
  const message = e instanceof SdkMcpError && e.code === REPLY_TOO_LARGE ? e.message.replace(`MCP error ${REPLY_TOO_LARGE}: `, '') : e instanceof Error ? e.message : String(e);
  if (transport instanceof LaunchedStdioTransport && transport.exit) {
    const how = transport.exit.signal ? `was killed by ${transport.exit.signal}` : `exited with code ${transport.exit.code}`;
    // the server is outside the run: what it says passes the redactor (its 4 KB tail, transport.stderr) and is cut short
    const tail = transport.stderr.split('\n').slice(-3).join(' | ');
    const quoted = redactor ? redactor.redact(tail) : tail;
    const said = quoted ? `; it said: ${quoted.length > STDERR_QUOTED ? `…${quoted.slice(-STDERR_QUOTED)}` : quoted}` : '';
    return `${message} (the server ${how}${said})`;
  }
  return message;
}

/**
 * The fetch of an HTTP session (either SDK line's Streamable HTTP transport): it checks every request against the run's
 * network capability (the server's origin only), adds the identity's credential, and holds each
 * message of the reply to DEFAULT_MAX_REPLY_BYTES (http-bound.ts).
 */
async function httpFetch(url: string, a: SessionAuthority, identity?: IdentityHandle): Promise<{ target: URL; fetch: typeof globalThis.fetch }> {
  const target = new URL(url);
  const verdict = check(a.capabilities, { kind: 'network', url: target.href, method: 'POST' });
  if (!verdict.ok) throw new EffectDenied(`cannot reach the MCP server ${url}: ${verdict.message}`);
  if (identity?.kind === 'filesystem') throw new EffectDenied(`${describeIdentity(identity)} is a file authority and cannot authenticate an MCP server`);
  const who = identity ? ` with ${describeIdentity(identity)}` : '';
  await requireApproval(verdict.approve, { effect: 'network', summary: `connect to the MCP server ${target.origin}${target.pathname}${who}`, ...(a.pid !== undefined ? { pid: a.pid } : {}) }, a.approve, a.journal);
  let secret: string | undefined;
  // an OAuth grant has no secret of its own: the sign-in's tokens are added by its fetch (runtime/mcp/oauth)
  if (identity && identity.kind !== 'oauth') {
    const name = secretName(identity);
    secret = await a.vault?.resolve(name);
    if (secret === undefined && !secretOptional(identity)) throw new EffectDenied(`the secret "${name}" for ${describeIdentity(identity)} is not set`);
    if (secret !== undefined) a.redactor?.add(name, secret);
  }
  const base = a.fetch ?? globalThis.fetch;
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const u = new URL(input instanceof Request ? input.url : String(input));
    if (u.origin !== target.origin) throw new EffectDenied(`the MCP server ${url} sent the client to ${u.origin}, another origin: refused`);
    const again = check(a.capabilities, { kind: 'network', url: u.href, method: init?.method ?? 'GET' });
    if (!again.ok) throw new EffectDenied(again.message);
    const headers: Record<string, string> = {};
    new Headers(init?.headers).forEach((v, k) => (headers[k] = v));
    const out = { url: u, headers };
    if (identity && secret !== undefined) injectIdentity(out, identity, secret);
    const response = await base(out.url.href, { ...init, headers: out.headers, redirect: 'manual' });
    return boundedResponse(response, DEFAULT_MAX_REPLY_BYTES, (init?.method ?? 'GET') === 'POST' ? requestIds(init?.body) : []);
  };
  const fetch = identity?.kind === 'oauth' ? await oauthSessionFetch(target, identity, a, guarded) : guarded;
  return { target, fetch };
}
