// OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server, ...).
// Structured output: `response_format: json_schema` with `strict: true` when the schema fits the
// strict subset (every object closed and fully required, no open `{}`), else without `strict`;
// `structured=json` sends `json_object`, `structured=none` nothing. Log-probabilities are asked
// for (`logprobs: true`) unless `logprobs=0`, and used for the confidence when returned. Replies
// stream (`stream: true`, server-sent events) unless `stream=0`; the output bound (`max_tokens`),
// `seed` and `temperature` are sent when the run or the spec sets them (docs/inference.md).
import type { JsonSchema } from '../infer/schema.js';
import { strictSchema } from '../infer/provider-schema.js';
import type { InferReply, InferRequest, TokenLogprob, ToolCallRequest, ToolOffer } from '../infer/types.js';
import { httpError, parseBody } from './http-errors.js';
import { chatTurns } from './messages.js';
import { openaiChatContent, refuseMedia } from './media-parts.js';
import { jsonPost, ProviderError, THINKING, type AuthSpec, type HttpProvider, type StreamDecoder } from './types.js';

export interface OpenAIOptions {
  model: string;
  baseUrl: string;
  /** environment variable with the API key (optional for local servers) */
  apiKeyEnv: string;
  keyRequired: boolean;
  structured: 'strict' | 'schema' | 'json' | 'none';
  logprobs: boolean;
  maxTokens?: number;
  temperature?: number;
  /** stream the reply (default true) */
  stream?: boolean;
  /** the server reads images but no documents (Ollama's OpenAI-compatible API): a PDF is refused before sending */
  imagesOnly?: boolean;
  /** a server with its own URL scheme and credential (Azure OpenAI; azure.ts): the whole endpoint URL, the auth, the name */
  endpoint?: { url: string; auth: AuthSpec; name: string; service: string; maxTokensField: 'max_tokens' | 'max_completion_tokens' };
}

export const OPENAI_DEFAULT_BASE = 'https://api.openai.com/v1';

/** True when `schema` is inside OpenAI's strict structured-output subset. */
export function strictCompatible(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object') return false;
  const s = schema as Record<string, unknown>;
  if (Object.keys(s).filter((k) => k !== 'description' && k !== 'title').length === 0) return false; // `{}`: any value
  if (s.type === 'object') {
    const props = s.properties as Record<string, unknown> | undefined;
    if (!props || s.additionalProperties !== false) return false;
    const req = (s.required as string[] | undefined) ?? [];
    if (Object.keys(props).some((k) => !req.includes(k))) return false;
    return Object.values(props).every(strictCompatible);
  }
  if (s.type === 'array') return s.items === undefined ? false : strictCompatible(s.items);
  return true;
}

export function openaiProvider(o: OpenAIOptions): HttpProvider {
  const url = o.endpoint?.url ?? o.baseUrl.replace(/\/+$/, '') + '/chat/completions';
  const auth: AuthSpec = o.endpoint?.auth ?? { env: o.apiKeyEnv, header: 'authorization', prefix: 'Bearer ', required: o.keyRequired };
  // OpenAI's own API takes max_completion_tokens (its reasoning models refuse max_tokens); other servers take max_tokens
  const maxTokensField = o.endpoint?.maxTokensField ?? (new URL(url).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens');
  const service = o.endpoint?.service ?? 'the OpenAI-compatible server';
  return {
    kind: 'http',
    name: o.endpoint?.name ?? `openai:${o.model}`,
    keyEnv: auth.env,
    nativeTools: true,
    encode(request: InferRequest) {
      const { system, turns } = chatTurns(request);
      if (o.imagesOnly) refuseMedia(request, `ollama:${o.model}`, (m) => m.kind === 'image', 'Ollama takes images only (send a PDF to a provider that reads documents: openai, anthropic, gemini, bedrock)');
      const messages: Record<string, unknown>[] = [];
      if (system.length > 0) messages.push({ role: 'system', content: system });
      // images and documents go in the first user turn, with the context (media-parts.ts)
      messages.push(...turns.slice(0, 1).map((t) => ({ role: t.role, content: openaiChatContent(request, t.content, service) })));
      // native tool calls: each round is the assistant's calls, then one `tool` message per result (before any re-ask)
      messages.push(...toolRoundMessages(request));
      messages.push(...turns.slice(1).map((t) => ({ role: t.role, content: t.content })));
      // Key order is fixed (model, messages, then per-request options) so that equal prefixes
      // are equal bytes on the wire too.
      const body: Record<string, unknown> = { model: o.model, messages };
      // strict mode gets the largest schema it accepts (infer/provider-schema.ts); the full one is validated locally
      const strict = o.structured === 'strict' ? strictSchema(request.wireSchema) : undefined;
      const structured = o.structured === 'strict' && !strict?.ok ? 'schema' : o.structured;
      if (structured === 'strict' || structured === 'schema') {
        body.response_format = {
          type: 'json_schema',
          json_schema: { name: schemaName(request.typeName), strict: structured === 'strict', schema: strict?.ok ? strict.schema : request.wireSchema },
        };
      } else if (structured === 'json') {
        body.response_format = { type: 'json_object' };
      }
      if (request.tools && request.tools.length > 0) body.tools = request.tools.map(toolDefinition);
      if (o.logprobs) body.logprobs = true;
      const maxTokens = request.sampling?.maxTokens ?? o.maxTokens ?? request.maxTokens;
      if (maxTokens !== undefined) body[maxTokensField] = maxTokens;
      const temperature = request.sampling?.temperature ?? o.temperature;
      if (temperature !== undefined) body.temperature = temperature;
      if (request.sampling?.seed !== undefined) body.seed = request.sampling.seed;
      const stream = o.stream !== false;
      if (stream) {
        body.stream = true;
        body.stream_options = { include_usage: true };
      }
      return jsonPost(url, body, { auth, stream, maxTokens });
    },
    stream: { framing: 'sse', decoder: () => openaiStream(url, o.model, service) },
    decode(res): InferReply {
      if (res.status < 200 || res.status >= 300) throw httpError(service, url, res);
      const j = parseBody(service, url, res);
      const choices = j.choices as { message?: { content?: unknown; refusal?: unknown }; finish_reason?: unknown; logprobs?: { content?: unknown } }[] | undefined;
      const choice = Array.isArray(choices) ? choices[0] : undefined;
      if (!choice || !choice.message) throw new ProviderError(`${service} at ${url} sent no choices`, true, res.status);
      if (typeof choice.message.refusal === 'string' && choice.message.refusal) {
        throw new ProviderError(`the model refused: ${choice.message.refusal}`, false, res.status);
      }
      const text = typeof choice.message.content === 'string' ? choice.message.content : '';
      const reply: InferReply = { text, meta: { model: j.model ?? o.model, status: res.status, ...(j.id ? { requestId: j.id } : {}) } };
      const calls = (choice.message as { tool_calls?: unknown }).tool_calls;
      if (Array.isArray(calls) && calls.length > 0) reply.toolCalls = calls.slice(0, MAX_WIRE_CALLS).map((c, i) => toolCallOf(c as WireCall, i));
      if (typeof choice.finish_reason === 'string') reply.finishReason = choice.finish_reason;
      const lp = choice.logprobs?.content;
      if (Array.isArray(lp)) {
        const tokens: TokenLogprob[] = [];
        for (const t of lp as { token?: unknown; logprob?: unknown }[]) {
          if (typeof t?.logprob === 'number') tokens.push(typeof t.token === 'string' ? { token: t.token, logprob: t.logprob } : { logprob: t.logprob });
        }
        if (tokens.length > 0) reply.logprobs = tokens;
      }
      const usage = j.usage as { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } } | undefined;
      if (usage) {
        reply.usage = { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens };
        if (typeof usage.prompt_tokens_details?.cached_tokens === 'number') reply.usage.cachedTokens = usage.prompt_tokens_details.cached_tokens;
      }
      return reply;
    },
  };
}

/** Reads a chat completion's server-sent events: `choices[0].delta` pieces, then usage, then `[DONE]`. */
function openaiStream(url: string, model: string, service: string): StreamDecoder {
  let text = '';
  let refusal = '';
  let finish: string | undefined;
  let sawChoice = false;
  let done = false;
  let usage: InferReply['usage'];
  let id: unknown;
  let served: unknown;
  const tokens: TokenLogprob[] = [];
  // streamed tool calls: pieces of each call, joined by the call's `index`
  const calls = new Map<number, { id: string; name: string; args: string }>();
  return {
    push(data) {
      if (data.trim() === '[DONE]') {
        done = true;
        return undefined;
      }
      let j: Record<string, unknown>;
      try {
        j = JSON.parse(data) as Record<string, unknown>;
      } catch {
        throw new ProviderError(`${service} at ${url} sent a stream event that is not JSON: ${data.slice(0, 80)}`);
      }
      if (j.error) {
        const e = j.error as { message?: unknown } | string;
        throw new ProviderError(`${service} at ${url} reported an error mid-stream: ${typeof e === 'string' ? e : String(e.message ?? JSON.stringify(e))}`);
      }
      id ??= j.id;
      served ??= j.model;
      const u = j.usage as { prompt_tokens?: number; completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } } | null | undefined;
      if (u) {
        usage = { inputTokens: u.prompt_tokens, outputTokens: u.completion_tokens };
        if (typeof u.prompt_tokens_details?.cached_tokens === 'number') usage.cachedTokens = u.prompt_tokens_details.cached_tokens;
      }
      const choice = Array.isArray(j.choices) ? (j.choices[0] as { delta?: { content?: unknown; refusal?: unknown; reasoning_content?: unknown; reasoning?: unknown }; finish_reason?: unknown; logprobs?: { content?: unknown } } | undefined) : undefined;
      if (!choice) return undefined;
      sawChoice = true;
      if (typeof choice.finish_reason === 'string') finish = choice.finish_reason;
      const lp = choice.logprobs?.content;
      if (Array.isArray(lp)) {
        for (const t of lp as { token?: unknown; logprob?: unknown }[]) {
          if (typeof t?.logprob === 'number') tokens.push(typeof t.token === 'string' ? { token: t.token, logprob: t.logprob } : { logprob: t.logprob });
        }
      }
      if (typeof choice.delta?.refusal === 'string') refusal += choice.delta.refusal;
      const pieces = (choice.delta as { tool_calls?: unknown } | undefined)?.tool_calls;
      if (Array.isArray(pieces)) for (const piece of pieces as WireCall[]) joinCallPiece(calls, piece, service, url);
      const piece = choice.delta?.content;
      if (typeof piece !== 'string' || piece === '') {
        // a reasoning model's thinking (vLLM and DeepSeek: reasoning_content; OpenRouter, Ollama: reasoning)
        const thought = choice.delta?.reasoning_content ?? choice.delta?.reasoning;
        return typeof thought === 'string' && thought !== '' ? THINKING : undefined;
      }
      text += piece;
      return piece;
    },
    finish(status, stoppedByHost) {
      if (!sawChoice) throw new ProviderError(`${service} at ${url} streamed no choices`, false, status);
      if (refusal) throw new ProviderError(`the model refused: ${refusal}`, false, status);
      // the last chunk carries a finish_reason, then `[DONE]`: a stream with neither was cut short
      if (!finish && !done && !stoppedByHost) throw new ProviderError(`the stream from ${service} at ${url} ended early: it closed without a finish_reason or [DONE], so the reply is incomplete`, false, status);
      const reply: InferReply = { text, meta: { model: served ?? model, status, ...(id ? { requestId: id } : {}) } };
      if (finish) reply.finishReason = finish;
      if (calls.size > 0) {
        reply.toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([i, c]) => toolCallOf({ id: c.id, function: { name: c.name, arguments: c.args } }, i));
      }
      if (tokens.length > 0) reply.logprobs = tokens;
      if (usage) reply.usage = usage;
      return reply;
    },
  };
}

/** The most tool calls read from one reply (the loop's max_tool_calls is far lower; past it the infer fails, naming the count). */
const MAX_WIRE_CALLS = 1024;

interface WireCall {
  index?: unknown;
  id?: unknown;
  type?: unknown;
  function?: { name?: unknown; arguments?: unknown };
}

/** A tool as Chat Completions takes it: a function with its JSON Schema, `strict` where the schema is inside the strict subset. */
function toolDefinition(t: ToolOffer): Record<string, unknown> {
  const { $schema: _dialect, ...parameters } = t.parameters;
  const strict = strictCompatible(parameters) && !JSON.stringify(parameters).includes('"$ref"');
  return { type: 'function', function: { name: t.name, description: t.description, parameters, ...(strict ? { strict: true } : {}) } };
}

/** The tool rounds so far as chat messages: the assistant's `tool_calls`, then a `tool` message per result. */
function toolRoundMessages(request: InferRequest): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const round of request.toolRounds ?? []) {
    out.push({
      role: 'assistant',
      content: round.text ?? null,
      tool_calls: round.calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.argumentsText ?? JSON.stringify(c.arguments ?? {}) } })),
    });
    for (const r of round.results) out.push({ role: 'tool', tool_call_id: r.id, content: r.content });
  }
  return out;
}

/** A call from the wire: its arguments parsed (the raw text kept when they are not JSON). */
function toolCallOf(c: WireCall, i: number): ToolCallRequest {
  const id = typeof c?.id === 'string' && c.id !== '' ? c.id : `call_${i + 1}`;
  const name = typeof c?.function?.name === 'string' ? c.function.name : '';
  const raw = c?.function?.arguments;
  if (typeof raw !== 'string') return { id, name, arguments: raw ?? {} };
  try {
    return { id, name, arguments: raw.trim() === '' ? {} : (JSON.parse(raw) as unknown) };
  } catch {
    return { id, name, arguments: null, argumentsText: raw };
  }
}

/** Adds a streamed piece of a tool call to the call of its `index` (the first piece names it; the rest extend its arguments). */
function joinCallPiece(calls: Map<number, { id: string; name: string; args: string }>, piece: WireCall, service: string, url: string): void {
  const index = typeof piece?.index === 'number' && Number.isInteger(piece.index) && piece.index >= 0 ? piece.index : calls.size;
  let call = calls.get(index);
  if (!call) {
    if (calls.size >= MAX_WIRE_CALLS) throw new ProviderError(`${service} at ${url} streamed more than ${MAX_WIRE_CALLS} tool calls in one reply`);
    call = { id: '', name: '', args: '' };
    calls.set(index, call);
  }
  if (typeof piece.id === 'string' && call.id === '') call.id = piece.id;
  if (typeof piece.function?.name === 'string') call.name += piece.function.name;
  if (typeof piece.function?.arguments === 'string') call.args += piece.function.arguments;
}

function schemaName(typeName: string): string {
  const n = 'turn_' + typeName.replace(/[^A-Za-z0-9_-]/g, '_');
  return n.slice(0, 64);
}

export type { JsonSchema };
