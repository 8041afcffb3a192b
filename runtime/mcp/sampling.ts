// Sampling (MCP 2025-11-25, `sampling/createMessage`): a server asks the client's model for a
// message in the middle of a call. Turn routes it to the run's model under the run's budgets
// (`--max-model-calls`, `--max-model-tokens` count it, `--approve-effects model` asks first:
// runtime/run/host.ts); a run without a chosen model refuses it with an error the server sees.
// The conversation a server sends is outside data: its messages, their text and the output bound
// it asks for are bounded here before anything reaches a model.
import { McpError } from './server.js';
import { boundedDepth } from './reply.js';

/** The most messages, and characters of text in all, one sampling request may carry. */
export const SAMPLING_MESSAGES_MAX = 256;
export const SAMPLING_TEXT_MAX = 256 * 1024;
/** The most tokens a server may ask one reply to have (the run's `--max-tokens` bounds it further). */
export const SAMPLING_MAX_TOKENS = 16_384;

/** A sampling request as the run's model is asked it. */
export interface SamplingAsk {
  server: string;
  /** the run's process whose call the server was answering when it asked (set by sessions.ts) */
  pid?: number;
  /** the server's system prompt, or "" */
  system: string;
  /** the conversation, as text: `role: text` turns; non-text blocks are named, not sent */
  transcript: string;
  maxTokens: number;
  temperature?: number;
}

/** What the run's model answered. */
export interface SamplingReply {
  text: string;
  /** the model that answered, as the server is told */
  model: string;
}

/** Answers a sampling request with the run's model (runtime/run/host.ts makes it); throws to refuse. */
export type Sampler = (ask: SamplingAsk, signal?: AbortSignal) => Promise<SamplingReply>;

function blockText(block: unknown): string {
  if (!block || typeof block !== 'object') return '';
  const b = block as { type?: unknown; text?: unknown; mimeType?: unknown };
  if (b.type === 'text' && typeof b.text === 'string') return b.text;
  // an image or audio block is not sent to a text model: it is named in its place
  return `[${typeof b.type === 'string' ? b.type.slice(0, 32) : 'content'}${typeof b.mimeType === 'string' ? ` ${b.mimeType.slice(0, 64)}` : ''} omitted]`;
}

/** The request's params as the model is asked them (throws McpError for one over the bounds). */
export function samplingAsk(server: string, params: Record<string, unknown>): SamplingAsk {
  boundedDepth(params, `the sampling request of the MCP server ${server}`);
  const messages = Array.isArray(params.messages) ? params.messages : [];
  if (messages.length === 0) throw new McpError(`the sampling request of the MCP server ${server} has no messages`);
  if (messages.length > SAMPLING_MESSAGES_MAX) throw new McpError(`the sampling request of the MCP server ${server} has ${messages.length} messages, over ${SAMPLING_MESSAGES_MAX}, the most one may have`);
  const turns: string[] = [];
  let chars = 0;
  for (const m of messages) {
    const role = (m as { role?: unknown })?.role === 'assistant' ? 'assistant' : 'user';
    const content = (m as { content?: unknown })?.content;
    const text = Array.isArray(content) ? content.slice(0, 64).map(blockText).join('\n') : blockText(content);
    chars += text.length;
    if (chars > SAMPLING_TEXT_MAX) throw new McpError(`the sampling request of the MCP server ${server} holds over ${SAMPLING_TEXT_MAX.toLocaleString('en-US')} characters of text, the most one may`);
    turns.push(`${role}: ${text}`);
  }
  const system = typeof params.systemPrompt === 'string' ? params.systemPrompt.slice(0, SAMPLING_TEXT_MAX) : '';
  const asked = typeof params.maxTokens === 'number' && Number.isFinite(params.maxTokens) && params.maxTokens >= 1 ? Math.floor(params.maxTokens) : SAMPLING_MAX_TOKENS;
  const t = params.temperature;
  return { server, system, transcript: turns.join('\n\n'), maxTokens: Math.min(asked, SAMPLING_MAX_TOKENS), ...(typeof t === 'number' && Number.isFinite(t) && t >= 0 && t <= 2 ? { temperature: t } : {}) };
}

/** The `sampling/createMessage` result for the model's reply. */
export function samplingResult(reply: SamplingReply): { role: 'assistant'; content: { type: 'text'; text: string }; model: string; stopReason: 'endTurn' } {
  return { role: 'assistant', content: { type: 'text', text: reply.text }, model: reply.model, stopReason: 'endTurn' };
}
