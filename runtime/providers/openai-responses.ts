// OpenAI's Responses API (`openai:MODEL?api=responses`): POST {base}/responses. The schema goes as
// `text.format` (`json_schema`, `strict: true` when strictSchema can state it, as for chat
// completions; `structured=json` sends `json_object`, `none` nothing), the system text as
// `instructions`, the turns as `input` messages. `store: false`: the API keeps responses for 30
// days unless told not to, and Turn never reads one back. Replies stream as typed server-sent
// events (`response.output_text.delta` … `response.completed`); usage is input, output and cached
// tokens. The API takes no seed: a seeded call says so in its trace (`meta.seedGuarantee`).
//
// Native tool calls: the infer's tools go as `function` tools (`strict: false`: a program's parameter
// schema need not meet strict mode's rules) beside the answer's `text.format`, so the model either
// calls tools or answers; earlier rounds go back as `function_call` and `function_call_output`
// input items; the model's calls come as `function_call` output items, streamed as
// `response.function_call_arguments.delta` pieces per output item.
import { strictSchema } from '../infer/provider-schema.js';
import type { InferReply, InferRequest, TokenLogprob, ToolRound } from '../infer/types.js';
import { httpError, parseBody } from './http-errors.js';
import { responsesContent } from './media-parts.js';
import { callFromText, checkCalls, str, StreamedCalls, toolTurns, type Origin } from './tool-calls.js';
import type { OpenAIOptions } from './openai.js';
import { jsonPost, ProviderError, THINKING, type AuthSpec, type HttpProvider, type StreamDecoder } from './types.js';

const SERVICE = 'the OpenAI Responses API';

export function openaiResponsesProvider(o: OpenAIOptions): HttpProvider {
  const url = o.baseUrl.replace(/\/+$/, '') + '/responses';
  const auth: AuthSpec = { env: o.apiKeyEnv, header: 'authorization', prefix: 'Bearer ', required: o.keyRequired };
  return {
    kind: 'http',
    name: `openai:${o.model}?api=responses`,
    keyEnv: o.apiKeyEnv,
    seed: 'none',
    nativeTools: true,
    encode(request: InferRequest) {
      const { system, turns } = toolTurns(request);
      const body: Record<string, unknown> = { model: o.model };
      if (system.length > 0) body.instructions = system;
      body.input = turns.flatMap((t, i) => (t.role === 'round' ? roundItems(t.round) : [{ role: t.role, content: i === 0 ? responsesContent(request, t.content, SERVICE) : t.content }]));
      if (request.tools?.length) body.tools = request.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters, strict: false }));
      const strict = o.structured === 'strict' ? strictSchema(request.wireSchema) : undefined;
      const structured = o.structured === 'strict' && !strict?.ok ? 'schema' : o.structured;
      if (structured === 'strict' || structured === 'schema') {
        body.text = { format: { type: 'json_schema', name: schemaName(request.typeName), strict: structured === 'strict', schema: strict?.ok ? strict.schema : request.wireSchema } };
      } else if (structured === 'json') {
        body.text = { format: { type: 'json_object' } };
      }
      if (o.logprobs) body.include = ['message.output_text.logprobs'];
      const maxTokens = request.sampling?.maxTokens ?? o.maxTokens ?? request.maxTokens;
      if (maxTokens !== undefined) body.max_output_tokens = maxTokens;
      const temperature = request.sampling?.temperature ?? o.temperature;
      if (temperature !== undefined) body.temperature = temperature;
      body.store = false;
      const stream = o.stream !== false;
      if (stream) body.stream = true;
      return jsonPost(url, body, { auth, stream, maxTokens });
    },
    stream: { framing: 'sse', decoder: () => responsesStream(url, o.model) },
    decode(res): InferReply {
      if (res.status < 200 || res.status >= 300) throw httpError(SERVICE, url, res);
      return responseReply(parseBody(SERVICE, url, res), url, o.model, res.status);
    },
  };
}

interface OutputPart {
  type?: unknown;
  text?: unknown;
  refusal?: unknown;
  logprobs?: unknown;
}

/** An earlier round as input items: the model's text, its `function_call` items, then each call's `function_call_output`. */
function roundItems(round: ToolRound): unknown[] {
  return [
    ...(round.text ? [{ role: 'assistant', content: round.text }] : []),
    ...round.calls.map((c) => ({ type: 'function_call', call_id: c.id, name: c.name, arguments: c.argumentsText ?? JSON.stringify(c.arguments ?? {}) })),
    ...round.results.map((r) => ({ type: 'function_call_output', call_id: r.id, output: r.content })),
  ];
}

/** A whole `response` object (a buffered reply, or the one `response.completed` carries) as a reply. */
function responseReply(j: Record<string, unknown>, url: string, model: string, status: number, streamedText?: string): InferReply {
  if (j.status === 'failed' || (j.error && typeof j.error === 'object')) {
    const e = j.error as { code?: unknown; message?: unknown } | null;
    throw new ProviderError(`${SERVICE} at ${url} reported a failed response: ${String(e?.message ?? e?.code ?? 'no reason given')}`, e?.code === 'server_error' || e?.code === 'rate_limit_exceeded', status);
  }
  const output = Array.isArray(j.output) ? (j.output as { type?: unknown; content?: unknown; call_id?: unknown; name?: unknown; arguments?: unknown }[]) : null;
  if (!output) throw new ProviderError(`${SERVICE} at ${url} sent a response without output`, false, status);
  let text = '';
  let refusal = '';
  const tokens: TokenLogprob[] = [];
  const origin: Origin = { service: SERVICE, url, status };
  const calls = output
    .filter((item) => item?.type === 'function_call')
    .map((item, i) => callFromText(origin, str(item.call_id, `call_${i}`), str(item.name, ''), typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {})));
  for (const item of output) {
    if (item?.type !== 'message' || !Array.isArray(item.content)) continue;
    for (const part of item.content as OutputPart[]) {
      if (part?.type === 'output_text' && typeof part.text === 'string') {
        text += part.text;
        if (Array.isArray(part.logprobs)) pushLogprobs(tokens, part.logprobs);
      } else if (part?.type === 'refusal' && typeof part.refusal === 'string') refusal += part.refusal;
    }
  }
  if (refusal) throw new ProviderError(`the model refused: ${refusal}`, false, status);
  const reply: InferReply = { text: streamedText ?? text, meta: { model: j.model ?? model, status, ...(j.id ? { requestId: j.id } : {}) } };
  const reason = (j.incomplete_details as { reason?: unknown } | null | undefined)?.reason;
  if (j.status === 'incomplete') reply.finishReason = reason === 'max_output_tokens' ? 'length' : typeof reason === 'string' ? reason : 'incomplete';
  else if (j.status === 'completed') reply.finishReason = 'stop';
  if (calls.length > 0) {
    reply.toolCalls = checkCalls(origin, calls);
    if (j.status === 'completed') reply.finishReason = 'tool_calls';
  }
  if (tokens.length > 0) reply.logprobs = tokens;
  const u = j.usage as { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number } } | null | undefined;
  if (u) {
    reply.usage = { inputTokens: u.input_tokens, outputTokens: u.output_tokens };
    if (typeof u.input_tokens_details?.cached_tokens === 'number') reply.usage.cachedTokens = u.input_tokens_details.cached_tokens;
  }
  return reply;
}

function pushLogprobs(out: TokenLogprob[], lp: unknown[]): void {
  for (const t of lp as { token?: unknown; logprob?: unknown }[]) {
    if (typeof t?.logprob === 'number') out.push(typeof t.token === 'string' ? { token: t.token, logprob: t.logprob } : { logprob: t.logprob });
  }
}

/**
 * Reads a response's typed events: `response.output_text.delta` pieces (and their log-probabilities),
 * `response.refusal.delta`, reasoning summaries (thinking), then `response.completed` or
 * `response.incomplete` with the whole response (status, usage); `response.failed` and `error` fail
 * the call. A stream that closes without its terminal event was cut short. A `function_call`
 * item's argument pieces are gathered per output item under the bounds (generation, not the reply's
 * text); the final response's items, which repeat them whole, are the calls.
 */
function responsesStream(url: string, model: string): StreamDecoder {
  let text = '';
  let final: Record<string, unknown> | undefined;
  const tokens: TokenLogprob[] = [];
  const calls = new StreamedCalls(() => ({ service: SERVICE, url }));
  return {
    push(data, event) {
      let j: Record<string, unknown>;
      try {
        j = JSON.parse(data) as Record<string, unknown>;
      } catch {
        throw new ProviderError(`${SERVICE} at ${url} sent a stream event that is not JSON: ${data.slice(0, 80)}`);
      }
      const type = typeof j.type === 'string' ? j.type : event;
      if (type === 'error') {
        throw new ProviderError(`${SERVICE} at ${url} reported an error mid-stream: ${String(j.message ?? (j.error as { message?: unknown } | undefined)?.message ?? j.code ?? JSON.stringify(j).slice(0, 200))}`);
      }
      if (type === 'response.output_text.delta') {
        if (Array.isArray(j.logprobs)) pushLogprobs(tokens, j.logprobs);
        if (typeof j.delta !== 'string' || j.delta === '') return undefined;
        text += j.delta;
        return j.delta;
      }
      if (type === 'response.reasoning_summary_text.delta' || type === 'response.reasoning_text.delta') return THINKING;
      if (type === 'response.output_item.added') {
        const item = j.item as { type?: unknown; call_id?: unknown; name?: unknown } | undefined;
        if (item?.type !== 'function_call') return undefined;
        calls.start(outputIndex(j.output_index), str(item.call_id, `call_${calls.size}`), str(item.name, ''));
        return THINKING;
      }
      if (type === 'response.function_call_arguments.delta') {
        if (typeof j.delta !== 'string') return undefined;
        calls.append(outputIndex(j.output_index), j.delta);
        return THINKING;
      }
      if (type === 'response.function_call_arguments.done') {
        if (typeof j.arguments === 'string') calls.set(outputIndex(j.output_index), j.arguments);
        return undefined;
      }
      if (type === 'response.completed' || type === 'response.incomplete' || type === 'response.failed') {
        const r = j.response;
        if (!r || typeof r !== 'object') throw new ProviderError(`${SERVICE} at ${url} sent ${type} without its response`);
        final = r as Record<string, unknown>;
      }
      return undefined;
    },
    finish(status, stoppedByHost) {
      if (!final) {
        if (!stoppedByHost) throw new ProviderError(`the stream from ${SERVICE} at ${url} ended early: it closed without response.completed, so the reply is incomplete`, false, status);
        return { text, meta: { model, status }, finishReason: 'length', ...(calls.size > 0 ? { toolCalls: calls.calls() } : {}) };
      }
      // the deltas are the text; the final response's output repeats it (and carries any refusal, and the calls whole)
      const reply = responseReply(final, url, model, status, text);
      if (!reply.toolCalls && calls.size > 0) {
        reply.toolCalls = calls.calls();
        if (reply.finishReason === 'stop') reply.finishReason = 'tool_calls';
      }
      if (tokens.length > 0 && !reply.logprobs) reply.logprobs = tokens;
      return reply;
    },
  };
}

/** An output item's index from the wire (a hostile one is a key like any other: the calls are a bounded map). */
function outputIndex(v: unknown): number | string {
  return typeof v === 'number' && Number.isInteger(v) ? v : String(v);
}

function schemaName(typeName: string): string {
  return ('turn_' + typeName.replace(/[^A-Za-z0-9_-]/g, '_')).slice(0, 64);
}
