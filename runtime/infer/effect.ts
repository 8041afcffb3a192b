// The `infer` effect as the VM sees it: start (run the driver against the host's model call,
// reporting to the run's events) and finish (a conforming value with its confidence, or the
// catchable InferError value). Kept out of vm/index.ts so the interpreter only calls in here.
import type { EventLog } from '../events/index.js';
import { withConfidence, type Value } from '../values/index.js';
import { runInferStep, type AskModel, type InferCall, type InferOutcome, type InferStepOutcome } from './driver.js';
import { fromReply } from './reply-value.js';

export function startInfer(call: InferCall, ask: AskModel, events: EventLog, id: string, retries: number | undefined): Promise<InferStepOutcome> {
  return Promise.resolve()
    .then(() => runInferStep(call, ask, { id, retries, emit: (event) => events.emit(event) }))
    .catch((e: unknown): InferStepOutcome => ({
      ok: false,
      message: `infer ${call.typeName}: the model call failed: ${e instanceof Error ? e.message : String(e)}`,
      details: { reason: 'provider', typeName: call.typeName, attempts: 1, reply: null, issues: [] },
    }));
}

/** The bound value: the reply as Turn values, carrying its confidence. */
export function inferredValue(outcome: Extract<InferOutcome, { ok: true }>, schema: object): Value {
  return withConfidence(fromReply(outcome.value, schema), outcome.confidence.value);
}

/**
 * The value an `infer` that failed throws: a map a `catch` can read —
 * `{"type": "InferError", "message", "line", "reason": "invalid" | "provider", "infer": TYPE,
 *   "attempts": N, "reply": last raw reply or null, "errors": [{"path", "message"}], "status"?}`.
 */
export function inferErrorValue(outcome: Extract<InferOutcome, { ok: false }>, line: number): Value {
  const d = outcome.details;
  const m = new Map<string, Value>([
    ['type', 'InferError'],
    ['message', outcome.message],
    ['line', line],
    ['reason', d.reason],
    ['infer', d.typeName],
    ['attempts', d.attempts],
    ['reply', d.reply],
    ['errors', d.issues.map((i) => new Map<string, Value>([['path', i.path], ['message', i.message]]))],
  ]);
  if (d.status !== undefined) m.set('status', d.status);
  return m;
}

