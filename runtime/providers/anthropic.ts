// Anthropic messages API. The schema goes in as a forced tool (`tool_choice: {type: "tool"}`):
// the tool's input is the reply envelope `{"value", "confidence"}`. Anthropic returns no
// log-probabilities, so the confidence is the model's own report.
import type { InferReply, InferRequest } from '../infer/types.js';
import { httpError, parseBody } from './http-errors.js';
import { chatTurns } from './messages.js';
import { ProviderError, type AuthSpec, type HttpProvider } from './types.js';

export interface AnthropicOptions {
  model: string;
  baseUrl: string;
  apiKeyEnv: string;
  maxTokens: number;
  temperature?: number;
  version: string;
}

export const ANTHROPIC_DEFAULT_BASE = 'https://api.anthropic.com';
export const TOOL_NAME = 'turn_reply';

export function anthropicProvider(o: AnthropicOptions): HttpProvider {
  const url = o.baseUrl.replace(/\/+$/, '') + '/v1/messages';
  const auth: AuthSpec = { env: o.apiKeyEnv, header: 'x-api-key', prefix: '', required: true };
  return {
    kind: 'http',
    name: `anthropic:${o.model}`,
    keyEnv: o.apiKeyEnv,
    encode(request: InferRequest) {
      const { system, turns } = chatTurns(request);
      const body: Record<string, unknown> = { model: o.model, max_tokens: o.maxTokens };
      if (system.length > 0) body.system = system;
      body.messages = turns;
      body.tools = [
        {
          name: TOOL_NAME,
          description: `Give the answer: "value" is a ${request.typeName} that matches the schema, "confidence" (0 to 1) how likely it is right.`,
          input_schema: request.wireSchema,
        },
      ];
      body.tool_choice = { type: 'tool', name: TOOL_NAME };
      if (o.temperature !== undefined) body.temperature = o.temperature;
      return {
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', accept: 'application/json', 'anthropic-version': o.version },
        body: JSON.stringify(body),
        auth,
      };
    },
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
