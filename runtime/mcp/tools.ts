// The MCP effect tools the VM dispatches (`call("mcp_call", ...)`; absorbed MCP modules call them,
// runtime/absorb/module.ts). Each goes to the run's session with the server, opened under the
// run's authority on first use. Durability: a `tools/call` is a journaled effect like any other;
// the call's `idempotent` option (the tool's readOnlyHint or idempotentHint, written into the
// generated module) is what runtime/durable reads to replay it freely or hold it as unknown.
import { EffectDenied, type ApprovalHook, type ApprovalRecord, type Capabilities } from '../effects/capabilities.js';
import { forgedMessage, isHandle, looksLikeHandle, type IdentityHandle } from '../effects/identity.js';
import type { Redactor, Vault } from '../effects/vault.js';
import { toolReply } from './reply.js';
import { McpError, serverSpec } from './server.js';
import type { OAuthOptions } from './oauth/index.js';
import type { ClockHold, McpSessions } from './sessions.js';

/** What an MCP tool needs of the host's effect context (runtime/effects/tools.ts's EffectToolContext has it all). */
export interface McpToolContext {
  vault: Vault;
  capabilities: Capabilities;
  approve?: ApprovalHook;
  journal?: (entry: ApprovalRecord) => void;
  redactor?: Redactor;
  fetch?: typeof globalThis.fetch;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  providerKeyNames?: ReadonlySet<string>;
  /** launch keys of the launch maps written literally in the program (runtime/mcp/launch.ts) */
  writtenLaunches?: { has(key: string): boolean };
  timeoutMs?: number;
  signal?: AbortSignal;
  pid?: number;
  mcp?: McpSessions;
  /** stops the call's time limit while a person answers a server's question (runtime/run/host.ts) */
  holdClock?: ClockHold;
  /** how an `identity::oauth` session signs in (runtime/mcp/oauth) */
  oauth?: OAuthOptions;
  /** a durable run's journal key of this call: sent as `_meta["turn/idempotency-key"]`, so a server that deduplicates (turn mcp --store) performs a retry after a kill once */
  idempotencyKey?: string;
  /** the W3C trace context of the call's span (runtime/telemetry): sent as `_meta.traceparent` */
  traceparent?: string;
}

/** The tool names, and which of them change nothing (replayed or retried freely). */
/** The call's credential: a handle the host minted from a grant, or none. A map is never one, whatever its shape. */
function identityOf(auth: unknown): IdentityHandle | undefined {
  if (auth === null || auth === undefined) return undefined;
  if (isHandle(auth)) return auth;
  if (looksLikeHandle(auth)) throw new EffectDenied(forgedMessage('an MCP call'), true); // an outcome: no resume changes it
  throw new McpError('the first argument of an MCP call is an identity handle (grant identity::bearer("...")) or null');
}

function sessions(ctx: McpToolContext): McpSessions {
  if (!ctx.mcp) throw new McpError('this host does not connect to MCP servers');
  return ctx.mcp;
}

function parseSchema(x: unknown, tool: string): Record<string, unknown> | undefined {
  if (x === undefined || x === null) return undefined;
  if (typeof x === 'string') {
    try {
      return JSON.parse(x) as Record<string, unknown>;
    } catch {
      throw new McpError(`the output schema given for the MCP tool ${tool} is not JSON`);
    }
  }
  if (typeof x === 'object' && !Array.isArray(x)) return x as Record<string, unknown>;
  throw new McpError(`the output schema given for the MCP tool ${tool} must be a map or its JSON text`);
}

/**
 * mcp_call(auth, server, tool, arguments, options?) → the reply (reply.ts).
 * `options`: {"idempotent": Bool, "output_schema": Str (JSON) | Map, "task": Bool}. Null arguments
 * are left out. `task: true` (or a tool the server lists with `taskSupport: "required"`) runs it as
 * a task (session.ts): polled until done, cancelled with `tasks/cancel` when the run stops it.
 */
export async function mcpCall(ctx: McpToolContext, auth: unknown, server: unknown, tool: unknown, args: unknown, options?: unknown): Promise<unknown> {
  if (typeof tool !== 'string' || tool === '') throw new McpError('mcp_call: the tool name must be a Str');
  if (args !== null && args !== undefined && (typeof args !== 'object' || Array.isArray(args))) throw new McpError('mcp_call: the arguments must be a map');
  const o = (options ?? {}) as Record<string, unknown>;
  const outputSchema = parseSchema(o.output_schema, tool);
  const spec = serverSpec(server);
  const clean = Object.fromEntries(Object.entries((args ?? {}) as Record<string, unknown>).filter(([, v]) => v !== null && v !== undefined));
  if (o.task !== undefined && o.task !== null && typeof o.task !== 'boolean') throw new McpError('mcp_call: the "task" option must be a Bool');
  const result = await sessions(ctx).use(spec, ctx, identityOf(auth), ctx.pid ?? 0, tool, async (s, onProgress) => {
    const call = { onProgress, ...(ctx.signal ? { signal: ctx.signal } : {}), ...(ctx.timeoutMs !== undefined ? { timeoutMs: ctx.timeoutMs } : {}), ...(ctx.idempotencyKey !== undefined ? { idempotencyKey: ctx.idempotencyKey } : {}), ...(ctx.traceparent !== undefined ? { traceparent: ctx.traceparent } : {}) };
    return o.task === true || (o.task !== false && (await s.needsTask(tool))) ? s.callToolAsTask(tool, clean, call) : s.callTool(tool, clean, call);
  }, ctx.holdClock);
  return toolReply(tool, result, outputSchema);
}

/** mcp_tools(auth, server) → the server's tools as `tools/list` describes them */
export async function mcpTools(ctx: McpToolContext, auth: unknown, server: unknown): Promise<unknown> {
  return sessions(ctx).use(serverSpec(server), ctx, identityOf(auth), ctx.pid ?? 0, null, (s) => s.listTools());
}

/** mcp_resources(auth, server) → [{uri, name, mimeType?, description?}] */
export async function mcpResources(ctx: McpToolContext, auth: unknown, server: unknown): Promise<unknown> {
  return sessions(ctx).use(serverSpec(server), ctx, identityOf(auth), ctx.pid ?? 0, null, (s) => s.listResources());
}

/** mcp_read(auth, server, uri) → [{uri, mimeType?, text | blob}] */
export async function mcpRead(ctx: McpToolContext, auth: unknown, server: unknown, uri: unknown): Promise<unknown> {
  if (typeof uri !== 'string') throw new McpError('mcp_read: the resource URI must be a Str');
  const r = await sessions(ctx).use(serverSpec(server), ctx, identityOf(auth), ctx.pid ?? 0, null, (s) => s.readResource(uri));
  return r.contents;
}

/** mcp_templates(auth, server) → [{uriTemplate, name, mimeType?, description?}] (`resources/templates/list`) */
export async function mcpTemplates(ctx: McpToolContext, auth: unknown, server: unknown): Promise<unknown> {
  return sessions(ctx).use(serverSpec(server), ctx, identityOf(auth), ctx.pid ?? 0, null, (s) => s.listResourceTemplates());
}

function uriArg(uri: unknown, tool: string): string {
  if (typeof uri !== 'string' || uri === '') throw new McpError(`${tool}: the resource URI must be a Str`);
  return uri;
}

/** mcp_subscribe(auth, server, uri) → null: the server's updates of `uri` become `mcp.resource` events and `mcp_updates` entries */
export async function mcpSubscribe(ctx: McpToolContext, auth: unknown, server: unknown, uri: unknown): Promise<unknown> {
  const u = uriArg(uri, 'mcp_subscribe');
  await sessions(ctx).use(serverSpec(server), ctx, identityOf(auth), ctx.pid ?? 0, null, (s) => s.subscribe(u));
  return null;
}

/** mcp_unsubscribe(auth, server, uri) → null */
export async function mcpUnsubscribe(ctx: McpToolContext, auth: unknown, server: unknown, uri: unknown): Promise<unknown> {
  const u = uriArg(uri, 'mcp_unsubscribe');
  await sessions(ctx).use(serverSpec(server), ctx, identityOf(auth), ctx.pid ?? 0, null, (s) => s.unsubscribe(u));
  return null;
}

/** mcp_updates(auth, server) → the URIs of subscribed resources updated since the last call (each once, oldest first) */
export async function mcpUpdates(ctx: McpToolContext, auth: unknown, server: unknown): Promise<unknown> {
  return sessions(ctx).takeUpdates(serverSpec(server), identityOf(auth));
}

/** mcp_prompts(auth, server) → [{name, description?, arguments?: [{name, description?, required?}]}] (`prompts/list`) */
export async function mcpPrompts(ctx: McpToolContext, auth: unknown, server: unknown): Promise<unknown> {
  return sessions(ctx).use(serverSpec(server), ctx, identityOf(auth), ctx.pid ?? 0, null, (s) => s.listPrompts());
}

/**
 * mcp_prompt(auth, server, name, arguments?) → {"description", "messages": [{role, content}],
 * "text"} (`prompts/get`; prompt arguments are strings: a number or a Bool is given as its text,
 * null is left out). `text` is the messages' text blocks joined, for a program that wants the
 * prompt as one string.
 */
export async function mcpPrompt(ctx: McpToolContext, auth: unknown, server: unknown, name: unknown, args?: unknown): Promise<unknown> {
  if (typeof name !== 'string' || name === '') throw new McpError('mcp_prompt: the prompt name must be a Str');
  if (args !== null && args !== undefined && (typeof args !== 'object' || Array.isArray(args))) throw new McpError('mcp_prompt: the arguments must be a map');
  const strings: Record<string, string> = {};
  for (const [k, v] of Object.entries((args ?? {}) as Record<string, unknown>)) {
    if (v === null || v === undefined) continue;
    if (typeof v === 'string') strings[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') strings[k] = String(v);
    else throw new McpError(`mcp_prompt: the argument "${k}" of the prompt ${name} must be a Str (an MCP prompt's arguments are strings)`);
  }
  const r = await sessions(ctx).use(serverSpec(server), ctx, identityOf(auth), ctx.pid ?? 0, null, (s) => s.getPrompt(name, strings));
  const messages = Array.isArray(r.messages) ? r.messages : [];
  const text = messages
    .map((m) => (m.content && (m.content as { type?: unknown }).type === 'text' ? String((m.content as { text?: unknown }).text ?? '') : ''))
    .filter((t) => t !== '')
    .join('\n\n');
  return { description: typeof r.description === 'string' ? r.description : null, messages, text };
}

/** The registry entries runtime/effects/tools.ts adds to the standard tools. */
export const MCP_TOOLS = {
  mcp_call: { effect: true, category: 'mcp', credential: 0, capability: 'run (stdio server) or network (HTTP server) (+ identity)', run: mcpCall },
  mcp_tools: { effect: true, category: 'mcp', credential: 0, capability: 'run or network', run: mcpTools },
  mcp_resources: { effect: true, category: 'mcp', credential: 0, capability: 'run or network', run: mcpResources },
  mcp_read: { effect: true, category: 'mcp', credential: 0, capability: 'run or network', run: mcpRead },
  mcp_templates: { effect: true, category: 'mcp', credential: 0, capability: 'run or network', run: mcpTemplates },
  mcp_subscribe: { effect: true, category: 'mcp', credential: 0, capability: 'run or network', run: mcpSubscribe },
  mcp_unsubscribe: { effect: true, category: 'mcp', credential: 0, capability: 'run or network', run: mcpUnsubscribe },
  mcp_updates: { effect: true, category: 'mcp', credential: 0, capability: 'run or network', run: mcpUpdates },
  mcp_prompts: { effect: true, category: 'mcp', credential: 0, capability: 'run or network', run: mcpPrompts },
  mcp_prompt: { effect: true, category: 'mcp', credential: 0, capability: 'run or network', run: mcpPrompt },
} as const;
