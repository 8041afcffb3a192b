// Identity kinds: what `grant identity::kind("spec")` means and how the host injects the secret
// into an HTTP request. The VM holds the handle as an IdentityVal (kind and name); the host holds
// it as an IdentityHandle minted from that value; the secret is looked up in the vault by
// `secretName(handle)` when the request is performed.
//
//   identity::bearer("github")            Authorization: Bearer <secret github>
//   identity::header("x-api-key:stripe")  x-api-key: <secret stripe>
//   identity::basic("alice:jira")         Authorization: Basic base64("alice:" + <secret jira>)
//   identity::basic("jira")               Authorization: Basic base64(<secret jira>)   (secret is "user:password")
//   identity::query("api_key:maps")       ...?api_key=<secret maps>
//   identity::cookie("session:shop")      Cookie: session=<secret shop>   (OpenAPI's apiKey `in: cookie`)
// Turn v1's kinds:
//   identity::oauth("google")             Authorization: Bearer <secret google> (an OAuth access token)
//   identity::network("market")           Authorization: Bearer <secret market> when that secret is
//                                         set; otherwise the request goes without a credential
//   identity::filesystem("workspace")     no secret: std/fs takes it as the run's own file grant;
//                                         an HTTP request refuses it
//
// A handle's shape never confers authority. A map `{"kind": "bearer", "name": "github"}` — written
// in source, parsed from JSON, a model's reply, an API's or an MCP server's result, a message — is
// data: no credential position takes it. The only IdentityHandle is one `mintHandle` made from an
// IdentityVal, which the VM makes only at a `grant` (and the store when it restores a snapshot of
// one); `isHandle` recognises it by this module's private registry, never by its fields.
import type { IdentityVal } from '../values/index.js';

/** Handles this module minted: the only objects `isHandle` accepts (their fields prove nothing). */
const minted = new WeakSet<object>();
/** One host handle per VM handle, so the same grant is the same object wherever it travels. */
const byValue = new WeakMap<IdentityVal, IdentityHandle>();
/** Held by this module only: the constructor refuses to run without it. */
const MINT: unique symbol = Symbol('mint an identity handle');

/**
 * The host's side of a granted identity: which secret, injected how. Only `mintHandle` makes one:
 * the constructor needs this module's private token, the class's private field keeps an object
 * literal from type-checking as one, and `minted` keeps any object made otherwise
 * (`Object.create`, a copy, JSON) from being taken for one at run time.
 */
export class IdentityHandle {
  /** nominal typing: `{kind, name}` is not assignable to IdentityHandle */
  readonly #brand = MINT;
  constructor(
    token: typeof MINT,
    readonly kind: string,
    readonly name: string,
  ) {
    if (token !== MINT || this.#brand !== MINT) throw new IdentityError('identity handles are minted by the host only');
    minted.add(this);
    Object.freeze(this);
  }

  /** How a journal entry records it (an effect's input): kind and name, never a secret. */
  toJSON(): { kind: string; name: string } {
    return { kind: this.kind, name: this.name };
  }
}

/**
 * The host handle of a VM handle (runtime/vm/host-tools.ts's `toHostArg` calls it for every
 * IdentityVal it hands the host). Never call it on anything a program's data could have shaped.
 */
export function mintHandle(v: IdentityVal): IdentityHandle {
  let h = byValue.get(v);
  if (!h) byValue.set(v, (h = new IdentityHandle(MINT, v.kind, v.name)));
  return h;
}

/** Whether `x` is a handle the host minted from a grant (never judged by its shape). */
export function isHandle(x: unknown): x is IdentityHandle {
  return typeof x === 'object' && x !== null && minted.has(x);
}

/**
 * Whether a plain value looks like a handle written as data (`{"kind": "bearer", "name": ...}`):
 * only to refuse it with a message that says why it is not one.
 */
export function looksLikeHandle(x: unknown): boolean {
  if (typeof x !== 'object' || x === null || Array.isArray(x) || isHandle(x)) return false;
  const o = x as Record<string, unknown>;
  return typeof o.kind === 'string' && 'name' in o && (IDENTITY_KINDS as readonly string[]).includes(o.kind);
}

/** The error a credential position gives for a value that is not a granted handle. */
export function forgedMessage(where: string): string {
  return `${where}: a map is not an identity handle: only \`grant identity::kind("name")\` in the program's source makes one (a value from data, JSON, a model, an API, an MCP server or a message never becomes a credential)`;
}

export type IdentityKind = 'bearer' | 'header' | 'basic' | 'query' | 'cookie' | 'oauth' | 'network' | 'filesystem';
export const IDENTITY_KINDS: readonly IdentityKind[] = ['bearer', 'header', 'basic', 'query', 'cookie', 'oauth', 'network', 'filesystem'];

/** A parsed handle: which secret to fetch and where it goes. */
export type IdentitySpec =
  | { kind: 'bearer'; secret: string }
  | { kind: 'header'; header: string; secret: string }
  | { kind: 'basic'; user?: string; secret: string }
  | { kind: 'query'; param: string; secret: string }
  | { kind: 'cookie'; cookie: string; secret: string }
  | { kind: 'oauth'; secret: string }
  | { kind: 'network'; secret: string }
  | { kind: 'filesystem'; secret: string };

export class IdentityError extends Error {}

const SECRET_NAME = /^[A-Za-z0-9_.\-]+$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FORBIDDEN_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'cookie']);

/**
 * Parses `grant identity::kind("name")` into its spec, or returns an error message (for the
 * analyzer when the name is a literal, and for the host at request time).
 */
export function parseIdentity(kind: string, name: string): { ok: true; spec: IdentitySpec } | { ok: false; message: string } {
  const bad = (message: string) => ({ ok: false as const, message });
  const secretOk = (s: string) => SECRET_NAME.test(s);
  const secretMsg = (s: string) => `identity::${kind}: "${s}" is not a valid secret name (letters, digits, _ . - only)`;
  switch (kind) {
    case 'bearer':
    case 'oauth':
    case 'network':
    case 'filesystem':
      if (!secretOk(name)) return bad(secretMsg(name));
      return { ok: true, spec: { kind, secret: name } };
    case 'header':
    case 'query':
    case 'cookie': {
      const i = name.indexOf(':');
      if (i <= 0) {
        const example = kind === 'header' ? 'x-api-key:NAME' : kind === 'cookie' ? 'session:NAME' : 'api_key:NAME';
        const where = kind === 'header' ? 'HEADER' : kind === 'cookie' ? 'COOKIE' : 'PARAM';
        return bad(`identity::${kind} needs "${where}:SECRET", e.g. identity::${kind}("${example}")`);
      }
      const where = name.slice(0, i).trim();
      const secret = name.slice(i + 1).trim();
      if (!secretOk(secret)) return bad(secretMsg(secret));
      if (kind === 'header') {
        if (!HEADER_NAME.test(where)) return bad(`identity::header: "${where}" is not a valid header name`);
        if (FORBIDDEN_HEADERS.has(where.toLowerCase())) return bad(`identity::header: the header "${where}" cannot carry a secret`);
        return { ok: true, spec: { kind, header: where, secret } };
      }
      // a cookie's name is an HTTP token (RFC 6265, section 4.1.1), as a header's is
      if (kind === 'cookie') {
        if (!HEADER_NAME.test(where)) return bad(`identity::cookie: "${where}" is not a valid cookie name`);
        return { ok: true, spec: { kind, cookie: where, secret } };
      }
      if (!/^[A-Za-z0-9_.\-\[\]]+$/.test(where)) return bad(`identity::query: "${where}" is not a valid query parameter name`);
      return { ok: true, spec: { kind, param: where, secret } };
    }
    case 'basic': {
      const i = name.indexOf(':');
      if (i < 0) {
        if (!secretOk(name)) return bad(secretMsg(name));
        return { ok: true, spec: { kind, secret: name } };
      }
      const user = name.slice(0, i);
      const secret = name.slice(i + 1);
      if (user === '' || /[\s:]/.test(user)) return bad(`identity::basic: "${user}" is not a valid user name`);
      if (!secretOk(secret)) return bad(secretMsg(secret));
      return { ok: true, spec: { kind, user, secret } };
    }
    default:
      return bad(`unknown identity kind "${kind}" (known: ${IDENTITY_KINDS.join(', ')})`);
  }
}

/** Refuses anything but a minted handle where a secret is about to be looked up or sent. */
function granted(handle: IdentityHandle): void {
  if (!isHandle(handle)) throw new IdentityError(forgedMessage('a credential'));
}

/** The vault name of the secret behind a handle. Throws IdentityError for a malformed handle. */
export function secretName(handle: IdentityHandle): string {
  granted(handle);
  const p = parseIdentity(handle.kind, handle.name);
  if (!p.ok) throw new IdentityError(p.message);
  return p.spec.secret;
}

/** Turn v1's `identity::network`: its secret is sent when it is set and may be left unset. */
export function secretOptional(handle: IdentityHandle): boolean {
  return handle.kind === 'network';
}

/** Turn v1's `identity::filesystem`: a file authority with no secret, never an HTTP credential. */
export function isFileIdentity(handle: IdentityHandle): boolean {
  return handle.kind === 'filesystem';
}

/** A request being prepared by the host (headers lower-cased). */
export interface OutgoingRequest {
  url: URL;
  headers: Record<string, string>;
}

/**
 * Puts `secret` where the handle's kind says. Never includes the secret in a thrown message.
 * A secret containing CR, LF or NUL is refused (it would split headers).
 */
export function injectIdentity(request: OutgoingRequest, handle: IdentityHandle, secret: string): void {
  granted(handle);
  const p = parseIdentity(handle.kind, handle.name);
  if (!p.ok) throw new IdentityError(p.message);
  const spec = p.spec;
  if (/[\r\n\0]/.test(secret)) throw new IdentityError(`the secret "${spec.secret}" contains a line break and cannot be sent`);
  switch (spec.kind) {
    case 'bearer':
    case 'oauth':
    case 'network':
      request.headers['authorization'] = `Bearer ${secret}`;
      return;
    case 'filesystem':
      throw new IdentityError(`${describeIdentity(handle)} is a file authority and cannot authenticate an HTTP request`);
    case 'header':
      request.headers[spec.header.toLowerCase()] = secret;
      return;
    case 'basic': {
      const pair = spec.user !== undefined ? `${spec.user}:${secret}` : secret;
      if (spec.user === undefined && !pair.includes(':')) {
        throw new IdentityError(`identity::basic("${handle.name}"): the secret must have the form user:password`);
      }
      request.headers['authorization'] = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
      return;
    }
    case 'query':
      request.url.searchParams.set(spec.param, secret);
      return;
    case 'cookie': {
      // RFC 6265's cookie-octets: no whitespace, quote, comma, semicolon or backslash, so the
      // secret cannot end this cookie and start another
      if (!/^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/.test(secret)) throw new IdentityError(`the secret "${spec.secret}" holds a character a cookie cannot carry (a space, quote, comma, semicolon or backslash) and cannot be sent`);
      const pair = `${spec.cookie}=${secret}`;
      const sent = request.headers['cookie'];
      request.headers['cookie'] = sent ? `${sent}; ${pair}` : pair;
      return;
    }
  }
}

/** How a handle is shown anywhere (trace, errors, `echo` refuses it anyway): never the secret. */
export function describeIdentity(handle: IdentityHandle): string {
  return `identity::${handle.kind}("${handle.name}")`;
}
