// The one message protocol between the run panel's extension-host side (extension/panel/) and its
// webview (extension/panel/webview/). Both sides import these types and validate every message they
// receive with `isHostMessage` / `isWebviewMessage`; a message that does not validate is dropped.
// No `vscode` import and no DOM: this file is bundled into both sides and tested in plain Node.
//
// Secrets never appear here: the vault is described by names and sources only (VaultEntryView).

export const PROTOCOL_VERSION = 1;

export interface Entry {
  text: string;
  tokens: number;
}

export interface SiteView {
  path: string;
  line: number;
}

export interface ContextView {
  P0: Entry[];
  P1: Entry[];
  P2: Entry[];
  tokens: { P0: number; P1: number; P2: number };
  limits: { working: number; episodic: number };
  /** entries demoted P1→P2 and dropped from P2 so far, with their tokens */
  demoted: { entries: number; tokens: number };
  dropped: { entries: number; tokens: number };
}

export type ActorStatus = 'ready' | 'waiting' | 'done' | 'failed';

export interface ActorView {
  pid: number;
  parent: number;
  status: ActorStatus;
  waitingOn: string | null;
  linked: boolean;
  detached: boolean;
  /** children this process spawned again after one of its children failed (a supervisor's restarts) */
  restarts: number;
  site: SiteView | null;
  context: ContextView;
  memory: { key: string; value: string }[];
  mailbox: string[];
  result: string | null;
  error: string | null;
}

export interface InferAttemptView {
  attempt: number;
  prompt: { P0: string[]; P2: string[]; P1: string[]; task: string };
  feedback: string[];
  schema: unknown;
  raw: string | null;
  repairs: string[];
  errors: string[];
  valid: boolean | null;
  confidence: number | null;
}

export interface InferView {
  id: string;
  pid: number;
  type: string;
  site: SiteView | null;
  attempts: InferAttemptView[];
  /** pending: no reply yet */
  state: 'pending' | 'ok' | 'failed';
}

export interface TimelineItem {
  seq: number;
  ms: number;
  kind: string;
  pid: number | null;
  summary: string;
  /** an effect's state: done, pending (asked, no reply yet) or unknown (the run ended without a reply) */
  state: 'done' | 'pending' | 'unknown';
  site: SiteView | null;
}

export interface VaultEntryView {
  name: string;
  source: string;
}

export type RunStatus = 'idle' | 'running' | 'done' | 'failed' | 'stopped';

export interface RunView {
  runId: number;
  file: string | null;
  status: RunStatus;
  model: string;
  output: string[];
  result: string | null;
  error: { message: string; site: SiteView | null } | null;
  actors: ActorView[];
  infers: InferView[];
  timeline: TimelineItem[];
}

/** Host → webview. */
export type HostMessage =
  | { type: 'run'; v: 1; run: RunView }
  | { type: 'vault'; v: 1; entries: VaultEntryView[] };

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready'; v: 1 }
  | { type: 'start'; v: 1; file: string | null }
  | { type: 'stop'; v: 1 }
  | { type: 'reveal'; v: 1; path: string; line: number };

// ---------------------------------------------------------------------------------------------
// Validators: small structural checks, strict on what each side relies on.

type Check = (v: unknown) => boolean;
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str: Check = (v) => typeof v === 'string';
const num: Check = (v) => typeof v === 'number' && Number.isFinite(v);
const bool: Check = (v) => typeof v === 'boolean';
const nullable = (c: Check): Check => (v) => v === null || c(v);
const arr = (c: Check): Check => (v) => Array.isArray(v) && v.every(c);
const oneOf = (...xs: string[]): Check => (v) => typeof v === 'string' && xs.includes(v);
const any: Check = () => true;
const obj = (shape: Record<string, Check>): Check => (v) => isObj(v) && Object.entries(shape).every(([k, c]) => c(v[k]));

const entry = obj({ text: str, tokens: num });
const site = obj({ path: str, line: num });
const tally = obj({ entries: num, tokens: num });
const context = obj({
  P0: arr(entry),
  P1: arr(entry),
  P2: arr(entry),
  tokens: obj({ P0: num, P1: num, P2: num }),
  limits: obj({ working: num, episodic: num }),
  demoted: tally,
  dropped: tally,
});
const actor = obj({
  pid: num,
  parent: num,
  status: oneOf('ready', 'waiting', 'done', 'failed'),
  waitingOn: nullable(str),
  linked: bool,
  detached: bool,
  restarts: num,
  site: nullable(site),
  context,
  memory: arr(obj({ key: str, value: str })),
  mailbox: arr(str),
  result: nullable(str),
  error: nullable(str),
});
const attempt = obj({
  attempt: num,
  prompt: obj({ P0: arr(str), P2: arr(str), P1: arr(str), task: str }),
  feedback: arr(str),
  schema: any,
  raw: nullable(str),
  repairs: arr(str),
  errors: arr(str),
  valid: nullable(bool),
  confidence: nullable(num),
});
const infer = obj({ id: str, pid: num, type: str, site: nullable(site), attempts: arr(attempt), state: oneOf('pending', 'ok', 'failed') });
const timeline = obj({
  seq: num,
  ms: num,
  kind: str,
  pid: nullable(num),
  summary: str,
  state: oneOf('done', 'pending', 'unknown'),
  site: nullable(site),
});
const run = obj({
  runId: num,
  file: nullable(str),
  status: oneOf('idle', 'running', 'done', 'failed', 'stopped'),
  model: str,
  output: arr(str),
  result: nullable(str),
  error: nullable(obj({ message: str, site: nullable(site) })),
  actors: arr(actor),
  infers: arr(infer),
  timeline: arr(timeline),
});
const vaultEntry = obj({ name: str, source: str });

const v1 = (v: unknown) => v === PROTOCOL_VERSION;

export function isRunView(v: unknown): v is RunView {
  return run(v);
}

export function isHostMessage(m: unknown): m is HostMessage {
  if (!isObj(m) || !v1(m.v)) return false;
  switch (m.type) {
    case 'run':
      return run(m.run);
    case 'vault':
      return arr(vaultEntry)(m.entries) && (m.entries as Record<string, unknown>[]).every((e) => Object.keys(e).length === 2);
    default:
      return false;
  }
}

export function isWebviewMessage(m: unknown): m is WebviewMessage {
  if (!isObj(m) || !v1(m.v)) return false;
  switch (m.type) {
    case 'ready':
    case 'stop':
      return true;
    case 'start':
      return nullable(str)(m.file);
    case 'reveal':
      return str(m.path) && num(m.line) && (m.line as number) >= 1;
    default:
      return false;
  }
}

/** A run that has not started; `model` is the spec it will use ('' when not known yet). */
export function emptyRun(runId = 0, file: string | null = null, model = ''): RunView {
  return { runId, file, status: 'idle', model, output: [], result: null, error: null, actors: [], infers: [], timeline: [] };
}
