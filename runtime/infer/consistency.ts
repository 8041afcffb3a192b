// Self-consistency (docs/inference.md, *Confidence*): a model call answered by k samples of the
// same request, their agreement taken as the confidence. Each sample is validated like a reply; the
// value most valid samples give (the earliest on a tie) wins, and the reply carries
// `agreement: {samples: k, agreeing}` and every sample's text in `meta.samples`. It is one
// exchange to the layers above, so a durable run journals the k samples in one step and a replay
// never asks again. A sample that fails counts as disagreeing; when none is valid, the first
// sample's reply goes back to the driver, which re-asks with its errors as usual.
import { interpret, type AskModel } from './driver.js';
import type { InferIO, InferReply, InferRequest } from './types.js';
import { MAX_CONSISTENCY } from './options.js';

export const MAX_SAMPLES = MAX_CONSISTENCY;

/** `ask`, answering each request with `samples` samples (a number, or one per request: an infer's own option over the run's). */
export function selfConsistent(ask: AskModel, samples: number | ((request: InferRequest) => number)): AskModel {
  if (typeof samples === 'number' && samples <= 1) return ask;
  const count = typeof samples === 'number' ? () => samples : samples;
  return async (request: InferRequest, io: InferIO) => {
    const samples = count(request);
    if (samples <= 1) return ask(request, io);
    const asked = Array.from({ length: samples }, (_, i) => {
      const sample = i + 1;
      const sampleIO: InferIO = { ...io, emit: (e) => io.emit(e.kind === 'infer.delta' ? { ...e, sample } : e) };
      return ask({ ...request, sample }, sampleIO).then(
        (reply) => ({ ok: true as const, reply }),
        (error: unknown) => ({ ok: false as const, error }),
      );
    });
    const got = await Promise.all(asked);
    // a sample that exhausted a run-wide budget ends the run, whatever the others answered
    const exhausted = got.find((g) => !g.ok && (g.error as { budgetExhausted?: unknown } | null | undefined)?.budgetExhausted === true);
    if (exhausted) throw (exhausted as { error: unknown }).error;
    const replies = got.filter((g) => g.ok).map((g) => g.reply);
    // every sample failed: the first failure is the call's
    if (replies.length === 0) throw (got[0] as { error: unknown }).error;
    const groups = new Map<string, { count: number; first: number }>();
    const keys: (string | null)[] = replies.map((reply, i) => {
      const r = interpret(request.schema, reply);
      if (r.issues.length > 0) return null;
      const key = canonical(r.value);
      const g = groups.get(key);
      if (g) g.count++;
      else groups.set(key, { count: 1, first: i });
      return key;
    });
    const log = replies.map((reply, i) => ({ text: reply.text ?? JSON.stringify(reply.value) ?? '', valid: keys[i] !== null, ...(reply.usage ? { usage: reply.usage } : {}) }));
    let best: { count: number; first: number } | undefined;
    for (const g of groups.values()) if (!best || g.count > best.count) best = g;
    const chosen = best ? replies[best.first] : replies[0];
    const usage = sumUsage(replies);
    return {
      ...chosen,
      ...(usage ? { usage } : {}),
      // a sample's log-probabilities speak for that sample only: agreement is the figure here
      logprobs: undefined,
      ...(best ? { agreement: { samples, agreeing: best.count } } : {}),
      meta: { ...chosen.meta, samples: log, failedSamples: got.length - replies.length },
    };
  };
}

/**
 * JSON with sorted object keys: equal values, equal text. A key whose value is null is left out:
 * an optional field given as null and one left out are the same Turn value (both read as null), so
 * two samples that differ only there agree.
 */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).filter((k) => o[k] !== null).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function sumUsage(replies: InferReply[]): InferReply['usage'] {
  let any = false;
  const u = { inputTokens: 0, outputTokens: 0, cachedTokens: 0 };
  let total: number | undefined;
  for (const r of replies) {
    if (!r.usage) continue;
    any = true;
    u.inputTokens += r.usage.inputTokens ?? 0;
    u.outputTokens += r.usage.outputTokens ?? 0;
    u.cachedTokens += r.usage.cachedTokens ?? 0;
    if (r.usage.totalTokens !== undefined) total = (total ?? 0) + r.usage.totalTokens;
  }
  return any ? { ...u, ...(total !== undefined ? { totalTokens: total } : {}) } : undefined;
}
