// AWS Bedrock (`bedrock:MODEL_ID`): the Converse API, `POST {base}/model/{MODEL_ID}/converse`, or
// with `stream=1` (default) `/converse-stream`, whose reply is AWS's binary event stream
// (frames.ts). Signed with SigV4 by the host at the moment it sends (sigv4.ts), with the
// credentials of the environment variables the spec names (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// AWS_SESSION_TOKEN), never seen by this module. Structured output is Bedrock's own way, a forced
// tool (`toolChoice: {tool: {name}}`) whose `inputSchema.json` is the full wire schema and whose input
// is the reply envelope, as for Anthropic; `structured=prompt` sends no tool (for models whose
// Converse support has no forced tool choice) and relies on the schema in the prompt. Converse
// takes no seed.
//
// Native tool calls: the infer's tools go as more `toolSpec`s beside the answer tool with
// `toolChoice: {any: {}}` (the model calls one of the program's tools, or the answer, which ends
// the loop; the answer tool is renamed when a program's tool has its name); with
// `structured=prompt`, only the program's tools, the model choosing (auto). Earlier rounds go back
// as an assistant message of `toolUse` blocks and a user message of `toolResult` blocks (`status:
// error` for a failed call); calls come as `toolUse` blocks, streamed as `contentBlockStart` (id
// and name) and `contentBlockDelta` pieces of the input per content block.
import type { InferReply, InferRequest, ToolRound } from '../infer/types.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../values/index.js';
import { httpError, parseBody } from './http-errors.js';
import { bedrockContent } from './media-parts.js';
import { answerToolDescription, answerToolName, callFromValue, checkCalls, offersTools, str, StreamedCalls, toolTurns, type Origin } from './tool-calls.js';
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
  /** the answer tool's name for a request (none with structured=prompt: the answer is text) */
  const answerFor = (request: InferRequest): string | undefined => (o.structured === 'tool' ? answerToolName(request, BEDROCK_TOOL) : undefined);
  const auth: SigV4Auth = { kind: 'sigv4', service: 'bedrock', region: o.region, accessKeyEnv: o.accessKeyEnv, secretKeyEnv: o.secretKeyEnv, sessionTokenEnv: o.sessionTokenEnv };
  return {
    kind: 'http',
    name: `bedrock:${o.model}`,
    keyEnv: o.accessKeyEnv,
    secretEnvs: [o.secretKeyEnv, o.sessionTokenEnv],
    seed: 'none',
    nativeTools: true,
    encode(request: InferRequest) {
      const { system, turns } = toolTurns(request);
      const body: Record<string, unknown> = {
        messages: turns.flatMap((t, i) => (t.role === 'round' ? roundMessages(t.round) : [{ role: t.role, content: i === 0 ? bedrockContent(request, t.content, SERVICE) : [{ text: t.content }] }])),
      };
      if (system.length > 0) body.system = [{ text: system }];
      const config: Record<string, unknown> = {};
      const maxTokens = request.sampling?.maxTokens ?? o.maxTokens ?? request.maxTokens;
      if (maxTokens !== undefined) config.maxTokens = maxTokens;
      const temperature = request.sampling?.temperature ?? o.temperature;
      if (temperature !== undefined) config.temperature = temperature;
      if (Object.keys(config).length > 0) body.inferenceConfig = config;
      const tools = (request.tools ?? []).map((t) => ({ toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.parameters } } }));
      if (o.structured === 'tool') {
        const answer = { toolSpec: { name: answerToolName(request, BEDROCK_TOOL), description: answerToolDescription(request), inputSchema: { json: request.wireSchema } } };
        body.toolConfig = { tools: [answer, ...tools], toolChoice: offersTools(request) ? { any: {} } : { tool: { name: answer.toolSpec.name } } };
      } else if (tools.length > 0) body.toolConfig = { tools };
      const stream = o.stream !== false;
      return jsonPost(`${base}/${stream ? 'converse-stream' : 'converse'}`, body, { auth, stream, streamAccept: 'application/vnd.amazon.eventstream', maxTokens });
    },
    stream: { framing: 'aws-eventstream', decoder: (request) => bedrockStream(`${base}/converse-stream`, o.model, answerFor(request)) },
    decode(res, request): InferReply {
      const url = `${base}/converse`;
      if (res.status < 200 || res.status >= 300) throw bedrockHttpError(url, res);
      const j = parseBody(SERVICE, url, res);
      const message = (j.output as { message?: { content?: unknown } } | undefined)?.message;
      if (!message || !Array.isArray(message.content)) throw new ProviderError(`${SERVICE} at ${url} sent a reply without output.message.content`, false, res.status);
      const blocks = message.content as { text?: unknown; toolUse?: { toolUseId?: unknown; name?: unknown; input?: unknown } }[];
      const answer = answerFor(request);
      const tool = answer === undefined ? undefined : blocks.find((b) => b?.toolUse?.name === answer)?.toolUse;
      const origin: Origin = { service: SERVICE, url, status: res.status };
      const calls = blocks.filter((b) => b?.toolUse && (answer === undefined || b.toolUse.name !== answer)).map((b, i) => callFromValue(origin, str(b.toolUse!.toolUseId, `call_${i}`), str(b.toolUse!.name, ''), b.toolUse!.input));
      let text: string;
      if (tool) {
        // a JSON value from the wire: JSON.stringify recurses, so a hostile depth is refused first
        if (nestedDeeperThan(tool.input, MAX_JSON_DEPTH)) throw new ProviderError(`${SERVICE} at ${url} sent a tool input nested more than ${MAX_JSON_DEPTH} levels deep`, false, res.status);
        text = JSON.stringify(tool.input ?? null);
      } else text = blocks.map((b) => (typeof b?.text === 'string' ? b.text : '')).join('');
      const reply: InferReply = { text, meta: { model: o.model, status: res.status, ...(res.headers['x-amzn-requestid'] ? { requestId: res.headers['x-amzn-requestid'] } : {}) } };
      if (calls.length > 0) reply.toolCalls = checkCalls(origin, calls);
      setStop(reply, j.stopReason, url, res.status);
      const usage = usageOf(j.usage);
      if (usage) reply.usage = usage;
      return reply;
    },
  };
}

/** An earlier round as Converse messages: the model's `toolUse` blocks, then the `toolResult` blocks. */
function roundMessages(round: ToolRound): unknown[] {
  const uses = round.calls.map((c) => ({ toolUse: { toolUseId: c.id, name: c.name, input: typeof c.arguments === 'object' && c.arguments !== null && !Array.isArray(c.arguments) ? c.arguments : {} } }));
  return [
    { role: 'assistant', content: [...(round.text ? [{ text: round.text }] : []), ...uses] },
    { role: 'user', content: round.results.map((r) => ({ toolResult: { toolUseId: r.id, content: [{ text: r.content }], ...(r.isError ? { status: 'error' } : {}) } })) },
  ];
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
  else if (reply.toolCalls) reply.finishReason = 'tool_calls';
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
function bedrockStream(url: string, model: string, answer: string | undefined): StreamDecoder {
  const blocks: { tool?: string; text: string }[] = [];
  let stop: unknown;
  let usage: InferReply['usage'];
  let status: number | undefined;
  const calls = new StreamedCalls(() => ({ service: SERVICE, url, status }));
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
        const use = (j.start as { toolUse?: { toolUseId?: unknown; name?: unknown } } | undefined)?.toolUse;
        if (use && (answer === undefined || use.name !== answer)) {
          calls.start(index, str(use.toolUseId, `call_${calls.size}`), str(use.name, ''));
          return THINKING;
        }
        blocks[index] = { ...(typeof use?.name === 'string' ? { tool: use.name } : {}), text: '' };
      } else if (event === 'contentBlockDelta') {
        const d = j.delta as { text?: unknown; toolUse?: { input?: unknown }; reasoningContent?: unknown } | undefined;
        if (d?.reasoningContent !== undefined) return THINKING;
        const piece = typeof d?.toolUse?.input === 'string' ? d.toolUse.input : typeof d?.text === 'string' ? d.text : '';
        if (calls.has(index)) {
          calls.append(index, piece);
          return THINKING; // a call's arguments: generation, not the reply's text
        }
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
    finish(httpStatus, stoppedByHost) {
      status = httpStatus;
      if (stop === undefined && !stoppedByHost) throw new ProviderError(`the stream from ${SERVICE} at ${url} ended early: it closed without messageStop, so the reply is incomplete`, false, status);
      const tool = answer === undefined ? undefined : blocks.find((b) => b?.tool === answer);
      const text = tool ? (tool.text.trim() === '' ? '{}' : tool.text) : blocks.filter((b) => b && !b.tool).map((b) => b.text).join('');
      const reply: InferReply = { text, meta: { model, status } };
      if (calls.size > 0) reply.toolCalls = calls.calls();
      setStop(reply, stop, url, status);
      if (usage) reply.usage = usage;
      return reply;
    },
  };
}
