// What the settle dialog shows about an effect whose outcome is unknown, as plain text (no
// `vscode` import; tested in plain Node): the request pretty-printed, when it was sent, the last
// step the journal holds before it, its idempotency key, whether a retry is known to be safe and
// what the service may offer, and the result to prefill: a result of the same effect from the run,
// else an example of the shape such an effect returns. The settle form (issue 43) is the answer
// webview's question (settleQuestion): the request readably, the choices in order, the result
// entered through the typed form, and settle + resume as one action.
import type { Settlement } from '../../runtime/index.js';
import type { Answer } from '../forms/answer.js';
import type { QuestionView } from '../forms/protocol.js';
import { toolResultSchema } from '../forms/tool-schemas.js';
import type { UnknownStep } from './model.js';

/** JSON text pretty-printed (two spaces), or as it is when it does not parse (a clipped request). */
export function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC');

/** The dialog's text: what is known about the effect, one fact a line, then its request. */
export function settleDetail(step: UnknownStep): string {
  const last = step.lastJournaled;
  return [
    `Sent at: ${when(step.sentAt)}`,
    `Last journaled step: ${last ? `step ${last.seq}, ${last.kind} ${last.name}, at ${when(last.at)}` : 'none (this is the run\'s first effect)'}`,
    `Idempotency key: ${step.idempotencyKey ?? '(none)'}`,
    step.idempotent
      ? 'Retry: safe — the tool takes the idempotency key, so running it again cannot do it twice.'
      : 'Retry: not known to be safe — if the service can look a request up by its idempotency key, check there whether it ran; else look at its effect (the file, the charge) before choosing.',
    '',
    `Request of ${step.kind} ${step.name}:`,
    // the dialog collapses spaces: the indentation is kept as no-break spaces
    pretty(step.request).replace(/^ +/gm, (spaces) => '\u00a0'.repeat(spaces.length)),
  ].join('\n');
}

/** The result box's first value: a result this effect gave before in the run, else a likely shape. */
export function resultExample(step: UnknownStep): string {
  if (step.example !== null) return step.example;
  if (/^fs_/.test(step.name)) return 'null';
  if (/http|net|fetch|request/.test(step.name)) return JSON.stringify({ status: 200, headers: {}, body: '' });
  return 'null';
}

/** The result box's prompt: where the prefilled value came from. */
export function resultPrompt(step: UnknownStep): string {
  return step.example !== null
    ? `The result of step ${step.seq} as JSON — prefilled with what ${step.name} returned earlier in this run; change it to what the effect returned this time`
    : `The result of step ${step.seq} as JSON — the shape ${step.name} returns (${resultExample(step)}); give what the effect returned`;
}

// ------------------------------------------------------------------ the settle form (issue 43)

/** An effect's request as a person reads it: what it called, and its parts labelled (not the raw envelope). */
export interface ReadableRequest {
  /** `POST https://api.example.com/charges`, or `charge(…)` for another tool */
  headline: string;
  /** labelled parts: `Body`, `Headers`, `Argument 1`, … (values pretty-printed JSON or plain text) */
  parts: { label: string; text: string }[];
}

const HTTP_V1 = new Set(['http_get', 'http_post']);

/** The request of an unknown step, read from its journaled envelope (`{name, args, grant?}`); a clipped one is shown as it is. */
export function readableRequest(step: UnknownStep): ReadableRequest {
  let envelope: unknown;
  try {
    envelope = JSON.parse(step.request);
  } catch {
    return { headline: step.name, parts: [{ label: 'Request (clipped)', text: step.request }] };
  }
  const args = isRecord(envelope) && Array.isArray(envelope.args) ? envelope.args : [];
  if (step.name === 'http_request' && typeof args[1] === 'string' && typeof args[2] === 'string') {
    const options = isRecord(args[3]) ? args[3] : {};
    return { headline: `${args[1].toUpperCase()} ${args[2]}`, parts: httpParts(options.headers, options.query, options.body) };
  }
  if (HTTP_V1.has(step.name)) {
    const m = isRecord(args[0]) ? args[0] : null;
    const url = typeof args[0] === 'string' ? args[0] : typeof m?.url === 'string' ? m.url : '?';
    return { headline: `${step.name === 'http_get' ? 'GET' : 'POST'} ${url}`, parts: httpParts(undefined, undefined, m?.body) };
  }
  return {
    headline: `${step.name}(${args.length === 0 ? '' : '…'})`,
    parts: args.map((a, i) => ({ label: args.length === 1 ? 'Argument' : `Argument ${i + 1}`, text: typeof a === 'string' ? a : JSON.stringify(a, null, 2) })),
  };
}

function httpParts(headers: unknown, query: unknown, body: unknown): ReadableRequest['parts'] {
  const parts: ReadableRequest['parts'] = [];
  if (isRecord(headers) && Object.keys(headers).length > 0) parts.push({ label: 'Headers', text: Object.entries(headers).map(([k, v]) => `${k}: ${String(v)}`).join('\n') });
  if (isRecord(query) && Object.keys(query).length > 0) parts.push({ label: 'Query', text: Object.entries(query).map(([k, v]) => `${k}=${String(v)}`).join('\n') });
  if (body !== undefined && body !== null) parts.push({ label: 'Body', text: typeof body === 'string' ? pretty(body) : JSON.stringify(body, null, 2) });
  return parts;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The facts above the choices, one a line (when sent, the last journaled step, the key, whether a retry is safe). */
export function settleFacts(step: UnknownStep): string[] {
  return settleDetail(step).split('\n\n')[0].split('\n');
}

/**
 * The choices, in the order a person meets them (issue 43): the effect happened (enter what it
 * returned), it did not happen (the program sees an error), run it again on resume. A retry of an
 * effect not known to be safe says so.
 */
export function settleChoices(step: UnknownStep): { id: 'result' | 'error' | 'retry'; label: string; detail: string }[] {
  return [
    { id: 'result', label: 'It happened: enter its result', detail: step.example !== null ? `prefilled with what ${step.name} returned earlier in this run` : 'what the effect returned, in the form below' },
    { id: 'error', label: 'It did not happen', detail: 'the program sees the effect fail, with the message below' },
    { id: 'retry', label: 'Run it again', detail: step.idempotent ? 'safe: the tool takes the idempotency key' : 'not known to be safe: it may happen twice' },
  ];
}

/**
 * The settle question as the answer webview shows it: the facts, the request readably, the choices
 * in order, the result's form (its tool's result type where it has one, else any JSON) prefilled
 * with what the effect returned before in the run, and — for a run that can go on — "and resume".
 */
export function settleQuestion(step: UnknownStep, resumable: boolean): QuestionView {
  const example = resultExample(step);
  let value: unknown = null;
  try {
    value = JSON.parse(example);
  } catch {
    value = null; // a clipped earlier result: the form starts empty
  }
  return {
    title: `Settle step ${step.seq} (${step.kind} ${step.name})`,
    facts: settleFacts(step),
    request: readableRequest(step),
    choices: settleChoices(step).map((c) => ({ ...c, takes: c.id === 'result' ? 'value' : c.id === 'error' ? 'message' : 'nothing' })),
    schema: step.kind === 'tool' ? toolResultSchema(step.name) : null,
    value,
    message: `${step.name} did not happen`,
    resumable,
  };
}

/** The settlement an answer to settleQuestion makes. */
export function settlementOf(answer: Answer): Settlement {
  if (answer.choice === 'retry') return { retry: true };
  if (answer.choice === 'error') return { error: answer.message ?? 'it did not happen' };
  return { ok: answer.value ?? null };
}
