// Google Gemini (`gemini:MODEL`): the Gemini API's generateContent, or streamGenerateContent with
// `alt=sse`, at `{base_url}/v1beta/models/{MODEL}:…`, the key in `x-goog-api-key` (GEMINI_API_KEY).
// Structured output: `responseMimeType: application/json` with the full wire schema as
// `responseJsonSchema` (JSON Schema as Turn writes it: `$ref`/`$defs`, `anyOf`, `additionalProperties`,
// `enum`, bounds — not the OpenAPI-subset `responseSchema`, which takes neither `$ref` nor
// `additionalProperties`); the reply is validated locally in full, as for every provider. The system
// text goes as `systemInstruction`, the turns as `contents` (`user` / `model`). Usage comes from
// `usageMetadata`; `seed` is sent in `generationConfig` (best effort: Google does not promise equal
// replies). A thought part (`thought: true`) is generation, not the reply.
//
// Native tool calls: the infer's tools go as `functionDeclarations` (`parametersJsonSchema`) beside
// an answer function whose parameters are the wire schema, with `functionCallingConfig.mode: ANY`
// (the model calls one of the program's functions, or the answer, which ends the loop; many Gemini
// models refuse a JSON response type together with function calling, so no responseJsonSchema is
// sent then). Earlier rounds go back as a `model` turn of `functionCall` parts (with the call's
// `thoughtSignature`, which Gemini requires back) and a `user` turn of `functionResponse` parts;
// calls come whole as `functionCall` parts, in any chunk of a stream. The Gemini API often gives a
// call no id: Turn names it `turn_call_N` and sends no id back for it.
import type { InferReply, InferRequest, ToolCallRequest, ToolRound } from '../infer/types.js';
import { httpError, parseBody } from './http-errors.js';
import { geminiParts } from './media-parts.js';
import { answerText, answerToolDescription, answerToolName, callFromValue, checkCalls, MAX_TOOL_ARGUMENT_BYTES, MAX_TOOL_CALLS, offersTools, str, toolTurns, type Origin } from './tool-calls.js';
import { ModelConfigError, jsonPost, ProviderError, THINKING, type AuthSpec, type HttpProvider, type HttpResult, type StreamDecoder } from './types.js';

export const GEMINI_DEFAULT_BASE = 'https://generativelanguage.googleapis.com';
const SERVICE = 'the Gemini API';

export interface GeminiOptions {
  model: string;
  baseUrl: string;
  apiKeyEnv: string;
  /** `schema`: responseJsonSchema (default); `json`: only the JSON MIME type; `none`: neither */
  structured: 'schema' | 'json' | 'none';
  maxTokens?: number;
  temperature?: number;
  stream?: boolean;
}

/** Finish reasons that mean the reply was withheld (not cut off): the call fails, not re-asked. */
const BLOCKED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE']);

/** The answer function's name (renamed when a program's tool has it). */
const ANSWER = 'turn_reply';
/** The id Turn gives a call that came without one; such ids are not sent back. */
const LOCAL_ID = 'turn_call_';

export function geminiProvider(o: GeminiOptions): HttpProvider {
  if (!/^[A-Za-z0-9._-]+$/.test(o.model)) throw new ModelConfigError(`\`gemini:${o.model}\`: a model name has only letters, digits, '.', '_' and '-'`);
  const base = `${o.baseUrl.replace(/\/+$/, '')}/v1beta/models/${o.model}`;
  const auth: AuthSpec = { env: o.apiKeyEnv, header: 'x-goog-api-key', prefix: '', required: true };
  return {
    kind: 'http',
    name: `gemini:${o.model}`,
    keyEnv: o.apiKeyEnv,
    nativeTools: true,
    encode(request: InferRequest) {
      const { system, turns } = toolTurns(request);
      const body: Record<string, unknown> = {
        contents: turns.flatMap((t, i) =>
          t.role === 'round' ? roundContents(t.round) : [{ role: t.role === 'assistant' ? 'model' : 'user', parts: i === 0 ? geminiParts(request, t.content, SERVICE) : [{ text: t.content }] }],
        ),
      };
      const tools = offersTools(request);
      if (tools) {
        const declarations = [{ name: answerToolName(request, ANSWER), description: answerToolDescription(request), parametersJsonSchema: request.wireSchema }];
        for (const t of request.tools ?? []) declarations.push({ name: t.name, description: t.description, parametersJsonSchema: t.parameters });
        body.tools = [{ functionDeclarations: declarations }];
        body.toolConfig = { functionCallingConfig: { mode: 'ANY' } };
      }
      if (system.length > 0) body.systemInstruction = { role: 'user', parts: [{ text: system }] };
      const config: Record<string, unknown> = {};
      const maxTokens = request.sampling?.maxTokens ?? o.maxTokens ?? request.maxTokens;
      if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
      const temperature = request.sampling?.temperature ?? o.temperature;
      if (temperature !== undefined) config.temperature = temperature;
      if (request.sampling?.seed !== undefined) config.seed = request.sampling.seed;
      if (o.structured !== 'none' && !tools) config.responseMimeType = 'application/json';
      if (o.structured === 'schema' && !tools) config.responseJsonSchema = request.wireSchema;
      body.generationConfig = config;
      const stream = o.stream !== false;
      const url = stream ? `${base}:streamGenerateContent?alt=sse` : `${base}:generateContent`;
      return jsonPost(url, body, { auth, stream, maxTokens });
    },
    stream: { framing: 'sse', decoder: (request) => geminiStream(`${base}:streamGenerateContent?alt=sse`, o.model, answerFor(request)) },
    decode(res, request): InferReply {
      const url = `${base}:generateContent`;
      if (res.status < 200 || res.status >= 300) throw geminiHttpError(url, res);
      const j = parseBody(SERVICE, url, res);
      const acc = new Reply(url, o.model, answerFor(request));
      acc.add(j);
      return acc.reply(res.status);
    },
  };
}

/** The answer function's name when the request offers tools (else no function is the answer). */
function answerFor(request: InferRequest): string | undefined {
  return offersTools(request) ? answerToolName(request, ANSWER) : undefined;
}

/** An earlier round as contents: a `model` turn of the text and `functionCall` parts, a `user` turn of `functionResponse` parts. */
function roundContents(round: ToolRound): unknown[] {
  const idOf = (id: string) => (id.startsWith(LOCAL_ID) ? {} : { id });
  const calls = round.calls.map((c) => ({
    functionCall: { ...idOf(c.id), name: c.name, args: isObject(c.arguments) ? c.arguments : {} },
    ...(c.signature ? { thoughtSignature: c.signature } : {}),
  }));
  const responses = round.results.map((r) => ({ functionResponse: { ...idOf(r.id), name: r.name, response: r.isError ? { error: r.content } : { output: r.content } } }));
  return [
    { role: 'model', parts: [...(round.text ? [{ text: round.text }] : []), ...calls] },
    { role: 'user', parts: responses },
  ];
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** httpError, with the wait of a 429's `google.rpc.RetryInfo` (`"retryDelay": "13s"`) when no header gives one. */
function geminiHttpError(url: string, res: HttpResult): ProviderError {
  const e = httpError(SERVICE, url, res);
  if (!e.retryable || e.retryAfterMs !== undefined) return e;
  try {
    const details = (JSON.parse(res.body) as { error?: { details?: { '@type'?: unknown; retryDelay?: unknown }[] } }).error?.details;
    const info = Array.isArray(details) ? details.find((d) => typeof d?.['@type'] === 'string' && d['@type'].endsWith('google.rpc.RetryInfo')) : undefined;
    const m = typeof info?.retryDelay === 'string' ? /^(\d{1,6})(\.\d{1,9})?s$/.exec(info.retryDelay) : null;
    if (m) return new ProviderError(e.message, true, e.status, Math.round(Number(m[1] + (m[2] ?? '')) * 1000));
  } catch {
    // not JSON: the error as it is
  }
  return e;
}

/** The pieces of one reply (a whole response, or the chunks of a stream) gathered into one. */
class Reply {
  text = '';
  finish?: string;
  usage?: InferReply['usage'];
  id?: unknown;
  served?: unknown;
  blocked?: string;
  chunks = 0;
  calls: ToolCallRequest[] = [];
  /** the answer function's arguments as JSON text, once it was called */
  answered?: string;
  status?: number;

  constructor(
    private readonly url: string,
    private readonly model: string,
    /** the answer function's name, when the request offers tools */
    private readonly answer?: string,
  ) {}

  /** Adds one GenerateContentResponse; returns the reply text it carries, or THINKING for a thought. */
  add(j: Record<string, unknown>): string | typeof THINKING | undefined {
    if (j.error) {
      const e = j.error as { message?: unknown; status?: unknown };
      throw new ProviderError(`${SERVICE} at ${this.url} reported an error: ${String(e.message ?? e.status ?? JSON.stringify(e).slice(0, 200))}`, false);
    }
    this.chunks++;
    this.id ??= j.responseId;
    this.served ??= j.modelVersion;
    const feedback = j.promptFeedback as { blockReason?: unknown } | undefined;
    if (typeof feedback?.blockReason === 'string') this.blocked = `the prompt was blocked (${feedback.blockReason})`;
    const u = j.usageMetadata as { promptTokenCount?: number; candidatesTokenCount?: number; cachedContentTokenCount?: number; thoughtsTokenCount?: number } | undefined;
    if (u && (typeof u.promptTokenCount === 'number' || typeof u.candidatesTokenCount === 'number')) {
      // thinking tokens are billed as output
      const out = (u.candidatesTokenCount ?? 0) + (u.thoughtsTokenCount ?? 0);
      this.usage = { inputTokens: u.promptTokenCount, outputTokens: out };
      if (typeof u.cachedContentTokenCount === 'number') this.usage.cachedTokens = u.cachedContentTokenCount;
    }
    const candidate = Array.isArray(j.candidates) ? (j.candidates[0] as { content?: { parts?: unknown }; finishReason?: unknown } | undefined) : undefined;
    if (!candidate) return undefined;
    if (typeof candidate.finishReason === 'string' && candidate.finishReason !== 'FINISH_REASON_UNSPECIFIED') this.finish = candidate.finishReason;
    let piece = '';
    let thought = false;
    const parts = candidate.content?.parts;
    if (Array.isArray(parts)) {
      for (const p of parts as { text?: unknown; thought?: unknown; functionCall?: { id?: unknown; name?: unknown; args?: unknown }; thoughtSignature?: unknown }[]) {
        if (p?.functionCall && typeof p.functionCall === 'object') {
          const added = this.call(p.functionCall, p.thoughtSignature);
          if (added) piece += added;
          else thought = true; // a call of the program's tools: generation, not the reply's text
          continue;
        }
        if (typeof p?.text !== 'string') continue;
        if (p.thought === true) thought = true;
        else piece += p.text;
      }
    }
    this.text += piece;
    return piece !== '' ? piece : thought ? THINKING : undefined;
  }

  /** A `functionCall` part: the answer (its JSON text, returned as the reply's text) or a call of the program's tools. */
  private call(fc: { id?: unknown; name?: unknown; args?: unknown }, signature: unknown): string | undefined {
    const origin: Origin = { service: SERVICE, url: this.url, status: this.status };
    const name = str(fc.name, '');
    if (this.answer !== undefined && name === this.answer) {
      const text = answerText(origin, fc.args ?? {});
      this.answered = (this.answered ?? '') + text;
      return text;
    }
    if (this.calls.length >= MAX_TOOL_CALLS) throw new ProviderError(`${SERVICE} at ${this.url} sent more than ${MAX_TOOL_CALLS} tool calls in one reply`, false, this.status);
    const call = callFromValue(origin, str(fc.id, `${LOCAL_ID}${this.calls.length}`), name, fc.args);
    if (typeof signature === 'string' && signature !== '' && signature.length <= MAX_TOOL_ARGUMENT_BYTES) call.signature = signature;
    this.calls.push(call);
    return undefined;
  }

  reply(status: number): InferReply {
    this.status = status;
    if (this.blocked) throw new ProviderError(`${SERVICE} at ${this.url} did not answer: ${this.blocked}`, false, status);
    if (this.finish && BLOCKED.has(this.finish)) throw new ProviderError(`${SERVICE} at ${this.url} withheld the reply (finishReason ${this.finish})`, false, status);
    // the answer function's arguments are the reply; beside calls, the text is what the model said with them
    const reply: InferReply = { text: this.answered ?? this.text, meta: { model: this.served ?? this.model, status, ...(this.id ? { requestId: this.id } : {}) } };
    if (this.calls.length > 0) reply.toolCalls = checkCalls({ service: SERVICE, url: this.url, status }, this.calls);
    if (this.finish === 'MAX_TOKENS') reply.finishReason = 'length';
    else if (reply.toolCalls) reply.finishReason = 'tool_calls';
    else if (this.finish) reply.finishReason = this.finish.toLowerCase();
    if (this.usage) reply.usage = this.usage;
    return reply;
  }
}

/** Reads streamGenerateContent's server-sent events: each a GenerateContentResponse; the last carries finishReason and usage. */
function geminiStream(url: string, model: string, answer: string | undefined): StreamDecoder {
  const acc = new Reply(url, model, answer);
  return {
    push(data) {
      let j: Record<string, unknown>;
      try {
        j = JSON.parse(data) as Record<string, unknown>;
      } catch {
        throw new ProviderError(`${SERVICE} at ${url} sent a stream event that is not JSON: ${data.slice(0, 80)}`);
      }
      if (!j || typeof j !== 'object' || Array.isArray(j)) throw new ProviderError(`${SERVICE} at ${url} sent a stream event that is not an object: ${data.slice(0, 80)}`);
      return acc.add(j);
    },
    finish(status, stoppedByHost) {
      // the last chunk has a finishReason (or a blocked prompt): a stream with neither was cut short
      if (!acc.finish && !acc.blocked && !stoppedByHost) throw new ProviderError(`the stream from ${SERVICE} at ${url} ended early: it closed without a finishReason, so the reply is incomplete`, false, status);
      return acc.reply(status);
    },
  };
}
