// Ollama's native chat API (`ollama:MODEL?api=native`, POST /api/chat): the wire schema goes as
// `format` (Ollama's structured outputs), sampling as `options` (`num_predict`, `temperature`,
// `seed`), and replies stream as newline-delimited JSON (`{"message": {"content"}, "done": false}`
// lines, then a last line with `done_reason` and the token counts). `ollama:MODEL` without
// `api=native` uses Ollama's OpenAI-compatible endpoint (openai.ts) instead.
//
// Native tool calls: the infer's tools go as `tools` (`{type: function, function: {name,
// description, parameters}}`) and no `format` (its grammar would keep the model from writing a
// call; the answer is then validated from the text, like every reply). Earlier rounds go back as an
// assistant message with `tool_calls` and one `tool` message per result (`tool_name`, and
// `tool_call_id` when the server gave the call an id); the model's calls come whole in
// `message.tool_calls`, on any line of a stream. A call without an id is named `turn_call_N`.
import type { InferReply, InferRequest, ToolCallRequest, ToolRound } from '../infer/types.js';
import { httpError, parseBody } from './http-errors.js';
import { ollamaImages } from './media-parts.js';
import { callFromValue, checkCalls, MAX_TOOL_CALLS, offersTools, str, toolTurns, type Origin } from './tool-calls.js';
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
    nativeTools: true,
    encode(request: InferRequest) {
      const { system, turns } = toolTurns(request);
      const images = ollamaImages(request, 'the Ollama server');
      const first = turns.flatMap((t, i) => (t.role === 'round' ? roundMessages(t.round) : [i === 0 && images ? { ...t, images } : t]));
      const messages = system.length > 0 ? [{ role: 'system', content: system }, ...first] : first;
      const stream = o.stream !== false;
      const options: Record<string, number> = {};
      const maxTokens = request.sampling?.maxTokens ?? o.maxTokens ?? request.maxTokens;
      if (maxTokens !== undefined) options.num_predict = maxTokens;
      const temperature = request.sampling?.temperature ?? o.temperature;
      if (temperature !== undefined) options.temperature = temperature;
      if (request.sampling?.seed !== undefined) options.seed = request.sampling.seed;
      const tools = offersTools(request) ? request.tools!.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })) : undefined;
      const body = { model: o.model, messages, ...(tools ? { tools } : { format: request.wireSchema }), stream, ...(Object.keys(options).length > 0 ? { options } : {}) };
      return jsonPost(url, body, { auth, stream, streamAccept: 'application/x-ndjson', maxTokens });
    },
    decode(res): InferReply {
      if (res.status < 200 || res.status >= 300) throw httpError('the Ollama server', url, res);
      const j = parseBody('the Ollama server', url, res);
      const m = j.message as { content?: unknown; tool_calls?: unknown } | undefined;
      if (!m) throw new ProviderError(`the Ollama server at ${url} sent a reply without a message`, true, res.status);
      const reply: InferReply = { text: typeof m.content === 'string' ? m.content : '', meta: { model: j.model ?? o.model, status: res.status } };
      const origin: Origin = { service: SERVICE, url, status: res.status };
      const calls = addCalls(origin, [], m.tool_calls);
      if (calls.length > 0) reply.toolCalls = checkCalls(origin, calls);
      const finish = finishOf(j);
      if (finish) reply.finishReason = reply.toolCalls && finish !== 'length' ? 'tool_calls' : finish;
      const usage = usageOf(j);
      if (usage) reply.usage = usage;
      return reply;
    },
    stream: { framing: 'ndjson', decoder: () => ollamaStream(url, o.model) },
  };
}

const SERVICE = 'the Ollama server';
/** The id Turn gives a call that came without one; such ids are not sent back. */
const LOCAL_ID = 'turn_call_';

/** An earlier round as chat messages: the model's text and `tool_calls`, then a `tool` message per result. */
function roundMessages(round: ToolRound): unknown[] {
  const idOf = (id: string) => (id.startsWith(LOCAL_ID) ? {} : { id });
  const calls = round.calls.map((c) => ({ ...idOf(c.id), function: { name: c.name, arguments: typeof c.arguments === 'object' && c.arguments !== null && !Array.isArray(c.arguments) ? c.arguments : {} } }));
  return [
    { role: 'assistant', content: round.text ?? '', tool_calls: calls },
    ...round.results.map((r) => ({ role: 'tool', content: r.content, tool_name: r.name, ...(r.id.startsWith(LOCAL_ID) ? {} : { tool_call_id: r.id }) })),
  ];
}

/** Adds a message's `tool_calls` (each whole: `{id?, function: {name, arguments}}`) to `calls`, under the bounds. */
function addCalls(origin: Origin, calls: ToolCallRequest[], wire: unknown): ToolCallRequest[] {
  if (!Array.isArray(wire)) return calls;
  for (const c of wire as { id?: unknown; function?: { name?: unknown; arguments?: unknown } }[]) {
    if (calls.length >= MAX_TOOL_CALLS) throw new ProviderError(`${SERVICE} at ${origin.url} sent more than ${MAX_TOOL_CALLS} tool calls in one reply`, false, origin.status);
    calls.push(callFromValue(origin, str(c?.id, `${LOCAL_ID}${calls.length}`), str(c?.function?.name, ''), c?.function?.arguments));
  }
  return calls;
}

function ollamaStream(url: string, model: string): StreamDecoder {
  let text = '';
  let last: Record<string, unknown> | undefined;
  const calls: ToolCallRequest[] = [];
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
      const message = j.message as { content?: unknown; thinking?: unknown; tool_calls?: unknown } | undefined;
      const before = calls.length;
      addCalls({ service: SERVICE, url }, calls, message?.tool_calls);
      const piece = message?.content;
      if (calls.length > before && (typeof piece !== 'string' || piece === '')) return THINKING; // a call: generation, not the reply's text
      if (typeof piece !== 'string' || piece === '') return typeof message?.thinking === 'string' && message.thinking !== '' ? THINKING : undefined;
      text += piece;
      return piece;
    },
    finish(status, stoppedByHost) {
      // Ollama's last line says `done: true` (with `done_reason: "length"` when a token limit cut
      // it); a stream that ends without it was cut short by the server or the connection
      if (!last && !stoppedByHost) throw new ProviderError(`the stream from the Ollama server at ${url} ended early: it closed before its last line (\`"done": true\`), so the reply is incomplete`, false, status);
      const reply: InferReply = { text, meta: { model: last?.model ?? model, status } };
      if (calls.length > 0) reply.toolCalls = checkCalls({ service: SERVICE, url, status }, calls);
      if (!last) reply.finishReason = 'length'; // the host stopped reading past the token bound
      else {
        const finish = finishOf(last);
        if (finish) reply.finishReason = reply.toolCalls && finish !== 'length' ? 'tool_calls' : finish;
        const usage = usageOf(last);
        if (usage) reply.usage = usage;
      }
      return reply;
    },
  };
}
