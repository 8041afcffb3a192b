// The host tools a served program uses to reach its caller, the MCP client of `turn mcp`
// (docs/mcp.md, *Asking the caller*; std/mcp wraps them):
//
//   call("progress", progress: Num, total: Num?, message: Str?)      → null
//   call("mcp_elicit", message: Str, requested_schema: Map, key: Str?) → {"action", "content"?}
//   call("mcp_sample", prompt: Str | [message], max_tokens: Num, key: Str?) → {"role", "content", "model", "stopReason"?}
//   call("mcp_roots", key: Str?)                                       → {"roots": [{"uri", "name"?}]}
//
// `key` names the question (on 2026-07-28, its entry in the `input_required` result's
// `inputRequests`, under which the client answers); KEY says what a key may be.
//
// Only a run `turn mcp` serves has a caller (CallerToolContext.mcpCaller): elsewhere progress is
// dropped (a program reports progress the same whether served or run), and asking is refused. The
// caller's answers are outside data: bounded by the SDK's own schemas, and redacted like every
// effect result (runtime/effects/host.ts).
import type { McpCaller } from '../ports/mcp-caller.js';

/** What these tools take of the effect context (runtime/effects/tools.ts's CallerToolContext). */
export interface CallerToolContext {
  mcpCaller?: McpCaller;
  /** aborted when the asking process is cancelled or the run ends */
  signal?: AbortSignal;
}

/** A refused question or a malformed argument: the program sees its message at the call's line. */
export class CallerError extends Error {
  override name = 'CallerError';
}

const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/** A question's key: a short name of letters, digits, `_`, `-` and `.` (it is a JSON key the client echoes). */
const KEY = /^[A-Za-z0-9_.-]{1,64}$/;

function keyOf(tool: string, key: unknown): string | undefined {
  if (key === undefined || key === null) return undefined;
  if (typeof key !== 'string' || !KEY.test(key)) throw new CallerError(`${tool}: the key must be a Str of 1 to 64 letters, digits, _, - or .`);
  return key;
}

/** The most tokens a sampling request may ask the caller for. */
const MAX_SAMPLE_TOKENS = 100_000;

function caller(ctx: CallerToolContext, tool: string): McpCaller {
  if (!ctx.mcpCaller) throw new CallerError(`${tool}: only a program served by turn mcp has a caller to ask (this run has none)`);
  return ctx.mcpCaller;
}

export function progress(ctx: CallerToolContext, done: unknown, total?: unknown, message?: unknown): null {
  if (typeof done !== 'number' || !Number.isFinite(done)) throw new CallerError('progress: the progress must be a Num');
  if (total !== undefined && total !== null && (typeof total !== 'number' || !Number.isFinite(total))) throw new CallerError('progress: the total must be a Num or null');
  if (message !== undefined && message !== null && typeof message !== 'string') throw new CallerError('progress: the message must be a Str or null');
  ctx.mcpCaller?.progress(done, (total ?? undefined), (message ?? undefined));
  return null;
}

export async function mcpElicit(ctx: CallerToolContext, message: unknown, schema: unknown, key?: unknown): Promise<unknown> {
  const c = caller(ctx, 'mcp_elicit');
  if (typeof message !== 'string') throw new CallerError('mcp_elicit: the message must be a Str');
  if (!isObj(schema) || schema.type !== 'object' || !isObj(schema.properties)) throw new CallerError('mcp_elicit: the requested schema must be a map {"type": "object", "properties": {...}} (MCP asks for flat objects of primitives)');
  const answer = await c.elicit(message, schema, ctx.signal, keyOf('mcp_elicit', key));
  return { action: answer.action, content: answer.content ?? null };
}

export async function mcpSample(ctx: CallerToolContext, prompt: unknown, maxTokens: unknown, key?: unknown): Promise<unknown> {
  const c = caller(ctx, 'mcp_sample');
  const named = keyOf('mcp_sample', key);
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > MAX_SAMPLE_TOKENS) throw new CallerError(`mcp_sample: max_tokens must be a whole number from 1 to ${MAX_SAMPLE_TOKENS}`);
  let messages: unknown[];
  if (typeof prompt === 'string') messages = [{ role: 'user', content: { type: 'text', text: prompt } }];
  else if (Array.isArray(prompt) && prompt.every((m) => isObj(m) && (m.role === 'user' || m.role === 'assistant') && isObj(m.content))) messages = prompt;
  else throw new CallerError('mcp_sample: the prompt must be a Str or a list of messages {"role": "user" | "assistant", "content": {"type": "text", "text": ...}}');
  return c.sample({ messages, maxTokens }, ctx.signal, named);
}

export async function mcpRoots(ctx: CallerToolContext, key?: unknown): Promise<unknown> {
  const c = caller(ctx, 'mcp_roots');
  return c.roots(ctx.signal, keyOf('mcp_roots', key));
}

/** The registry entries runtime/effects/tools.ts adds to the standard tools. */
export const CALLER_TOOLS = {
  progress: { effect: true, category: 'caller', capability: 'none (the MCP caller of turn mcp)', run: progress },
  mcp_elicit: { effect: true, category: 'caller', capability: 'the MCP caller of turn mcp', run: mcpElicit },
  mcp_sample: { effect: true, category: 'caller', capability: 'the MCP caller of turn mcp', run: mcpSample },
  mcp_roots: { effect: true, category: 'caller', capability: 'the MCP caller of turn mcp', run: mcpRoots },
} as const;
