// What the settle dialog shows about an effect whose outcome is unknown, as plain text (no
// `vscode` import; tested in plain Node): the request pretty-printed, when it was sent, the last
// step the journal holds before it, its idempotency key, whether a retry is known to be safe and
// what the service may offer, and the result to prefill: a result of the same effect from the run,
// else an example of the shape such an effect returns.
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
