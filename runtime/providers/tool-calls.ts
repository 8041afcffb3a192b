// Native tool calls on a provider's wire, the parts every provider shares (docs/inference.md, *Tool
// calls on each wire*): where the earlier rounds go in the conversation, the name of the typed
// answer's own tool when a provider forces one (Anthropic, Gemini, Bedrock), and the reading of the
// calls a model asked for — bounded, because a reply is hostile: at most MAX_TOOL_CALLS calls, each
// call's arguments at most MAX_TOOL_ARGUMENT_BYTES (a stream past it is refused at once, not read to
// its end), ids and names at most MAX_TOOL_ID_CHARS, no id twice. Arguments that are not JSON (or
// nest too deep) are kept as `argumentsText`: the loop answers that call with an error and the reply
// is not lost. A name the request did not offer is passed up as it came: the loop refuses it.
import type { InferRequest, ToolCallRequest, ToolRound } from '../infer/types.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../values/index.js';
import { chatTurns, type ChatTurn } from './messages.js';
import { ProviderError } from './types.js';

/** The most calls one reply may ask for. */
export const MAX_TOOL_CALLS = 64;
/** The most bytes of one call's arguments (as JSON text). */
export const MAX_TOOL_ARGUMENT_BYTES = 1024 * 1024;
/** The longest call id or tool name a reply may carry. */
export const MAX_TOOL_ID_CHARS = 256;

/** A turn of a conversation with tools: a chat turn, or a round of the tool loop (the model's calls, then their results). */
export type ToolTurn = ChatTurn | { role: 'round'; round: ToolRound };

/**
 * The conversation a provider sends when the infer offers tools: the user's turn, then the tool
 * loop's rounds in order, then the re-asks of rejected answers (which come after the loop ended).
 */
export function toolTurns(request: InferRequest): { system: string; turns: ToolTurn[] } {
  const { system, turns } = chatTurns(request);
  const rounds: ToolTurn[] = (request.toolRounds ?? []).map((round) => ({ role: 'round', round }));
  return { system, turns: [turns[0], ...rounds, ...turns.slice(1)] };
}

/** Whether the request offers tools (an empty list is none). */
export function offersTools(request: InferRequest): boolean {
  return (request.tools?.length ?? 0) > 0;
}

/**
 * The name of the tool that carries the typed answer: `base`, or `base_2`, `base_3`… when the
 * infer offers a tool of its own by that name — so the answer and a user's tool are never confused.
 * Encoding and decoding both derive it from the request, so they agree.
 */
export function answerToolName(request: InferRequest, base: string): string {
  const taken = new Set((request.tools ?? []).map((t) => t.name));
  if (!taken.has(base)) return base;
  for (let n = 2; ; n++) if (!taken.has(`${base}_${n}`)) return `${base}_${n}`;
}

/** The description of the answer tool (the same words on every wire that forces one). */
export function answerToolDescription(request: InferRequest): string {
  return `Give the answer: "value" is a ${request.typeName} that matches the schema, "confidence" (0 to 1) how likely it is right.`;
}

/** Where a reply came from, for the messages of the errors below. */
export interface Origin {
  service: string;
  url: string;
  status?: number;
}

function refuse(o: Origin, what: string): ProviderError {
  return new ProviderError(`${o.service} at ${o.url} sent ${what}`, false, o.status);
}

/** A call whose arguments came as JSON text (a stream's pieces joined, OpenAI's `arguments` string). */
export function callFromText(o: Origin, id: string, name: string, text: string): ToolCallRequest {
  if (Buffer.byteLength(text, 'utf8') > MAX_TOOL_ARGUMENT_BYTES) throw refuse(o, `a tool call (${name.slice(0, 64)}) whose arguments are over ${MAX_TOOL_ARGUMENT_BYTES} bytes`);
  if (text.trim() === '') return { id, name, arguments: {} }; // a call without arguments (Anthropic streams none for `{}`)
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { id, name, arguments: null, argumentsText: text };
  }
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) return { id, name, arguments: null, argumentsText: text };
  return { id, name, arguments: value };
}

/** A call whose arguments came already parsed (Anthropic's `input`, Gemini's `args`, Bedrock's `input`, Ollama's `arguments`). */
export function callFromValue(o: Origin, id: string, name: string, value: unknown): ToolCallRequest {
  if (typeof value === 'string') return callFromText(o, id, name, value); // a server that sends the arguments as a JSON string
  // measured before JSON.stringify, which recurses
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) throw refuse(o, `a tool call (${name.slice(0, 64)}) whose arguments nest more than ${MAX_JSON_DEPTH} levels deep`);
  const text = JSON.stringify(value ?? {});
  if (Buffer.byteLength(text, 'utf8') > MAX_TOOL_ARGUMENT_BYTES) throw refuse(o, `a tool call (${name.slice(0, 64)}) whose arguments are over ${MAX_TOOL_ARGUMENT_BYTES} bytes`);
  return { id, name, arguments: value ?? {} };
}

/** The answer tool's input as the reply's text: any size the reply bounds allow (it is the typed answer, not a call), but not nested past the JSON bound (JSON.stringify recurses). */
export function answerText(o: Origin, value: unknown): string {
  if (nestedDeeperThan(value, MAX_JSON_DEPTH)) throw refuse(o, `an answer nested more than ${MAX_JSON_DEPTH} levels deep`);
  return JSON.stringify(value ?? null);
}

/** Checks the calls of one reply: how many, the length of ids and names, no id twice. */
export function checkCalls(o: Origin, calls: ToolCallRequest[]): ToolCallRequest[] {
  if (calls.length > MAX_TOOL_CALLS) throw refuse(o, `${calls.length} tool calls in one reply, more than the ${MAX_TOOL_CALLS} a reply may ask for`);
  const ids = new Set<string>();
  for (const c of calls) {
    if (c.id.length > MAX_TOOL_ID_CHARS || c.name.length > MAX_TOOL_ID_CHARS) throw refuse(o, `a tool call whose id or name is over ${MAX_TOOL_ID_CHARS} characters`);
    if (ids.has(c.id)) throw refuse(o, `two tool calls with the same id (${c.id}): their results could not be told apart`);
    ids.add(c.id);
  }
  return calls;
}

/** A string field of a wire value, else `fallback` (a call without an id gets one from its place). */
export function str(v: unknown, fallback: string): string {
  return typeof v === 'string' && v !== '' ? v : fallback;
}

/**
 * The calls of a streamed reply, gathered piece by piece under a key (a content block's index, an
 * output item's index): bounded as the pieces come, so a hostile stream is refused at the bound, not
 * read to its end. `calls()` gives them in the order they started.
 */
export class StreamedCalls {
  private readonly open = new Map<number | string, { id: string; name: string; pieces: string[]; bytes: number }>();

  constructor(private readonly origin: () => Origin) {}

  get size(): number {
    return this.open.size;
  }

  has(key: number | string): boolean {
    return this.open.has(key);
  }

  /** A call starts (its id and name are known). */
  start(key: number | string, id: string, name: string): void {
    if (!this.open.has(key) && this.open.size >= MAX_TOOL_CALLS) throw refuse(this.origin(), `more than ${MAX_TOOL_CALLS} tool calls in one reply`);
    this.open.set(key, { id, name, pieces: [], bytes: 0 });
  }

  /** A piece of a call's arguments (JSON text); a piece for a call that never started opens one without a name. */
  append(key: number | string, piece: string): void {
    if (!this.open.has(key)) this.start(key, `call_${this.open.size}`, '');
    const c = this.open.get(key)!;
    c.bytes += Buffer.byteLength(piece, 'utf8');
    if (c.bytes > MAX_TOOL_ARGUMENT_BYTES) throw refuse(this.origin(), `a tool call (${c.name.slice(0, 64)}) whose arguments are over ${MAX_TOOL_ARGUMENT_BYTES} bytes`);
    c.pieces.push(piece);
  }

  /** Replaces a call's arguments with the whole text (a `…done` event that repeats them). */
  set(key: number | string, text: string): void {
    const c = this.open.get(key);
    if (!c) return;
    c.pieces = [];
    c.bytes = 0;
    this.append(key, text);
  }

  calls(): ToolCallRequest[] {
    const o = this.origin();
    return checkCalls(o, [...this.open.values()].map((c) => callFromText(o, c.id, c.name, c.pieces.join(''))));
  }
}
