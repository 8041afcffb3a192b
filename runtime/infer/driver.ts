// One `infer`, from the VM's point of view: ask the host (one model exchange per attempt), repair
// the reply, unwrap the envelope, validate against the type's schema, and re-ask with the
// validation errors a bounded number of times. A value is returned only if it conforms; otherwise
// a failure that becomes a catchable `InferError`. Every step is reported to the run's events.
import { renderPrompt, type Tiers } from '../context/render.js';
import { defaultMaxTokens } from './bounds.js';
import { calibrated, chooseConfidence, clamp, logprobConfidence, type ConfidenceInfo } from './confidence.js';
import { feedbackText, taskText, wireSchema } from './prompt.js';
import { fillLiterals, parseReply, rejectedExcerpt, rejectedIssues } from './repair.js';
import { resolve, validatorFor, withDefs } from './compiled.js';
import type { JsonSchema } from './schema.js';
import { optionsRecord, type InferOptions } from './options.js';
import type { Feedback, InferIO, InferReply, InferRequest, ToolCallRequest, ToolOffer, ToolRound, ValidationIssue } from './types.js';
import { DEFAULT_MAX_TOOL_CALLS, DEFAULT_MAX_TOOL_ROUNDS } from './tools.js';
import { formatIssue, issues as validationIssues } from './validate.js';
import type { RunEventBody } from '../events/index.js';
import { MAX_JSON_DEPTH, nestedDeeperThan, type MediaVal } from '../values/index.js';

export const DEFAULT_INFER_RETRIES = 2;

/** What the VM knows when it reaches an `infer`. */
export interface InferCall {
  typeName: string;
  schema: JsonSchema;
  prompt: string;
  pid: number;
  tiers: Tiers;
  /** the images and documents placed in the context and the prompt, in prompt order (std/media) */
  media?: MediaVal[];
  /** the infer's own `with { ... }` options (over the run's) */
  options?: InferOptions;
  /** native tool calls: what the infer offers the model (runtime/vm/tool-loop.ts runs the calls) */
  tools?: ToolOffer[];
  /** the rounds of the tool loop so far, oldest first */
  toolRounds?: ToolRound[];
}

/** A model round that called tools: the VM runs them and asks again (runtime/vm/tool-loop.ts). */
export interface InferToolsOutcome {
  ok: 'tools';
  calls: ToolCallRequest[];
  /** what the model wrote beside its calls */
  text?: string;
  attempts: number;
}

export type InferOutcome =
  | { ok: true; value: unknown; confidence: ConfidenceInfo; attempts: number }
  | { ok: false; message: string; details: InferFailure };

/** One model round of an infer that may offer tools: its outcome, or the calls it asked for. */
export type InferStepOutcome = InferOutcome | InferToolsOutcome;

export interface InferFailure {
  /** `budget`: the call would not fit in, or took the run past, a run-wide budget (`--max-model-tokens`): the run ends; `tools`: past max_tool_rounds or max_tool_calls */
  reason: 'invalid' | 'provider' | 'budget' | 'tools';
  typeName: string;
  attempts: number;
  /** the last raw reply (null when no reply came) */
  reply: string | null;
  issues: ValidationIssue[];
  status?: number;
}

export interface DriverOptions {
  retries?: number;
  emit?: (event: RunEventBody) => void;
  id: string;
}

export type AskModel = (request: InferRequest, io: InferIO) => Promise<InferReply>;

/** Interprets one reply: repairs, envelope, confidence, validation. Pure. */
export function interpret(
  schema: JsonSchema,
  reply: InferReply,
): { raw: string; value?: unknown; issues: ValidationIssue[]; repairs: string[]; confidence?: ConfidenceInfo } {
  const repairs: string[] = [];
  let raw: string;
  let value: unknown;
  let reported: number | undefined;
  if (typeof reply.text === 'string') {
    raw = reply.text;
    let text = raw;
    if (reply.finishReason === 'length') {
      // A grammar that does not bound a number lets a weak model write a confidence's digits
      // until the limit: a value complete before it is kept, the confidence dropped.
      const salvaged = beforeConfidence(raw);
      if (salvaged === undefined) {
        return {
          raw,
          issues: [{ path: '', message: 'the reply was cut off at the output token limit (finish_reason: length)' }],
          repairs,
        };
      }
      text = salvaged;
      repairs.push('the reply was cut off at the output token limit inside its confidence: kept the value, ignored the confidence');
    }
    const parsed = parseReply(text, schema.type === 'string');
    repairs.push(...parsed.repairs);
    if (!parsed.ok) return { raw, issues: [{ path: '', message: parsed.error! }], repairs };
    const j = parsed.value;
    if (isEnvelope(j)) {
      value = j.value;
      const c = j.confidence;
      if (typeof c === 'number' && Number.isFinite(c)) reported = c;
      else if (typeof c === 'string' && c.trim() !== '' && Number.isFinite(Number(c))) {
        reported = Number(c);
        repairs.push('read the confidence from a string');
      } else if (c !== undefined) {
        repairs.push(`ignored a confidence that is not a number (${JSON.stringify(c)})`);
      }
    } else {
      value = j;
      repairs.push('the reply was the bare value, not {"value", "confidence"}: used it as the value');
    }
  } else {
    value = reply.value;
    raw = safeJson(reply.value);
  }
  if (reported === undefined && typeof reply.confidence === 'number' && Number.isFinite(reply.confidence)) reported = reply.confidence;
  if (reported !== undefined && (reported < 0 || reported > 1)) {
    repairs.push(`clamped the confidence ${reported} to [0, 1]`);
    reported = clamp(reported);
  }
  // Before validation (recursive in places) and before the value is accepted and journaled: a
  // value deeper than Turn can serialize is an invalid reply, re-asked, then an InferError.
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) {
    return { raw, issues: [{ path: '/value', message: `the value is nested more than ${MAX_JSON_DEPTH} levels deep (a reply may nest at most ${MAX_JSON_DEPTH})` }], repairs };
  }
  let problems = validationIssues(schema, value, '/value');
  if (problems) {
    // a struct's discriminator left out (`"kind": "approve"`): filled in where only one value fits
    const filled = fillLiterals(schema, value, (m, v) => validatorFor(withDefs(schema, m))(v), (n) => resolve(schema, n));
    if (filled.repairs.length > 0) {
      value = filled.value;
      repairs.push(...filled.repairs);
      problems = validationIssues(schema, value, '/value');
    }
  }
  if (problems) return { raw, issues: problems, repairs };
  const lp = reply.logprobs && reply.logprobs.length > 0 ? logprobConfidence(reply.text, reply.logprobs) : null;
  return { raw, value, issues: [], repairs, confidence: calibrated(chooseConfidence(reported, lp, reply.agreement), reply.calibration) };
}

/** A cut-off envelope whose value is complete and whose `confidence` was being written: the envelope without it. */
function beforeConfidence(text: string): string | undefined {
  const m = /,\s*"confidence"\s*:\s*-?[0-9.eE+-]*\s*$/.exec(text);
  if (!m) return undefined;
  const head = text.slice(0, m.index).trimEnd();
  try {
    const j = JSON.parse(head + '}') as unknown;
    return isEnvelope(j) ? head + '}' : undefined;
  } catch {
    return undefined;
  }
}

function isEnvelope(j: unknown): j is { value: unknown; confidence?: unknown } {
  if (!j || typeof j !== 'object' || Array.isArray(j)) return false;
  const keys = Object.keys(j);
  return keys.includes('value') && keys.every((k) => k === 'value' || k === 'confidence');
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'undefined';
  } catch {
    return String(v);
  }
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** An infer without tools (calibration, tests): the value or the failure. */
export async function runInfer(call: InferCall, ask: AskModel, options: DriverOptions): Promise<InferOutcome> {
  const outcome = await runInferStep({ ...call, tools: undefined, toolRounds: undefined }, ask, options);
  if (outcome.ok === 'tools') throw new Error('an infer without tools asked for tool calls'); // runInferStep never does
  return outcome;
}

/** One round of an infer: asks, re-asks on an invalid reply, and returns the value, the failure, or (when it offers tools) the calls the model made. */
export async function runInferStep(call: InferCall, ask: AskModel, options: DriverOptions): Promise<InferStepOutcome> {
  const retries = Math.max(0, call.options?.retries ?? options.retries ?? DEFAULT_INFER_RETRIES);
  const written = optionsRecord(call.options);
  const emit = options.emit ?? (() => {});
  const wire = wireSchema(call.schema);
  const rendered = renderPrompt(call.tiers, taskText(call.prompt, call.typeName, wire));
  const context = [...call.tiers.system, ...call.tiers.episodic, ...call.tiers.working];
  const feedback: Feedback[] = [];
  const maxTokens = defaultMaxTokens(wire);
  let last: { raw: string; issues: ValidationIssue[] } | null = null;
  for (let attempt = 1; attempt <= retries + 1; attempt++) {
    const request: InferRequest = {
      id: options.id,
      pid: call.pid,
      typeName: call.typeName,
      schema: call.schema,
      wireSchema: wire,
      prompt: call.prompt,
      context,
      tiers: call.tiers,
      rendered,
      attempt,
      feedback: feedback.slice(),
      maxTokens,
      ...(call.media && call.media.length > 0 ? { media: call.media } : {}),
      ...(call.options ? { options: call.options } : {}),
      ...(call.tools && call.tools.length > 0 ? { tools: call.tools, toolRounds: call.toolRounds ?? [] } : {}),
    };
    const io: InferIO = { emit: (event) => emit(event.kind === 'infer.delta' ? { ...event, id: options.id, pid: call.pid, attempt } : { ...event, id: options.id, pid: call.pid }) };
    emit({
      kind: 'infer.request',
      id: options.id,
      pid: call.pid,
      type: call.typeName,
      attempt,
      prompt: { P0: call.tiers.system, P2: call.tiers.episodic, P1: call.tiers.working, task: rendered.task },
      feedback: feedback.map((f) => feedbackText(f)),
      prefix: { hash: rendered.prefixHash, bytes: rendered.prefixBytes },
      ...(call.media && call.media.length > 0 ? { media: call.media.map(String) } : {}),
      schema: wire,
      ...(written ? { options: written } : {}),
      ...(call.tools && call.tools.length > 0 ? { tools: call.tools.map((t) => t.name), toolRounds: call.toolRounds ?? [] } : {}),
    });
    const started = performance.now();
    let reply: InferReply;
    try {
      reply = await ask(request, io);
    } catch (e) {
      const latencyMs = round(performance.now() - started);
      const status = (e as { status?: unknown }).status;
      emit({ kind: 'infer.error', id: options.id, pid: call.pid, attempt, error: errorMessage(e), latencyMs });
      return {
        ok: false,
        message: `infer ${call.typeName}: the model call failed: ${errorMessage(e)}`,
        details: {
          reason: (e as { budgetExhausted?: unknown } | null | undefined)?.budgetExhausted === true ? 'budget' : 'provider',
          typeName: call.typeName,
          attempts: attempt,
          reply: last?.raw ?? null,
          issues: last?.issues ?? [],
          ...(typeof status === 'number' ? { status } : {}),
        },
      };
    }
    const latencyMs = round(performance.now() - started);
    const calls = call.tools && call.tools.length > 0 && Array.isArray(reply?.toolCalls) && reply.toolCalls.length > 0 ? reply.toolCalls : undefined;
    if (calls) {
      emit({
        kind: 'infer.reply', id: options.id, pid: call.pid, attempt, raw: reply.text ?? '', repairs: [], errors: [], valid: true, confidence: null,
        usage: reply.usage ?? null, finishReason: reply.finishReason ?? null, latencyMs, ...(reply.meta ? { meta: reply.meta } : {}),
        toolCalls: calls.map((c) => String(c.name).slice(0, 80)),
      });
      return toolRound(call, calls, reply.text, attempt);
    }
    const r = interpret(call.schema, reply ?? {});
    emit({
      kind: 'infer.reply',
      id: options.id,
      pid: call.pid,
      attempt,
      raw: r.raw,
      repairs: r.repairs,
      errors: r.issues,
      valid: r.issues.length === 0,
      confidence: r.confidence ?? null,
      usage: reply?.usage ?? null,
      finishReason: reply?.finishReason ?? null,
      latencyMs,
      ...(reply?.meta ? { meta: reply.meta } : {}),
    });
    if (r.issues.length === 0) {
      return { ok: true, value: r.value, confidence: r.confidence!, attempts: attempt };
    }
    last = { raw: r.raw, issues: r.issues };
    // the re-ask quotes the rejected reply bounded (head and tail) and its first problems: the whole
    // of a runaway reply would overflow the model's context (repair.ts, rejectedExcerpt)
    feedback.push({ reply: rejectedExcerpt(r.raw), issues: rejectedIssues(r.issues) });
    if (attempt <= retries) emit({ kind: 'infer.retry', id: options.id, pid: call.pid, attempt: attempt + 1, errors: r.issues });
  }
  const attempts = retries + 1;
  return {
    ok: false,
    message:
      `infer ${call.typeName}: the reply does not match the schema after ${attempts} attempt${attempts === 1 ? '' : 's'}: ` +
      last!.issues.map(formatIssue).join('; '),
    details: { reason: 'invalid', typeName: call.typeName, attempts, reply: last!.raw, issues: last!.issues },
  };
}

/** A reply that called tools, within the infer's bounds (max_tool_rounds, max_tool_calls): the VM runs them; past them, an InferError. */
function toolRound(call: InferCall, calls: ToolCallRequest[], text: string | undefined, attempts: number): InferStepOutcome {
  const maxRounds = call.options?.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS;
  const maxCalls = call.options?.maxToolCalls ?? DEFAULT_MAX_TOOL_CALLS;
  const done = call.toolRounds?.length ?? 0;
  const fail = (message: string): InferStepOutcome => ({
    ok: false,
    message: `infer ${call.typeName}: ${message}`,
    details: { reason: 'tools', typeName: call.typeName, attempts, reply: text ?? null, issues: [{ path: '', message }] },
  });
  if (calls.length > maxCalls) return fail(`the model made ${calls.length} tool calls in one reply, over max_tool_calls ${maxCalls}`);
  if (done >= maxRounds) return fail(`the model still called tools after ${done} round${done === 1 ? '' : 's'} (max_tool_rounds ${maxRounds})`);
  return { ok: 'tools', calls, ...(text ? { text } : {}), attempts };
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
