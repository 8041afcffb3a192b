// One MCP client session on the official SDK: initialize and capability negotiation, tools,
// resources, and the server's progress and log notifications. Over stdio the server is launched
// under the run's grant (launch.ts, stdio.ts); over Streamable HTTP (SSE replies, session id,
// reconnection: the SDK's transport) every request is held to the run's network capability and
// carries the identity's credential, resolved from the vault when the session opens.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, McpError as SdkMcpError, type CallToolResult, type Progress, type ReadResourceResult, type Resource, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { check, requireApproval, EffectDenied } from '../effects/capabilities.js';
import { describeIdentity, injectIdentity, secretName, secretOptional, type IdentityHandle } from '../effects/identity.js';
import type { Redactor, Vault } from '../effects/vault.js';
import { boundedResponse, requestIds } from './http-bound.js';
import { oauthSessionFetch, type OAuthOptions } from './oauth/index.js';
import { authorizeLaunch, type LaunchAuthority } from './launch.js';
import { boundedDepth } from './reply.js';
import { McpError, describeServer, type McpServerSpec } from './server.js';
import { DEFAULT_MAX_REPLY_BYTES, LaunchedStdioTransport, REPLY_TOO_LARGE } from './stdio.js';

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
}

/** The most of a server's standard error a message quotes: its last lines, at most 1 KB. */
const STDERR_QUOTED = 1024;

export class McpSession {
  private closed = false;
  /** set when the connection ended without close() (a stdio server that exited or crashed) */
  private lost = false;

  private constructor(
    readonly spec: McpServerSpec,
    private readonly client: Client,
    private readonly transport: LaunchedStdioTransport | StreamableHTTPClientTransport,
    /** what the server wrote to standard error reaches a message only through it */
    private readonly redactor?: Redactor,
  ) {}

  /** Connects (launching a stdio server first): throws EffectDenied when not granted, McpError when it fails. */
  /** `onEnded`: the connection ended on its own (the server exited or crashed), not by close(). */
  static async open(spec: McpServerSpec, a: SessionAuthority, identity?: IdentityHandle, onLog?: (m: LogMessage) => void, onEnded?: () => void): Promise<McpSession> {
    const transport = spec.kind === 'stdio' ? new LaunchedStdioTransport(await authorizeLaunch(spec, a), spec.maxReplyBytes) : await httpTransport(spec.url, a, identity);
    const client = new Client(CLIENT_INFO, { capabilities: {} });
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
    const session = new McpSession(spec, client, transport, a.redactor);
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
    return tools;
  }

  async callTool(name: string, args: Record<string, unknown>, o: CallOptions = {}): Promise<CallToolResult> {
    const result = await this.request(
      () =>
        this.client.callTool({ name, arguments: args }, undefined, {
          ...(o.onProgress ? { onprogress: o.onProgress, resetTimeoutOnProgress: true } : {}),
          ...(o.signal ? { signal: o.signal } : {}),
          ...(o.timeoutMs !== undefined ? { timeout: o.timeoutMs } : {}),
        }),
      `tools/call ${name}`,
    );
    return result as CallToolResult;
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

  private async request<T>(f: () => Promise<T>, what: string): Promise<T> {
    if (this.closed) throw new McpError(`the MCP server ${describeServer(this.spec)} is closed`);
    let result: T;
    try {
      result = await f();
    } catch (e) {
      if (e instanceof EffectDenied) throw e;
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

function failure(e: unknown, transport: LaunchedStdioTransport | StreamableHTTPClientTransport, redactor: Redactor | undefined): string {
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
 * The SDK's Streamable HTTP transport with a fetch that checks every request against the run's
 * network capability (the server's origin only), adds the identity's credential, and holds each
 * message of the reply to DEFAULT_MAX_REPLY_BYTES (http-bound.ts).
 */
async function httpTransport(url: string, a: SessionAuthority, identity?: IdentityHandle): Promise<StreamableHTTPClientTransport> {
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
  return new StreamableHTTPClientTransport(target, { fetch });
}
