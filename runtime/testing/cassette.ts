// Recorded model replies ("cassettes", docs/testing.md). A test file's recordings live beside it,
// `NAME_test.tn` → `NAME_test.cassette.json`: per test, the model exchanges it made, each with the
// request as rendered (context tiers, prompt, feedback of re-asks), the type's schema, the reply,
// and the request's fingerprint. The fingerprint is the durable journal's input hash of an `infer`
// step (runtime/durable/index.ts), so a recording cut from a stored run's journal (`turn record`)
// matches the same requests a test records.
import * as fs from 'node:fs';
import { sha256Hex } from '../hash.js';
import { writeFileAtomic } from '../fs-atomic.js';
import { diffLines, diffSize, formatDiff } from './diff.js';
import { JsonSyntaxError, lineColumn, parseLocated } from './json-positions.js';
import type { ToolRound } from '../infer/types.js';

export const CASSETTE_VERSION = 1;

export interface Feedback {
  reply: string;
  issues: { path: string; message: string }[];
}

/** What the model was asked, as the run rendered it. A field is null when only its hash is known (cut from a journal). */
export interface RecordedRequest {
  /** P0 entries (the system message) */
  system: string[] | null;
  /** P2 then P1 entries */
  context: string[] | null;
  prompt: string;
  /** the rejected replies of earlier attempts of this infer, with their validation issues */
  feedback: Feedback[] | null;
  /** the infer's own `with { ... }` options (`max_tokens`, `seed`, ...), absent when it has none */
  options?: Record<string, number>;
  /** native tool calls: the names of the tools the infer offers, absent when it offers none */
  tools?: string[];
  /** and the rounds before this ask: each reply's calls and the results the tools gave (program code: they run again on replay) */
  tool_rounds?: ToolRound[];
}

/** A call a tool-calling reply made (the tool loop's ToolCallRequest, as recorded). */
export interface RecordedToolCall {
  id: string;
  name: string;
  arguments?: unknown;
  arguments_text?: string;
}

export type RecordedReply =
  | {
      text: string;
      logprobs?: (number | { token: string; logprob: number })[];
      usage?: { input?: number; output?: number };
      finish_reason?: string;
      /** a self-consistent call (`consistency`): each valid-or-not sample's text that came back, in order; `text` is the one chosen */
      samples?: string[];
      /** a round of native tool calls: the calls the model made instead of answering (`text`: what it wrote beside them) */
      tool_calls?: RecordedToolCall[];
    }
  | { error: string };

export interface Exchange {
  fingerprint: string;
  type: string;
  attempt: number;
  request: RecordedRequest;
  /** the JSON Schema of the Turn type (null when cut from a journal) */
  schema: unknown;
  reply: RecordedReply;
}

export interface TestRecording {
  /** the model spec that answered (never a key) */
  model: string;
  exchanges: Exchange[];
}

export interface Cassette {
  turn_cassette: number;
  tests: Record<string, TestRecording>;
}

/** A recording that cannot be used: names the file, and the line where it can. */
export class CassetteError extends Error {
  constructor(
    message: string,
    readonly file: string,
    readonly line?: number,
  ) {
    super(message);
  }
}

/** `dir/x_test.tn` → `dir/x_test.cassette.json` */
export function cassettePath(testFile: string): string {
  return testFile.replace(/\.tn$/, '') + '.cassette.json';
}

/**
 * The fingerprint of a request: sha-256 of the journal's `infer` input (runtime/durable/index.ts).
 * An infer's own options are part of it (a recording made with other options is stale); without
 * options it is what it was before options existed, so older recordings still match.
 */
export function fingerprint(input: {
  typeName: string;
  schema: unknown;
  prompt: string;
  context: string[];
  attempt: number;
  feedback: Feedback[];
  options?: Record<string, number>;
  tools?: string[];
  toolRounds?: unknown[];
}): string {
  const ordered = {
    typeName: input.typeName,
    schema: input.schema,
    prompt: input.prompt,
    context: input.context,
    attempt: input.attempt,
    feedback: input.feedback,
    ...(input.options && Object.keys(input.options).length > 0 ? { options: input.options } : {}),
    // an infer that offers tools: their names and the rounds so far, as the journal hashes them
    ...(input.tools ? { tools: input.tools, toolRounds: input.toolRounds ?? [] } : {}),
  };
  return sha256Hex(JSON.stringify(ordered));
}

/** The fingerprint a complete recorded request must have (null when the request is partial). */
export function expectedFingerprint(e: Exchange): string | null {
  const r = e.request;
  if (r.system === null || r.context === null || r.feedback === null || e.schema === null) return null;
  return fingerprint({
    typeName: e.type, schema: e.schema, prompt: r.prompt, context: [...r.system, ...r.context], attempt: e.attempt, feedback: r.feedback,
    ...(r.options ? { options: r.options } : {}),
    ...(r.tools ? { tools: r.tools, toolRounds: r.tool_rounds ?? [] } : {}),
  });
}

// ---- reading

/** A loaded cassette with the line of each exchange, for messages. */
export interface LoadedCassette {
  file: string;
  cassette: Cassette;
  /** line of `tests[name].exchanges[i]` */
  lineOf(test: string, index: number): number | undefined;
}

function fail(file: string, text: string, offset: number | undefined, message: string): never {
  const at = offset === undefined ? undefined : lineColumn(text, offset);
  throw new CassetteError(`${file}${at ? `:${at.line}:${at.column}` : ''}: ${message}`, file, at?.line);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStrings = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Reads and checks a cassette; undefined when the file does not exist. Throws CassetteError. */
export function readCassette(file: string): LoadedCassette | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CassetteError(`${file}: cannot read the recording (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, file);
  }
  return parseCassette(file, text);
}

export function parseCassette(file: string, text: string): LoadedCassette {
  let located;
  try {
    located = parseLocated(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) fail(file, text, e.offset, `the recording is not valid JSON: ${e.message}`);
    throw e;
  }
  const { value, positions } = located;
  const at = (pointer: string): number | undefined => positions.get(pointer);
  const ptr = (...parts: (string | number)[]): string => parts.map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1')).join('');
  if (!isObject(value)) fail(file, text, 0, 'a recording is a JSON object {"turn_cassette": 1, "tests": {...}}');
  if (value.turn_cassette !== CASSETTE_VERSION) {
    fail(file, text, at('/turn_cassette') ?? 0, `not a Turn recording of format ${CASSETTE_VERSION} ("turn_cassette": ${JSON.stringify(value.turn_cassette ?? null)}); re-record it with \`turn test --record\``);
  }
  if (!isObject(value.tests)) fail(file, text, at('/tests') ?? 0, '"tests" must be an object of test name → recording');
  for (const key of Object.keys(value)) if (key !== 'turn_cassette' && key !== 'tests') fail(file, text, at(ptr(key)), `unknown field "${key}"`);
  for (const [name, rec] of Object.entries(value.tests)) {
    const base = ['tests', name];
    if (!isObject(rec) || typeof rec.model !== 'string' || !Array.isArray(rec.exchanges)) {
      fail(file, text, at(ptr(...base)), `test "${name}": needs {"model": "...", "exchanges": [...]}`);
    }
    rec.exchanges.forEach((e: unknown, i: number) => {
      const where = at(ptr(...base, 'exchanges', i));
      function bad(what: string, field?: string): never {
        return fail(file, text, field ? (at(ptr(...base, 'exchanges', i, field)) ?? where) : where, `test "${name}", exchange ${i + 1}: ${what}`);
      }
      if (!isObject(e)) bad('an exchange is an object');
      if (typeof e.fingerprint !== 'string' || !/^[0-9a-f]{64}$/.test(e.fingerprint)) bad('"fingerprint" must be a sha-256 in hex', 'fingerprint');
      if (typeof e.type !== 'string') bad('"type" must be the infer\'s type name', 'type');
      if (typeof e.attempt !== 'number' || !Number.isInteger(e.attempt) || e.attempt < 1) bad('"attempt" must be a whole number >= 1', 'attempt');
      const r = e.request;
      if (!isObject(r) || typeof r.prompt !== 'string') bad('"request" must hold the "prompt" (a string)', 'request');
      for (const k of ['system', 'context'] as const) if (r[k] !== null && !isStrings(r[k])) bad(`"request.${k}" must be a list of strings or null`, 'request');
      if (r.feedback !== null && !Array.isArray(r.feedback)) bad('"request.feedback" must be a list or null', 'request');
      if (r.options !== undefined && (!isObject(r.options) || !Object.values(r.options).every((v) => typeof v === 'number'))) bad('"request.options" must be an object of option name → number', 'request');
      if (!('schema' in e)) bad('"schema" is missing (null when unknown)');
      const reply = e.reply;
      if (!isObject(reply) || (typeof reply.text !== 'string') === (typeof reply.error !== 'string')) bad('"reply" needs exactly one of "text" or "error" (a string)', 'reply');
      if (reply.samples !== undefined && !isStrings(reply.samples)) bad('"reply.samples" must be a list of strings (the samples of a self-consistent call)', 'reply');
      if (r.tools !== undefined && !isStrings(r.tools)) bad('"request.tools" must be a list of tool names', 'request');
      if (r.tool_rounds !== undefined && (r.tools === undefined || !Array.isArray(r.tool_rounds))) bad('"request.tool_rounds" must be a list (with "request.tools")', 'request');
      if (reply.tool_calls !== undefined) {
        const calls = reply.tool_calls;
        if (r.tools === undefined) bad('"reply.tool_calls" answers only a request that offers "tools"', 'reply');
        if (!Array.isArray(calls) || calls.length === 0 || !calls.every((c) => isObject(c) && typeof c.name === 'string' && typeof c.id === 'string')) {
          bad('"reply.tool_calls" must be a non-empty list of {"id", "name", "arguments"?}', 'reply');
        }
      }
      const expected = expectedFingerprint(e as unknown as Exchange);
      if (expected !== null && expected !== e.fingerprint) {
        bad('the fingerprint does not match the recorded request (was the request edited by hand?); re-record it with `turn test --update`', 'fingerprint');
      }
    });
  }
  return {
    file,
    cassette: value as unknown as Cassette,
    lineOf: (test, index) => {
      const o = at(ptr('tests', test, 'exchanges', index));
      return o === undefined ? undefined : lineColumn(text, o).line;
    },
  };
}

// ---- writing

/** The cassette's text: stable key order, two-space indentation, a final newline (reviewable diffs). */
export function formatCassette(c: Cassette): string {
  const tests: Record<string, TestRecording> = {};
  for (const name of Object.keys(c.tests)) tests[name] = c.tests[name];
  return JSON.stringify({ turn_cassette: CASSETTE_VERSION, tests }, null, 2) + '\n';
}

export function writeCassette(file: string, c: Cassette): void {
  writeFileAtomic(file, formatCassette(c));
}

// ---- comparing

/** A request as lines of text, for the diff. */
export function requestLines(type: string, attempt: number, request: RecordedRequest, schema: unknown): string[] {
  const out: string[] = [`infer ${type} (attempt ${attempt})`];
  const block = (label: string, text: string): void => {
    text.split('\n').forEach((line, k) => out.push(k === 0 ? `${label}: ${line}` : `${' '.repeat(label.length)}  ${line}`));
  };
  if (request.system === null) out.push('system: (not recorded: cut from a journal, which keeps only its hash)');
  else request.system.forEach((s) => block('system', s));
  if (request.context === null) out.push('context: (not recorded: cut from a journal, which keeps only its hash)');
  else request.context.forEach((s) => block('context', s));
  block('prompt', request.prompt);
  const options = Object.entries(request.options ?? {});
  if (options.length > 0) out.push(`options: ${options.map(([k, v]) => `${k}: ${v}`).join(', ')}`);
  if (request.tools) out.push(`tools: ${request.tools.join(', ')}`);
  (request.tool_rounds ?? []).forEach((round, k) => {
    for (const c of round.calls ?? []) block(`round ${k + 1} call`, `${c.name} ${c.argumentsText ?? JSON.stringify(c.arguments ?? null)}`);
    for (const r of round.results ?? []) block(`round ${k + 1} result`, `${r.name}${r.isError ? ' (error)' : ''}: ${r.content}`);
  });
  if (request.feedback === null) out.push('feedback: (not recorded)');
  else request.feedback.forEach((f) => block('rejected reply', f.reply));
  if (schema === null) out.push('schema: (not recorded)');
  else for (const line of JSON.stringify(schema, null, 2).split('\n')) out.push(`schema ${line}`);
  return out;
}

export interface Closest {
  exchange: Exchange;
  index: number;
  diff: string;
  /** the only difference is the schema: the recording is for another version of the type */
  schemaOnly: boolean;
  /** both requests in full, as the diff compares them */
  recordedText: string;
  nowText: string;
}

/** The recorded exchange closest to `now` (same type first), with the diff from it. */
export function closestExchange(exchanges: Exchange[], now: { type: string; attempt: number; request: RecordedRequest; schema: unknown }): Closest | undefined {
  if (exchanges.length === 0) return undefined;
  // what a recording cut from a journal does not hold is not compared
  const nowAs = (e: Exchange): string[] =>
    requestLines(
      now.type,
      now.attempt,
      {
        system: e.request.system === null ? null : now.request.system,
        context: e.request.context === null ? null : now.request.context,
        prompt: now.request.prompt,
        feedback: e.request.feedback === null ? null : now.request.feedback,
        ...(now.request.options ? { options: now.request.options } : {}),
        ...(now.request.tools ? { tools: now.request.tools, tool_rounds: now.request.tool_rounds ?? [] } : {}),
      },
      e.schema === null ? null : now.schema,
    );
  let best: { index: number; size: number } | undefined;
  exchanges.forEach((e, index) => {
    // the same round of a tool loop first: its results are what a changed tool changes
    const sameRound = (e.request.tool_rounds?.length ?? 0) === (now.request.tool_rounds?.length ?? 0);
    const size = diffSize(requestLines(e.type, e.attempt, e.request, e.schema), nowAs(e)) + (e.type === now.type ? 0 : 1000) + (sameRound ? 0 : 100);
    if (!best || size < best.size) best = { index, size };
  });
  const e = exchanges[best!.index];
  const recordedLines = requestLines(e.type, e.attempt, e.request, e.schema);
  const lines = diffLines(recordedLines, nowAs(e));
  const changed = lines.some((l) => l.op !== ' ');
  const schemaOnly = changed && e.schema !== null && lines.every((l) => l.op === ' ' || l.text.startsWith('schema '));
  const diff = changed
    ? formatDiff(lines)
    : '  (the prompt is the same: the context, schema or feedback differ, which a recording cut from a journal keeps only as a hash)';
  return { exchange: e, index: best!.index, diff, schemaOnly, recordedText: recordedLines.join('\n'), nowText: nowAs(e).join('\n') };
}
