// Google Gemini (`gemini:MODEL`): the Gemini API's generateContent, or streamGenerateContent with
// `alt=sse`, at `{base_url}/v1beta/models/{MODEL}:…`, the key in `x-goog-api-key` (GEMINI_API_KEY).
// Structured output: `responseMimeType: application/json` with the full wire schema as
// `responseJsonSchema` (JSON Schema as Turn writes it: `$ref`/`$defs`, `anyOf`, `additionalProperties`,
// `enum`, bounds — not the OpenAPI-subset `responseSchema`, which takes neither `$ref` nor
// `additionalProperties`); the reply is validated locally in full, as for every provider. The system
// text goes as `systemInstruction`, the turns as `contents` (`user` / `model`). Usage comes from
// `usageMetadata`; `seed` is sent in `generationConfig` (best effort: Google does not promise equal
// replies). A thought part (`thought: true`) is generation, not the reply.
import type { InferReply, InferRequest } from '../infer/types.js';
import { httpError, parseBody } from './http-errors.js';
import { chatTurns } from './messages.js';
import { geminiParts } from './media-parts.js';
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

export function geminiProvider(o: GeminiOptions): HttpProvider {
  if (!/^[A-Za-z0-9._-]+$/.test(o.model)) throw new ModelConfigError(`\`gemini:${o.model}\`: a model name has only letters, digits, '.', '_' and '-'`);
  const base = `${o.baseUrl.replace(/\/+$/, '')}/v1beta/models/${o.model}`;
  const auth: AuthSpec = { env: o.apiKeyEnv, header: 'x-goog-api-key', prefix: '', required: true };
  return {
    kind: 'http',
    name: `gemini:${o.model}`,
    keyEnv: o.apiKeyEnv,
    encode(request: InferRequest) {
      const { system, turns } = chatTurns(request);
      const body: Record<string, unknown> = {
        contents: turns.map((t, i) => ({ role: t.role === 'assistant' ? 'model' : 'user', parts: i === 0 ? geminiParts(request, t.content, SERVICE) : [{ text: t.content }] })),
      };
      if (system.length > 0) body.systemInstruction = { role: 'user', parts: [{ text: system }] };
      const config: Record<string, unknown> = {};
      const maxTokens = request.sampling?.maxTokens ?? o.maxTokens ?? request.maxTokens;
      if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
      const temperature = request.sampling?.temperature ?? o.temperature;
      if (temperature !== undefined) config.temperature = temperature;
      if (request.sampling?.seed !== undefined) config.seed = request.sampling.seed;
      if (o.structured !== 'none') config.responseMimeType = 'application/json';
      if (o.structured === 'schema') config.responseJsonSchema = request.wireSchema;
      body.generationConfig = config;
      const stream = o.stream !== false;
      const url = stream ? `${base}:streamGenerateContent?alt=sse` : `${base}:generateContent`;
      return jsonPost(url, body, { auth, stream, maxTokens });
    },
    stream: { framing: 'sse', decoder: () => geminiStream(`${base}:streamGenerateContent?alt=sse`, o.model) },
    decode(res): InferReply {
      const url = `${base}:generateContent`;
      if (res.status < 200 || res.status >= 300) throw geminiHttpError(url, res);
      const j = parseBody(SERVICE, url, res);
      const acc = new Reply(url, o.model);
      acc.add(j);
      return acc.reply(res.status);
    },
  };
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

  constructor(
    private readonly url: string,
    private readonly model: string,
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
      for (const p of parts as { text?: unknown; thought?: unknown }[]) {
        if (typeof p?.text !== 'string') continue;
        if (p.thought === true) thought = true;
        else piece += p.text;
      }
    }
    this.text += piece;
    return piece !== '' ? piece : thought ? THINKING : undefined;
  }

  reply(status: number): InferReply {
    if (this.blocked) throw new ProviderError(`${SERVICE} at ${this.url} did not answer: ${this.blocked}`, false, status);
    if (this.finish && BLOCKED.has(this.finish)) throw new ProviderError(`${SERVICE} at ${this.url} withheld the reply (finishReason ${this.finish})`, false, status);
    const reply: InferReply = { text: this.text, meta: { model: this.served ?? this.model, status, ...(this.id ? { requestId: this.id } : {}) } };
    if (this.finish === 'MAX_TOKENS') reply.finishReason = 'length';
    else if (this.finish) reply.finishReason = this.finish.toLowerCase();
    if (this.usage) reply.usage = this.usage;
    return reply;
  }
}

/** Reads streamGenerateContent's server-sent events: each a GenerateContentResponse; the last carries finishReason and usage. */
function geminiStream(url: string, model: string): StreamDecoder {
  const acc = new Reply(url, model);
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
