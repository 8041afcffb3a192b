// AWS Bedrock (`bedrock:MODEL_ID`): the Converse API, `POST {base}/model/{MODEL_ID}/converse`, or
// with `stream=1` (default) `/converse-stream`, whose reply is AWS's binary event stream
// (frames.ts). Signed with SigV4 by the host at the moment it sends (sigv4.ts), with the
// credentials of the environment variables the spec names (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN), never seen by this module. Structured output is Bedrock's own way, a forced
// tool (`toolChoice: {tool: {name}}`) whose `inputSchema.json` is the full wire schema and whose input
// is the reply envelope, as for Anthropic; `structured=prompt` sends no tool (for models whose
// Converse support has no forced tool choice) and relies on the schema in the prompt. Converse
// takes no seed.
import type { InferReply, InferRequest } from '../infer/types.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../values/index.js';
import { httpError, parseBody } from './http-errors.js';
import { chatTurns } from './messages.js';
import { bedrockContent } from './media-parts.js';
import { jsonPost, ProviderError, THINKING, type HttpProvider, type HttpResult, type SigV4Auth, type StreamDecoder } from './types.js';

const SERVICE = 'AWS Bedrock';
export const BEDROCK_TOOL = 'turn_reply';

export interface BedrockOptions {
  /** a model id (`anthropic.claude-3-5-sonnet-20240620-v1:0`), an inference profile or an ARN */
  model: string;
  region: string;
  /** default `https://bedrock-runtime.{region}.amazonaws.com` */
  baseUrl?: string;
  accessKeyEnv: string;
  secretKeyEnv: string;
  sessionTokenEnv: string;
  structured: 'tool' | 'prompt';
  maxTokens?: number;
  temperature?: number;
  stream?: boolean;
}

export function bedrockProvider(o: BedrockOptions): HttpProvider {
  const root = (o.baseUrl ?? `https://bedrock-runtime.${o.region}.amazonaws.com`).replace(/\/+$/, '');
  // the id is one path segment: `:` and `/` (an ARN) are escaped, so it cannot reach another path
  const base = `${root}/model/${encodeURIComponent(o.model)}`;
  const auth: SigV4Auth = { kind: 'sigv4', service: 'bedrock', region: o.region, accessKeyEnv: o.accessKeyEnv, secretKeyEnv: o.secretKeyEnv, sessionTokenEnv: o.sessionTokenEnv };
  return {
    kind: 'http',
    name: `bedrock:${o.model}`,
    keyEnv: o.accessKeyEnv,
    secretEnvs: [o.secretKeyEnv, o.sessionTokenEnv],
    seed: 'none',
    encode(request: InferRequest) {
      const { system, turns } = chatTurns(request);
      const body: Record<string, unknown> = { messages: turns.map((t, i) => ({ role: t.role, content: i === 0 ? bedrockContent(request, t.content, SERVICE) : [{ text: t.content }] })) };
      if (system.length > 0) body.system = [{ text: system }];
      const config: Record<string, unknown> = {};
      const maxTokens = request.sampling?.maxTokens ?? o.maxTokens ?? request.maxTokens;
      if (maxTokens !== undefined) config.maxTokens = maxTokens;
      const temperature = request.sampling?.temperature ?? o.temperature;
      if (temperature !== undefined) config.temperature = temperature;
      if (Object.keys(config).length > 0) body.inferenceConfig = config;
      if (o.structured === 'tool') {
        body.toolConfig = {
          tools: [
            {
              toolSpec: {
                name: BEDROCK_TOOL,
                description: `Give the answer: "value" is a ${request.typeName} that matches the schema, "confidence" (0 to 1) how likely it is right.`,
                inputSchema: { json: request.wireSchema },
              },
            },
          ],
          toolChoice: { tool: { name: BEDROCK_TOOL } },
        };
      }
      const stream = o.stream !== false;
      return jsonPost(`${base}/${stream ? 'converse-stream' : 'converse'}`, body, { auth, stream, streamAccept: 'application/vnd.amazon.eventstream', maxTokens });
    },
    stream: { framing: 'aws-eventstream', decoder: () => bedrockStream(`${base}/converse-stream`, o.model) },
    decode(res): InferReply {
      const url = `${base}/converse`;
      if (res.status < 200 || res.status >= 300) throw bedrockHttpError(url, res);
      const j = parseBody(SERVICE, url, res);
      const message = (j.output as { message?: { content?: unknown } } | undefined)?.message;
      if (!message || !Array.isArray(message.content)) throw new ProviderError(`${SERVICE} at ${url} sent a reply without output.message.content`, false, res.status);
      const blocks = message.content as { text?: unknown; toolUse?: { name?: unknown; input?: unknown } }[];
      const tool = blocks.find((b) => b?.toolUse?.name === BEDROCK_TOOL)?.toolUse;
      let text: string;
      if (tool) {
        // a JSON value from the wire: JSON.stringify recurses, so a hostile depth is refused first
        if (nestedDeeperThan(tool.input, MAX_JSON_DEPTH)) throw new ProviderError(`${SERVICE} at ${url} sent a tool input nested more than ${MAX_JSON_DEPTH} levels deep`, false, res.status);
        text = JSON.stringify(tool.input ?? null);
      } else text = blocks.map((b) => (typeof b?.text === 'string' ? b.text : '')).join('');
      const reply: InferReply = { text, meta: { model: o.model, status: res.status, ...(res.headers['x-amzn-requestid'] ? { requestId: res.headers['x-amzn-requestid'] } : {}) } };
      setStop(reply, j.stopReason, url, res.status);
      const usage = usageOf(j.usage);
      if (usage) reply.usage = usage;
      return reply;
    },
  };
}

/** Bedrock's errors: the type in `x-amzn-errortype` (ThrottlingException, ValidationException, …), the text in `message`. */
function bedrockHttpError(url: string, res: HttpResult): ProviderError {
  const e = httpError(SERVICE, url, res);
  const type = (res.headers['x-amzn-errortype'] ?? '').split(':')[0];
  return type ? new ProviderError(`${e.message} (${type})`, e.retryable, e.status, e.retryAfterMs) : e;
}

function usageOf(u: unknown): InferReply['usage'] | undefined {
  const v = u as { inputTokens?: unknown; outputTokens?: unknown; cacheReadInputTokens?: unknown } | undefined;
  if (!v || (typeof v.inputTokens !== 'number' && typeof v.outputTokens !== 'number')) return undefined;
  const usage: NonNullable<InferReply['usage']> = {};
  if (typeof v.inputTokens === 'number') usage.inputTokens = v.inputTokens;
  if (typeof v.outputTokens === 'number') usage.outputTokens = v.outputTokens;
  if (typeof v.cacheReadInputTokens === 'number') usage.cachedTokens = v.cacheReadInputTokens;
  return usage;
}

/** The stop reason as a finish reason; a guardrail or content filter withheld the reply. */
function setStop(reply: InferReply, stop: unknown, url: string, status: number): void {
  if (stop === 'guardrail_intervened' || stop === 'content_filtered') throw new ProviderError(`${SERVICE} at ${url} withheld the reply (stopReason ${stop})`, false, status);
  if (stop === 'max_tokens') reply.finishReason = 'length';
  else if (typeof stop === 'string') reply.finishReason = stop;
}

/** Exceptions a ConverseStream may send as an event, and whether a resend could help (it cannot mid-reply: the transport never resends then). */
function streamException(type: string, data: string, url: string): ProviderError {
  let message = data.slice(0, 200);
  try {
    const j = JSON.parse(data) as { message?: unknown; Message?: unknown };
    message = String(j.message ?? j.Message ?? message);
  } catch {
    // the payload as text
  }
  return new ProviderError(`${SERVICE} at ${url} reported ${type} mid-stream: ${message}`, false, type === 'throttlingException' ? 429 : undefined);
}

/**
 * Reads ConverseStream's events (each an event-stream message; frames.ts gives its payload and
 * `:event-type`): `messageStart`, `contentBlockStart` (the forced tool), `contentBlockDelta` (the
 * tool's input as JSON pieces, or text; reasoning is generation), `contentBlockStop`, `messageStop`
 * (the stop reason), `metadata` (usage). An exception message fails the call; a stream without
 * `messageStop` ended early.
 */
function bedrockStream(url: string, model: string): StreamDecoder {
  const blocks: { tool?: string; text: string }[] = [];
  let stop: unknown;
  let usage: InferReply['usage'];
  return {
    push(data, event) {
      if (event?.startsWith('exception:') || event?.startsWith('error:')) throw streamException(event.slice(event.indexOf(':') + 1), data, url);
      let j: Record<string, unknown>;
      try {
        j = JSON.parse(data) as Record<string, unknown>;
      } catch {
        throw new ProviderError(`${SERVICE} at ${url} sent a ${event ?? 'stream'} event that is not JSON: ${data.slice(0, 80)}`);
      }
      const index = typeof j.contentBlockIndex === 'number' && j.contentBlockIndex >= 0 && j.contentBlockIndex < 1024 ? j.contentBlockIndex : 0;
      if (event === 'contentBlockStart') {
        const name = (j.start as { toolUse?: { name?: unknown } } | undefined)?.toolUse?.name;
        blocks[index] = { ...(typeof name === 'string' ? { tool: name } : {}), text: '' };
      } else if (event === 'contentBlockDelta') {
        const d = j.delta as { text?: unknown; toolUse?: { input?: unknown }; reasoningContent?: unknown } | undefined;
        if (d?.reasoningContent !== undefined) return THINKING;
        const piece = typeof d?.toolUse?.input === 'string' ? d.toolUse.input : typeof d?.text === 'string' ? d.text : '';
        const b = (blocks[index] ??= { text: '' });
        b.text += piece;
        return piece || undefined;
      } else if (event === 'messageStop') {
        stop = j.stopReason ?? 'end_turn';
      } else if (event === 'metadata') {
        usage = usageOf(j.usage);
      }
      return undefined;
    },
    finish(status, stoppedByHost) {
      if (stop === undefined && !stoppedByHost) throw new ProviderError(`the stream from ${SERVICE} at ${url} ended early: it closed without messageStop, so the reply is incomplete`, false, status);
      const tool = blocks.find((b) => b?.tool === BEDROCK_TOOL);
      const text = tool ? (tool.text.trim() === '' ? '{}' : tool.text) : blocks.filter((b) => b && !b.tool).map((b) => b.text).join('');
      const reply: InferReply = { text, meta: { model, status } };
      setStop(reply, stop, url, status);
      if (usage) reply.usage = usage;
      return reply;
    },
  };
}
