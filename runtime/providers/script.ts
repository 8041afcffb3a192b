// `script:FILE`: replies from a fixture file, so tests are exact. Format (docs/inference.md):
//   { "replies": [ { "match"?: REGEX, "type"?: NAME,
//                    "value": V | "text": RAW | "error": MESSAGE,
//                    "confidence"?: C, "logprobs"?: [..], "finish_reason"?: S,
//                    "usage"?: {"input": N, "output": N}, "repeat"?: true, "sample"?: N }, .. ] }
// or, for an infer that offers tools (native tool calls), an entry that calls them instead of answering:
//   { "tool_calls": [ { "name": TOOL, "arguments"?: {..}, "arguments_text"?: RAW, "id"?: ID }, .. ], "text"?: RAW }
// and `"round": N` answers only the ask after N rounds of tool calls (so a resumed run that replays
// its first rounds gets the entry of the round it is at).
// Each request takes the first entry, in file order, that is not used up and whose `match` (a
// regular expression tested against the prompt, on RE2) and `type` (the infer's type name) fit; entries
// without them are therefore taken in order. An entry is used up by the request it answers
// (re-asks included) unless it says `"repeat": true`. An entry with `"sample": N` answers only the
// N-th sample of a self-consistent call (`consistency`), which is how `turn test` replays a call's samples.
import Ajv2020Module from 'ajv/dist/2020.js';
import type { ValidateFunction } from 'ajv';
import type { InferReply, InferRequest, TokenLogprob } from '../infer/types.js';
import { compileLinear, LINEAR_AJV_OPTIONS } from '../linear-regex.js';
import { ModelConfigError, ProviderError, type LocalProvider } from './types.js';

interface Entry {
  match?: string;
  type?: string;
  value?: unknown;
  text?: string;
  error?: string;
  confidence?: number;
  logprobs?: (number | { token: string; logprob: number })[];
  finish_reason?: string;
  usage?: { input?: number; output?: number };
  repeat?: boolean;
  sample?: number;
  tool_calls?: { name: string; arguments?: unknown; arguments_text?: string; id?: string }[];
  /** answers only the request after this many rounds of tool calls (0: the first ask) */
  round?: number;
}

const ENTRY_SCHEMA = {
  type: 'object',
  properties: {
    match: { type: 'string' },
    type: { type: 'string' },
    value: {},
    text: { type: 'string' },
    error: { type: 'string' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    logprobs: {
      type: 'array',
      items: {
        anyOf: [
          { type: 'number', maximum: 0 },
          {
            type: 'object',
            properties: { token: { type: 'string' }, logprob: { type: 'number', maximum: 0 } },
            required: ['token', 'logprob'],
            additionalProperties: false,
          },
        ],
      },
    },
    finish_reason: { type: 'string' },
    usage: {
      type: 'object',
      properties: { input: { type: 'integer', minimum: 0 }, output: { type: 'integer', minimum: 0 } },
      additionalProperties: false,
    },
    repeat: { type: 'boolean' },
    sample: { type: 'integer', minimum: 1 },
    round: { type: 'integer', minimum: 0 },
    tool_calls: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, arguments: {}, arguments_text: { type: 'string' }, id: { type: 'string' } },
        required: ['name'],
        additionalProperties: false,
      },
    },
    comment: { type: 'string' },
  },
  additionalProperties: false,
} as const;

const FILE_SCHEMA = {
  type: 'object',
  properties: { replies: { type: 'array', items: ENTRY_SCHEMA }, comment: { type: 'string' }, native_tools: { type: 'boolean' } },
  required: ['replies'],
  additionalProperties: false,
} as const;

type AjvCtor = new (opts: Record<string, unknown>) => { compile(schema: object): ValidateFunction };
const Ajv2020 = (Ajv2020Module as unknown as { default?: AjvCtor }).default ?? Ajv2020Module;
let validateFile: ValidateFunction | undefined;

/** "line L, column C" of a character offset. */
function lineCol(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  const col = offset - before.lastIndexOf('\n');
  return `${line}:${col}`;
}

function pointerToPath(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '');
}

/** Parses and checks a fixture. `file` names it in messages. Throws ModelConfigError. */
export function parseScript(file: string, text: string): Entry[] {
  return readScript(file, text).entries;
}

/**
 * The fixture's entries, and whether it stands for a model that takes tools natively
 * (`"native_tools": true`: the provider then sets `nativeTools`, so `call("model_supports", "tools")`
 * is true — how a `turn test` replay of a recording made with such a model takes the same path).
 */
function readScript(file: string, text: string): { entries: Entry[]; nativeTools: boolean } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    const m = /at position (\d+)/.exec((e as Error).message);
    const where = m ? `${file}:${lineCol(text, Number(m[1]))}` : file;
    throw new ModelConfigError(`${where}: the script fixture is not valid JSON: ${(e as Error).message.replace(/ in JSON at position \d+.*$/, '')}`);
  }
  if (Array.isArray(data)) data = { replies: data };
  validateFile ??= new Ajv2020({ strict: true, allErrors: false, ...LINEAR_AJV_OPTIONS }).compile(FILE_SCHEMA);
  if (!validateFile(data)) {
    const e = validateFile.errors![0];
    const at = pointerToPath(e.instancePath) || 'the top level';
    const extra = e.keyword === 'additionalProperties' ? ` (${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)})` : '';
    throw new ModelConfigError(`${file}: ${at}: ${e.message}${extra}`);
  }
  const entries = (data as { replies: Entry[] }).replies;
  entries.forEach((entry, i) => {
    const kinds = ['value', 'text', 'error'].filter((k) => k in entry);
    if (entry.tool_calls !== undefined) {
      if (kinds.some((k) => k !== 'text')) throw new ModelConfigError(`${file}: replies[${i}]: an entry with "tool_calls" has no "value" or "error" (the model answers in a later entry)`);
    } else if (kinds.length !== 1) {
      throw new ModelConfigError(`${file}: replies[${i}]: needs exactly one of "value", "text" or "error"${kinds.length ? ` (has ${kinds.join(', ')})` : ''}`);
    }
    if (entry.match !== undefined) {
      try {
        compileLinear(entry.match, Infinity);
      } catch (err) {
        throw new ModelConfigError(`${file}: replies[${i}].match: ${(err as Error).message}`);
      }
    }
  });
  return { entries, nativeTools: (data as { native_tools?: boolean }).native_tools === true };
}

export function scriptProvider(file: string, text: string): LocalProvider {
  const { entries, nativeTools } = readScript(file, text);
  // RE2 (../linear-regex.ts): a prompt carries outside data (tool output, earlier replies); the
  // patterns are the fixture's own (`turn test` records a whole prompt as one), so any length
  const patterns = entries.map((e) => (e.match === undefined ? null : compileLinear(e.match, Infinity)));
  const used = new Array<boolean>(entries.length).fill(false);
  return {
    kind: 'local',
    name: `script:${file}`,
    nativeTools,
    answer(request: InferRequest): InferReply {
      const i = entries.findIndex(
        (e, k) =>
          !used[k] &&
          (e.type === undefined || e.type === request.typeName) &&
          (e.sample === undefined || e.sample === (request.sample ?? 1)) &&
          (e.round === undefined || e.round === (request.toolRounds?.length ?? 0)) &&
          (patterns[k] === null || patterns[k].test(request.prompt)),
      );
      if (i < 0) {
        const left = used.filter((u) => !u).length;
        throw new ProviderError(
          `script ${file}: no reply left for infer ${request.typeName} with the prompt ${JSON.stringify(truncate(request.prompt))}` +
            ` (attempt ${request.attempt}; ${entries.length - left} of ${entries.length} replies used)`,
        );
      }
      const e = entries[i];
      if (!e.repeat) used[i] = true;
      const meta = { entry: i };
      if (e.error !== undefined) throw new ProviderError(`script ${file}: replies[${i}]: ${e.error}`);
      const reply: InferReply = { meta };
      if (e.tool_calls !== undefined) {
        reply.toolCalls = e.tool_calls.map((c, k) => ({
          id: c.id ?? `call_${(request.toolRounds?.length ?? 0) + 1}_${k + 1}`,
          name: c.name,
          arguments: c.arguments ?? {},
          ...(c.arguments_text !== undefined ? { argumentsText: c.arguments_text } : {}),
        }));
        reply.finishReason = 'tool_calls';
        if (e.text !== undefined) reply.text = e.text;
        return reply;
      }
      if (e.text !== undefined) reply.text = e.text;
      else reply.text = JSON.stringify(e.confidence === undefined ? { value: e.value } : { value: e.value, confidence: e.confidence });
      if (e.logprobs) reply.logprobs = e.logprobs.map((x): TokenLogprob => (typeof x === 'number' ? { logprob: x } : x));
      if (e.finish_reason) reply.finishReason = e.finish_reason;
      if (e.usage) reply.usage = { inputTokens: e.usage.input, outputTokens: e.usage.output };
      return reply;
    },
  };
}

function truncate(s: string): string {
  return s.length > 80 ? s.slice(0, 77) + '...' : s;
}
