// Anthropic messages API. The schema goes in as a forced tool (`tool_choice: {type: "tool"}`):
// the tool's input is the reply envelope `{"value", "confidence"}`. Anthropic returns no
// log-probabilities, so the confidence is the model's own report (or agreement, with samples=K).
// Replies stream (server-sent events: the tool input arrives as `input_json_delta` pieces) unless
// `stream=0`. `max_tokens` is required by the API: the run's, else the spec's, else the bound
// derived from the schema. The API takes no seed.
//
// Native tool calls (`infer T with { tools: [...] }`): the infer's tools go beside the answer tool
// with `tool_choice: {type: "any"}` (the model calls some tool each turn: one of the program's, or
// the answer, which ends the loop); the answer tool is renamed when a program's tool has its name
// (tool-calls.ts, answerToolName). Earlier rounds go back as an assistant message of `tool_use`
// blocks and a user message of `tool_result` blocks; the model's calls come as `tool_use` blocks,
// streamed as `input_json_delta` pieces per content block.
import type { InferReply, InferRequest, ToolRound } from '../infer/types.js';
import { httpError, parseBody } from './http-errors.js';
import { anthropicContent } from './media-parts.js';
import { answerText, answerToolDescription, answerToolName, callFromValue, checkCalls, offersTools, str, StreamedCalls, toolTurns, type Origin } from './tool-calls.js';
import { jsonPost, ProviderError, THINKING, type AuthSpec, type HttpProvider, type StreamDecoder } from './types.js';

export interface AnthropicOptions {
  model: string;
  baseUrl: string;
  apiKeyEnv: string;
  maxTokens?: number;
  temperature?: number;
  version: string;
  /** stream the reply (default true) */
  stream?: boolean;
}

/** The bound when neither the run, the spec nor the schema gives one. */
const FALLBACK_MAX_TOKENS = 1024;

export const ANTHROPIC_DEFAULT_BASE = 'https://api.anthropic.com';
export const TOOL_NAME = 'turn_reply';

export function anthropicProvider(o: AnthropicOptions): HttpProvider {
  const url = o.baseUrl.replace(/\/+$/, '') + '/v1/messages';
  const auth: AuthSpec = { env: o.apiKeyEnv, header: 'x-api-key', prefix: '', required: true };
  return {
    kind: 'http',
    name: `anthropic:${o.model}`,
    keyEnv: o.apiKeyEnv,
    seed: 'none',
    nativeTools: true,
    encode(request: InferRequest) {
      const { system, turns } = toolTurns(request);
      const maxTokens = request.sampling?.maxTokens ?? o.maxTokens ?? request.maxTokens ?? FALLBACK_MAX_TOKENS;
      const body: Record<string, unknown> = { model: o.model, max_tokens: maxTokens };
      if (system.length > 0) body.system = system;
      body.messages = turns.flatMap((t, i) =>
        t.role === 'round' ? roundMessages(t.round) : [i === 0 ? { role: t.role, content: anthropicContent(request, t.content, 'the Anthropic API') } : t],
      );
      const answer = answerToolName(request, TOOL_NAME);
      body.tools = [
        { name: answer, description: answerToolDescription(request), input_schema: request.wireSchema },
        ...(request.tools ?? []).map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })),
      ];
      body.tool_choice = offersTools(request) ? { type: 'any' } : { type: 'tool', name: answer };
      const temperature = request.sampling?.temperature ?? o.temperature;
      if (temperature !== undefined) body.temperature = temperature;
      const stream = o.stream !== false;
      if (stream) body.stream = true;
      return jsonPost(url, body, { auth, stream, maxTokens, headers: { 'anthropic-version': o.version } });
    },
    stream: { framing: 'sse', decoder: (request) => anthropicStream(url, o.model, answerToolName(request, TOOL_NAME)) },
    decode(res, request): InferReply {
      if (res.status < 200 || res.status >= 300) throw httpError('the Anthropic API', url, res);
      const j = parseBody('the Anthropic API', url, res);
      if (j.type === 'error') throw httpError('the Anthropic API', url, res);
      const content = Array.isArray(j.content) ? (j.content as { type?: unknown; id?: unknown; name?: unknown; input?: unknown; text?: unknown }[]) : null;
      if (!content) throw new ProviderError(`the Anthropic API at ${url} sent a message without content`, true, res.status);
      const answer = answerToolName(request, TOOL_NAME);
      const origin: Origin = { service: 'the Anthropic API', url, status: res.status };
      const tool = content.find((c) => c?.type === 'tool_use' && c.name === answer);
      const calls = content.filter((c) => c?.type === 'tool_use' && c.name !== answer).map((c, i) => callFromValue(origin, str(c.id, `call_${i}`), str(c.name, ''), c.input));
      const text = tool ? answerText(origin, tool.input) : content.filter((c) => c?.type === 'text').map((c) => String(c.text ?? '')).join('');
      const reply: InferReply = { text, meta: { model: j.model ?? o.model, status: res.status, ...(j.id ? { requestId: j.id } : {}) } };
      if (calls.length > 0) reply.toolCalls = checkCalls(origin, calls);
      setFinish(reply, j.stop_reason);
      const usage = j.usage as { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number } | undefined;
      if (usage) {
        reply.usage = { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens };
        if (typeof usage.cache_read_input_tokens === 'number') reply.usage.cachedTokens = usage.cache_read_input_tokens;
      }
      return reply;
    },
  };
}

/** An earlier round as the API takes it back: the model's `tool_use` blocks, then the `tool_result` blocks. */
function roundMessages(round: ToolRound): unknown[] {
  const uses = round.calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: isObject(c.arguments) ? c.arguments : {} }));
  return [
    { role: 'assistant', content: [...(round.text ? [{ type: 'text', text: round.text }] : []), ...uses] },
    { role: 'user', content: round.results.map((r) => ({ type: 'tool_result', tool_use_id: r.id, content: r.content, ...(r.isError ? { is_error: true } : {}) })) },
  ];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The stop reason as a finish reason: `length` when cut off, `tool_calls` when the program's tools were called. */
function setFinish(reply: InferReply, stop: unknown): void {
  if (stop === 'max_tokens') reply.finishReason = 'length';
  else if (reply.toolCalls) reply.finishReason = 'tool_calls';
  else if (typeof stop === 'string') reply.finishReason = stop;
}

/**
 * Reads a message's server-sent events: `message_start` (id, input usage), `content_block_start`
 * and `content_block_delta` (the forced tool's `input_json_delta` pieces, or text), `message_delta`
 * (stop reason, output usage), `message_stop`; an `error` event fails the call. A `tool_use` block
 * of the program's tools gathers its pieces in `calls` (bounded as they come); they are generation,
 * not the reply's text.
 */
function anthropicStream(url: string, model: string, answer: string): StreamDecoder {
  const blocks: { type: string; name?: string; text: string }[] = [];
  let status: number | undefined;
  const calls = new StreamedCalls(() => ({ service: 'the Anthropic API', url, status }));
  let stop: string | undefined;
  let stopped = false;
  let id: unknown;
  let served: unknown;
  const usage: NonNullable<InferReply['usage']> = {};
  return {
    push(data, event) {
      let j: Record<string, unknown>;
      try {
        j = JSON.parse(data) as Record<string, unknown>;
      } catch {
        throw new ProviderError(`the Anthropic API at ${url} sent a stream event that is not JSON: ${data.slice(0, 80)}`);
      }
      const type = typeof j.type === 'string' ? j.type : event;
      if (type === 'error') {
        const e = j.error as { type?: unknown; message?: unknown } | undefined;
        const overloaded = e?.type === 'overloaded_error';
        throw new ProviderError(`the Anthropic API reported an error mid-stream from ${url}: ${String(e?.message ?? JSON.stringify(j))}`, false, overloaded ? 529 : undefined);
      }
      if (type === 'message_start') {
        const m = j.message as { id?: unknown; model?: unknown; usage?: { input_tokens?: number; cache_read_input_tokens?: number } } | undefined;
        id = m?.id;
        served = m?.model;
        if (typeof m?.usage?.input_tokens === 'number') usage.inputTokens = m.usage.input_tokens;
        if (typeof m?.usage?.cache_read_input_tokens === 'number') usage.cachedTokens = m.usage.cache_read_input_tokens;
      } else if (type === 'content_block_start') {
        const b = j.content_block as { type?: unknown; id?: unknown; name?: unknown; text?: unknown } | undefined;
        const index = blockIndex(j.index, blocks.length);
        if (b?.type === 'tool_use' && b.name !== answer) {
          calls.start(index, str(b.id, `call_${calls.size}`), str(b.name, ''));
          return THINKING;
        }
        blocks[index] = { type: String(b?.type ?? ''), ...(typeof b?.name === 'string' ? { name: b.name } : {}), text: typeof b?.text === 'string' ? b.text : '' };
      } else if (type === 'content_block_delta') {
        const index = blockIndex(j.index, Math.max(0, blocks.length - 1));
        const d = j.delta as { type?: unknown; partial_json?: unknown; text?: unknown; thinking?: unknown } | undefined;
        if (d?.type === 'thinking_delta') return typeof d.thinking === 'string' && d.thinking !== '' ? THINKING : undefined; // extended thinking
        const piece = typeof d?.partial_json === 'string' ? d.partial_json : typeof d?.text === 'string' ? d.text : '';
        if (calls.has(index)) {
          calls.append(index, piece);
          return THINKING; // a call's arguments: generation, not the reply's text
        }
        const b = (blocks[index] ??= { type: d?.type === 'input_json_delta' ? 'tool_use' : 'text', text: '' });
        b.text += piece;
        return piece || undefined;
      } else if (type === 'message_stop') {
        stopped = true;
      } else if (type === 'message_delta') {
        const d = j.delta as { stop_reason?: unknown } | undefined;
        if (typeof d?.stop_reason === 'string') stop = d.stop_reason;
        const u = j.usage as { output_tokens?: number } | undefined;
        if (typeof u?.output_tokens === 'number') usage.outputTokens = u.output_tokens;
      }
      return undefined;
    },
    finish(httpStatus, stoppedByHost) {
      status = httpStatus;
      // a message ends with a stop_reason (message_delta) and message_stop: a stream with neither was cut short
      if (!stop && !stopped && !stoppedByHost) throw new ProviderError(`the stream from the Anthropic API at ${url} ended early: it closed without a stop_reason or message_stop, so the reply is incomplete`, false, status);
      const tool = blocks.find((b) => b && b.type === 'tool_use' && b.name === answer);
      const text = tool ? (tool.text.trim() === '' ? '{}' : tool.text) : blocks.filter((b) => b && b.type === 'text').map((b) => b.text).join('');
      const reply: InferReply = { text, meta: { model: served ?? model, status, ...(id ? { requestId: id } : {}) } };
      if (calls.size > 0) reply.toolCalls = calls.calls();
      setFinish(reply, stop);
      if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) reply.usage = usage;
      return reply;
    },
  };
}

/** A content block's index from the wire: a small non-negative integer, else `fallback` (a hostile index cannot grow the array). */
function blockIndex(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 4096 ? v : fallback;
}
