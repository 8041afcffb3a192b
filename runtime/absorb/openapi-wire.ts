// The pure tools an absorbed OpenAPI operation calls around the host's `http_request` (registered in
// runtime/effects/tools.ts): `openapi_request` makes the URL, headers and body from the
// operation's wire plan (params.ts, media.ts) and the call's values; `openapi_reply` decodes the
// reply by its Content-Type. The plan is a constant of the generated module (runtime/absorb/module.ts).
import { acceptHeader, decodeReply, encodeBody, MediaError, type BodyPlan, type DeclaredReplies } from './media.js';
import { ParamError, serializeParams, type ParamPlan } from './params.js';

/** How one operation goes on the wire. */
export interface OperationWire {
  /** The path template, `/pets/{id}`. */
  path: string;
  params: ParamPlan[];
  body?: BodyPlan;
  /** The content types each response declares (by `200`, `2XX`, `default`). */
  replies: DeclaredReplies;
}

/** How a generated module writes a plan: base64 of its JSON (like its schemas). */
export function encodedWire(wire: OperationWire): string {
  return 'base64:' + Buffer.from(JSON.stringify(wire), 'utf8').toString('base64');
}

const plans = new Map<string, OperationWire>();
const MAX_PLANS = 4096;

function planOf(text: unknown): OperationWire {
  if (typeof text !== 'string' || !text.startsWith('base64:')) throw new Error('openapi_request: the plan must be a Str written by the absorber');
  let plan = plans.get(text);
  if (!plan) {
    plan = JSON.parse(Buffer.from(text.slice(7), 'base64').toString('utf8')) as OperationWire;
    if (plans.size >= MAX_PLANS) plans.delete(plans.keys().next().value!);
    plans.set(text, plan);
  }
  return plan;
}

/** The reply content types an operation's successful responses declare (what `Accept` asks for). */
function successTypes(replies: DeclaredReplies): string[] {
  const keys = Object.keys(replies);
  const success = keys.filter((k) => /^2/.test(k));
  return (success.length > 0 ? success : keys.filter((k) => k === 'default')).flatMap((k) => replies[k]);
}

/**
 * `openapi_request(plan, base, values, body)` → `{"url", "headers", "body"}` or `{"error": message}`:
 * `values` maps `in:name` (`query:limit`) to each parameter's value (null: not sent).
 */
export function openapiRequest(planText: unknown, base: unknown, values: unknown, body: unknown): Record<string, unknown> {
  const plan = planOf(planText);
  if (typeof base !== 'string') throw new Error('openapi_request: the base URL must be a Str');
  const given = values && typeof values === 'object' && !Array.isArray(values) ? (values as Record<string, unknown>) : {};
  try {
    const sent = serializeParams(plan.path, plan.params, given);
    const headers: Record<string, string> = { ...sent.headers };
    const accept = acceptHeader(successTypes(plan.replies));
    if (accept !== undefined) headers.accept = accept;
    let text: string | null = null;
    if (plan.body && body !== null && body !== undefined) {
      const encoded = encodeBody(plan.body, body);
      text = encoded.body;
      headers['content-type'] = encoded.contentType;
    }
    const url = base.replace(/\/+$/, '') + sent.path + (sent.query === '' ? '' : (sent.path.includes('?') ? '&' : '?') + sent.query);
    return { url, headers, body: text };
  } catch (e) {
    if (e instanceof ParamError || e instanceof MediaError) return { error: e.message };
    throw e;
  }
}

/** `openapi_reply(plan, res)` → `{"value": decoded}` or `{"error": message}` for an `http_request` result. */
export function openapiReply(planText: unknown, res: unknown): Record<string, unknown> {
  const plan = planOf(planText);
  const r = (res ?? {}) as { status?: unknown; headers?: unknown; body?: unknown };
  const headers = r.headers && typeof r.headers === 'object' ? (r.headers as Record<string, unknown>) : {};
  return decodeReply(plan.replies, typeof r.status === 'number' ? r.status : 0, headers, typeof r.body === 'string' ? r.body : '');
}
