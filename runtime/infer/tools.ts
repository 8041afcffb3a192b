// Native tool calls (issue 42): what an `infer T with { tools: [...] }` offers the model, how a
// call the model makes is checked before anything runs, and how a result is told back. Pure: the
// VM (runtime/vm/tool-loop.ts) runs the calls as processes; the driver (driver.ts) asks the model.
// Everything here reads outside data (a model's reply), so every size and depth is bounded first.
import { validatorFor } from './compiled.js';
import type { JsonSchema } from './schema.js';
import type { ToolCallRequest, ToolOffer, ToolResult } from './types.js';
import { formatIssue, issues as validationIssues } from './validate.js';
import { nestedDeeperThan } from '../values/index.js';

/** A wire name every provider accepts (the strictest rule, OpenAI's and Anthropic's). Linear: a character class and a length. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
/** Names a provider already uses for the final typed answer (anthropic.ts, bedrock.ts force a tool of this name). */
export const RESERVED_TOOL_NAMES: ReadonlySet<string> = new Set(['turn_reply']);
/** The most tools one infer offers. */
export const MAX_TOOLS = 64;
/** The most bytes of one tool's parameters schema as JSON (a provider would refuse a bigger one, or bill it every round). */
export const MAX_TOOL_SCHEMA_BYTES = 32 * 1024;
/** The most bytes of one call's arguments as JSON, and their deepest nesting. */
export const MAX_TOOL_ARGUMENT_BYTES = 256 * 1024;
export const MAX_TOOL_ARGUMENT_DEPTH = 64;
/** The most bytes of one result the model is told (the rest is cut, with a note saying so). */
export const MAX_TOOL_RESULT_BYTES = 16 * 1024;
/** Default bounds of the loop: model rounds that call tools, and calls in one reply (infer options max_tool_rounds, max_tool_calls). */
export const DEFAULT_MAX_TOOL_ROUNDS = 8;
export const DEFAULT_MAX_TOOL_CALLS = 16;

/** A tool that cannot be offered: the message names it and says why (the VM locates it at the infer). */
export class ToolOfferError extends Error {}

/** Refuses a set of offers a provider would refuse or could not tell apart. */
export function checkOffers(offers: readonly ToolOffer[]): void {
  if (offers.length > MAX_TOOLS) throw new ToolOfferError(`an infer offers at most ${MAX_TOOLS} tools, got ${offers.length}`);
  const seen = new Set<string>();
  for (const o of offers) {
    if (!TOOL_NAME_PATTERN.test(o.name)) {
      throw new ToolOfferError(`the tool name ${JSON.stringify(o.name.length > 80 ? o.name.slice(0, 80) + '…' : o.name)} cannot be sent: a tool name is 1 to 64 letters, digits, _ or -`);
    }
    if (RESERVED_TOOL_NAMES.has(o.name)) throw new ToolOfferError(`the tool name ${o.name} is the one providers use for the final answer: rename the function`);
    if (seen.has(o.name)) throw new ToolOfferError(`two tools are named ${o.name}: a model could not tell them apart (rename one)`);
    seen.add(o.name);
    const bytes = JSON.stringify(o.parameters).length;
    if (bytes > MAX_TOOL_SCHEMA_BYTES) throw new ToolOfferError(`the parameters schema of the tool ${o.name} is ${bytes} bytes, over the ${MAX_TOOL_SCHEMA_BYTES} a tool may send`);
  }
}

/** A call checked against the offers: its arguments as an object, or the error result the model is told instead. */
export type CheckedCall = { ok: true; offer: ToolOffer; args: Record<string, unknown> } | { ok: false; result: ToolResult };

/** Checks one call the model made: an offered tool, JSON arguments within bounds, valid against its schema. Never throws on the model's data. */
export function checkCall(call: ToolCallRequest, offers: ReadonlyMap<string, ToolOffer>): CheckedCall {
  const fail = (message: string): CheckedCall => ({ ok: false, result: { id: call.id, name: call.name, content: message, isError: true } });
  const offer = typeof call.name === 'string' && offers.has(call.name) ? offers.get(call.name)! : undefined;
  if (!offer) {
    const shown = String(call.name).slice(0, 80);
    return fail(`no tool named ${JSON.stringify(shown)} is offered (the tools: ${[...offers.keys()].join(', ')})`);
  }
  if (call.argumentsText !== undefined) {
    return fail(`the arguments are not JSON (${Math.min(call.argumentsText.length, MAX_TOOL_ARGUMENT_BYTES)}${call.argumentsText.length > MAX_TOOL_ARGUMENT_BYTES ? '+' : ''} characters): call ${offer.name} again with a JSON object`);
  }
  const args = call.arguments ?? {};
  // depth first: measuring bytes with JSON.stringify would recurse through a deep value
  if (nestedDeeperThan(args, MAX_TOOL_ARGUMENT_DEPTH)) return fail(`the arguments nest more than ${MAX_TOOL_ARGUMENT_DEPTH} levels deep`);
  const bytes = JSON.stringify(args).length;
  if (bytes > MAX_TOOL_ARGUMENT_BYTES) return fail(`the arguments are ${bytes} bytes, over the ${MAX_TOOL_ARGUMENT_BYTES} a call may send`);
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return fail(`the arguments of ${offer.name} must be a JSON object`);
  const problems = validationIssues(offer.parameters, args, '');
  if (problems) return fail(`the arguments do not match the tool's schema: ${problems.slice(0, 5).map(formatIssue).join('; ')}`);
  return { ok: true, offer, args: args as Record<string, unknown> };
}

/** The most characters of a call's id or tool name kept (a model may send anything there). */
const MAX_CALL_FIELD = 256;

/**
 * A call as the loop keeps it (in its round, the journal, the next request, the events): its id and
 * name bounded, and arguments too deep or too big to send back replaced by a short note, so that a
 * hostile call costs the same as a refused one from then on.
 */
export function keptCall(call: ToolCallRequest): ToolCallRequest {
  const id = String(call.id ?? '').slice(0, MAX_CALL_FIELD);
  const name = String(call.name ?? '').slice(0, MAX_CALL_FIELD);
  if (call.argumentsText !== undefined) return { id, name, arguments: null, argumentsText: bounded(call.argumentsText, 1024) };
  const args = call.arguments ?? {};
  if (nestedDeeperThan(args, MAX_TOOL_ARGUMENT_DEPTH)) return { id, name, arguments: null, argumentsText: `(arguments nested more than ${MAX_TOOL_ARGUMENT_DEPTH} levels: not kept)` };
  const bytes = JSON.stringify(args).length;
  if (bytes > MAX_TOOL_ARGUMENT_BYTES) return { id, name, arguments: null, argumentsText: `(arguments of ${bytes} bytes: not kept)` };
  return id === call.id && name === call.name ? call : { ...call, id, name };
}

/** A value's JSON text for the model, at most MAX_TOOL_RESULT_BYTES (cut with a note). The text is data, never a grant. */
export function resultText(json: unknown, limit = MAX_TOOL_RESULT_BYTES): string {
  const text = typeof json === 'string' ? json : (JSON.stringify(json) ?? 'null');
  return bounded(text, limit);
}

/** `text` cut to `limit` characters with a note saying how much was left out. */
export function bounded(text: string, limit = MAX_TOOL_RESULT_BYTES): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}… [cut: the result is ${text.length} characters; the first ${limit} are shown]`;
}

/** Whether a schema compiles (an absorbed spec's may not): the message of why not, else undefined. */
export function schemaProblem(schema: JsonSchema): string | undefined {
  try {
    validatorFor(schema);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}
