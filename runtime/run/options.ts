// The one typed description of a run: what the CLI's flags, the editor's `turn.*` settings and a
// debug launch configuration are all read into. runtime/run builds the host from it.
import type { McpCaller } from '../ports/mcp-caller.js';
import type { ApprovalHook } from '../effects/capabilities.js';
import type { Vault } from '../effects/vault.js';
import type { OAuthOptions } from '../mcp/oauth/options.js';
import type { RunEvent } from '../events/index.js';
import type { RunStore } from '../store/types.js';
import type { ChildPlacement } from '../ports/placement.js';
import type { ToolRequest } from '../ports/host.js';
import type { ElicitationAnswer, ElicitationQuestion } from '../mcp/elicitation.js';
import type { AskPort } from '../ports/ask.js';
import type { TelemetryOptions } from '../telemetry/config.js';
import type { InferReply, InferRequest } from '../infer/types.js';
import type { MediaVal } from '../values/index.js';
import type { LocalProvider } from '../providers/types.js';

/** What a run may do beyond computing (docs/authority.md). Nothing is granted unless given. */
export interface AuthorityOptions {
  /** hosts the program may reach: `host`, `*.suffix`, `host:port`, `*` */
  allowNet?: string[];
  /** folders it may read / write (relative to `cwd`) */
  allowRead?: string[];
  allowWrite?: string[];
  /** environment variables it may read (never TURN_SECRET_*) */
  allowEnv?: string[];
  /** commands it may launch (stdio MCP servers): a name on PATH or an absolute path, `*` for any */
  allowRun?: string[];
  /** the model-call and model-token budgets of the whole run */
  maxModelCalls?: number;
  maxModelTokens?: number;
  /** effect kinds that need approval: network, files, model, spawn, env, run */
  approveEffects?: string[];
  /** who approves them: a hook (the editor's modal), or the terminal's `all | none | ask` */
  approve?: ApprovalHook | 'all' | 'none' | 'ask';
  /** where secrets come from: this vault (the editor's SecretStorage), else TURN_SECRET_<NAME> variables */
  vault?: Vault;
  /** a secrets file (JSON or NAME=value lines, not readable by others), after the vault */
  secretsFile?: string;
  /** std/knowledge may open its store (`.turn/knowledge.db`, or $TURN_STORE_DIR) without a write grant on its folder */
  allowKnowledge?: boolean;
  /** how an MCP server under `identity::oauth("name")` is signed in to: the opener of its URL (the editor's), Turn's client ID metadata document (docs/mcp.md, *Authorization*) */
  oauth?: OAuthOptions;
  /** who set these grants, as a journal entry names it: `turn run`'s flags (the default) or the editor's settings */
  grantedBy?: 'flags' | 'settings';
}

/** A point where a process is about to wait on the host: the debugger may hold the run here. */
export interface EffectWait {
  kind: 'model' | 'effect' | 'approval';
  pid: number;
  description: string;
}

/** A host's model for a spec, as a provider (runtime/providers/host-chat.ts makes one from a chat), or undefined. */
export type HostModels = (spec: string) => LocalProvider | undefined;

export interface RunOptions {
  /** the program's entry file (a new run; a resume takes its sources from the store) */
  file?: string;
  /** the entry's source text instead of the file's (the playground's synthetic entry); the file's path still names it and resolves its `use`s */
  entryText?: string;
  /** where file effects resolve and the program runs (default: the process's cwd) */
  cwd?: string;
  /** the model spec (default: TURN_MODEL, else DEFAULT_MODEL) */
  model?: string;
  /**
   * Models the embedding host supplies for specs Turn cannot build itself: the editor's `vscode:`
   * models (VS Code's Language Model API, only inside the extension host). Asked first with the
   * run's model spec; undefined: the spec is built as usual (and `vscode:` is refused there).
   */
  hostModels?: HostModels;
  /**
   * the calibration file whose maps for this run's model turn raw confidences into calibrated ones
   * (docs/inference.md, *Calibration*; relative to cwd); false: none; default: .turn/calibration.json
   * in cwd when it exists
   */
  calibration?: string | false;
  /** the environment the run reads TURN_MODEL, TURN_INFER_RETRIES, TURN_SECRET_* and provider keys from */
  env?: Record<string, string | undefined>;
  authority?: AuthorityOptions;
  /** instruction budget, counted at backward jumps, calls and resumptions from a wait (default 200,000,000; 0 = none) */
  maxSteps?: number;
  /** allocation budget, in cells of about 8 bytes made over the run (default 50,000,000, about 400 MB; 0 = none) */
  maxAlloc?: number;
  /** wall-clock budget of the run in this OS process, in milliseconds: the run then fails where main stands (default none; 0 = none) */
  maxTimeMs?: number;
  /** token budgets of every process's P1 (`working`) and P2 (`episodic`) tiers (default 8,000 and 32,000) */
  context?: { working?: number; episodic?: number };
  /** the most one effect tool call (files, HTTP, environment, knowledge) may take, approvals and OAuth sign-ins not counted (default 30,000 ms; 0 = none) */
  toolTimeoutMs?: number;
  /** seeds the scheduler: interleavings vary by seed and replay exactly */
  seed?: number;
  /** re-asks after an invalid reply (default: TURN_INFER_RETRIES, else 2) */
  inferRetries?: number;
  /** the output bound of every model call (default: the model spec's max_tokens, else derived from each infer's schema) */
  maxTokens?: number;
  /** the sampling temperature sent with every model call (default: the model spec's, else the server's) */
  temperature?: number;
  /** self-consistency: ask each model call k times and take their agreement as the confidence (default 1: one reply) */
  consistency?: number;
  /** a durable run: the store folder (or an open store, which the caller closes) */
  store?: string | RunStore;
  /** without `store`: a program that contains `suspend;` runs durable in this store folder (Turn v1 persists a suspended run) */
  storeIfSuspends?: string;
  /** URL schema specs: fetch when not cached (default true), or fetch again */
  fetchSchemas?: boolean;
  refreshSchemas?: boolean;
  /** each line the program prints, secrets redacted (not called for lines a replay printed before) */
  onOutput?(line: string): void;
  /** writes out at once what onOutput buffered: a durable run records a line as shown only after this returns */
  flushOutput?(): void;
  /**
   * a note a person must see at once, before what it is about: a resume printing again a line the
   * journal held but had not marked shown (journaled first, so a kill after the line cannot lose it)
   */
  onNote?(text: string): void;
  /**
   * the playground's recording (re-run on save, runtime/playground/replay.ts): a reply for a request
   * it has seen unchanged, given without calling the model; undefined asks the model
   */
  replayReply?(request: InferRequest): InferReply | undefined;
  /** each run event, secrets redacted */
  onEvent?(event: RunEvent): void;
  /**
   * the images and documents of each model request, their bytes in reach (std/media): the editor's
   * run panel keeps them to draw thumbnails (docs/editor.md). Events carry a media item's label only.
   */
  onMedia?(media: readonly MediaVal[]): void;
  /** also write the events as JSON lines: `-` for standard error, else a file */
  traceFile?: string;
  /** called before a process waits on the host (model reply, effect, approval); the run waits for it */
  beforeEffect?(wait: EffectWait): Promise<void>;
  /**
   * answers to MCP servers' questions (elicitation, docs/mcp.md), by the question's key: what
   * `turn run|resume --answer KEY=ANSWER` gives (`accept`, `decline`, `cancel`, or a JSON map of the
   * form's fields). Not recorded with a durable run: a resume gives the answers it needs.
   */
  answers?: Record<string, string | ElicitationAnswer>;
  /**
   * answers an MCP server's question when `answers` has none for it (the editor's form, a test);
   * undefined: it has nobody to ask either, and the terminal or the refusal comes next
   */
  elicit?(question: ElicitationQuestion, signal?: AbortSignal): Promise<ElicitationAnswer | undefined>;
  /** ask an MCP server's question on the terminal (default: when standard input is a TTY) */
  askOnTerminal?: boolean;
  /**
   * Who answers `ask T { prompt }` (issue 43, runtime/ask/): the editor's typed form, a test. Without
   * it the terminal asks when standard input is one (`askOnTerminal`); else nobody can answer, and a
   * durable run stops, waiting for `turn answer`.
   */
  ask?: AskPort;
  /** Restate runs (runtime/restate/placement.ts): places spawned children on other workers, and performs their effect */
  placement?: ChildPlacement & { perform(request: ToolRequest): Promise<unknown> };
  /** a run `turn mcp` serves: its MCP client, which progress, elicitation and sampling reach (runtime/mcp/serve/) */
  mcpCaller?: McpCaller;
  /** OpenTelemetry export of the run's spans (docs/observability.md); unset: the OTEL_* variables decide */
  telemetry?: TelemetryOptions;
}
