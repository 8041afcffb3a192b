// The one message protocol between the run panel's extension-host side (extension/panel/) and its
// webview (extension/panel/webview/). Both sides import these types and validate every message they
// receive with `isHostMessage` / `isWebviewMessage`; a message that does not validate is dropped.
// No `vscode` import and no DOM: this file is bundled into both sides and tested in plain Node.
//
// Secrets never appear here: the vault is described by names and sources only (VaultEntryView).

import { checkCredentialName } from '../vault/names.js';
import { isCalibrationMapReply, isCalibrationMapRequest, type CalibrationMapReply, type CalibrationMapRequest } from './calibration.js';
import { isMediaReply, isMediaRequest, type MediaReply, type MediaRequest } from './media.js';

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
  /** the function it runs (main for #1), when known */
  name?: string | null;
  /** the pids it depends on (`process_after`: a std/graph node's dependencies' processes) */
  after?: number[];
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
  /** a calibrated confidence (docs/inference.md, *Calibration*): its source, the raw value before the map, and the map's id */
  calibration?: { source: string; raw: number; map: string } | null;
  /** the reply's text so far while a model streams it (an `infer.delta` event's sum), with its chunks and time */
  streamed?: { text: string; tokens: number; elapsedMs: number; partial?: PartialValueView | null } | null;
}

/** The structured value a streaming reply holds so far (extension/panel/partial-json.ts). */
export interface PartialValueView {
  /** JSON text of the complete part: a struct's complete fields, a list's complete items */
  value: string;
  /** the field being written (a JSON pointer into the value) and its text so far, clipped */
  writing: { path: string; text: string } | null;
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
  /** a model reply's phases (runtime/providers/transport.ts, CallPhases): ms from the call's start */
  phases?: CallPhasesView | null;
}

/** When a model call left the host's queue (sent), and its first and last byte came: ms from the call's start. */
export interface CallPhasesView {
  queuedMs: number;
  sentMs: number;
  firstByteMs: number | null;
  lastByteMs: number | null;
}

export interface VaultEntryView {
  name: string;
  source: string;
}

/** `suspended`: a durable run stopped at `suspend;`; `waiting`: on a decision about an unknown outcome (the Runs view) */
export type RunStatus = 'idle' | 'running' | 'done' | 'failed' | 'stopped' | 'suspended' | 'waiting';

/** A durable run's place in its store: what a what-if fork or the journal scrubber needs. */
export interface StoredRunView {
  runId: string;
  /** the store folder (openStore's argument) */
  storeDir: string;
}

/** One journal step of a stored run, as the what-if view and the journal timeline show it. */
export interface JournalStepView {
  seq: number;
  kind: string;
  name: string;
  pid: number;
  status: 'intent' | 'ok' | 'error' | 'unknown';
  /** the step's outcome as JSON text (a model reply's value, an effect's result, an error's message), clipped */
  value: string;
  /** milliseconds since the run's first step: when the step was asked, and when its outcome came (null: none yet) */
  at: number;
  doneAt: number | null;
  /** a model reply or an effect's result: a what-if may edit it */
  forkable: boolean;
  /** the capability that allowed the effect (`network api.x.com (--allow-net) with identity::bearer("gh")`); absent in older journals */
  grant?: string;
}

/** One side of a what-if: a run's outcome and journal. */
export interface WhatIfSide {
  runId: string;
  status: string;
  output: string[];
  result: string | null;
  error: string | null;
  journal: JournalStepView[];
}

/** The confidence the fork form starts at for an edited model reply: the runtime's EDITED_CONFIDENCE (a test holds them equal). */
export const FORK_DEFAULT_CONFIDENCE = 1;

/** A what-if fork and the run it was forked from, side by side. */
export interface WhatIfView {
  step: number;
  before: string;
  after: string;
  /** the confidence the edited model reply was journaled with (null: the step is an effect's result) */
  confidence: number | null;
  /** the fields the edit changed, as `verdict: "spam" → "ham"` (absent in views from before typed edits) */
  changes?: string[];
  original: WhatIfSide;
  fork: WhatIfSide;
}

/** A process at a journal step (the scrubber), as the travel API reconstructs it. */
export interface ScrubView {
  runId: string;
  /** the step asked for */
  asked: number;
  /** the step the replay reached: the one asked for, or an earlier one (effects started together are recorded after; an unknown outcome stops it) */
  step: number;
  steps: number;
  actors: ActorView[];
  /** what the program printed up to there */
  output: string[];
}

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
  /** a durable run: its id and store */
  stored?: StoredRunView | null;
  /** who sent to whom: one row per (from, to) pair with its count, at most MAX_MESSAGE_PAIRS (run events `process.send`) */
  messages?: MessageEdgeView[] | null;
  /** the run's model requests and tokens when it asked a real model, priced with `turn.pricesFile` (docs/observability.md, *Costs*) */
  tokens?: TokensView | null;
}

/** Messages sent from one process to another: how many, never what. */
export interface MessageEdgeView {
  from: number;
  to: number;
  count: number;
}

/** the most (from, to) pairs a view carries: sends between pairs past it are not shown (the graph's note says so) */
export const MAX_MESSAGE_PAIRS = 500;

/** The token summary of a run (runtime/telemetry/costs.ts's TokenSummary). */
export interface TokensView {
  models: { model: string; calls: number; retries: number; failed: number; inputTokens: number; cachedTokens: number; outputTokens: number; unreported: number; cost?: number }[];
  cost?: { total: number; currency: string; unpriced: string[] };
  /** the summary as the CLI prints it, one line per model and the total */
  lines: string[];
}

/**
 * What changed in the shown run since the last message (extension/protocol/run-delta.ts makes and
 * applies them): the rows that are new or changed, never the rows that are not. The host sends a
 * whole RunView only when a webview (re)opens or a new run starts; after it, deltas numbered 1, 2, …
 * A webview that sees a gap in the numbers (or a delta for another run) asks for the whole view
 * again (`resync`).
 */
export interface RunDelta {
  runId: number;
  n: number;
  /** the view's own fields that changed (status, result, error, tokens, …) */
  set?: Partial<Pick<RunView, 'file' | 'status' | 'model' | 'result' | 'error' | 'stored' | 'tokens' | 'messages'>>;
  /** lines printed since: `from` is the output's length before them */
  output?: { from: number; lines: string[] };
  /** actors new (whole) or changed (their pid and the fields that changed); new ones go after the others */
  actors?: ActorPatch[];
  /** the actors' order, when it changed otherwise than by new ones coming last */
  actorOrder?: number[];
  infers?: InferPatch[];
  inferOrder?: string[];
  /** timeline items appended: `from` is the timeline's length before them */
  timeline?: { from: number; items: TimelineItem[] };
  /** earlier timeline items that changed (a request answered, a streaming bar grown), by index */
  timelineSet?: { i: number; item: TimelineItem }[];
}

/** An actor's pid and the fields of it that changed (all of them for an actor the webview has not seen). */
export type ActorPatch = Partial<ActorView> & { pid: number };

/** An inference new or changed: its own fields, and its attempts that changed (by index). */
export interface InferPatch {
  id: string;
  pid: number;
  type: string;
  site: SiteView | null;
  state: InferView['state'];
  attempts: AttemptPatch[];
}

/**
 * An attempt new (`attempt`, whole) or changed: the fields that changed (`fields`; a reply's text,
 * its validity, …: the prompt and schema are not sent again) and its streamed reply (`streamed`):
 * the text that came since (`append`) or, once the shown text no longer just grows (its start is
 * clipped), all of it (`text`); null once the reply is whole.
 */
export type AttemptPatch =
  | { i: number; attempt: InferAttemptView }
  | { i: number; fields?: Partial<Omit<InferAttemptView, 'streamed'>>; streamed?: StreamedPatch | null };

export interface StreamedPatch {
  append?: string;
  text?: string;
  tokens: number;
  elapsedMs: number;
  partial?: PartialValueView | null;
}

/** Host → webview. */
export type HostMessage =
  | { type: 'run'; v: 1; run: RunView }
  /** additive (issue 44): what changed in the shown run since the last `run` or `runDelta` */
  | { type: 'runDelta'; v: 1; delta: RunDelta }
  | { type: 'vault'; v: 1; entries: VaultEntryView[] }
  /** the journal of the shown stored run */
  | { type: 'journal'; v: 1; runId: string; steps: JournalStepView[]; schemas?: Record<string, object> }
  | { type: 'whatif'; v: 1; view: WhatIfView }
  | { type: 'scrub'; v: 1; view: ScrubView }
  /** a request of the webview failed (a fork refused, a store in use): one line for a person */
  | { type: 'notice'; v: 1; message: string }
  /** a calibration map the webview asked for (protocol/calibration.ts) */
  | CalibrationMapReply
  /** an image or document of a prompt the webview asked for (protocol/media.ts) */
  | MediaReply;

/** Webview → host. */
export type WebviewMessage =
  | { type: 'ready'; v: 1 }
  /** the webview missed a delta: send the whole shown run again */
  | { type: 'resync'; v: 1 }
  | { type: 'start'; v: 1; file: string | null }
  | { type: 'stop'; v: 1 }
  | { type: 'reveal'; v: 1; path: string; line: number }
  /** fork stored run `runId` at `step` with `value` (JSON text) and run the fork; a model reply's `confidence` (0–1; default 1) */
  | { type: 'fork'; v: 1; runId: string; step: number; value: string; confidence?: number }
  /** the state of every process at journal step `step` */
  | { type: 'scrub'; v: 1; runId: string; step: number }
  /** run a command the panel offers (only the ones in PANEL_COMMANDS) */
  | { type: 'command'; v: 1; command: PanelCommand }
  /** open the Settings editor at a grant setting (only the ones in GRANT_SETTINGS) */
  | { type: 'setting'; v: 1; key: GrantSetting }
  /** the calibration map of this id, to draw its reliability diagram (protocol/calibration.ts) */
  | CalibrationMapRequest
  /** the image or document of this hash in a shown prompt (protocol/media.ts) */
  | MediaRequest;

/** Editor commands a panel message may run (a credential error offers Add Credential). */
export const PANEL_COMMANDS = ['turn.vault.add'] as const;
export type PanelCommand = (typeof PANEL_COMMANDS)[number];

/** The editor settings that grant a run what the CLI's --allow-* flags grant (extension/settings.ts). */
export const GRANT_SETTINGS = ['turn.run.allowNet', 'turn.run.allowRead', 'turn.run.allowWrite', 'turn.run.allowEnv'] as const;
export type GrantSetting = (typeof GRANT_SETTINGS)[number];

/**
 * The setting that grants what a run's error says is missing (`file write access to … is not
 * granted`, a hint naming `--allow-write`), if it says so: in the editor the fix is that setting,
 * not the CLI's flag.
 */
export function grantSetting(message: string): GrantSetting | null {
  if (/--allow-write\b|file (?:write|append|create|delete)\w* access to .* is not granted|needs write access/.test(message)) return 'turn.run.allowWrite';
  if (/--allow-read\b|file read\w* access to .* is not granted/.test(message)) return 'turn.run.allowRead';
  if (/--allow-net\b|network access to .* is not granted/.test(message)) return 'turn.run.allowNet';
  if (/--allow-env\b|reading the environment variable .* is not granted/.test(message)) return 'turn.run.allowEnv';
  return null;
}

/** The error as the editor shows it: the CLI's `--allow-*` flags named by their settings. */
export function editorGrantText(message: string): string {
  return message.replace(/--allow-(write|read|net|env)\b/g, (_, k: string) => `the turn.run.allow${k[0].toUpperCase()}${k.slice(1)} setting`);
}

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
/** a field newer than version 1 of a view: absent, or valid */
const optional = (c: Check): Check => (v) => v === undefined || c(v);

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
const actorFields: Record<string, Check> = {
  pid: num,
  parent: num,
  name: optional(nullable(str)),
  after: optional(arr(num)),
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
};
const actor = obj(actorFields);
/** a patch's fields are each valid and known (an actor new to the webview is checked whole when applied) */
const patchOf = (fields: Record<string, Check>, except: string[] = []): Check => (v) =>
  isObj(v) && Object.entries(v).every(([k, x]) => !except.includes(k) && k in fields && fields[k](x));
const actorPatch: Check = (v) => isObj(v) && num(v.pid) && patchOf(actorFields)(v);
const attemptFields: Record<string, Check> = {
  attempt: num,
  prompt: obj({ P0: arr(str), P2: arr(str), P1: arr(str), task: str }),
  feedback: arr(str),
  schema: any,
  raw: nullable(str),
  repairs: arr(str),
  errors: arr(str),
  valid: nullable(bool),
  confidence: nullable(num),
  streamed: optional(nullable(obj({ text: str, tokens: num, elapsedMs: num, partial: optional(nullable(obj({ value: str, writing: nullable(obj({ path: str, text: str })) }))) }))),
  calibration: optional(nullable(obj({ source: str, raw: num, map: str }))),
};
const attempt = obj(attemptFields);
const infer = obj({ id: str, pid: num, type: str, site: nullable(site), attempts: arr(attempt), state: oneOf('pending', 'ok', 'failed') });
const timeline = obj({
  seq: num,
  ms: num,
  kind: str,
  pid: nullable(num),
  summary: str,
  state: oneOf('done', 'pending', 'unknown'),
  site: nullable(site),
  phases: optional(nullable(obj({ queuedMs: num, sentMs: num, firstByteMs: nullable(num), lastByteMs: nullable(num) }))),
});
const run = obj({
  runId: num,
  file: nullable(str),
  status: oneOf('idle', 'running', 'done', 'failed', 'stopped', 'suspended', 'waiting'),
  model: str,
  output: arr(str),
  result: nullable(str),
  error: nullable(obj({ message: str, site: nullable(site) })),
  actors: arr(actor),
  infers: arr(infer),
  timeline: arr(timeline),
  stored: optional(nullable(obj({ runId: str, storeDir: str }))),
  messages: optional(nullable(arr(obj({ from: num, to: num, count: num })))),
});
const partialValue = obj({ value: str, writing: nullable(obj({ path: str, text: str })) });
const runError = obj({ message: str, site: nullable(site) });
const tokensView = obj({ models: arr(isObj), lines: arr(str) });
const storedView = obj({ runId: str, storeDir: str });
/** each field of a delta's `set` that is there is valid */
const setFields: Record<string, Check> = {
  file: nullable(str),
  status: oneOf('idle', 'running', 'done', 'failed', 'stopped', 'suspended', 'waiting'),
  model: str,
  result: nullable(str),
  error: nullable(runError),
  stored: nullable(storedView),
  tokens: nullable(tokensView),
  messages: nullable(arr(obj({ from: num, to: num, count: num }))),
};
const index: Check = (v) => num(v) && Number.isInteger(v) && (v as number) >= 0;
const streamedPatch = nullable((v) => isObj(v) && num(v.tokens) && num(v.elapsedMs) && optional(str)(v.append) && optional(str)(v.text) && optional(nullable(partialValue))(v.partial));
const attemptPatch: Check = (v) => isObj(v) && index(v.i) && ('attempt' in v
  ? attempt(v.attempt)
  : optional(patchOf(attemptFields, ['streamed']))(v.fields) && optional(streamedPatch)(v.streamed));
const inferPatch = obj({ id: str, pid: num, type: str, site: nullable(site), state: oneOf('pending', 'ok', 'failed'), attempts: arr(attemptPatch) });
const runDelta: Check = (d) => isObj(d) && num(d.runId) && index(d.n)
  && optional((s) => isObj(s) && Object.entries(s).every(([k, x]) => k in setFields && setFields[k](x)))(d.set)
  && optional(obj({ from: index, lines: arr(str) }))(d.output)
  && optional(arr(actorPatch))(d.actors)
  && optional(arr(num))(d.actorOrder)
  && optional(arr(inferPatch))(d.infers)
  && optional(arr(str))(d.inferOrder)
  && optional(obj({ from: index, items: arr(timeline) }))(d.timeline)
  && optional(arr(obj({ i: index, item: timeline })))(d.timelineSet);

const step = obj({
  seq: num,
  kind: str,
  name: str,
  pid: num,
  status: oneOf('intent', 'ok', 'error', 'unknown'),
  value: str,
  at: num,
  doneAt: nullable(num),
  forkable: bool,
  grant: optional(str),
});
const side = obj({ runId: str, status: str, output: arr(str), result: nullable(str), error: nullable(str), journal: arr(step) });
const whatif = obj({ step: num, before: str, after: str, confidence: nullable(num), changes: optional(arr(str)), original: side, fork: side });
const scrub = obj({ runId: str, asked: num, step: num, steps: num, actors: arr(actor), output: arr(str) });
const vaultEntry = obj({ name: str, source: str });

const v1 = (v: unknown) => v === PROTOCOL_VERSION;

/** A whole actor (an actor patch for a pid the webview has not seen must be one). */
export function isActorView(v: unknown): v is ActorView {
  return actor(v);
}

export function isRunView(v: unknown): v is RunView {
  return run(v);
}

export function isHostMessage(m: unknown): m is HostMessage {
  if (!isObj(m) || !v1(m.v)) return false;
  switch (m.type) {
    case 'run':
      return run(m.run);
    case 'runDelta':
      return runDelta(m.delta);
    case 'vault':
      return arr(vaultEntry)(m.entries) && (m.entries as Record<string, unknown>[]).every((e) => Object.keys(e).length === 2);
    case 'journal':
      return str(m.runId) && arr(step)(m.steps) && (m.schemas === undefined || (isObj(m.schemas) && Object.values(m.schemas).every(isObj)));
    case 'whatif':
      return whatif(m.view);
    case 'scrub':
      return scrub(m.view);
    case 'notice':
      return str(m.message);
    case 'calibrationMap':
      return isCalibrationMapReply(m);
    case 'media':
      return isMediaReply(m);
    default:
      return false;
  }
}

export function isWebviewMessage(m: unknown): m is WebviewMessage {
  if (!isObj(m) || !v1(m.v)) return false;
  switch (m.type) {
    case 'ready':
    case 'resync':
    case 'stop':
      return true;
    case 'start':
      return nullable(str)(m.file);
    case 'reveal':
      return str(m.path) && num(m.line) && (m.line as number) >= 1;
    case 'fork':
      return str(m.runId) && num(m.step) && (m.step as number) >= 1 && str(m.value)
        && (m.confidence === undefined || (num(m.confidence) && (m.confidence as number) >= 0 && (m.confidence as number) <= 1));
    case 'scrub':
      return str(m.runId) && num(m.step) && (m.step as number) >= 0;
    case 'command':
      return (PANEL_COMMANDS as readonly unknown[]).includes(m.command);
    case 'setting':
      return (GRANT_SETTINGS as readonly unknown[]).includes(m.key);
    case 'calibrationMap':
      return isCalibrationMapRequest(m);
    case 'media':
      return isMediaRequest(m);
    default:
      return false;
  }
}

/** A run that has not started; `model` is the spec it will use ('' when not known yet). */
export function emptyRun(runId = 0, file: string | null = null, model = ''): RunView {
  return { runId, file, status: 'idle', model, output: [], result: null, error: null, actors: [], infers: [], timeline: [] };
}

/**
 * The credential a run's error says is missing (`the secret "github" for ... is not set`), if it says so.
 * The text may arrive inside a rendered error value (an absorbed client's EffectError), whose quotes
 * are escaped (`the secret \\"market\\" ...`): both forms are read. The message carries program data,
 * so it is scanned, not matched with a backtracking pattern, and only its first 4 KiB are read.
 */
export function missingCredential(message: string): string | null {
  const text = message.slice(0, 4096).replaceAll('\\"', '"');
  const opener = 'the secret "';
  const at = text.indexOf(opener);
  if (at < 0) return null;
  const start = at + opener.length;
  const end = text.indexOf('"', start);
  if (end <= start) return null;
  const notSet = text.indexOf(' is not set', end);
  const lineEnd = text.indexOf('\n', end);
  if (notSet < 0 || (lineEnd >= 0 && lineEnd < notSet)) return null;
  const name = text.slice(start, end);
  return checkCredentialName(name) === undefined ? name : null;
}
