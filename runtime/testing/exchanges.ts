// A run's model exchanges, read from its event stream (runtime/events): each `infer.request` gives
// the request as rendered (context tiers, task, schema) and each `infer.reply` / `infer.error` its
// answer. From them this rebuilds the durable journal's input of the step, whose hash is the
// request's fingerprint (cassette.ts), so a test records and replays without touching the host.
import type { RunEvent } from '../events/index.js';
import { SCHEMA_DIALECT } from '../infer/schema.js';
import { taskText } from '../infer/prompt.js';
import type { JsonSchema } from '../infer/schema.js';
import type { ToolRound } from '../infer/types.js';
import { fingerprint, type Exchange, type Feedback, type RecordedReply, type RecordedRequest } from './cassette.js';

type RequestEvent = Extract<RunEvent, { kind: 'infer.request' }>;
type ReplyEvent = Extract<RunEvent, { kind: 'infer.reply' }>;

/** A request as the cassette holds it, with its fingerprint. */
export interface SeenRequest {
  fingerprint: string;
  type: string;
  attempt: number;
  pid: number;
  request: RecordedRequest;
  schema: unknown;
}

/** The program's prompt: the task text minus the reply format taskText (runtime/infer/prompt.ts) adds after it. */
function promptOf(task: string, type: string, wire: JsonSchema): string {
  const suffix = taskText('', type, wire);
  if (!task.endsWith(suffix)) return task;
  const rest = task.slice(0, task.length - suffix.length);
  return rest.endsWith('\n\n') ? rest.slice(0, -2) : rest;
}

export class ExchangeLog {
  /** the completed exchanges, in the order their replies came */
  readonly exchanges: (Exchange & { latencyMs: number; confidence: number | null; valid: boolean })[] = [];
  private readonly pending = new Map<string, SeenRequest>();
  private readonly feedback = new Map<string, Feedback[]>();
  private readonly feedbackKeys = new Map<string, string>();
  /**
   * per process, its last reply that called tools, whose calls the next round's request carries
   * (each round is an infer of its own id; a process asks one at a time, so its next ask is that round's)
   */
  private readonly toolReplies = new Map<number, Extract<RecordedReply, { text: string }>>();

  /** Records the calls a tool-calling reply made, from the round the next ask carries. */
  private fillToolCalls(pid: number, round: ToolRound): void {
    const reply = this.toolReplies.get(pid);
    if (!reply) return;
    this.toolReplies.delete(pid);
    reply.tool_calls = round.calls.map((c) => ({
      id: c.id,
      name: c.name,
      ...(c.argumentsText !== undefined ? { arguments_text: c.argumentsText } : { arguments: c.arguments }),
    }));
  }

  /** The request an `infer.request` event describes. */
  request(e: RequestEvent): SeenRequest {
    const wire = e.schema as JsonSchema & { properties: { value: JsonSchema } };
    // the type's schema: the wire envelope's `value` with the dialect the compiler put first
    const schema = { $schema: SCHEMA_DIALECT, ...wire.properties.value };
    const prompt = promptOf(e.prompt.task, e.type, wire);
    const rounds = e.toolRounds ?? [];
    // each round of a tool loop is an ask of its own: its re-asks' feedback starts empty
    const feedbackKey = `${e.id}#${rounds.length}`;
    const feedback = this.feedback.get(feedbackKey) ?? [];
    // the calls the reply before this round made (the loop bounded them, as the journal keeps them)
    if (rounds.length > 0) this.fillToolCalls(e.pid, rounds[rounds.length - 1]);
    const tools = e.tools ? { tools: [...e.tools], toolRounds: rounds } : {};
    const seen: SeenRequest = {
      fingerprint: fingerprint({ typeName: e.type, schema, prompt, context: [...e.prompt.P0, ...e.prompt.P2, ...e.prompt.P1], attempt: e.attempt, feedback, ...(e.options ? { options: e.options } : {}), ...tools }),
      type: e.type,
      attempt: e.attempt,
      pid: e.pid,
      request: {
        system: [...e.prompt.P0], context: [...e.prompt.P2, ...e.prompt.P1], prompt, feedback: feedback.slice(),
        ...(e.options ? { options: { ...e.options } } : {}),
        ...(e.tools ? { tools: [...e.tools], tool_rounds: rounds } : {}),
      },
      schema,
    };
    this.feedbackKeys.set(`${e.id}/${e.attempt}`, feedbackKey);
    this.pending.set(`${e.id}/${e.attempt}`, seen);
    return seen;
  }

  /** Records the answer to a request; returns it with its request. */
  answer(e: ReplyEvent | Extract<RunEvent, { kind: 'infer.error' }>): (Exchange & { latencyMs: number }) | undefined {
    const seen = this.pending.get(`${e.id}/${e.attempt}`);
    if (!seen) return undefined;
    this.pending.delete(`${e.id}/${e.attempt}`);
    let reply: RecordedReply;
    let confidence: number | null = null;
    let valid = false;
    if (e.kind === 'infer.error') reply = { error: e.error };
    else {
      const text: Extract<RecordedReply, { text: string }> = { text: e.raw };
      // a confidence measured from log-probabilities replays as one token of that probability
      if (e.confidence?.source === 'logprobs') text.logprobs = [Math.log(Math.max(e.confidence.value, Number.MIN_VALUE))];
      if (e.usage && (e.usage.inputTokens !== undefined || e.usage.outputTokens !== undefined)) {
        text.usage = { ...(e.usage.inputTokens !== undefined ? { input: e.usage.inputTokens } : {}), ...(e.usage.outputTokens !== undefined ? { output: e.usage.outputTokens } : {}) };
      }
      if (e.finishReason) text.finish_reason = e.finishReason;
      const samples = sampleTexts(e.meta);
      if (samples) text.samples = samples;
      reply = text;
      confidence = e.confidence?.value ?? null;
      valid = e.valid;
      // a round of tool calls: the calls themselves are filled in from the next ask's rounds (fillToolCalls)
      if (e.toolCalls && e.toolCalls.length > 0) {
        text.tool_calls = e.toolCalls.map((name, i) => ({ id: `call_${i + 1}`, name }));
        this.toolReplies.set(e.pid, text);
      }
      const key = this.feedbackKeys.get(`${e.id}/${e.attempt}`) ?? e.id;
      if (!e.valid) this.feedback.set(key, [...(this.feedback.get(key) ?? []), { reply: e.raw, issues: e.errors.map((i) => ({ path: i.path, message: i.message })) }]);
    }
    const exchange = { fingerprint: seen.fingerprint, type: seen.type, attempt: seen.attempt, request: seen.request, schema: seen.schema, reply, latencyMs: e.latencyMs, confidence, valid };
    this.exchanges.push(exchange);
    return exchange;
  }

  /** Requests still waiting for their answer. */
  pendingCount(): number {
    return this.pending.size;
  }

  /** The recorded form (without the measurements). */
  recorded(): Exchange[] {
    return this.exchanges.map(({ fingerprint: f, type, attempt, request, schema, reply }) => ({ fingerprint: f, type, attempt, request, schema, reply }));
  }
}

/** The samples' texts of a self-consistent reply (`meta.samples`, runtime/infer/consistency.ts), in order. */
export function sampleTexts(meta: Record<string, unknown> | undefined): string[] | undefined {
  const samples = meta?.samples;
  if (!Array.isArray(samples) || samples.length === 0) return undefined;
  return samples.map((s) => (s && typeof s === 'object' && typeof (s as { text?: unknown }).text === 'string' ? (s as { text: string }).text : ''));
}
