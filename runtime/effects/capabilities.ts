// Capabilities: what a process may do to the world. The host checks them before every effect;
// Turn code never sees or bypasses the check. A capability set can only be narrowed when passed
// on (to a spawned process, to a std module call): `narrow` refuses anything that would widen.
//
// An absent category is not granted: `{}` allows nothing.
import * as path from 'node:path';
import { markRefusedBeforeSending } from '../ports/refusal.js';

export interface NetworkCapability {
  /**
   * Host patterns: `api.example.com`, `*.example.com` (any subdomain), `*` (any host), each
   * with an optional port: `localhost:*`, `127.0.0.1:8080`. No port means any port.
   */
  hosts: string[];
  /** Each request needs approval first. */
  approve?: boolean;
}

export interface FilesCapability {
  /** Absolute directory roots (resolved against the working directory when parsed from flags). */
  roots: string[];
  /** `write` implies `read`. */
  mode: 'read' | 'write';
  approve?: boolean;
}

export interface ModelCapability {
  /** Maximum number of model calls; undefined = unlimited. */
  calls?: number;
  /** Maximum tokens (prompt + completion); undefined = unlimited. */
  tokens?: number;
  approve?: boolean;
}

export interface SpawnCapability {
  /** Maximum number of processes spawned; undefined = unlimited. */
  max?: number;
  approve?: boolean;
}

export interface EnvCapability {
  /** Variable names or `PREFIX_*` patterns. `TURN_SECRET_*` is never readable, whatever is granted. */
  names: string[];
  approve?: boolean;
}

export interface RunCapability {
  /**
   * Launch grants (an MCP server over stdio), each as `--allow-run` takes it (see `parseRunGrant`):
   * `node` (that command, a name on PATH or an absolute path, with the arguments of a launch map
   * written literally in the program), `node server.js --root data` (that command with exactly
   * these arguments), `["node", "my server.js"]` (the same as a JSON list), or `*` (any command).
   * Never a shell: a command and its arguments.
   */
  commands: string[];
  approve?: boolean;
}

export interface Capabilities {
  network?: NetworkCapability;
  run?: RunCapability;
  files?: FilesCapability[];
  model?: ModelCapability;
  spawn?: SpawnCapability;
  env?: EnvCapability;
}

export type Effect =
  | { kind: 'network'; url: string; method?: string }
  | { kind: 'files'; path: string; mode: 'read' | 'write' }
  | { kind: 'model'; tokens?: number }
  | { kind: 'spawn'; count?: number }
  | { kind: 'env'; name: string }
  /** launching `command` (as written) with `args`, whose executable resolved to `resolved` */
  | { kind: 'run'; command: string; args?: readonly string[]; resolved?: string };

/** What has been consumed so far against budgets (model calls/tokens, spawned processes). */
export interface Usage {
  modelCalls: number;
  modelTokens: number;
  spawned: number;
}

export function newUsage(): Usage {
  return { modelCalls: 0, modelTokens: 0, spawned: 0 };
}

/** `scope`: the part of the grant that allows the effect (the host pattern, root, name or budget), for the journal. */
export type CheckResult = { ok: true; approve: boolean; scope: string } | { ok: false; message: string };

export class CapabilityError extends Error {}

/**
 * Thrown by effect executors when a capability check or an approval fails. Such a refusal comes
 * before anything is sent, so a durable run keeps the step unrun and a resume with the grant runs
 * it (runtime/ports/refusal.ts) — unless `outcome`: the denial is the effect's result, which a
 * resume must not lift (a redirect refused after the first request was sent; a budget the run has
 * spent).
 */
export class EffectDenied extends Error {
  constructor(
    message: string,
    readonly outcome = false,
  ) {
    super(message);
    if (!outcome) markRefusedBeforeSending(this);
  }
}

/**
 * A run-wide budget the program cannot go past (`--max-model-tokens`): unlike a denial, it ends the
 * run, located at the call that would not fit or that crossed it (runtime/vm: an `infer` failing
 * with reason `budget`), as `--max-steps` and `--max-alloc` do.
 */
export class BudgetExhaustedError extends EffectDenied {
  readonly budgetExhausted = true;
  constructor(message: string) {
    // spent is spent: an outcome, never a refusal a resume could lift
    super(message, true);
  }
}

// ---------------------------------------------------------------------------------------------
// Host patterns

interface HostPattern {
  host: string; // lower-case; '*' or '*.suffix' or exact
  port: string; // '*' or digits
}

export function parseHostPattern(p: string): HostPattern {
  const s = p.trim().toLowerCase();
  if (s === '') throw new CapabilityError('an empty host pattern');
  if (/[/?#@\s]/.test(s)) throw new CapabilityError(`"${p}" is not a host pattern (write a host, e.g. api.example.com or localhost:*)`);
  let host = s;
  let port = '*';
  if (s.startsWith('[')) {
    const end = s.indexOf(']');
    if (end < 0) throw new CapabilityError(`"${p}" is not a host pattern`);
    host = s.slice(0, end + 1);
    const rest = s.slice(end + 1);
    if (rest) {
      if (!rest.startsWith(':')) throw new CapabilityError(`"${p}" is not a host pattern`);
      port = rest.slice(1);
    }
  } else {
    const i = s.lastIndexOf(':');
    if (i >= 0) {
      host = s.slice(0, i);
      port = s.slice(i + 1);
    }
  }
  if (port !== '*' && !/^\d{1,5}$/.test(port)) throw new CapabilityError(`"${p}": the port must be a number or *`);
  if (host !== '*' && host.slice(host.startsWith('*.') ? 2 : 0).includes('*')) {
    throw new CapabilityError(`"${p}": a wildcard may only stand for a whole host (*) or the leftmost labels (*.example.com)`);
  }
  return { host, port };
}

function hostMatches(pattern: string, host: string): boolean {
  if (pattern === '*') return true;
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return pattern === host;
}

/** Whether pattern `outer` allows everything `inner` allows. */
function hostPatternCovers(outer: HostPattern, inner: HostPattern): boolean {
  if (outer.port !== '*' && outer.port !== inner.port) return false;
  if (outer.host === '*') return true;
  if (inner.host === '*') return false;
  if (outer.host.startsWith('*.')) {
    const suffix = outer.host.slice(1); // ".example.com"
    return inner.host.endsWith(suffix) && inner.host.length > suffix.length;
  }
  return outer.host === inner.host;
}

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : protocol === 'http:' ? '80' : '';
}

// ---------------------------------------------------------------------------------------------
// Files

function within(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

function modeCovers(outer: 'read' | 'write', inner: 'read' | 'write'): boolean {
  return outer === 'write' || inner === 'read';
}

function envMatches(pattern: string, name: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('*')) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}

function envPatternCovers(outer: string, inner: string): boolean {
  if (outer === '*') return true;
  if (outer.endsWith('*')) return inner.startsWith(outer.slice(0, -1));
  return outer === inner;
}

// ---------------------------------------------------------------------------------------------
// Launch grants (`--allow-run`)

/**
 * One launch grant: a command (a name as a launch map writes it, or an absolute path) and, when
 * the grant pins them, the exact arguments. Without `args` the arguments are those of a launch map
 * written literally in the program (runtime/mcp/launch.ts refuses one built at run time).
 */
export interface RunGrant {
  command: string;
  args?: string[];
}

/**
 * Reads a grant as `--allow-run` takes it: `*`; `node` (a command alone); `node server.js --root
 * data` (a command and its exact arguments, split on white space); `["node", "my server.js"]` (the
 * same as a JSON list of strings, for arguments with spaces). Throws CapabilityError.
 */
export function parseRunGrant(text: string): RunGrant {
  const s = text.trim();
  if (s === '') throw new CapabilityError('an empty --allow-run grant');
  if (s.startsWith('[')) {
    let words: unknown;
    try {
      words = JSON.parse(s);
    } catch {
      throw new CapabilityError(`--allow-run ${text}: a grant that starts with [ is a JSON list of strings, the command and its arguments`);
    }
    if (!Array.isArray(words) || words.length === 0 || !words.every((w) => typeof w === 'string') || words[0] === '') {
      throw new CapabilityError(`--allow-run ${text}: a JSON grant is a list of strings, the command first`);
    }
    return { command: words[0], args: words.slice(1) };
  }
  const words = s.split(/\s+/);
  if (words.length === 1) return { command: s };
  if (words[0] === '*') throw new CapabilityError(`--allow-run ${text}: * stands alone (any command); a grant with arguments names its command`);
  return { command: words[0], args: words.slice(1) };
}

function tryParseRunGrant(text: string): RunGrant | undefined {
  try {
    return parseRunGrant(text);
  } catch {
    return undefined;
  }
}

/** A grant written back as `--allow-run` takes it: words joined by spaces, or a JSON list when a word has white space. */
export function runGrantText(command: string, args: readonly string[]): string {
  const words = [command, ...args];
  return words.some((w) => w === '' || /\s/.test(w) || w.startsWith('[')) ? JSON.stringify(words) : words.join(' ');
}

/** The `--allow-run` flag that grants exactly this command line, quoted for a POSIX shell. */
export function runGrantFlag(command: string, args: readonly string[]): string {
  const text = runGrantText(command, args);
  return `--allow-run ${args.length === 0 && /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`}`;
}

function sameArgs(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function runGrantAllows(text: string, effect: Extract<Effect, { kind: 'run' }>): boolean {
  const g = tryParseRunGrant(text);
  if (!g) return false;
  if (g.command === '*') return true;
  if (g.command !== effect.command && (effect.resolved === undefined || g.command !== effect.resolved)) return false;
  return g.args === undefined || sameArgs(g.args, effect.args ?? []);
}

/** Whether grant `outer` allows every launch `inner` allows. */
function runGrantCovers(outer: RunGrant, inner: RunGrant): boolean {
  if (outer.command === '*') return true;
  if (outer.command !== inner.command) return false;
  if (outer.args === undefined) return true;
  return inner.args !== undefined && sameArgs(outer.args, inner.args);
}

// ---------------------------------------------------------------------------------------------
// check

function list(items: string[]): string {
  return items.length ? items.join(', ') : 'none';
}

export function describeFiles(files: FilesCapability[] | undefined): string {
  if (!files || files.length === 0) return 'none';
  return files.map((f) => `${f.mode} ${f.roots.join(', ')}`).join('; ');
}

/**
 * Whether `effect` is allowed by `caps` given what was already used. A denial carries a message
 * that says what was asked and what is allowed, e.g.
 * `network access to api.example.com is not granted (allowed: localhost:*)`.
 * `files` paths must already be absolute and resolved (runtime/effects/fs.ts does that).
 */
export function check(caps: Capabilities, effect: Effect, usage: Usage = newUsage()): CheckResult {
  switch (effect.kind) {
    case 'network': {
      let url: URL;
      try {
        url = new URL(effect.url);
      } catch {
        return { ok: false, message: `"${effect.url}" is not a valid URL` };
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return { ok: false, message: `network access over ${url.protocol.slice(0, -1)} is not supported (only http and https)` };
      }
      const host = url.hostname.toLowerCase();
      const port = url.port || defaultPort(url.protocol);
      const shown = url.port ? `${host}:${url.port}` : host;
      const allowed = caps.network?.hosts ?? [];
      const granted = allowed.find((p) => {
        try {
          const hp = parseHostPattern(p);
          return hostMatches(hp.host, host) && (hp.port === '*' || hp.port === port);
        } catch {
          return false;
        }
      });
      if (granted === undefined) return { ok: false, message: `network access to ${shown} is not granted (allowed: ${list(allowed)})` };
      return { ok: true, approve: !!caps.network?.approve, scope: granted };
    }
    case 'files': {
      const p = path.resolve(effect.path);
      const grant = (caps.files ?? []).find((f) => modeCovers(f.mode, effect.mode) && f.roots.some((r) => within(path.resolve(r), p)));
      if (!grant) {
        return { ok: false, message: `file ${effect.mode} access to ${p} is not granted (allowed: ${describeFiles(caps.files)})` };
      }
      return { ok: true, approve: !!grant.approve, scope: `${grant.mode} ${grant.roots.find((r) => within(path.resolve(r), p))}` };
    }
    case 'model': {
      const m = caps.model;
      if (!m) return { ok: false, message: 'model calls are not granted' };
      if (m.calls !== undefined && usage.modelCalls + 1 > m.calls) {
        return { ok: false, message: `the model call budget is exhausted (${usage.modelCalls} of ${m.calls} calls used)` };
      }
      if (m.tokens !== undefined && usage.modelTokens + (effect.tokens ?? 0) > m.tokens) {
        return {
          ok: false,
          message: `the model token budget would be exceeded (${usage.modelTokens} of ${m.tokens} tokens used, ${effect.tokens ?? 0} more requested)`,
        };
      }
      const budget = [m.calls !== undefined ? `${m.calls} calls` : '', m.tokens !== undefined ? `${m.tokens} tokens` : ''].filter(Boolean).join(', ');
      return { ok: true, approve: !!m.approve, scope: budget === '' ? 'no budget' : `budget ${budget}` };
    }
    case 'spawn': {
      const s = caps.spawn;
      if (!s) return { ok: false, message: 'spawning processes is not granted' };
      const n = effect.count ?? 1;
      if (s.max !== undefined && usage.spawned + n > s.max) {
        return { ok: false, message: `spawning ${n} more process${n === 1 ? '' : 'es'} would exceed the limit of ${s.max} (${usage.spawned} spawned)` };
      }
      return { ok: true, approve: !!s.approve, scope: s.max === undefined ? 'spawn' : `spawn (at most ${s.max})` };
    }
    case 'run': {
      const commands = caps.run?.commands ?? [];
      const granted = commands.find((c) => runGrantAllows(c, effect));
      if (granted === undefined) {
        const pinned = commands.some((c) => {
          const g = tryParseRunGrant(c);
          return g !== undefined && g.args !== undefined && (g.command === effect.command || g.command === effect.resolved);
        });
        const hint = pinned ? `only with the arguments granted; grant these with ${runGrantFlag(effect.command, effect.args ?? [])}` : `grant it with --allow-run ${effect.command}`;
        const shown = pinned ? runGrantText(effect.command, effect.args ?? []) : effect.command;
        return { ok: false, message: `launching ${shown} is not granted (allowed: ${list(commands)}; ${hint})` };
      }
      return { ok: true, approve: !!caps.run?.approve, scope: granted };
    }
    case 'env': {
      if (effect.name.startsWith('TURN_SECRET_')) {
        return { ok: false, message: `${effect.name} holds a secret: use grant identity::... instead of reading it` };
      }
      const names = caps.env?.names ?? [];
      const granted = names.find((p) => envMatches(p, effect.name));
      if (granted === undefined) {
        return { ok: false, message: `reading the environment variable ${effect.name} is not granted (allowed: ${list(names)})` };
      }
      return { ok: true, approve: !!caps.env?.approve, scope: granted };
    }
  }
}

/** Records a performed effect against the budgets. */
export function record(usage: Usage, effect: Effect, tokensUsed?: number): void {
  if (effect.kind === 'model') {
    usage.modelCalls += 1;
    usage.modelTokens += tokensUsed ?? effect.tokens ?? 0;
  } else if (effect.kind === 'spawn') usage.spawned += effect.count ?? 1;
}

// ---------------------------------------------------------------------------------------------
// narrow

/**
 * The capability set for a callee or child, `requested`, after checking that it only shrinks
 * `parent`. A category absent from `requested` is not passed on. A category absent from the
 * parent cannot be requested. Budgets are compared with what the parent has left (`usage`),
 * and a budget left undefined in the request inherits the parent's remainder. Approval flags
 * can be added, never removed. Throws CapabilityError naming what would widen.
 */
export function narrow(parent: Capabilities, requested: Capabilities, usage: Usage = newUsage()): Capabilities {
  const out: Capabilities = {};
  if (requested.network) {
    const pn = parent.network;
    if (!pn) throw new CapabilityError('cannot pass on network access: it is not granted');
    const parentPatterns = pn.hosts.map(parseHostPattern);
    for (const h of requested.network.hosts) {
      const hp = parseHostPattern(h);
      if (!parentPatterns.some((pp) => hostPatternCovers(pp, hp))) {
        throw new CapabilityError(`cannot widen network access to ${h} (allowed: ${list(pn.hosts)})`);
      }
    }
    out.network = { hosts: [...requested.network.hosts], approve: !!(pn.approve || requested.network.approve) };
  }
  if (requested.files) {
    const pf = parent.files ?? [];
    out.files = requested.files.map((f) => {
      const roots = f.roots.map((r) => path.resolve(r));
      for (const r of roots) {
        const ok = pf.some((g) => modeCovers(g.mode, f.mode) && g.roots.some((gr) => within(path.resolve(gr), r)));
        if (!ok) throw new CapabilityError(`cannot widen file ${f.mode} access to ${r} (allowed: ${describeFiles(parent.files)})`);
      }
      const approve = !!f.approve || roots.some((r) => pf.some((g) => g.approve && g.roots.some((gr) => within(path.resolve(gr), r))));
      return { roots, mode: f.mode, approve };
    });
  }
  if (requested.run) {
    const pr = parent.run;
    if (!pr) throw new CapabilityError('cannot pass on launching commands: it is not granted');
    for (const c of requested.run.commands) {
      const inner = parseRunGrant(c);
      if (!pr.commands.some((p) => runGrantCovers(parseRunGrant(p), inner))) throw new CapabilityError(`cannot widen launching to ${c} (allowed: ${list(pr.commands)})`);
    }
    out.run = { commands: [...requested.run.commands], approve: !!(pr.approve || requested.run.approve) };
  }
  if (requested.model) {
    const pm = parent.model;
    if (!pm) throw new CapabilityError('cannot pass on model calls: they are not granted');
    const leftCalls = pm.calls === undefined ? undefined : Math.max(0, pm.calls - usage.modelCalls);
    const leftTokens = pm.tokens === undefined ? undefined : Math.max(0, pm.tokens - usage.modelTokens);
    const calls = narrowBudget('model calls', leftCalls, requested.model.calls);
    const tokens = narrowBudget('model tokens', leftTokens, requested.model.tokens);
    out.model = { calls, tokens, approve: !!(pm.approve || requested.model.approve) };
  }
  if (requested.spawn) {
    const ps = parent.spawn;
    if (!ps) throw new CapabilityError('cannot pass on spawning: it is not granted');
    const left = ps.max === undefined ? undefined : Math.max(0, ps.max - usage.spawned);
    out.spawn = { max: narrowBudget('spawned processes', left, requested.spawn.max), approve: !!(ps.approve || requested.spawn.approve) };
  }
  if (requested.env) {
    const pe = parent.env;
    if (!pe) throw new CapabilityError('cannot pass on environment access: it is not granted');
    for (const n of requested.env.names) {
      if (!pe.names.some((p) => envPatternCovers(p, n))) {
        throw new CapabilityError(`cannot widen environment access to ${n} (allowed: ${list(pe.names)})`);
      }
    }
    out.env = { names: [...requested.env.names], approve: !!(pe.approve || requested.env.approve) };
  }
  return out;
}

function narrowBudget(what: string, left: number | undefined, requested: number | undefined): number | undefined {
  if (requested === undefined) return left;
  if (!(requested >= 0)) throw new CapabilityError(`a budget of ${what} must be a non-negative number`);
  if (left !== undefined && requested > left) throw new CapabilityError(`cannot widen the budget of ${what} to ${requested} (${left} left)`);
  return requested;
}

/**
 * A capability request written in Turn as a map (already converted to plain JSON), e.g.
 * `{"network": ["api.github.com"], "files": {"read": ["data"], "write": ["out"]},
 *   "model": {"calls": 3}, "spawn": 2, "env": ["HOME"]}`. Relative roots resolve against `cwd`.
 */
export function capabilitiesFromPlain(x: unknown, cwd: string): Capabilities {
  if (!x || typeof x !== 'object' || Array.isArray(x)) throw new CapabilityError('a capability request must be a map');
  const o = x as Record<string, unknown>;
  const out: Capabilities = {};
  const strings = (v: unknown, what: string): string[] => {
    const arr = typeof v === 'string' ? [v] : v;
    if (!Array.isArray(arr) || !arr.every((s) => typeof s === 'string')) throw new CapabilityError(`${what} must be a list of strings`);
    return arr;
  };
  for (const key of Object.keys(o)) {
    const v = o[key];
    switch (key) {
      case 'network':
        out.network = { hosts: strings(v, 'network') };
        out.network.hosts.forEach(parseHostPattern);
        break;
      case 'files': {
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw new CapabilityError('files must be a map {"read": [...], "write": [...]}');
        const f = v as Record<string, unknown>;
        out.files = [];
        for (const mode of ['read', 'write'] as const) {
          if (f[mode] !== undefined) out.files.push({ roots: strings(f[mode], `files.${mode}`).map((r) => path.resolve(cwd, r)), mode });
        }
        break;
      }
      case 'model': {
        const m = (v ?? {}) as Record<string, unknown>;
        out.model = {
          calls: typeof m.calls === 'number' ? m.calls : undefined,
          tokens: typeof m.tokens === 'number' ? m.tokens : undefined,
        };
        break;
      }
      case 'spawn':
        out.spawn = { max: typeof v === 'number' ? v : undefined };
        break;
      case 'env':
        out.env = { names: strings(v, 'env') };
        break;
      case 'run':
        out.run = { commands: strings(v, 'run') };
        out.run.commands.forEach(parseRunGrant);
        break;
      default:
        throw new CapabilityError(`unknown capability "${key}" (known: network, files, model, spawn, env, run)`);
    }
  }
  return out;
}

/** CLI flags → capabilities: `--allow-net HOSTS --allow-read DIRS --allow-write DIRS --allow-env NAMES --allow-run COMMANDS --max-model-calls N --max-model-tokens N` (comma-separated lists). `maxSpawn` has no flag: no spawn is checked against the `spawn` capability yet. */
export interface CapabilityFlags {
  allowNet?: string[];
  allowRead?: string[];
  allowWrite?: string[];
  allowEnv?: string[];
  /** launch grants (`--allow-run node`, `--allow-run "node server.js --root data"`; see parseRunGrant) */
  allowRun?: string[];
  maxModelCalls?: number;
  maxModelTokens?: number;
  maxSpawn?: number;
  /** Effects that need approval: any of network, files, model, spawn, env, run. */
  approve?: string[];
}

export function capabilitiesFromFlags(flags: CapabilityFlags, cwd: string): Capabilities {
  const approve = new Set(flags.approve ?? []);
  const caps: Capabilities = {
    model: { calls: flags.maxModelCalls, tokens: flags.maxModelTokens, approve: approve.has('model') },
    spawn: { max: flags.maxSpawn, approve: approve.has('spawn') },
  };
  if (flags.allowNet?.length) {
    flags.allowNet.forEach(parseHostPattern);
    caps.network = { hosts: flags.allowNet, approve: approve.has('network') };
  }
  const files: FilesCapability[] = [];
  if (flags.allowRead?.length) files.push({ roots: flags.allowRead.map((r) => path.resolve(cwd, r)), mode: 'read', approve: approve.has('files') });
  if (flags.allowWrite?.length) files.push({ roots: flags.allowWrite.map((r) => path.resolve(cwd, r)), mode: 'write', approve: approve.has('files') });
  if (files.length) caps.files = files;
  if (flags.allowEnv?.length) caps.env = { names: flags.allowEnv, approve: approve.has('env') };
  if (flags.allowRun?.length) {
    flags.allowRun.forEach(parseRunGrant);
    caps.run = { commands: flags.allowRun, approve: approve.has('run') };
  }
  return caps;
}

// ---------------------------------------------------------------------------------------------
// Approval

export interface ApprovalRequest {
  /** The effect kind, e.g. `network`, `files`. */
  effect: Effect['kind'];
  /** One line for a person, e.g. `POST https://api.example.com/issues with identity::bearer("github")`. Never a secret. */
  summary: string;
  /** The process asking, when known. */
  pid?: number;
  /** Aborted when the run is interrupted while the question is open: the hook stops asking and rejects. */
  signal?: AbortSignal;
}

export type ApprovalDecision = 'approve' | 'deny';
export type ApprovalHook = (request: ApprovalRequest) => Promise<ApprovalDecision>;

/** What is journaled for every approval asked. */
export interface ApprovalRecord {
  type: 'approval';
  effect: Effect['kind'];
  summary: string;
  decision: ApprovalDecision;
  at: string;
  /** who decided: `--approve all`, `--approve none`, `the terminal (--approve ask)`, `the editor`, `the host` */
  by?: string;
  /** the journal step (`e3`, `e5.1`: an effect, or an attempt of an infer) the approval gated */
  step?: string;
}

export interface CliApprovalOptions {
  /** `--approve all` approves everything, `none` denies everything, `ask` (default) asks on a TTY. */
  mode?: 'all' | 'none' | 'ask';
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream;
}

/**
 * The CLI's approval hook. `ask` reads y/N from the terminal; when standard input is not a TTY
 * it denies (with the reason on the output) rather than hanging: pass `--approve all` in scripts.
 */
export function cliApproval(options: CliApprovalOptions = {}): ApprovalHook {
  const mode = options.mode ?? 'ask';
  const output = options.output ?? process.stderr;
  return async (request) => {
    if (mode === 'all') return 'approve';
    if (mode === 'none') return 'deny';
    // process.stdin is a getter that sets up the stream (and its modules): read only when asked
    const input = options.input ?? process.stdin;
    if (!input.isTTY) {
      output.write(`turn: approval needed for ${request.summary}; denied (no terminal to ask on; pass --approve all to allow)\n`);
      return 'deny';
    }
    // node:readline is loaded only when there is someone to ask (it costs start-up time otherwise)
    const readline = await import('node:readline');
    const signal = request.signal;
    if (signal?.aborted) throw cancelled(signal);
    const rl = readline.createInterface({ input, output });
    let onAbort: (() => void) | undefined;
    try {
      const answer = await new Promise<string>((resolve, reject) => {
        onAbort = () => reject(cancelled(signal!));
        signal?.addEventListener('abort', onAbort, { once: true });
        // the end of input is a no; Ctrl-C at the prompt (which a terminal in raw mode delivers to
        // readline, not as a signal) is the signal it means, so the run is interrupted as anywhere else
        rl.on('close', () => resolve(''));
        rl.on('SIGINT', () => process.kill(process.pid, 'SIGINT'));
        rl.question(`turn: allow ${request.summary}? [y/N] `, resolve);
      });
      return /^y(es)?$/i.test(answer.trim()) ? 'approve' : 'deny';
    } finally {
      if (onAbort) signal?.removeEventListener('abort', onAbort);
      rl.close();
    }
  };
}

function cancelled(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('the approval was cancelled');
}

/** Parses the `--approve` flag value. */
export function parseApproveFlag(value: string | undefined): 'all' | 'none' | 'ask' {
  if (value === undefined || value === 'ask') return 'ask';
  if (value === 'all' || value === 'none') return value;
  throw new CapabilityError(`--approve expects all, none or ask, got "${value}"`);
}

/**
 * Asks `approve` when the check said so, journals the decision, and throws EffectDenied on a
 * denial or when approval is needed but no hook is installed.
 */
export async function requireApproval(
  needed: boolean,
  request: ApprovalRequest,
  approve: ApprovalHook | undefined,
  journal?: (entry: ApprovalRecord) => void,
): Promise<void> {
  if (!needed) return;
  const decision: ApprovalDecision = approve ? await approve(request) : 'deny';
  journal?.({ type: 'approval', effect: request.effect, summary: request.summary, decision, at: new Date().toISOString() });
  if (decision !== 'approve') throw new EffectDenied(`${request.summary} was not approved`);
}
