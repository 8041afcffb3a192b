// Anthropic messages API. The schema goes in as a forced tool (`tool_choice: {type: "tool"}`):
// the tool's input is the reply envelope `{"value", "confidence"}`. Anthropic returns no
// log-probabilities, so the confidence is the model's own report (or agreement, with samples=K).
// Replies stream (server-sent events: the tool input arrives as `input_json_delta` pieces) unless
// `stream=0`. `max_tokens` is required by the API: the run's, else the spec's, else the bound
// derived from the schema. The API takes no seed.
import type { InferReply, InferRequest } from '../infer/types.js';
import { httpError, parseBody } from './http-errors.js';
import { chatTurns } from './messages.js';
import { anthropicContent } from './media-parts.js';
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
    encode(request: InferRequest) {
      const { system, turns } = chatTurns(request);
      const maxTokens = request.sampling?.maxTokens ?? o.maxTokens ?? request.maxTokens ?? FALLBACK_MAX_TOKENS;
      const body: Record<string, unknown> = { model: o.model, max_tokens: maxTokens };
      if (system.length > 0) body.system = system;
      body.messages = turns.map((t, i) => (i === 0 ? { role: t.role, content: anthropicContent(request, t.content, 'the Anthropic API') } : t));
      body.tools = [
        {
          name: TOOL_NAME,
          description: `Give the answer: "value" is a ${request.typeName} that matches the schema, "confidence" (0 to 1) how likely it is right.`,
          input_schema: request.wireSchema,
        },
      ];
      body.tool_choice = { type: 'tool', name: TOOL_NAME };
      const temperature = request.sampling?.temperature ?? o.temperature;
      if (temperature !== undefined) body.temperature = temperature;
      const stream = o.stream !== false;
      if (stream) body.stream = true;
      return jsonPost(url, body, { auth, stream, maxTokens, headers: { 'anthropic-version': o.version } });
    },
    stream: { framing: 'sse', decoder: () => anthropicStream(url, o.model) },
    decode(res): InferReply {
      if (res.status < 200 || res.status >= 300) throw httpError('the Anthropic API', url, res);
      const j = parseBody('the Anthropic API', url, res);
      if (j.type === 'error') throw httpError('the Anthropic API', url, res);
      const content = Array.isArray(j.content) ? (j.content as { type?: unknown; name?: unknown; input?: unknown; text?: unknown }[]) : null;
      if (!content) throw new ProviderError(`the Anthropic API at ${url} sent a message without content`, true, res.status);
      const tool = content.find((c) => c.type === 'tool_use' && c.name === TOOL_NAME);
      const text = tool ? JSON.stringify(tool.input ?? null) : content.filter((c) => c.type === 'text').map((c) => String(c.text ?? '')).join('');
      const reply: InferReply = { text, meta: { model: j.model ?? o.model, status: res.status, ...(j.id ? { requestId: j.id } : {}) } };
      const stop = j.stop_reason;
      if (stop === 'max_tokens') reply.finishReason = 'length';
      else if (typeof stop === 'string') reply.finishReason = stop;
      const usage = j.usage as { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number } | undefined;
      if (usage) {
        reply.usage = { inputTokens: usage.input_tokens, outputTokens: usage.output_tokens };
        if (typeof usage.cache_read_input_tokens === 'number') reply.usage.cachedTokens = usage.cache_read_input_tokens;
      }
      return reply;
    },
  };
}

/**
 * Reads a message's server-sent events: `message_start` (id, input usage), `content_block_start`
 * and `content_block_delta` (the forced tool's `input_json_delta` pieces, or text), `message_delta`
 * (stop reason, output usage), `message_stop`; an `error` event fails the call.
 */
function anthropicStream(url: string, model: string): StreamDecoder {
  const blocks: { type: string; name?: string; text: string }[] = [];
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
        const b = j.content_block as { type?: unknown; name?: unknown; text?: unknown } | undefined;
        const index = typeof j.index === 'number' ? j.index : blocks.length;
        blocks[index] = { type: String(b?.type ?? ''), ...(typeof b?.name === 'string' ? { name: b.name } : {}), text: typeof b?.text === 'string' ? b.text : '' };
      } else if (type === 'content_block_delta') {
        const index = typeof j.index === 'number' ? j.index : blocks.length - 1;
        const d = j.delta as { type?: unknown; partial_json?: unknown; text?: unknown; thinking?: unknown } | undefined;
        if (d?.type === 'thinking_delta') return typeof d.thinking === 'string' && d.thinking !== '' ? THINKING : undefined; // extended thinking
        const piece = typeof d?.partial_json === 'string' ? d.partial_json : typeof d?.text === 'string' ? d.text : '';
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
    finish(status, stoppedByHost) {
      // a message ends with a stop_reason (message_delta) and message_stop: a stream with neither was cut short
      if (!stop && !stopped && !stoppedByHost) throw new ProviderError(`the stream from the Anthropic API at ${url} ended early: it closed without a stop_reason or message_stop, so the reply is incomplete`, false, status);
      const tool = blocks.find((b) => b && b.type === 'tool_use' && b.name === TOOL_NAME);
      const text = tool ? (tool.text.trim() === '' ? '{}' : tool.text) : blocks.filter((b) => b && b.type === 'text').map((b) => b.text).join('');
      const reply: InferReply = { text, meta: { model: served ?? model, status, ...(id ? { requestId: id } : {}) } };
      if (stop === 'max_tokens') reply.finishReason = 'length';
      else if (stop) reply.finishReason = stop;
      if (usage.inputTokens !== undefined || usage.outputTokens !== undefined) reply.usage = usage;
      return reply;
    },
  };
}
