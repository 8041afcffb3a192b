// Ollama's native chat API (`ollama:MODEL?api=native`, POST /api/chat): the wire schema goes as
// `format` (Ollama's structured outputs), sampling as `options` (`num_predict`, `temperature`,
// `seed`), and replies stream as newline-delimited JSON (`{"message": {"content"}, "done": false}`
// lines, then a last line with `done_reason` and the token counts). `ollama:MODEL` without
// `api=native` uses Ollama's OpenAI-compatible endpoint (openai.ts) instead.
import type { InferReply, InferRequest } from '../infer/types.js';
import { httpError, parseBody } from './http-errors.js';
import { chatTurns } from './messages.js';
import { ollamaImages } from './media-parts.js';
import { jsonPost, ProviderError, THINKING, type AuthSpec, type HttpProvider, type StreamDecoder } from './types.js';

export interface OllamaOptions {
  model: string;
  /** the server root, e.g. http://127.0.0.1:11434 */
  baseUrl: string;
  apiKeyEnv: string;
  maxTokens?: number;
  temperature?: number;
  stream?: boolean;
}

export const OLLAMA_DEFAULT_ROOT = 'http://127.0.0.1:11434';

function finishOf(j: Record<string, unknown>): string | undefined {
  const r = j.done_reason;
  return r === 'length' ? 'length' : typeof r === 'string' ? r : undefined;
}

function usageOf(j: Record<string, unknown>): InferReply['usage'] {
  const i = j.prompt_eval_count;
  const o = j.eval_count;
  if (typeof i !== 'number' && typeof o !== 'number') return undefined;
  return { ...(typeof i === 'number' ? { inputTokens: i } : {}), ...(typeof o === 'number' ? { outputTokens: o } : {}) };
}

export function ollamaProvider(o: OllamaOptions): HttpProvider {
  const url = o.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '') + '/api/chat';
  const auth: AuthSpec = { env: o.apiKeyEnv, header: 'authorization', prefix: 'Bearer ', required: false };
  return {
    kind: 'http',
    name: `ollama:${o.model}`,
    keyEnv: o.apiKeyEnv,
    encode(request: InferRequest) {
      const { system, turns } = chatTurns(request);
      const images = ollamaImages(request, 'the Ollama server');
      const first = images ? turns.map((t, i) => (i === 0 ? { ...t, images } : t)) : turns;
      const messages = system.length > 0 ? [{ role: 'system', content: system }, ...first] : first;
      const stream = o.stream !== false;
      const options: Record<string, number> = {};
      const maxTokens = request.sampling?.maxTokens ?? o.maxTokens ?? request.maxTokens;
      if (maxTokens !== undefined) options.num_predict = maxTokens;
      const temperature = request.sampling?.temperature ?? o.temperature;
      if (temperature !== undefined) options.temperature = temperature;
      if (request.sampling?.seed !== undefined) options.seed = request.sampling.seed;
      const body = { model: o.model, messages, format: request.wireSchema, stream, ...(Object.keys(options).length > 0 ? { options } : {}) };
      return jsonPost(url, body, { auth, stream, streamAccept: 'application/x-ndjson', maxTokens });
    },
    decode(res): InferReply {
      if (res.status < 200 || res.status >= 300) throw httpError('the Ollama server', url, res);
      const j = parseBody('the Ollama server', url, res);
      const m = j.message as { content?: unknown } | undefined;
      if (!m) throw new ProviderError(`the Ollama server at ${url} sent a reply without a message`, true, res.status);
      const reply: InferReply = { text: typeof m.content === 'string' ? m.content : '', meta: { model: j.model ?? o.model, status: res.status } };
      const finish = finishOf(j);
      if (finish) reply.finishReason = finish;
      const usage = usageOf(j);
      if (usage) reply.usage = usage;
      return reply;
    },
    stream: { framing: 'ndjson', decoder: () => ollamaStream(url, o.model) },
  };
}

function ollamaStream(url: string, model: string): StreamDecoder {
  let text = '';
  let last: Record<string, unknown> | undefined;
  return {
    push(line) {
      let j: Record<string, unknown>;
      try {
        j = JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new ProviderError(`the Ollama server at ${url} sent a stream line that is not JSON: ${line.slice(0, 80)}`);
      }
      if (typeof j.error === 'string') throw new ProviderError(`the Ollama server at ${url} reported an error mid-stream: ${j.error}`);
      if (j.done === true) last = j;
      const message = j.message as { content?: unknown; thinking?: unknown } | undefined;
      const piece = message?.content;
      if (typeof piece !== 'string' || piece === '') return typeof message?.thinking === 'string' && message.thinking !== '' ? THINKING : undefined;
      text += piece;
      return piece;
    },
    finish(status, stoppedByHost) {
      // Ollama's last line says `done: true` (with `done_reason: "length"` when a token limit cut
      // it); a stream that ends without it was cut short by the server or the connection
      if (!last && !stoppedByHost) throw new ProviderError(`the stream from the Ollama server at ${url} ended early: it closed before its last line (\`"done": true\`), so the reply is incomplete`, false, status);
      const reply: InferReply = { text, meta: { model: last?.model ?? model, status } };
      if (!last) reply.finishReason = 'length'; // the host stopped reading past the token bound
      else {
        const finish = finishOf(last);
        if (finish) reply.finishReason = finish;
        const usage = usageOf(last);
        if (usage) reply.usage = usage;
      }
      return reply;
    },
  };
}
