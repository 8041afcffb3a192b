// Which served call a `tools/call` request is, for `turn mcp --store` (docs/mcp.md, "Durable served
// agents"): the idempotency key a durable served run is stored under, and the fingerprint of the
// call (tool and arguments) the key was first used for.
//
// A client that wants its retry after a restart of `turn mcp` to find the run its first attempt
// started sends a key of its own in the request's `_meta` (EXPLICIT_KEY). Without one, the key is
// this serving process's nonce, the session and the JSON-RPC id: a request delivered twice within
// one session is one run, but a retry after a restart is a new call. A request id alone is never a
// key: every connection of the SDK clients numbers its requests from 0, so two different calls of
// two connections would share it, and the second would be answered with the first one's result.
import { nodeCrypto } from '../../hash.js';

/** The `_meta` field a client names its call with: the same string on every retry of one call. */
export const EXPLICIT_KEY = 'turn/idempotency-key';
/** The longest key accepted (a UUID has 36 characters; a journal key about 80). */
export const MAX_KEY_LENGTH = 256;

/** A key a client sent that cannot be one: the caller answers it as invalid params. */
export class CallKeyError extends Error {}

let nonce: string | undefined;
/** made on first use, so loading this module loads no node:crypto */
const processNonce = (): string => (nonce ??= nodeCrypto().randomBytes(12).toString('base64url'));

/**
 * The key of a call: the client's explicit key (`_meta[EXPLICIT_KEY]`), else one that only a
 * duplicate of this very request in this process and session has. Throws CallKeyError.
 */
export function callKey(meta: unknown, session: string | undefined, requestId: string | number): string {
  const given = meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>)[EXPLICIT_KEY] : undefined;
  if (given !== undefined) {
    // printable ASCII only: the key is shown by `turn runs` and compared byte for byte
    if (typeof given !== 'string' || given.length === 0 || given.length > MAX_KEY_LENGTH || !/^[\x21-\x7e]+$/.test(given)) {
      throw new CallKeyError(`_meta["${EXPLICIT_KEY}"] must be a string of 1 to ${MAX_KEY_LENGTH} printable ASCII characters without spaces`);
    }
    return `client:${given}`;
  }
  return `request:${processNonce()}:${session ?? 'stdio'}:${typeof requestId}:${String(requestId)}`;
}

/** Text the walk below writes between values (never confused with a value: a string is JSON-quoted). */
class Punctuation {
  constructor(readonly text: string) {}
}
const COMMA = new Punctuation(',');
const CLOSE_LIST = new Punctuation(']');
const CLOSE_MAP = new Punctuation('}');

/**
 * A digest of the tool and its arguments (objects with their keys sorted), so a key reused for a
 * different call is refused rather than answered with another call's result. Iterative: arguments
 * come from a client, and their depth is theirs to choose.
 */
export function callFingerprint(tool: string, args: unknown): string {
  const hash = nodeCrypto().createHash('sha256').update(JSON.stringify(tool)).update('\0');
  const stack: unknown[] = [args];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v instanceof Punctuation) hash.update(v.text);
    else if (Array.isArray(v)) {
      hash.update('[');
      stack.push(CLOSE_LIST);
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i], ...(i > 0 ? [COMMA] : []));
    } else if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      const keys = Object.keys(o).sort();
      hash.update('{');
      stack.push(CLOSE_MAP);
      for (let i = keys.length - 1; i >= 0; i--) stack.push(o[keys[i]], new Punctuation(`${JSON.stringify(keys[i])}:`), ...(i > 0 ? [COMMA] : []));
    } else hash.update(JSON.stringify(v ?? null));
  }
  return hash.digest('hex');
}

/** A W3C trace context parent (version-traceid-parentid-flags, lowercase hex). */
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The trace context a request carries in `_meta.traceparent` (2026-07-28; the SDKs send it on
 * 2025-11-25 too), when well formed: recorded with the served run, so the run the Runs view shows
 * can be found from the caller's trace. Anything else is ignored.
 */
export function traceOf(meta: unknown): string | undefined {
  const t = meta && typeof meta === 'object' && !Array.isArray(meta) ? (meta as Record<string, unknown>).traceparent : undefined;
  return typeof t === 'string' && TRACEPARENT.test(t) ? t : undefined;
}
