// Turn's client on the 2026-07-28 revision (docs/mcp.md, "Both revisions"): an HTTP server that
// answers `server/discover` (or a stdio server that offers it: stdio-revision.ts) is talked to
// with the 2.x client SDK (@modelcontextprotocol/client),
// pinned to that revision; one that does not (every 2025-11-25 server) is talked to with the 1.x
// client, as before (session.ts). The two lines are combined at connect because the 2.x client
// does not do everything the 1.x one does for 2025-11-25 servers: it has no client API for the
// experimental tasks of 2025-11-25 (`tasks/get`, `tasks/result`, `tasks/cancel`: the 2.x line
// moved tasks into the `io.modelcontextprotocol/tasks` extension), which M-CLIENT's task-based
// tools (server-everything's) rely on.
//
// On 2026-07-28 a server asks for input by answering a request with `input_required`; the 2.x
// client answers the embedded requests through the handlers registered for elicitation, sampling
// and roots (the same answerers as 2025-11-25's server-initiated requests: elicitation.ts,
// sampling.ts) and retries with the answers, inside the one callTool.
//
// ModernClient gives the session the few methods it uses of a client, with the 1.x shapes.
import { Client as ModernSdkClient, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { CallToolResult, GetPromptResult, Implementation, ListPromptsResult, ListResourcesResult, ListResourceTemplatesResult, ListToolsResult, ReadResourceResult, ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { EffectDenied } from '../effects/capabilities.js';
import type { LaunchedStdioTransport } from './stdio.js';

/** The revision this client speaks. */
export const MODERN_REVISION = '2026-07-28';

type Handler = (params: Record<string, unknown>, signal: AbortSignal) => unknown;

export interface ModernHooks {
  /** registers the answers to what a server asks (elicitation, sampling, roots): session.ts's */
  answer(on: (method: 'roots/list' | 'sampling/createMessage' | 'elicitation/create', handler: Handler) => void, fail: (code: number, message: string) => Error): void;
  onLog?: (n: { level: string; logger?: string; data?: unknown }) => void;
  onResourceUpdated?: (uri: string) => void;
}

/** How long the `server/discover` probe may take before the server counts as down (not as a 2025-11-25 one: over HTTP, silence is an outage). */
const PROBE_TIMEOUT_MS = 30_000;

/**
 * Connects to `url` on 2026-07-28, or says undefined when the server does not speak it (the
 * caller then opens a 1.x session). A failure of the fetch itself (a denied effect, a sign-in
 * refused, the network) is thrown: the 1.x session would fail the same way.
 */
export async function connectModern(url: URL, fetch: typeof globalThis.fetch, info: { name: string; version: string }, capabilities: Record<string, unknown>, hooks: ModernHooks): Promise<ModernClient | undefined> {
  let fetchFailure: unknown;
  const watched = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    try {
      return await fetch(input, init);
    } catch (e) {
      fetchFailure ??= e;
      throw e;
    }
  };
  const transport = new StreamableHTTPClientTransport(url, { fetch: watched });
  const client = modernClient(info, capabilities, hooks);
  try {
    await client.connect(transport);
  } catch (e) {
    await client.close().catch(() => undefined);
    if (fetchFailure !== undefined) throw fetchFailure;
    if (e instanceof EffectDenied) throw e;
    return undefined;
  }
  return new ModernClient(client);
}

/**
 * Connects on 2026-07-28 over a stdio server's transport, once stdio-revision.ts found that it
 * offers this revision (the process is already running: the transport was handed over). Throws
 * when the connection fails: the server said it speaks this revision.
 */
export async function connectModernStdio(transport: LaunchedStdioTransport, info: { name: string; version: string }, capabilities: Record<string, unknown>, hooks: ModernHooks): Promise<ModernClient> {
  const client = modernClient(info, capabilities, hooks);
  try {
    await client.connect(transport);
  } catch (e) {
    await client.close().catch(() => undefined);
    throw e;
  }
  return new ModernClient(client);
}

/** The 2.x client pinned to 2026-07-28, answering what a server asks through `hooks`. */
function modernClient(info: { name: string; version: string }, capabilities: Record<string, unknown>, hooks: ModernHooks): ModernSdkClient {
  const client = new ModernSdkClient(info, { capabilities: capabilities, versionNegotiation: { mode: { pin: MODERN_REVISION }, probe: { timeoutMs: PROBE_TIMEOUT_MS } } });
  hooks.answer(
    (method, handler) => client.setRequestHandler(method, ((request: { params?: Record<string, unknown> }, ctx: { mcpReq: { signal: AbortSignal } }) => handler(request.params ?? {}, ctx.mcpReq.signal)) as never),
    (code, message) => new ProtocolError(code, message),
  );
  if (hooks.onLog) {
    const onLog = hooks.onLog;
    client.setNotificationHandler('notifications/message', (n) => onLog({ level: n.params.level, ...(n.params.logger !== undefined ? { logger: n.params.logger } : {}), data: n.params.data }));
  }
  if (hooks.onResourceUpdated) {
    const updated = hooks.onResourceUpdated;
    client.setNotificationHandler('notifications/resources/updated', (n) => updated(n.params.uri));
  }
  return client;
}

type Params = Record<string, unknown>;
interface Options {
  onprogress?: (p: { progress: number; total?: number; message?: string }) => void;
  signal?: AbortSignal;
  timeout?: number;
}

/** The 2.x client with the methods (and shapes) session.ts calls on the 1.x one: the same JSON, typed by the 1.x package. */
export class ModernClient {
  onclose?: () => void;

  constructor(private readonly client: ModernSdkClient) {
    client.onclose = () => this.onclose?.();
  }

  getServerCapabilities(): ServerCapabilities {
    // the 2025-11-25 experimental tasks are not this revision's: a server's `tasks` are not taken for them
    const { tasks: _tasks, ...rest } = (this.client.getServerCapabilities() ?? {}) as Record<string, unknown>;
    return rest;
  }

  getServerVersion(): Implementation | undefined {
    return this.client.getServerVersion();
  }

  setLoggingLevel(level: string) {
    // 2026-07-28 has no logging/setLevel: the level goes in each request's _meta (not sent: Turn takes every level)
    void level;
    return Promise.resolve({});
  }

  listTools(p: Params): Promise<ListToolsResult> {
    return this.client.listTools(p) as unknown as Promise<ListToolsResult>;
  }

  callTool(params: Params, _schema: undefined, options: Options): Promise<CallToolResult> {
    return this.client.callTool(params as never, options) as unknown as Promise<CallToolResult>;
  }

  listResources(p: Params): Promise<ListResourcesResult> {
    return this.client.listResources(p);
  }

  readResource(p: Params): Promise<ReadResourceResult> {
    return this.client.readResource(p as never);
  }

  listResourceTemplates(p: Params): Promise<ListResourceTemplatesResult> {
    return this.client.listResourceTemplates(p);
  }

  subscribeResource(p: Params) {
    return this.client.subscribeResource(p as never);
  }

  unsubscribeResource(p: Params) {
    return this.client.unsubscribeResource(p as never);
  }

  listPrompts(p: Params): Promise<ListPromptsResult> {
    return this.client.listPrompts(p);
  }

  getPrompt(p: Params): Promise<GetPromptResult> {
    return this.client.getPrompt(p as never);
  }

  close() {
    return this.client.close();
  }
}
