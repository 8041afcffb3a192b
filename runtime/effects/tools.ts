// Host-side logic of the tools the standard modules call (`call("regex_match", p, s)` ...).
// Each function takes plain JavaScript values (the VM converts: maps → objects, IdentityVal → the
// IdentityHandle the host mints for it, runtime/effects/identity.ts) and returns plain JSON-like
// values (the VM converts back with `fromPlain`).
// Pure tools are synchronous; effect tools (time, random, env, fs, http) take an EffectToolContext
// and the lead routes them through the effect/journal path. The registry at the bottom lists them.
import { capabilitiesFromPlain, check, narrow, requireApproval, EffectDenied, type ApprovalHook, type ApprovalRecord, type Capabilities, type Usage } from './capabilities.js';
import { authorize, existsEffect, listDirEffect, readFileBytesEffect, readFileEffect, writeFileEffect, type FsContext } from './fs.js';
import { MediaError, makeMedia, mediaOptions, type MediaOptions } from '../media/make.js';
import { mimeOfName, type MediaKind } from '../media/sniff.js';
import type { MediaVal } from '../values/index.js';
import { performHttp, type HttpResponse } from './http.js';
import { forgedMessage, isHandle, looksLikeHandle } from './identity.js';
import { isProviderKeyName } from './environ.js';
import { re2, unsupportedSyntax } from '../linear-regex.js';
// the VM mints a host handle for each IdentityVal it passes (the one module of effects/ it imports is this)
export { mintHandle } from './identity.js';
import type { Redactor, Vault } from './vault.js';
import { KNOWLEDGE_TOOLS } from '../knowledge/tools.js';
import { jsonSchemaIssues } from '../absorb/reply.js';
import { jsonDropNulls } from '../absorb/request.js';
import { openapiReply, openapiRequest } from '../absorb/openapi-wire.js';
import type { KnowledgeSession } from '../knowledge/store.js';
import type { RE2JS } from 're2js';
import { MCP_TOOLS } from '../mcp/tools.js';
import { CALLER_TOOLS } from '../mcp/caller-tools.js';
import type { McpCaller } from '../ports/mcp-caller.js';
import type { McpSessions } from '../mcp/sessions.js';
import type { OAuthOptions } from '../mcp/oauth/options.js';

export class ToolError extends Error {}

/**
 * What the VM adds to a `ToolRequest` it hands to the host: the signal that aborts the effect when
 * its process is cancelled or the run ends while it is in flight (runtime/effects/host.ts reads it).
 */
export interface Cancellable {
  signal?: AbortSignal;
}

export interface EffectToolContext {
  vault: Vault;
  capabilities: Capabilities;
  usage?: Usage;
  approve?: ApprovalHook;
  journal?: (entry: ApprovalRecord) => void;
  redactor?: Redactor;
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Wall clock (ms since epoch); default Date.now. */
  now?: () => number;
  random?: () => number;
  /**
   * The run's view of the knowledge store (std/knowledge, docs/knowledge.md); opened on first use.
   * `dir` is its folder: a kb tool needs write access to it under `capabilities`, or
   * `knowledgeGranted` (see `authorizeKnowledge`).
   */
  knowledge?: (() => KnowledgeSession) & { readonly dir?: string };
  /** The knowledge store is granted explicitly (a run option), whatever the files capability says. */
  knowledgeGranted?: boolean;
  /** Files no file effect may touch, besides the vault's own (`Vault.files`). */
  protectedFiles?: string[];
  /** a durable run's journal key of the effect being performed (sent as an HTTP Idempotency-Key) */
  idempotencyKey?: string;
  /** the W3C trace context of the effect's span, when the run exports traces (runtime/telemetry): sent as an HTTP `traceparent` header and in MCP `_meta` */
  traceparent?: string;
  /** aborted when the process that asked for the effect is cancelled or the run ends without it */
  signal?: AbortSignal;
  /** environment variables that hold the run's model keys (the model spec's api_key_env, a driver's secrets) */
  providerKeyNames?: ReadonlySet<string>;
  /** the process that asked for the effect */
  pid?: number;
  /** the run's MCP sessions (runtime/mcp): servers are started on first use and stopped with the run */
  mcp?: McpSessions;
  /** launch keys of the MCP launch maps written literally in the program: the only stdio servers started (runtime/mcp/launch.ts) */
  writtenLaunches?: { has(key: string): boolean };
  /** the MCP client of a run `turn mcp` serves (runtime/mcp/serve/): progress, elicitation, sampling */
  mcpCaller?: McpCaller;
  /** stops the effect's time limit while `f` (a question to a person: an MCP server's elicitation) runs */
  holdClock?<T>(f: () => Promise<T>): Promise<T>;
  /** how an MCP session under `identity::oauth` signs in (runtime/mcp/oauth) */
  oauth?: OAuthOptions;
}

function str(tool: string, v: unknown, what = 'argument'): string {
  if (typeof v !== 'string') throw new ToolError(`${tool}: the ${what} must be a Str`);
  return v;
}

function num(tool: string, v: unknown, what = 'argument'): number {
  if (typeof v !== 'number' || Number.isNaN(v)) throw new ToolError(`${tool}: the ${what} must be a Num`);
  return v;
}

// ---------------------------------------------------------------------------------------------
// regex (pure). RE2 through re2js: matching takes time linear in the text's length, so no pattern
// can make a call run for minutes (JavaScript's backtracking engine takes exponential time on
// `^(a+)+$` against "aaaa…!"). Patterns are written as in JavaScript: `(?<name>…)`, `\u00e9`,
// `\u{1F600}` and `\cA` are translated; backreferences and lookaround, which no linear-time engine
// has, are refused with a message saying so. Flags among "imsu" (u changes nothing: RE2 always
// matches code points). docs/language.md (std/regex) lists the differences.
//
// Time: a test (`regex_match`) runs on a DFA and is fast on any pattern. Extracting matches runs an
// NFA whose worst case is the text's length × the pattern's program size, so that product is
// bounded (about 4 s at worst); and `find_all`, `replace` and `split`, which search again after
// each match (a pattern like `[^x]*y|a` rescans the rest of the text each time: quadratic), give up
// after MAX_MATCHING_MS.

const MAX_PATTERN = 1000;
const MAX_TEXT = 1_000_000;
/** the text's length × the pattern's program size a search that extracts matches may cost */
const MAX_SEARCH_WORK = 100_000_000;
/** how long `regex_find_all`, `regex_replace` and `regex_split` may go on finding matches */
const MAX_MATCHING_MS = 5_000;

/** recently compiled patterns (few: each may hold a lazy DFA's state cache, up to 8 MB) */
const compiled = new Map<string, RE2JS>();
const COMPILED_KEPT = 16;

function regex(tool: string, pattern: unknown, flags: unknown): RE2JS {
  const p = str(tool, pattern, 'pattern');
  const f = flags === undefined || flags === null ? '' : str(tool, flags, 'flags');
  if (p.length > MAX_PATTERN) throw new ToolError(`${tool}: the pattern is longer than ${MAX_PATTERN} characters`);
  if (!/^[imsu]*$/.test(f)) throw new ToolError(`${tool}: flags must be among i, m, s, u`);
  const key = `${f}/${p}`;
  const cached = compiled.get(key);
  if (cached) return cached;
  const missing = unsupportedSyntax(p);
  if (missing) {
    throw new ToolError(`${tool}: ${missing} is not supported: Turn's regular expressions (RE2) run in time linear in the text, which rules out backreferences and lookaround (docs/language.md, std/regex)`);
  }
  let re: RE2JS;
  try {
    const RE2 = re2();
    const bits = (f.includes('i') ? RE2.CASE_INSENSITIVE : 0) | (f.includes('m') ? RE2.MULTILINE : 0) | (f.includes('s') ? RE2.DOTALL : 0);
    re = RE2.compile(RE2.translateRegExp(p), bits);
  } catch (e) {
    const message = (e as Error).message.replace(/^error parsing regexp: /, '');
    throw new ToolError(`${tool}: invalid pattern: ${message}`);
  }
  if (compiled.size >= COMPILED_KEPT) {
    const [oldest, old] = compiled.entries().next().value!;
    old.reset();
    compiled.delete(oldest);
  }
  compiled.set(key, re);
  return re;
}

function text(tool: string, v: unknown): string {
  const s = str(tool, v, 'text');
  if (s.length > MAX_TEXT) throw new ToolError(`${tool}: the text is longer than ${MAX_TEXT} characters`);
  return s;
}

/** A pattern and a text a search that extracts matches may run on (see MAX_SEARCH_WORK). */
function searchable(tool: string, re: RE2JS, s: string): void {
  const size = re.programSize();
  if (s.length * size > MAX_SEARCH_WORK) {
    throw new ToolError(
      `${tool}: the pattern is too large for a text this long (program size ${size} × ${s.length} characters is over ${MAX_SEARCH_WORK.toLocaleString('en')}); search shorter pieces of the text or use a simpler pattern`,
    );
  }
}

/** Every match of `re` in `s`, in order, given up after MAX_MATCHING_MS. */
function* matches(tool: string, re: RE2JS, s: string): Generator<RegExpMatchArray> {
  const deadline = performance.now() + MAX_MATCHING_MS;
  for (const m of re.matchAll(s)) {
    yield m;
    if (performance.now() > deadline) {
      throw new ToolError(`${tool}: gave up after ${MAX_MATCHING_MS / 1000} s of matching (each match of this pattern searches the rest of the text again); search shorter pieces of the text or use a simpler pattern`);
    }
  }
}

export interface RegexMatch {
  match: string;
  index: number;
  groups: (string | null)[];
  named: Record<string, string | null>;
}

function toMatch(m: RegExpMatchArray): RegexMatch {
  const named: Record<string, string | null> = {};
  for (const [k, v] of Object.entries(m.groups ?? {})) named[k] = v ?? null;
  return { match: m[0], index: m.index ?? 0, groups: m.slice(1).map((g) => g ?? null), named };
}

/** A replacement's `$$`, `$&`, `` $` ``, `$'`, `$1`…`$99` and `$<name>`, as JavaScript's `String.prototype.replace` reads them. */
function expand(replacement: string, m: RegExpMatchArray, s: string): string {
  if (!replacement.includes('$')) return replacement;
  const at = m.index ?? 0;
  const groups = m.length - 1;
  let out = '';
  for (let i = 0; i < replacement.length; i++) {
    const c = replacement[i];
    const d = replacement[i + 1];
    if (c !== '$' || d === undefined) {
      out += c;
    } else if (d === '$') {
      out += '$';
      i++;
    } else if (d === '&') {
      out += m[0];
      i++;
    } else if (d === '`') {
      out += s.slice(0, at);
      i++;
    } else if (d === "'") {
      out += s.slice(at + m[0].length);
      i++;
    } else if (d >= '0' && d <= '9') {
      const two = replacement[i + 2] >= '0' && replacement[i + 2] <= '9' ? Number(d + replacement[i + 2]) : 0;
      const one = Number(d);
      if (two >= 1 && two <= groups) {
        out += m[two] ?? '';
        i += 2;
      } else if (one >= 1 && one <= groups) {
        out += m[one] ?? '';
        i++;
      } else out += c;
    } else if (d === '<' && m.groups !== undefined) {
      const close = replacement.indexOf('>', i + 2);
      if (close < 0) out += c;
      else {
        out += m.groups[replacement.slice(i + 2, close)] ?? '';
        i = close;
      }
    } else out += c;
  }
  return out;
}

/** regex_match(pattern, text, flags?) → Bool */
export function regexMatch(pattern: unknown, s: unknown, flags?: unknown): boolean {
  const re = regex('regex_match', pattern, flags);
  return re.test(text('regex_match', s));
}
/** regex_find(pattern, text, flags?) → {match, index, groups, named} | null */
export function regexFind(pattern: unknown, s: unknown, flags?: unknown): RegexMatch | null {
  const re = regex('regex_find', pattern, flags);
  const t = text('regex_find', s);
  searchable('regex_find', re, t);
  const m = re.exec(t) as RegExpMatchArray | null;
  return m ? toMatch(m) : null;
}
/** regex_find_all(pattern, text, flags?) → List of {match, index, groups, named} */
export function regexFindAll(pattern: unknown, s: unknown, flags?: unknown): RegexMatch[] {
  const re = regex('regex_find_all', pattern, flags);
  const t = text('regex_find_all', s);
  searchable('regex_find_all', re, t);
  return [...matches('regex_find_all', re, t)].map((m) => toMatch(m));
}
/** regex_replace(pattern, text, replacement, flags?) → Str; replaces every match; `$1`, `$<name>` refer to groups. */
export function regexReplace(pattern: unknown, s: unknown, replacement: unknown, flags?: unknown): string {
  const re = regex('regex_replace', pattern, flags);
  const t = text('regex_replace', s);
  const r = str('regex_replace', replacement, 'replacement');
  searchable('regex_replace', re, t);
  let out = '';
  let last = 0;
  for (const m of matches('regex_replace', re, t)) {
    const at = m.index ?? 0;
    out += t.slice(last, at) + expand(r, m, t);
    last = at + m[0].length;
  }
  return out + t.slice(last);
}
/** regex_split(pattern, text, flags?) → List<Str>, with the groups of each separator between the pieces (as JavaScript's `split`). */
export function regexSplit(pattern: unknown, s: unknown, flags?: unknown): (string | null)[] {
  const re = regex('regex_split', pattern, flags);
  const t = text('regex_split', s);
  searchable('regex_split', re, t);
  if (t.length === 0) return re.test(t) ? [] : [t];
  const out: (string | null)[] = [];
  let last = 0;
  for (const m of matches('regex_split', re, t)) {
    const at = m.index ?? 0;
    const end = at + m[0].length;
    if (at >= t.length) break; // a separator at the very end splits nothing off
    if (end === last) continue; // an empty separator where the last one ended
    out.push(t.slice(last, at), ...m.slice(1).map((g) => g ?? null));
    last = end;
  }
  out.push(t.slice(last));
  return out;
}

// ---------------------------------------------------------------------------------------------
// math (pure, except random)

const MATH1: Record<string, (x: number) => number> = {
  math_log: Math.log, math_log10: Math.log10, math_log2: Math.log2, math_exp: Math.exp,
  math_sin: Math.sin, math_cos: Math.cos, math_tan: Math.tan, math_asin: Math.asin, math_acos: Math.acos, math_atan: Math.atan,
  math_trunc: Math.trunc, math_sign: Math.sign,
};
/** math_pow(base, exponent) → Num */
export function mathPow(a: unknown, b: unknown): number {
  return Math.pow(num('math_pow', a), num('math_pow', b));
}
/** math_atan2(y, x) → Num */
export function mathAtan2(y: unknown, x: unknown): number {
  return Math.atan2(num('math_atan2', y), num('math_atan2', x));
}
/** math_random() → Num in [0, 1) — an effect (journaled so replay returns the same number). */
export function mathRandom(ctx: Pick<EffectToolContext, 'random'>): number {
  return (ctx.random ?? Math.random)();
}

// ---------------------------------------------------------------------------------------------
// json (pure): json_parse / json_stringify exist in the VM; one more.

/** json_pretty(value, indent?) → Str; the VM must refuse identity handles as for json_stringify. */
export function jsonPretty(v: unknown, indent?: unknown): string {
  const n = indent === undefined || indent === null ? 2 : num('json_pretty', indent, 'indent');
  return JSON.stringify(v, null, Math.max(0, Math.min(10, Math.floor(n))));
}

// ---------------------------------------------------------------------------------------------
// time (effects: the clock is read once and journaled)

/** time_now_ms() → Num, milliseconds since the Unix epoch. */
export function timeNowMs(ctx: Pick<EffectToolContext, 'now'>): number {
  return (ctx.now ?? Date.now)();
}
/** time_now_iso() → Str, e.g. 2026-03-07T12:00:00.000Z */
export function timeNowIso(ctx: Pick<EffectToolContext, 'now'>): string {
  return new Date(timeNowMs(ctx)).toISOString();
}
/** time_format_iso(ms) → Str (pure) */
export function timeFormatIso(ms: unknown): string {
  const d = new Date(num('time_format_iso', ms));
  if (Number.isNaN(d.getTime())) throw new ToolError('time_format_iso: not a valid time');
  return d.toISOString();
}
/** time_parse_iso(str) → Num | null (pure): ms since the epoch, null when the text is not a date. */
export function timeParseIso(s: unknown): number | null {
  const t = Date.parse(str('time_parse_iso', s));
  return Number.isNaN(t) ? null : t;
}

// ---------------------------------------------------------------------------------------------
// env (effect; needs the env capability; TURN_SECRET_* never readable)

/** env_get(name) → Str | null; a provider's key (isProviderKeyName) is never readable by a program */
export async function envGet(ctx: EffectToolContext, name: unknown): Promise<string | null> {
  const n = str('env_get', name, 'name');
  // a model provider's key is a secret like the vault's: no grant makes it readable
  if (ctx.providerKeyNames?.has(n) || isProviderKeyName(n)) throw new EffectDenied(`env_get: ${n} holds a model provider's key; programs never read it (it is used by the host, and redacted)`);
  const verdict = check(ctx.capabilities, { kind: 'env', name: n }, ctx.usage);
  if (!verdict.ok) throw new EffectDenied(verdict.message);
  await requireApproval(verdict.approve, { effect: 'env', summary: `read environment variable ${n}` }, ctx.approve, ctx.journal);
  const v = (ctx.env ?? process.env)[n];
  return v === undefined ? null : v;
}

// ---------------------------------------------------------------------------------------------
// fs and net: the first argument narrows the process's capabilities for this call.

/**
 * The capabilities one call runs with. `cap` is null (the process's own), or a capability map
 * written in Turn (`{"files": {"read": ["data"]}}`), which must narrow the process's own.
 */
export function callCapabilities(ctx: EffectToolContext, cap: unknown, tool: string): Capabilities {
  if (cap === null || cap === undefined) return ctx.capabilities;
  // Turn v1's identity::filesystem: the authority to use the run's own file grant
  if (isHandle(cap) && cap.kind === 'filesystem' && tool.startsWith('fs_')) return ctx.capabilities;
  if (isHandle(cap)) throw new ToolError(`${tool}: expects a capability map or null, not an identity`);
  // a map shaped like a handle is data, never a credential: refused, not read as a capability map
  // the program's own error, not a missing grant: an outcome a resume cannot change
  if (looksLikeHandle(cap)) throw new EffectDenied(forgedMessage(tool), true);
  try {
    return narrow(ctx.capabilities, capabilitiesFromPlain(cap, ctx.cwd), ctx.usage);
  } catch (e) {
    throw new EffectDenied(`${tool}: ${(e as Error).message}`);
  }
}

function fsCtx(ctx: EffectToolContext, cap: unknown, tool: string): FsContext {
  const capabilities = callCapabilities(ctx, cap, tool);
  return {
    capabilities,
    // a narrowed grant is also held to the process's own, by real path (a narrowed root may be a symlink)
    ...(capabilities !== ctx.capabilities ? { bound: ctx.capabilities } : {}),
    cwd: ctx.cwd,
    approve: ctx.approve,
    journal: ctx.journal,
    protectedFiles: protectedFiles(ctx),
  };
}

/** The files the fs tools never touch: the secrets files of the run's vault, and any named in the context. */
function protectedFiles(ctx: EffectToolContext): string[] {
  return [...(ctx.protectedFiles ?? []), ...(ctx.vault.files?.() ?? [])];
}

// ---------------------------------------------------------------------------------------------
// std/media: images and documents for prompts, read under the run's grants (runtime/media/).

/** `"image"` asks for an image; `"any"` takes an image or a PDF (media.file, media.url). */
function mediaKind(tool: string, v: unknown): MediaKind | undefined {
  if (v === 'image') return 'image';
  if (v === 'any' || v === null || v === undefined) return undefined;
  throw new ToolError(`${tool}: the kind must be "image" or "any"`);
}

function media(tool: string, bytes: Uint8Array, what: string, o: MediaOptions): MediaVal {
  try {
    return makeMedia(bytes, what, o);
  } catch (e) {
    if (e instanceof MediaError) throw new ToolError(`${tool}: ${e.message}`);
    throw e;
  }
}

function options(tool: string, v: unknown): { maxBytes: number; mime?: string } {
  try {
    return mediaOptions(tool, v);
  } catch (e) {
    if (e instanceof MediaError) throw new ToolError(e.message);
    throw e;
  }
}

/** media_file(cap, path, kind, options) → Media: a file's bytes under the files grant (read), bounded and sniffed. */
export async function mediaFile(ctx: EffectToolContext, cap: unknown, p: unknown, kind: unknown, opts: unknown): Promise<MediaVal> {
  const path = str('media_file', p, 'path');
  const o = options('media_file', opts);
  const k = mediaKind('media_file', kind);
  const bytes = await readFileBytesEffect(path, fsCtx(ctx, cap, 'media_file'), o.maxBytes);
  // a declared type: the mime option, else the file's extension
  const byName = mimeOfName(path);
  const declared = o.mime !== undefined ? { mime: o.mime, by: 'the mime option' } : byName !== undefined ? { mime: byName, by: `its name` } : undefined;
  return media('media_file', bytes, path, { maxBytes: o.maxBytes, ...(k ? { kind: k } : {}), ...(declared ? { declared } : {}) });
}

/** media_url(auth, url, kind, options) → Media: a GET under the network grant, its body bounded and sniffed. */
export async function mediaUrl(ctx: EffectToolContext, auth: unknown, url: unknown, kind: unknown, opts: unknown): Promise<MediaVal> {
  const o = options('media_url', opts);
  const k = mediaKind('media_url', kind);
  const identity = isHandle(auth) ? auth : undefined;
  const capabilities = identity ? ctx.capabilities : callCapabilities(ctx, auth, 'media_url');
  const address = str('media_url', url, 'url');
  const res = await performHttp(
    { method: 'GET', url: address, identity },
    {
      vault: ctx.vault,
      capabilities,
      approve: ctx.approve,
      journal: ctx.journal,
      fetch: ctx.fetch,
      redactor: ctx.redactor,
      timeoutMs: ctx.timeoutMs,
      maxBodyBytes: o.maxBytes,
      binary: true,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    },
  );
  if (res.status < 200 || res.status >= 300) throw new ToolError(`media_url: ${address} answered HTTP ${res.status}`);
  const served = res.headers['content-type'];
  // a generic type says nothing about the bytes; a specific one is a declaration to check
  const declared = o.mime !== undefined ? { mime: o.mime, by: 'the mime option' } : served && !/^(application\/octet-stream|binary\/octet-stream)\b/i.test(served) ? { mime: served, by: "the server's content-type" } : undefined;
  return media('media_url', res.bytes ?? new Uint8Array(0), address, { maxBytes: o.maxBytes, ...(k ? { kind: k } : {}), ...(declared ? { declared } : {}) });
}

/** Characters of base64 text per byte it holds, rounded up: bounds the text before it is decoded. */
const BASE64_CHARS_PER_BYTE = 4 / 3;

/** media_base64(data, mime, kind, options) → Media: bytes the program holds as base64 text, checked against `mime`. */
export function mediaBase64(data: unknown, mime: unknown, kind: unknown, opts: unknown): MediaVal {
  const text = str('media_base64', data, 'data');
  const declared = str('media_base64', mime, 'mime type');
  const o = options('media_base64', opts);
  const k = mediaKind('media_base64', kind);
  if (text.length > Math.ceil(o.maxBytes * BASE64_CHARS_PER_BYTE) + 4) throw new ToolError(`media_base64: the data holds more than the limit of ${o.maxBytes} bytes (raise it with the max_bytes option)`);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new ToolError('media_base64: the data is not base64 (A-Z, a-z, 0-9, +, / and = padding)');
  return media('media_base64', Buffer.from(text, 'base64'), 'the base64 data', { maxBytes: o.maxBytes, ...(k ? { kind: k } : {}), declared: { mime: declared, by: 'the mime argument' } });
}

// ---------------------------------------------------------------------------------------------
// knowledge: the store is a file the program makes the host write, so it needs a grant.

/** Knowledge openers whose folder has been authorized (and approved, when asked) in this run. */
const knowledgeAuthorized = new WeakSet<object>();

/**
 * Checks that std/knowledge may open the run's store: its folder must be writable under the run's
 * capabilities (`--allow-write DIR` covering it; every component checked as for fs effects, and
 * approved once when the grant asks for approval), unless the store is granted explicitly
 * (`knowledgeGranted`). Checked before the store is opened, so a refused run creates nothing.
 */
export async function authorizeKnowledge(ctx: EffectToolContext, tool: string): Promise<void> {
  const opener = ctx.knowledge;
  if (!opener || ctx.knowledgeGranted || knowledgeAuthorized.has(opener)) return;
  const dir = opener.dir;
  if (dir === undefined) throw new EffectDenied(`${tool}: the knowledge store's folder is not known, so it cannot be granted`);
  try {
    await authorize(dir, 'write', { capabilities: ctx.capabilities, cwd: ctx.cwd, approve: ctx.approve, journal: ctx.journal, protectedFiles: protectedFiles(ctx) }, `open the knowledge store in ${dir}`);
  } catch (e) {
    if (!(e instanceof EffectDenied)) throw e;
    throw new EffectDenied(`${tool}: the knowledge store in ${dir} needs write access to its folder (--allow-write ${dir}, or --allow-knowledge): ${e.message}`);
  }
  knowledgeAuthorized.add(opener);
}

/** Turn v1's one-argument form of a tool: `fs_write({"path", "content"})`. */
function v1Map(v: unknown, key: string): Record<string, unknown> | undefined {
  return !!v && typeof v === 'object' && !Array.isArray(v) && typeof (v as Record<string, unknown>)[key] === 'string' ? (v as Record<string, unknown>) : undefined;
}

/** fs_read(cap, path) → Str; Turn v1's fs_read(path) reads under the run's own grant */
export async function fsRead(ctx: EffectToolContext, cap: unknown, p: unknown): Promise<string> {
  if (p === undefined && typeof cap === 'string') return readFileEffect(cap, fsCtx(ctx, null, 'fs_read'));
  return readFileEffect(str('fs_read', p, 'path'), fsCtx(ctx, cap, 'fs_read'));
}
/** fs_write(cap, path, content) → null; Turn v1's fs_write({"path", "content"}) writes under the run's own grant */
export async function fsWrite(ctx: EffectToolContext, cap: unknown, p: unknown, content: unknown): Promise<null> {
  const v1 = p === undefined && content === undefined ? v1Map(cap, 'path') : undefined;
  if (v1) {
    await writeFileEffect(str('fs_write', v1.path, 'path'), str('fs_write', v1.content, 'content'), fsCtx(ctx, null, 'fs_write'));
    return null;
  }
  await writeFileEffect(str('fs_write', p, 'path'), str('fs_write', content, 'content'), fsCtx(ctx, cap, 'fs_write'));
  return null;
}

/** Turn v1's http_get(url) → the reply's body text; a status outside 2xx is an error. Network capability, no identity. */
export async function httpGetV1(ctx: EffectToolContext, url: unknown): Promise<string> {
  return v1Body(await httpRequest(ctx, null, 'GET', str('http_get', url, 'url')));
}
/** Turn v1's http_post({"url", "body"}) → the reply's body text (a body that is not a string is sent as JSON). */
export async function httpPostV1(ctx: EffectToolContext, params: unknown): Promise<string> {
  const m = v1Map(params, 'url');
  if (!m) throw new ToolError('http_post expects a map {"url": Str, "body": ...}');
  return v1Body(await httpRequest(ctx, null, 'POST', m.url, { body: m.body ?? null }));
}
function v1Body(res: HttpResponse): string {
  if (res.status < 200 || res.status >= 300) throw new ToolError(`HTTP request failed with status: ${res.status}`);
  return res.body;
}
/** fs_append(cap, path, content) → null */
export async function fsAppend(ctx: EffectToolContext, cap: unknown, p: unknown, content: unknown): Promise<null> {
  await writeFileEffect(str('fs_append', p, 'path'), str('fs_append', content, 'content'), fsCtx(ctx, cap, 'fs_append'), { append: true });
  return null;
}
/** fs_list(cap, path) → List<Str> (names, sorted) */
export async function fsList(ctx: EffectToolContext, cap: unknown, p: unknown): Promise<string[]> {
  return listDirEffect(str('fs_list', p, 'path'), fsCtx(ctx, cap, 'fs_list'));
}
/** fs_exists(cap, path) → Bool */
export async function fsExists(ctx: EffectToolContext, cap: unknown, p: unknown): Promise<boolean> {
  return existsEffect(str('fs_exists', p, 'path'), fsCtx(ctx, cap, 'fs_exists'));
}

/** Whether a plain value holds an identity handle anywhere (iterative). */
function holdsIdentity(v: unknown): boolean {
  const pending = [v];
  while (pending.length > 0) {
    const x = pending.pop();
    if (!x || typeof x !== 'object') continue;
    if (isHandle(x)) return true;
    pending.push(...(Array.isArray(x) ? x : Object.values(x)));
  }
  return false;
}

/**
 * http_request(auth, method, url, options?) → {status, headers, body}
 * `auth`: an identity handle (sent as its kind says, under the process's network capability),
 * a capability map (narrows the network capability for this call), or null.
 * `options`: {"headers": Map, "query": Map, "body": Str | Any (sent as JSON), "timeout_ms": Num}.
 */
export async function httpRequest(ctx: EffectToolContext, auth: unknown, method: unknown, url: unknown, options?: unknown): Promise<HttpResponse> {
  const o = (options ?? {}) as Record<string, unknown>;
  if (typeof o !== 'object' || Array.isArray(o)) throw new ToolError('http_request: options must be a map');
  // only a handle the host minted from a grant is a credential; any other map narrows the
  // capability (callCapabilities refuses one shaped like a handle)
  const identity = isHandle(auth) ? auth : undefined;
  const capabilities = identity ? ctx.capabilities : callCapabilities(ctx, auth, 'http_request');
  const headers = (o.headers ?? {}) as Record<string, unknown>;
  const query = (o.query ?? {}) as Record<string, unknown>;
  // a handle is the authority to use a secret, not data: it is sent only as `auth`, injected where
  // its kind says; anywhere else in the request it is refused (it would go out as its kind and name)
  for (const [where, value] of [['a header value', headers], ['a query parameter', query], ['the body', o.body]] as const) {
    if (holdsIdentity(value)) throw new ToolError(`http_request: an identity handle cannot be sent as ${where}: pass it as the auth argument, which injects its secret where its kind says`);
  }
  for (const [k, v] of Object.entries(headers)) {
    if (v !== null && typeof v === 'object') throw new ToolError(`http_request: the header ${k} must be a Str, not a ${Array.isArray(v) ? 'list' : 'map'}`);
  }
  return performHttp(
    {
      method: str('http_request', method, 'method'),
      url: str('http_request', url, 'url'),
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, String(v)])),
      query: query as Record<string, string>,
      body: o.body ?? undefined,
      identity,
    },
    {
      vault: ctx.vault,
      capabilities,
      approve: ctx.approve,
      journal: ctx.journal,
      fetch: ctx.fetch,
      redactor: ctx.redactor,
      timeoutMs: typeof o.timeout_ms === 'number' ? o.timeout_ms : ctx.timeoutMs,
      ...(ctx.idempotencyKey !== undefined ? { idempotencyKey: ctx.idempotencyKey } : {}),
      ...(ctx.traceparent !== undefined ? { traceparent: ctx.traceparent } : {}),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Registry for the lead: tool name → implementation and whether it is an effect.

export type PureTool = { effect: false; run: (...args: unknown[]) => unknown };
/** What an effect tool reaches: the capability category it is checked under (agents grant these by name). */
export type EffectCategory = 'network' | 'files' | 'env' | 'clock' | 'random' | 'knowledge' | 'mcp' | 'caller';
export const EFFECT_CATEGORIES: readonly EffectCategory[] = ['network', 'files', 'env', 'clock', 'random', 'knowledge', 'mcp', 'caller'];

export type EffectTool = {
  effect: true;
  capability: string;
  category: EffectCategory;
  /**
   * The argument that may be an identity handle (itself, not inside a value): the authority the call
   * uses. A handle anywhere else in an effect tool's arguments is refused by the VM before the effect.
   */
  credential?: 0;
  run: (ctx: EffectToolContext, ...args: unknown[]) => unknown | Promise<unknown>;
};

export const STD_TOOLS: Record<string, PureTool | EffectTool> = {
  regex_match: { effect: false, run: regexMatch },
  regex_find: { effect: false, run: regexFind },
  regex_find_all: { effect: false, run: regexFindAll },
  regex_replace: { effect: false, run: regexReplace },
  regex_split: { effect: false, run: regexSplit },
  math_pow: { effect: false, run: mathPow },
  math_atan2: { effect: false, run: mathAtan2 },
  ...Object.fromEntries(
    Object.entries(MATH1).map(([name, f]) => [name, { effect: false, run: (x: unknown) => f(num(name, x)) }]),
  ),
  math_random: { effect: true, category: 'random', capability: 'none (random; journaled)', run: (ctx) => mathRandom(ctx) },
  json_pretty: { effect: false, run: jsonPretty },
  // the validator `infer` uses, for the replies of absorbed APIs (runtime/absorb/reply.ts)
  json_schema_issues: { effect: false, run: jsonSchemaIssues },
  // an absorbed operation's request body without the optional fields left out (runtime/absorb/request.ts)
  json_drop_nulls: { effect: false, run: jsonDropNulls },
  // an absorbed OpenAPI operation's request (parameter styles, body media type) and reply decoding (runtime/absorb/wire.ts)
  openapi_request: { effect: false, run: openapiRequest },
  openapi_reply: { effect: false, run: openapiReply },
  time_now_ms: { effect: true, category: 'clock', capability: 'none (clock; journaled)', run: (ctx) => timeNowMs(ctx) },
  time_now_iso: { effect: true, category: 'clock', capability: 'none (clock; journaled)', run: (ctx) => timeNowIso(ctx) },
  time_format_iso: { effect: false, run: timeFormatIso },
  time_parse_iso: { effect: false, run: timeParseIso },
  env_get: { effect: true, category: 'env', capability: 'env', run: envGet },
  fs_read: { effect: true, category: 'files', credential: 0, capability: 'files read', run: fsRead },
  fs_write: { effect: true, category: 'files', credential: 0, capability: 'files write', run: fsWrite },
  fs_append: { effect: true, category: 'files', credential: 0, capability: 'files write', run: fsAppend },
  fs_list: { effect: true, category: 'files', credential: 0, capability: 'files read', run: fsList },
  fs_exists: { effect: true, category: 'files', credential: 0, capability: 'files read', run: fsExists },
  http_request: { effect: true, category: 'network', credential: 0, capability: 'network (+ identity)', run: httpRequest },
  // std/media: images and documents (runtime/media/)
  media_file: { effect: true, category: 'files', credential: 0, capability: 'files read', run: mediaFile },
  media_url: { effect: true, category: 'network', credential: 0, capability: 'network (+ identity)', run: mediaUrl },
  media_base64: { effect: false, run: mediaBase64 },
  // Turn v1's tools: call("http_get", url), call("http_post", {"url", "body"})
  http_get: { effect: true, category: 'network', capability: 'network', run: httpGetV1 },
  http_post: { effect: true, category: 'network', capability: 'network', run: httpPostV1 },
  // MCP servers' tools and resources (runtime/mcp; absorbed with use schema::mcp(...))
  ...MCP_TOOLS,
  // a served run's caller: progress, elicitation, sampling (runtime/mcp/caller-tools.ts)
  ...CALLER_TOOLS,
  // std/knowledge: objects with provenance in the run's knowledge store (runtime/knowledge/)
  ...Object.fromEntries(
    Object.entries(KNOWLEDGE_TOOLS).map(([name, run]) => [
      name,
      {
        effect: true,
        category: 'knowledge',
        capability: 'knowledge store (files write on its folder)',
        run: async (ctx: EffectToolContext, ...args: unknown[]) => {
          await authorizeKnowledge(ctx, name);
          return run(ctx, ...args);
        },
      },
    ]),
  ),
};
