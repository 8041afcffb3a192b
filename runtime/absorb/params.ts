// OpenAPI 3 parameter serialization: the `style`/`explode` table of the specification
// (https://spec.openapis.org/oas/v3.1.0#style-examples) for path, query, header and cookie
// parameters, with RFC 3986 percent-encoding (`allowReserved` keeps the reserved characters).
//
// No maintained library fits: the RFC 6570 URI-template packages (url-template, uri-templates)
// cover simple/label/matrix/form but not spaceDelimited, pipeDelimited, deepObject, headers or
// cookies, and none refuses a hostile header value; the table is small enough to be written out
// here and tested row by row (test/absorb/params.test.ts).
//
// A value is a primitive (Str, Num, Bool), a list of primitives or a map of primitives; a null
// item or property is left out (an optional struct field that was not given). A list or map
// nested inside another has no serialization in the table and is refused, as is a header or
// cookie value that would break the message (CR, LF, NUL or another control character).

export type ParamLocation = 'path' | 'query' | 'header' | 'cookie';
export type ParamStyle = 'simple' | 'label' | 'matrix' | 'form' | 'spaceDelimited' | 'pipeDelimited' | 'deepObject';

/** How one parameter goes on the wire (what openapi.ts reads from the spec). */
export interface ParamPlan {
  /** The parameter's name on the wire. */
  name: string;
  in: ParamLocation;
  style: ParamStyle;
  explode: boolean;
  /** Query only: reserved characters are sent as they are. */
  allowReserved?: boolean;
  /** The parameter has `content` instead of `schema`: its value is sent as this media type (JSON). */
  content?: string;
}

/** A parameter that cannot be sent as the spec says: the message names it. */
export class ParamError extends Error {}

/** The style a location uses when the spec names none, and the styles it allows. */
export const DEFAULT_STYLE: Record<ParamLocation, ParamStyle> = { path: 'simple', query: 'form', header: 'simple', cookie: 'form' };
export const STYLES: Record<ParamLocation, readonly ParamStyle[]> = {
  path: ['simple', 'label', 'matrix'],
  query: ['form', 'spaceDelimited', 'pipeDelimited', 'deepObject'],
  header: ['simple'],
  cookie: ['form'],
};

const UNRESERVED = /[A-Za-z0-9\-._~]/;
/** RFC 3986 reserved characters that `allowReserved` keeps, except `#`, which would end the query. */
const RESERVED_KEPT = /[:/?[\]@!$&'()*+,;=]/;

/** `s` percent-encoded (UTF-8): everything but the unreserved characters, or also the reserved ones when `allowReserved`. */
export function percentEncode(s: string, allowReserved = false): string {
  let out = '';
  for (const ch of s.replace(/[\uD800-\uDFFF]/g, (c, i: number, all: string) => (isPaired(all, i) ? c : '\uFFFD'))) {
    if (UNRESERVED.test(ch) || (allowReserved && RESERVED_KEPT.test(ch))) out += ch;
    else for (const b of Buffer.from(ch, 'utf8')) out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function isPaired(s: string, i: number): boolean {
  const c = s.charCodeAt(i);
  if (c <= 0xdbff) return i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff;
  return i > 0 && s.charCodeAt(i - 1) >= 0xd800 && s.charCodeAt(i - 1) <= 0xdbff;
}

type Shape = { kind: 'primitive'; value: string } | { kind: 'list'; items: string[] } | { kind: 'map'; entries: [string, string][] };

function primitiveText(p: ParamPlan, v: unknown, where: string): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new ParamError(`parameter "${p.name}": ${where} ${v} is not a number the wire can carry`);
    return String(v);
  }
  if (typeof v === 'boolean') return String(v);
  throw new ParamError(`parameter "${p.name}" (${p.in}, style ${p.style}): ${where} is a ${Array.isArray(v) ? 'list' : 'map'}, which this style cannot serialize (only a primitive, a list of primitives or a map of primitives)`);
}

/** The value's shape, nulls left out; a nested list or map is refused. */
function shapeOf(p: ParamPlan, value: unknown): Shape {
  if (Array.isArray(value)) return { kind: 'list', items: value.filter((x) => x !== null && x !== undefined).map((x, i) => primitiveText(p, x, `item ${i}`)) };
  if (value !== null && typeof value === 'object') {
    return { kind: 'map', entries: Object.entries(value).filter(([, x]) => x !== null && x !== undefined).map(([k, x]) => [k, primitiveText(p, x, `property "${k}"`)]) };
  }
  return { kind: 'primitive', value: primitiveText(p, value, 'the value') };
}

/**
 * A path parameter's text in the path template (already percent-encoded): simple `blue`,
 * label `.blue`, matrix `;color=blue` and their list and map forms.
 */
export function serializePath(p: ParamPlan, value: unknown): string {
  if (p.content !== undefined) return percentEncode(JSON.stringify(value));
  const s = shapeOf(p, value);
  const e = (x: string) => percentEncode(x);
  const name = e(p.name);
  switch (p.style) {
    case 'simple':
      return joined(s, ',', p.explode ? '=' : ',', e);
    case 'label': {
      const sep = p.explode ? '.' : ',';
      return '.' + joined(s, sep, p.explode ? '=' : ',', e);
    }
    case 'matrix': {
      if (s.kind === 'primitive') return `;${name}${s.value === '' ? '' : '=' + e(s.value)}`;
      if (!p.explode) return `;${name}` + (isEmpty(s) ? '' : '=' + joined(s, ',', ',', e));
      if (s.kind === 'list') return s.items.map((x) => `;${name}=${e(x)}`).join('');
      return s.entries.map(([k, x]) => `;${e(k)}=${e(x)}`).join('');
    }
    default:
      throw new ParamError(`parameter "${p.name}": style ${p.style} is not a path style (simple, label, matrix)`);
  }
}

const isEmpty = (s: Shape) => (s.kind === 'list' ? s.items.length === 0 : s.kind === 'map' ? s.entries.length === 0 : false);

/** A shape's items joined: list items by `sep`; map entries as key`kv`value joined by `sep`. */
function joined(s: Shape, sep: string, kv: string, e: (x: string) => string): string {
  if (s.kind === 'primitive') return e(s.value);
  if (s.kind === 'list') return s.items.map(e).join(sep);
  return s.entries.map(([k, x]) => e(k) + kv + e(x)).join(sep);
}

/** A query parameter's `name=value` pairs, percent-encoded, to be joined with `&`. */
export function serializeQuery(p: ParamPlan, value: unknown): string[] {
  const e = (x: string) => percentEncode(x, p.allowReserved === true);
  const name = percentEncode(p.name);
  if (p.content !== undefined) return [`${name}=${e(JSON.stringify(value))}`];
  const s = shapeOf(p, value);
  switch (p.style) {
    case 'form':
      if (s.kind === 'primitive') return [`${name}=${e(s.value)}`];
      if (!p.explode) return [`${name}=${joined(s, ',', ',', e)}`];
      if (s.kind === 'list') return s.items.map((x) => `${name}=${e(x)}`);
      return s.entries.map(([k, x]) => `${percentEncode(k)}=${e(x)}`);
    case 'spaceDelimited':
    case 'pipeDelimited': {
      if (s.kind === 'primitive') throw new ParamError(`parameter "${p.name}": style ${p.style} serializes a list or a map, not a single value`);
      const sep = p.style === 'spaceDelimited' ? '%20' : '%7C';
      if (p.explode && s.kind === 'list') return s.items.map((x) => `${name}=${e(x)}`); // as form: the table has no exploded row
      if (p.explode) throw new ParamError(`parameter "${p.name}": style ${p.style} with explode has no serialization for a map`);
      return [`${name}=${joined(s, sep, sep, e)}`];
    }
    case 'deepObject':
      if (s.kind !== 'map') throw new ParamError(`parameter "${p.name}": style deepObject serializes a map, not a ${s.kind === 'list' ? 'list' : 'single value'}`);
      return s.entries.map(([k, x]) => `${name}%5B${percentEncode(k)}%5D=${e(x)}`);
    default:
      throw new ParamError(`parameter "${p.name}": style ${p.style} is not a query style (form, spaceDelimited, pipeDelimited, deepObject)`);
  }
}

/** Control characters a header or cookie may never carry (CR and LF would start a new header). */
 
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;

/** A header parameter's value (style simple). Not percent-encoded; a control character or one beyond Latin-1 is refused. */
export function serializeHeader(p: ParamPlan, value: unknown): string {
  const text = p.content !== undefined ? JSON.stringify(value) : joined(shapeOf(p, value), ',', p.explode ? '=' : ',', (x) => x);
  if (CONTROL.test(text)) throw new ParamError(`header parameter "${p.name}": the value holds a line break or another control character, which would change the request's headers: it is not sent`);
  if (/[^\x20-\xff\t]/.test(text)) throw new ParamError(`header parameter "${p.name}": the value holds a character beyond Latin-1, which an HTTP header cannot carry`);
  return text;
}

/** A cookie parameter's `name=value` pairs (style form), percent-encoded, to be joined with `; `. */
export function serializeCookie(p: ParamPlan, value: unknown): string[] {
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(p.name)) throw new ParamError(`cookie parameter "${p.name}": the name is not a cookie name (an HTTP token)`);
  // form style, its values percent-encoded: a `;`, `,`, space or control character never reaches the header
  return serializeQuery({ ...p, style: 'form', allowReserved: false }, value);
}

/** The parts of a request its parameters make: the path with its templates filled, the query string, headers. */
export interface SerializedParams {
  path: string;
  query: string;
  headers: Record<string, string>;
}

/** Headers a parameter may not set (OpenAPI: `Accept`, `Content-Type` and `Authorization` parameters are ignored). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/**
 * Fills `pathTemplate` (`/pets/{id}`) and builds the query string and headers from `values`
 * (wire name → value; null or absent: not sent). A path parameter without a value is refused.
 */
export function serializeParams(pathTemplate: string, plans: readonly ParamPlan[], values: Record<string, unknown>): SerializedParams {
  const query: string[] = [];
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  const pathValues = new Map<string, string>();
  for (const p of plans) {
    const v = Object.hasOwn(values, `${p.in}:${p.name}`) ? values[`${p.in}:${p.name}`] : undefined;
    if (v === null || v === undefined) {
      if (p.in === 'path') throw new ParamError(`path parameter "${p.name}" is required`);
      continue;
    }
    if (p.in === 'path') pathValues.set(p.name, serializePath(p, v));
    else if (p.in === 'query') query.push(...serializeQuery(p, v));
    else if (p.in === 'header') {
      if (!IGNORED_HEADERS.has(p.name.toLowerCase())) headers[p.name] = serializeHeader(p, v);
    } else cookies.push(...serializeCookie(p, v));
  }
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  const path = pathTemplate.replace(/\{([^{}]*)\}/g, (whole, name: string) => pathValues.get(name) ?? whole);
  return { path, query: query.join('&'), headers };
}
