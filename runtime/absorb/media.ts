// OpenAPI media types on the wire: which content type a request body is sent as (and how it is
// encoded), what `Accept` says, and how a reply is decoded by the `Content-Type` it came with.
//
//   request body  application/json (and +json)       JSON of any value, strings and lists too
//                 application/x-www-form-urlencoded  the map's properties (URLSearchParams, WHATWG)
//                 multipart/form-data                one part per property; a binary property is a file part
//                 text/plain, text/*                 the Str as it is
//                 application/octet-stream           the Str's UTF-8 bytes
//   reply         JSON variants                      parsed
//                 anything else                      the body text (Turn has no bytes value)
//
// A reply whose type the operation does not declare for its status is an error naming both.
import { nodeCrypto } from '../hash.js';
import { jsonDropNulls } from './request.js';
import { serializeQuery, type ParamStyle } from './params.js';

/** A media type without its parameters, lower-cased (`Application/JSON; charset=utf-8` → `application/json`). */
export function essence(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

/** `application/json`, `application/problem+json`, `text/json`... */
export function isJson(contentType: string): boolean {
  const e = essence(contentType);
  return /^[a-z0-9.+-]+\/([a-z0-9.-]+\+)?json$/.test(e) || e === 'application/x-json';
}

/** The order in which a request body's content types are preferred: JSON first, then what Turn's values map to best. */
function requestRank(ct: string): number {
  const e = essence(ct);
  if (isJson(e)) return 0;
  if (e === 'application/x-www-form-urlencoded') return 1;
  if (e === 'multipart/form-data') return 2;
  if (e === 'text/plain') return 3;
  if (e === '*/*') return 4;
  if (e === 'application/octet-stream') return 5;
  if (e.startsWith('text/')) return 6;
  return 7;
}

/** The content type a request body is sent as, from the ones its operation declares. */
export function requestMediaType(declared: readonly string[]): string | undefined {
  return [...declared].sort((a, b) => requestRank(a) - requestRank(b))[0];
}

/** Whether a body of this content type is typed with its schema (else it is a `Str`). */
export function typedBody(contentType: string): boolean {
  const e = essence(contentType);
  return isJson(e) || e === '*/*' || e === 'application/x-www-form-urlencoded' || e === 'multipart/form-data';
}

/** `Accept` for the content types an operation's replies declare: JSON ones preferred, the rest after them. */
export function acceptHeader(declared: readonly string[]): string | undefined {
  const types = [...new Set(declared.map((t) => t.trim()).filter((t) => /^[!-~]+\/[!-~]+$/.test(essence(t)) && !/[\r\n]/.test(t)))];
  if (types.length === 0) return undefined;
  const json = types.filter(isJson);
  const rest = types.filter((t) => !isJson(t));
  if (json.length === 0) return rest.join(', ');
  return [...json, ...rest.map((t) => `${t};q=0.5`)].join(', ');
}

/** How a request body is sent (what openapi.ts reads from the spec). */
export interface BodyPlan {
  contentType: string;
  /** multipart: the properties that are files (`format: binary`, `contentEncoding`, or an `encoding.contentType` that is not text). */
  files?: string[];
  /** Properties the spec marks readOnly: never sent. */
  readOnly?: string[];
  /** Form bodies: a property's `encoding` (style, explode, allowReserved) when the spec gives one. */
  encoding?: Record<string, { style?: ParamStyle; explode?: boolean; allowReserved?: boolean }>;
}

/** A request body that cannot be sent as its content type: the message says why. */
export class MediaError extends Error {}

const MAX_BOUNDARY_TRIES = 8;

/** The request's body text and its `Content-Type`. `value` is the Turn value (structs and maps as plain objects). */
export function encodeBody(plan: BodyPlan, value: unknown): { body: string; contentType: string } {
  const e = essence(plan.contentType);
  // JSON keeps its nulls: the value comes from `wire_encode`, which has already left out the
  // fields a call left out, so a null here was written (or the spec requires the property). Form
  // and multipart bodies have no null: a null property is not sent.
  if (isJson(e) || e === '*/*') return { body: JSON.stringify(withoutReadOnly(value, plan.readOnly)), contentType: e === '*/*' ? 'application/json' : plan.contentType };
  const clean = withoutReadOnly(jsonDropNulls(value), plan.readOnly);
  if (e === 'application/x-www-form-urlencoded') return { body: formBody(clean, plan.encoding ?? {}), contentType: plan.contentType };
  if (e === 'multipart/form-data') return multipartBody(clean, new Set(plan.files ?? []), plan.encoding ?? {});
  if (typeof clean === 'string') return { body: clean, contentType: plan.contentType };
  if (e.startsWith('text/') && (typeof clean === 'number' || typeof clean === 'boolean')) return { body: String(clean), contentType: plan.contentType };
  throw new MediaError(`a ${plan.contentType} body is sent from a Str, not a ${Array.isArray(clean) ? 'list' : typeof clean === 'object' ? 'map' : typeof clean}`);
}

function withoutReadOnly(value: unknown, readOnly: readonly string[] | undefined): unknown {
  if (!readOnly || readOnly.length === 0 || !value || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !readOnly.includes(k)));
}

function objectOf(value: unknown, what: string): Record<string, unknown> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new MediaError(`a ${what} body is sent from a map or struct of its fields`);
  return value as Record<string, unknown>;
}

/** A property's text in a form or a part: primitives as text, lists and maps as JSON (the spec's default for them). */
function fieldText(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * application/x-www-form-urlencoded: each property serialized as a query parameter of its
 * `encoding`'s style (default form, exploded: a list repeats its key, a map's fields are pairs),
 * with params.ts's percent-encoding. A property nested deeper than a map of primitives is sent as JSON.
 */
function formBody(value: unknown, encoding: NonNullable<BodyPlan['encoding']>): string {
  const pairs: string[] = [];
  for (const [k, v] of Object.entries(objectOf(value, 'application/x-www-form-urlencoded'))) pairs.push(...formPairs(k, v, encoding[k] ?? {}));
  return pairs.join('&');
}

/** A form property's `name=value` pairs (percent-encoded) in its encoding's style. */
function formPairs(k: string, v: unknown, enc: NonNullable<BodyPlan['encoding']>[string]): string[] {
  // the delimited and deepObject styles have no form for a single value (nor deepObject for a list): it goes as form does
  const single = v === null || typeof v !== 'object';
  const style = enc.style === undefined || single || (enc.style === 'deepObject' && Array.isArray(v)) ? 'form' : enc.style;
  const nested = Array.isArray(v) ? v.some((x) => x !== null && typeof x === 'object') : v !== null && typeof v === 'object' && Object.values(v).some((x) => x !== null && typeof x === 'object');
  const plan = { name: k, in: 'query' as const, style, explode: enc.explode ?? style === 'form', ...(enc.allowReserved ? { allowReserved: true } : {}), ...(nested ? { content: 'application/json' } : {}) };
  return serializeQuery(plan, v);
}

/** A multipart name or filename, escaped as the WHATWG HTML standard does (`"` → %22, CR → %0D, LF → %0A). */
function partName(s: string): string {
  return s.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

/** multipart/form-data (RFC 7578): one part per property (a list: one per item); a file part has a filename. */
function multipartBody(value: unknown, files: ReadonlySet<string>, encoding: NonNullable<BodyPlan['encoding']>): { body: string; contentType: string } {
  const parts: { name: string; text: string; file: boolean; json: boolean }[] = [];
  for (const [k, v] of Object.entries(objectOf(value, 'multipart/form-data'))) {
    if (encoding[k] && !files.has(k)) {
      // a property with a style (OpenAPI 3.1): its form pairs, one part each, as text
      for (const pair of formPairs(k, v, encoding[k])) {
        const at = pair.indexOf('=');
        parts.push({ name: decodeURIComponent(pair.slice(0, at)), text: decodeURIComponent(pair.slice(at + 1)), file: false, json: false });
      }
      continue;
    }
    const items = Array.isArray(v) && (files.has(k) || v.every((x) => typeof x !== 'object')) ? v : [v];
    for (const x of items) parts.push({ name: k, text: fieldText(x), file: files.has(k), json: typeof x === 'object' });
  }
  // a boundary that no part holds (RFC 2046: it must not occur in the encapsulated text), derived
  // from the parts so the same call makes the same request (a journaled run replays it)
  const digest = nodeCrypto().createHash('sha256').update(JSON.stringify(parts));
  let boundary = '';
  for (let i = 0; boundary === '' || parts.some((p) => p.text.includes(boundary)); i++) {
    if (i >= MAX_BOUNDARY_TRIES) throw new MediaError('multipart/form-data: no boundary could be found that the parts do not hold');
    boundary = `turn-${digest.copy().update(String(i)).digest('hex').slice(0, 32)}`;
  }
  const body = parts
    .map((p) => {
      const disposition = `Content-Disposition: form-data; name="${partName(p.name)}"${p.file ? `; filename="${partName(p.name)}"` : ''}`;
      const type = p.file ? 'application/octet-stream' : p.json ? 'application/json' : 'text/plain; charset=utf-8';
      return `--${boundary}\r\n${disposition}\r\nContent-Type: ${type}\r\n\r\n${p.text}\r\n`;
    })
    .join('');
  return { body: `${body}--${boundary}--\r\n`, contentType: `multipart/form-data; boundary=${boundary}` };
}

/** The content types an operation declares per response key (`200`, `4XX`, `default`). */
export type DeclaredReplies = Record<string, string[]>;

/** The declared content types for a status: its own code, else its class (`2XX`), else `default`. */
export function declaredFor(declared: DeclaredReplies, status: number): string[] | undefined {
  return declared[String(status)] ?? declared[`${String(status)[0]}XX`] ?? declared[`${String(status)[0]}xx`] ?? declared.default;
}

/** Whether a received type is one of the declared ones (a declared wildcard such as text/* covers its family). */
function declares(declared: readonly string[], received: string): boolean {
  return declared.some((d) => {
    const e = essence(d);
    if (e === received || e === '*/*' || e === '*') return true;
    return e.endsWith('/*') && received.startsWith(e.slice(0, -1));
  });
}

export type Decoded = { value: unknown } | { error: string };

/**
 * A reply's value, decoded by the `Content-Type` it came with: JSON variants parsed, anything else
 * as text. An empty body is null. A type the operation does not declare for this status (or a
 * reply without one when a type is declared) is an error naming both.
 */
export function decodeReply(declared: DeclaredReplies, status: number, headers: Record<string, unknown>, body: string): Decoded {
  const header = Object.entries(headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1];
  const received = typeof header === 'string' ? essence(header) : '';
  if (body === '') return { value: null };
  const expected = declaredFor(declared, status) ?? [];
  if (expected.length > 0 && !declares(expected, received)) {
    return { error: `the reply (HTTP ${status}) is ${received === '' ? 'of no declared Content-Type' : received}, and the operation declares ${expected.map(essence).join(', ')} for it` };
  }
  if (isJson(received) || (received === '' && expected.some(isJson))) {
    try {
      return { value: JSON.parse(body) };
    } catch (e) {
      return { error: `the reply (HTTP ${status}, ${received || 'JSON'}) is not JSON: ${(e as Error).message}` };
    }
  }
  return { value: body };
}
