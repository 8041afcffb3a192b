// Where an inferred value's confidence comes from (docs/inference.md):
//   0. agreement, when the run asks for k samples per request (self-consistency, consistency.ts):
//      the share of the k samples whose value equals the chosen one;
//   1. token log-probabilities, when the provider returns them: the geometric mean of the
//      probabilities of the tokens that spell the value (exp of their mean log-probability);
//      structure around the value and the self-reported confidence are left out when the
//      tokens can be aligned with the reply text, else every token counts;
//   2. otherwise the confidence the model reported beside the value (`{"value", "confidence"}`),
//      clamped to [0, 1];
//   3. otherwise UNREPORTED_CONFIDENCE: nothing is known, so neither sure nor wrong.
// A run with a calibration file for its model then maps the raw figure through the source's map
// (runtime/calibration/): `value` is the calibrated figure, `raw` the one above, `calibration` the map's id.
import type { InferReply, ReplyCalibration, TokenLogprob } from './types.js';

export const UNREPORTED_CONFIDENCE = 0.5;

/** Where a confidence came from: `agreement` of k samples, token `logprobs`, the model's self-report (`reported`), or nothing (`unreported`). */
export type ConfidenceSource = 'agreement' | 'logprobs' | 'reported' | 'unreported';

export interface ConfidenceInfo {
  value: number;
  source: ConfidenceSource;
  /** what the model said, when it said something */
  reported?: number;
  /** what the log-probabilities give, when there are some */
  fromLogprobs?: number;
  /** tokens the log-probability figure is over */
  tokens?: number;
  /** self-consistency: samples asked, and how many agreed with the value */
  samples?: number;
  agreeing?: number;
  /** a calibrated confidence: the value before the map (`value` is after it) */
  raw?: number;
  /** a calibrated confidence: the id of the map that gave `value` (runtime/calibration/file.ts) */
  calibration?: string;
}

/**
 * The confidence through the calibration a host put on the reply (journaled with it), when that
 * calibration speaks of this very figure: the same source and the same raw value. Anything else (a
 * reply edited in a what-if, a journal changed by hand) keeps the raw figure.
 */
export function calibrated(info: ConfidenceInfo, calibration: ReplyCalibration | undefined): ConfidenceInfo {
  if (!calibration || typeof calibration !== 'object') return info;
  const { source, raw, value, map } = calibration;
  if (source !== info.source || raw !== info.value || typeof value !== 'number' || !(value >= 0 && value <= 1) || typeof map !== 'string') return info;
  return { ...info, value, raw, calibration: map };
}

/** exp(mean log-probability) of the value's tokens; null when there are none. */
export function logprobConfidence(text: string | undefined, logprobs: TokenLogprob[]): { value: number; tokens: number } | null {
  let chosen = logprobs;
  if (text !== undefined && logprobs.every((t) => typeof t.token === 'string') && logprobs.map((t) => t.token).join('') === text) {
    const span = valueSpan(text);
    if (span) {
      const picked: TokenLogprob[] = [];
      let at = 0;
      for (const t of logprobs) {
        const start = at;
        at += t.token!.length;
        if (at <= span.start || start >= span.end) continue;
        if (t.token!.trim().length === 0) continue;
        picked.push(t);
      }
      if (picked.length > 0) chosen = picked;
    }
  }
  const lps = chosen.map((t) => t.logprob).filter((x) => typeof x === 'number' && !Number.isNaN(x));
  if (lps.length === 0) return null;
  const mean = lps.reduce((a, b) => a + Math.min(0, b), 0) / lps.length;
  return { value: clamp(Math.exp(mean)), tokens: lps.length };
}

/** The character span of the envelope's `value` in a reply text, without the `confidence` member. */
function valueSpan(text: string): { start: number; end: number } | null {
  const key = /"value"\s*:\s*/.exec(text);
  if (!key) return null;
  const start = key.index + key[0].length;
  const conf = /,?\s*"confidence"\s*:\s*-?[0-9.eE+-]+\s*/g;
  conf.lastIndex = start;
  const m = conf.exec(text);
  let end = m ? m.index : text.lastIndexOf('}');
  if (end <= start) end = text.length;
  return { start, end };
}

export function clamp(c: number): number {
  return c < 0 ? 0 : c > 1 ? 1 : c;
}

export function chooseConfidence(
  reported: number | undefined,
  fromLogprobs: { value: number; tokens: number } | null,
  agreement?: { samples: number; agreeing: number },
): ConfidenceInfo {
  if (agreement && agreement.samples > 0) {
    const info: ConfidenceInfo = { value: clamp(agreement.agreeing / agreement.samples), source: 'agreement', samples: agreement.samples, agreeing: agreement.agreeing };
    if (reported !== undefined) info.reported = reported;
    if (fromLogprobs) {
      info.fromLogprobs = fromLogprobs.value;
      info.tokens = fromLogprobs.tokens;
    }
    return info;
  }
  if (fromLogprobs) {
    return { value: fromLogprobs.value, source: 'logprobs', reported, fromLogprobs: fromLogprobs.value, tokens: fromLogprobs.tokens };
  }
  if (reported !== undefined) return { value: reported, source: 'reported', reported };
  return { value: UNREPORTED_CONFIDENCE, source: 'unreported' };
}

/**
 * The confidence a journaled reply gave and where it came from, without its schema (for
 * `turn inspect`): agreement, log-probabilities, the envelope's self-report, else unreported.
 */
export function replyConfidence(reply: InferReply): { value: number; source: ConfidenceSource; raw?: number; calibration?: string } {
  let reported: number | undefined;
  if (typeof reply.text === 'string') {
    try {
      const j = JSON.parse(reply.text) as { confidence?: unknown } | null;
      if (j && typeof j === 'object' && typeof j.confidence === 'number' && Number.isFinite(j.confidence)) reported = clamp(j.confidence);
    } catch {
      // not an envelope: nothing reported
    }
  }
  if (reported === undefined && typeof reply.confidence === 'number') reported = clamp(reply.confidence);
  const lp = reply.logprobs && reply.logprobs.length > 0 ? logprobConfidence(reply.text, reply.logprobs) : null;
  const c = calibrated(chooseConfidence(reported, lp, reply.agreement), reply.calibration);
  return { value: c.value, source: c.source, ...(c.calibration !== undefined ? { raw: c.raw, calibration: c.calibration } : {}) };
}
