// The one host assembly (docs/architecture.md): the model and its call budget, the vault,
// capabilities and approvals, redaction, the trace and the knowledge store, built from a run's
// options. The CLI, the run panel, the debugger (and the durable layer wrapping it) all get their
// host here, so a budget or a capability cannot be applied in one and skipped in another.
import { budgetedModel, performTool, redactError, type TokenMeter } from '../effects/host.js';
import { countTokens } from '../context/tokens.js';
import { mediaTokensAtMost } from '../media/tokens.js';
import { capabilitiesFromFlags, CapabilityError, cliApproval, newUsage, record, type ApprovalHook, type Capabilities, type Usage } from '../effects/capabilities.js';
import type { EffectToolContext } from '../effects/tools.js';
import { providerKeyNamesIn, scrubInitialEnvironment } from '../effects/environ.js';
import type { Bundle } from '../compile/bundle.js';
import { modelGrant, toolGrant, type GrantContext } from '../effects/grants.js';
import { ChainVault, EnvVault, FileVault, RedactingVault, Redactor, StreamRedactor, TokenFileVault, VaultError, tokensFile, type Vault } from '../effects/vault.js';
import { openTrace, type TraceSink } from '../events/trace.js';
import type { RunEvent, RunEventBody } from '../events/index.js';
import { MAX_SAMPLES, selfConsistent } from '../infer/consistency.js';
import type { InferDelta, InferIO, InferReply, InferRequest, Sampling } from '../infer/types.js';
import { lazyKnowledge } from '../knowledge/open.js';
import { McpSessions } from '../mcp/sessions.js';
import { askOnTerminal, parseAnswer, type ElicitationAnswer, type ElicitationQuestion } from '../mcp/elicitation.js';
import type { SamplingAsk, SamplingReply } from '../mcp/sampling.js';
import { renderPrompt } from '../context/render.js';
import { interpret } from '../infer/driver.js';
import { taskText, wireSchema } from '../infer/prompt.js';
import { pathToFileURL } from 'node:url';
import * as nodePath from 'node:path';
import type { Host, ToolRequest } from '../ports/host.js';
import { providerKeys } from '../providers/index.js';
import { createModel, inferRetriesFromEnv, ModelInputError, resolveModelSpec, UnknownModelError, type Model } from './model.js';
import { RunSetupError } from './errors.js';
import type { AuthorityOptions, RunOptions } from './options.js';
import type { JournaledApprovals } from '../ports/approval.js';
import { ASK_TOOL, type AskPort } from '../ports/ask.js';
import { askPerson } from '../ask/host.js';
import { terminalAsk } from '../ask/terminal.js';
import { openTelemetry, telemetryConfig, TelemetryConfigError, type RunTelemetry } from '../telemetry/index.js';
import { TokenTally } from '../telemetry/tokens.js';
import { calibrationFor, type CalibrationSetup } from '../calibration/apply.js';
import { CalibrationFileError } from '../calibration/file.js';

/** The most one effect tool call may take by default (`toolTimeoutMs`, `--tool-timeout`). */
export const DEFAULT_TOOL_TIMEOUT_MS = 30_000;

export interface RunHost {
  host: Host;
  redactor: Redactor;
  capabilities: Capabilities;
  usage: Usage;
  model: Model;
  inferRetries: number | undefined;
  /** refuse every effect from now on (the run was stopped) */
  refuse(reason: string): void;
  /** cancel every model call in flight (an interruption); returns how many there were */
  cancelModelCalls(reason: string): number;
  /** stop asking every approval still open (an interruption: a prompt on the terminal stops waiting) */
  cancelApprovals(reason: string): void;
  /**
   * A resumed run's model calls made before (their journaled replies, and the prompts they answered):
   * spent already, they count against the model budgets again, whether the resume replays them or
   * starts from a snapshot after them.
   */
  chargeEarlierCalls(calls: readonly { prompt: string; reply: InferReply }[]): void;
  /** where effects' own events (an MCP server's progress and logs) join the run's event stream */
  attachEvents(emit: (body: RunEventBody) => void): void;
  /** whether the run is durable: an MCP server's question nobody can answer now makes it wait (runtime/mcp/sessions.ts) */
  setDurable(durable: boolean): void;
  /** the program's literal MCP launch maps (Bundle.launchMaps): the only stdio servers the run may start */
  allowLaunches(bundle: Pick<Bundle, 'launchMaps'>): void;
  /** the run's OpenTelemetry export (runtime/telemetry), when it has one */
  telemetry?: RunTelemetry;
  /** the requests the run sent to its model and their tokens (the token summary) */
  tokens: TokenTally;
  /** warnings for the person who started the run (an unusable default calibration file, one for another model) */
  notes: string[];
  /** the calibration maps applied to this run's confidences (runtime/calibration/apply.ts): the file and the maps' ids by source */
  calibration?: { file: string; maps: Record<string, string> };
  close(): void;
}

/** What the host's telemetry needs that the options do not say. */
export interface HostTelemetryContext {
  /** the program's name on the run's span (default: the entry file's name) */
  program?: string;
  /** the traceparent a durable run recorded when it started: a resume links to it */
  resumes?: string;
}

const approvalHook = (approve: AuthorityOptions['approve']): ApprovalHook => {
  if (typeof approve === 'function') return approve;
  return cliApproval({ mode: approve ?? 'ask' });
};

/** Who decides the run's approvals, as its journal records it. */
function approver(a: AuthorityOptions): string {
  if (typeof a.approve === 'function') return a.grantedBy === 'settings' ? 'the editor' : 'the host';
  if (a.approve === 'all' || a.approve === 'none') return `--approve ${a.approve}`;
  return 'the terminal (--approve ask)';
}

/** The clocks of the tool calls under way, which a person's sign-in to an MCP server (runtime/mcp/oauth) stops while it waits. */
type Clocks = Set<{ stop(): void; restart(): void }>;

/** Runs `f` (a person signing in) with every running tool call's clock stopped; each starts again after. */
async function whileAPersonActs<T>(clocks: Clocks, f: () => Promise<T>): Promise<T> {
  const stopped = [...clocks];
  for (const c of stopped) c.stop();
  try {
    return await f();
  } finally {
    for (const c of stopped) c.restart();
  }
}

/**
 * Performs an effect tool within `limitMs`: past it, the call fails (an `EffectError` the program
 * can catch) and its late result is dropped. The time an approval or a sign-in waits for a person
 * does not count: the clock starts again once the person is done.
 */
function timed(effects: EffectToolContext, request: ToolRequest, limitMs: number, clocks: Clocks): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    // people acting now (an approval, an MCP server's question, a sign-in): the clock starts again when the last is done
    let held = 0;
    const arm = (): void => {
      clearTimeout(timer);
      if (settled || held > 0) return;
      timer = setTimeout(() => {
        reject(new Error(`${request.name} took longer than ${limitMs / 1000} s, the time limit of a tool call; raise it with --tool-timeout`));
      }, limitMs);
    };
    const clock = {
      stop: (): void => {
        held++;
        clearTimeout(timer);
      },
      restart: (): void => {
        held--;
        arm();
      },
    };
    clocks.add(clock);
    const holding = async <T>(f: () => Promise<T>): Promise<T> => {
      clock.stop();
      try {
        return await f();
      } finally {
        clock.restart();
      }
    };
    const approve = effects.approve;
    const ctx: EffectToolContext = {
      ...effects,
      holdClock: holding,
      ...(approve ? { approve: (r: Parameters<typeof approve>[0]) => holding(() => approve(r)) } : {}),
    };
    arm();
    void performTool(ctx, request)
      .then(resolve, reject)
      .finally(() => {
        settled = true;
        clocks.delete(clock);
        clearTimeout(timer);
      });
  });
}

/**
 * A model reply with the run's secrets redacted. When the reply held one, the per-token
 * log-probabilities lose their token texts (the pieces would spell it); their numbers stay.
 */
function redactReply(redactor: Redactor, reply: InferReply): InferReply {
  if (redactor.size === 0) return reply;
  const safe = redactor.redactDeep(reply);
  const tokens = reply.logprobs?.map((t) => t.token ?? '').join('');
  if (safe.logprobs && (safe.text !== reply.text || (tokens !== undefined && redactor.redact(tokens) !== tokens))) {
    safe.logprobs = safe.logprobs.map((t) => ({ logprob: t.logprob }));
  }
  return safe;
}

/**
 * The events of one model call with its streamed text redacted as a stream: each sample's deltas
 * go through a StreamRedactor, so a secret that arrives a few characters at a time never reaches
 * the trace or the panel, whole or in pieces. `end()` (the call is over) releases what each
 * stream held back, as one last delta, before the driver reports the reply.
 */
function redactedStreams(redactor: Redactor, io: InferIO | undefined): { emit: InferIO['emit']; end(): void } {
  const streams = new Map<number | undefined, { redact: StreamRedactor; last: InferDelta }>(); // by sample
  return {
    emit: (e) => {
      if (!io) return;
      if (e.kind !== 'infer.delta') return io.emit(e);
      let s = streams.get(e.sample);
      if (!s) streams.set(e.sample, (s = { redact: new StreamRedactor(redactor), last: e }));
      s.last = e;
      io.emit({ ...e, delta: s.redact.push(e.delta) });
    },
    end: () => {
      for (const { redact, last } of streams.values()) {
        const rest = redact.end();
        if (rest) io?.emit({ ...last, delta: rest });
      }
      streams.clear();
    },
  };
}

/** What the run asks of every model call's sampler (`--seed`, `--temperature`, `--max-tokens`). */
function runSampling(options: RunOptions): Sampling | undefined {
  const s: Sampling = {};
  if (options.seed !== undefined) s.seed = options.seed;
  if (options.temperature !== undefined) s.temperature = options.temperature;
  if (options.maxTokens !== undefined) s.maxTokens = options.maxTokens;
  return Object.keys(s).length > 0 ? s : undefined;
}

/**
 * The request with its sampling: the infer's own options (`with { seed: 7 }`) over the run's, but
 * never an output bound above the run's `--max-tokens`; the samples of a self-consistent call get
 * seeds seed, seed+1, ... so they differ yet replay.
 */
function withSampling(request: InferRequest, sampling: Sampling | undefined): InferRequest {
  const o = request.options;
  const s: Sampling = { ...sampling };
  if (o?.seed !== undefined) s.seed = o.seed;
  if (o?.temperature !== undefined) s.temperature = o.temperature;
  // the run's --max-tokens is the operator's bound: one infer may ask for less, never more
  if (o?.maxTokens !== undefined) s.maxTokens = s.maxTokens === undefined ? o.maxTokens : Math.min(s.maxTokens, o.maxTokens);
  if (Object.keys(s).length === 0) return request;
  if (s.seed !== undefined && request.sample !== undefined) s.seed += request.sample - 1;
  return { ...request, sampling: s };
}

/**
 * Registers every standard provider's key set in `env` (or in the process environment, which the
 * transport reads), whatever model the run uses: a program that gets hold of one another way (a
 * file, a server that echoes it) still cannot print it.
 */
function registerProviderKeys(redactor: Redactor, env: Record<string, string | undefined>): void {
  for (const name of new Set([...providerKeyNamesIn(env), ...providerKeyNamesIn(process.env)])) {
    for (const key of new Set([env[name], process.env[name]])) if (key) redactor.addKnown(name, key);
  }
}

/**
 * A Redactor that knows the secrets a run with `options` knows before it starts (its vaults'
 * in-memory secrets, the standard providers' keys), for what is sent outside any run: `turn mcp`'s
 * replies and errors, `turn inspect`, a Restate run's output and result as `turn submit` prints
 * them. Throws RunSetupError (an unusable `--secrets` file).
 */
export async function knownSecretsRedactor(options: Pick<RunOptions, 'env' | 'authority'> = {}): Promise<Redactor> {
  const redactor = new Redactor();
  await knownSecrets(options, redactor);
  return redactor;
}

/**
 * The run's vault (the editor's, or the environment's `TURN_SECRET_*` then the `--secrets` file),
 * recording every secret it hands out in `redactor`, which knows now every secret the run can use
 * before the program can see anything: the vaults' in-memory secrets and the standard providers'
 * keys (the model's own key is added when the model is made; secrets a vault must ask for, such as
 * SecretStorage's, when resolved). Throws RunSetupError.
 */
async function knownSecrets(options: Pick<RunOptions, 'env' | 'authority'>, redactor: Redactor): Promise<RedactingVault> {
  const env = options.env ?? process.env;
  const vaults: Vault[] = [options.authority?.vault ?? new EnvVault(env)];
  if (options.authority?.secretsFile !== undefined) {
    try {
      vaults.push(await FileVault.open(options.authority.secretsFile));
    } catch (e) {
      if (e instanceof VaultError) throw new RunSetupError('input', e.message);
      throw e;
    }
  }
  // where the host keeps the OAuth tokens it obtains (runtime/mcp/oauth); the editor's vault keeps its own
  if (!options.authority?.vault) vaults.push(new TokenFileVault(tokensFile(env)));
  const vault = new RedactingVault(new ChainVault(vaults), redactor);
  await vault.registerReady();
  registerProviderKeys(redactor, env);
  return vault;
}

/**
 * How a model call spends `--max-model-tokens`: the prompt is estimated with the tokenizer of
 * context budgets (runtime/context/tokens.ts) before the call; after it, the provider's usage
 * (input + output, else its total) counts, and where a provider reports none, the estimate of the
 * prompt plus the reply's tokens. A count that is not a whole number >= 0 is not believed.
 */
const MODEL_TOKENS: TokenMeter<[InferRequest, InferIO?], InferReply> = {
  prompt: (request) => promptTokens(request),
  reported: (reply) => replyTokens(reply),
  estimated: (reply, request) => promptTokens(request) + replyText(reply),
};

function replyText(reply: InferReply): number {
  return countTokens(reply.text ?? JSON.stringify(reply.value ?? null) ?? '');
}

function promptTokens(request: InferRequest): number {
  const r = request.rendered;
  let n = countTokens(r.system) + countTokens(r.context) + countTokens(r.task);
  for (const f of request.feedback) n += countTokens(f.reply) + f.issues.reduce((k, i) => k + countTokens(i.message), 0);
  return n + mediaTokensAtMost(request.media); // images and documents: the largest provider estimate (runtime/media/tokens.ts)
}

function replyTokens(reply: InferReply): number | undefined {
  const u = reply.usage;
  if (!u) return undefined;
  const count = (x: unknown): number | undefined => (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : undefined);
  const input = count(u.inputTokens);
  const output = count(u.outputTokens);
  if (input !== undefined || output !== undefined) return (input ?? 0) + (output ?? 0);
  return count(u.totalTokens);
}

/**
 * Builds the host of a run. `knowledgeRunId`: the id std/knowledge writes under (a durable run
 * passes its own, so a resumed run still sees its drafts). Throws RunSetupError.
 */
export async function buildHost(options: RunOptions, knowledgeRunId?: () => string, telemetryContext: HostTelemetryContext = {}): Promise<RunHost> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const a = options.authority ?? {};
  const redactor = new Redactor();
  const vault = await knownSecrets(options, redactor);
  let capabilities: Capabilities;
  try {
    capabilities = capabilitiesFromFlags(
      { allowNet: a.allowNet, allowRead: a.allowRead, allowWrite: a.allowWrite, allowEnv: a.allowEnv, allowRun: a.allowRun, maxModelCalls: a.maxModelCalls, maxModelTokens: a.maxModelTokens, approve: a.approveEffects },
      cwd,
    );
  } catch (e) {
    if (e instanceof CapabilityError) throw new RunSetupError('usage', e.message);
    throw e;
  }
  const hold = options.beforeEffect;
  const base = approvalHook(a.approve);
  const held: ApprovalHook = hold
    ? async (request) => {
        await hold({ kind: 'approval', pid: request.pid ?? 1, description: `approval needed: ${request.summary}` });
        return base(request);
      }
    : base;
  // every question still open, so an interruption can stop them (a terminal prompt stops waiting)
  const openApprovals = new Set<AbortController>();
  const approve: ApprovalHook = async (request) => {
    const own = new AbortController();
    openApprovals.add(own);
    try {
      return await held({ ...request, signal: request.signal ? AbortSignal.any([request.signal, own.signal]) : own.signal });
    } finally {
      openApprovals.delete(own);
    }
  };
  // a durable run's approvals: the journaled decision, else asked here and journaled (ports/approval.ts)
  const by = approver(a);
  const journaled = (approvals: JournaledApprovals | undefined): ApprovalHook | undefined =>
    approvals ? (request) => approvals(request, async () => ({ decision: await approve(request), by })) : undefined;
  let model: Model;
  let modelSpec: string;
  let inferRetries: number | undefined;
  // the standard providers' keys (isProviderKeyName) are the host's whatever the model: `env.get`
  // refuses them; here the names this run's model uses beyond those (`api_key_env=`, a driver's)
  const providerKeyNames = new Set<string>();
  try {
    // a Wasm driver's HTTP goes through the run's network capability, approvals and vault
    modelSpec = resolveModelSpec(options.model, env, cwd);
    model = createModel(modelSpec, env, { capabilities, approve, vault, cwd, ...(options.hostModels ? { hostModels: options.hostModels } : {}) });
    for (const [name, key] of providerKeys(model.provider, env, model.driver?.secrets)) {
      redactor.addKnown(name, key);
      providerKeyNames.add(name);
    }
    // an `api_key_env=` name is a secret too: out of the environment block a launched server could read (the CLI's start-up did the usual names)
    scrubInitialEnvironment(providerKeyNames);
    inferRetries = options.inferRetries ?? inferRetriesFromEnv(env);
  } catch (e) {
    if (e instanceof UnknownModelError) throw new RunSetupError('usage', e.message);
    if (e instanceof ModelInputError) throw new RunSetupError('input', e.message);
    throw e;
  }
  // the calibration maps fitted on this model, if the run's calibration file has some
  let calibration: CalibrationSetup;
  try {
    calibration = await calibrationFor(modelSpec, cwd, options.calibration);
  } catch (e) {
    if (e instanceof CalibrationFileError) throw new RunSetupError('input', e.message);
    throw e;
  }
  const calibrator = calibration.calibrator;
  /** The reply with its confidence's calibration (journaled with it, so a replay binds the same value). */
  const calibrate = (request: InferRequest, given: InferReply): InferReply => {
    // only this host calibrates: a `calibration` a provider's reply carried is dropped
    const { calibration: _dropped, ...reply } = given;
    if (!calibrator) return reply;
    const read = interpret(request.schema, reply);
    const c = read.confidence ? calibrator.calibrate(read.confidence) : undefined;
    return c ? { ...reply, calibration: c } : reply;
  };
  let trace: TraceSink | undefined;
  if (options.traceFile !== undefined) {
    try {
      trace = openTrace(options.traceFile);
    } catch (e) {
      throw new RunSetupError('usage', `cannot write the trace to ${options.traceFile}: ${(e as Error).message}`);
    }
  }
  const tokens = new TokenTally();
  const knowledge = lazyKnowledge({ cwd, env, runId: knowledgeRunId });
  const toolTimeoutMs = options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const usage = newUsage();
  const mcp = new McpSessions();
  const clocks: Clocks = new Set();
  // the program's once it is compiled (allowLaunches): until then no stdio server is started;
  // asked only when a server is launched, so a run without one never looks for its launch maps
  let launchesOf: Pick<Bundle, 'launchMaps'> | undefined;
  const writtenLaunches = { has: (key: string) => (launchesOf?.launchMaps ?? []).some((site) => site.key === key) };
  const effects: EffectToolContext = {
    mcp,
    vault,
    capabilities,
    usage,
    approve,
    redactor,
    cwd,
    env,
    knowledge: knowledge.session,
    knowledgeGranted: a.allowKnowledge === true,
    providerKeyNames,
    writtenLaunches,
    ...(options.mcpCaller ? { mcpCaller: options.mcpCaller } : {}),
    oauth: { ...a.oauth, whileAPersonActs: (f) => whileAPersonActs(clocks, f) },
    // HTTP requests time out with the tool limit unless a call asks for less
    ...(toolTimeoutMs > 0 ? { timeoutMs: toolTimeoutMs } : {}),
  };

  let refused: string | undefined;
  const guard = <T>(f: () => Promise<T>): Promise<T> => (refused !== undefined ? Promise.reject(new Error(refused)) : f());
  const consistency = options.consistency ?? 1;
  if (!Number.isInteger(consistency) || consistency < 1 || consistency > MAX_SAMPLES) {
    throw new RunSetupError('usage', `the self-consistency sample count must be a whole number from 1 to ${MAX_SAMPLES}, got ${consistency}`);
  }
  const sampling = runSampling(options);
  // each sample of a self-consistent call is a model call of the budget, and is approved like one
  const budgeted = budgetedModel<[InferRequest, InferIO?], InferReply>(
    capabilities,
    usage,
    (request, io) => tokens.count(model.provider.name, io, (watched) => model.infer(withSampling(request, sampling), watched)),
    {
      approve,
      summary: (request) => `a model call to ${model.provider.name} (infer ${request.typeName})`,
      pid: (request) => request.pid,
      approveFor: (_request, io) => journaled(io?.approvals),
    },
    MODEL_TOKENS,
  );
  // an infer's `with { consistency: k }` over the run's --consistency
  // a reply the playground recorded for this very request (re-run on save) answers it without a model call, outside the budgets
  const replayed = options.replayReply;
  const ask = selfConsistent((request, io) => {
    const again = replayed?.(request);
    return again !== undefined ? Promise.resolve(again) : budgeted(request, io);
  }, (request) => request.options?.consistency ?? consistency);
  const sinks: ((e: RunEvent) => void)[] = [];
  if (options.onEvent) sinks.push(options.onEvent);
  if (trace) sinks.push(trace.sink);
  // every model call in flight, so an interruption can cancel them all at once
  const inflight = new Set<(reason: Error) => void>();
  let durable = options.store !== undefined;
  mcp.serve({
    // roots: the folders the run may read (a write grant reads too); grants do not change during a run
    roots: () => (capabilities.files ?? []).flatMap((f) => f.roots).map((r) => ({ uri: pathToFileURL(r).href, name: nodePath.basename(r) || r })),
    // a server may sample only with a model the run was given (--model, TURN_MODEL): never the default mock
    ...(options.model !== undefined || env.TURN_MODEL ? { sample: (ask: SamplingAsk, signal?: AbortSignal) => sampleWithModel(ask, signal) } : {}),
    elicit: (q, signal) => answerQuestion(q, signal),
    durable: () => durable,
  });
  const answers = new Map<string, ElicitationAnswer>();
  for (const [key, a] of Object.entries(options.answers ?? {})) {
    try {
      answers.set(key, typeof a === 'string' ? parseAnswer(a) : a);
    } catch (e) {
      throw new RunSetupError('usage', `the answer to ${key}: ${(e as Error).message}`);
    }
  }
  /** The operator's answer to an MCP server's question (elicitation.ts gives the order), or undefined: nobody can answer now. */
  async function answerQuestion(q: ElicitationQuestion, signal?: AbortSignal): Promise<{ answer: ElicitationAnswer; by: string } | undefined> {
    const given = answers.get(q.key) ?? answers.get('*');
    if (given) return { answer: given, by: answers.has(q.key) ? '--answer' : '--answer *' };
    if (options.elicit) {
      const a = await options.elicit(q, signal);
      if (a) return { answer: a, by: 'the host' };
    }
    // process.stdin is a getter that sets the stream up: read only when asked
    if (options.askOnTerminal ?? process.stdin.isTTY === true) return { answer: await askOnTerminal(q, process.stdin, process.stderr, signal), by: 'the terminal' };
    return undefined;
  }
  let terminal: AskPort | undefined;
  /** Who answers an `ask`: the host's port, else the terminal when there is one (process.stdin is read only when asked). */
  function askPort(): AskPort | undefined {
    if (options.ask) return options.ask;
    if (!(options.askOnTerminal ?? process.stdin.isTTY === true)) return undefined;
    return (terminal ??= terminalAsk(process.stdin, process.stderr));
  }
  let samples = 0;
  /** A server's sampling request as a model call of the run: budgeted, approved and redacted like an `infer` of a Str. */
  async function sampleWithModel(a: SamplingAsk, signal?: AbortSignal): Promise<SamplingReply> {
    const schema = { type: 'string' } as const;
    const wire = wireSchema(schema);
    const prompt = a.transcript;
    const tiers = { system: a.system ? [a.system] : [], episodic: [], working: [] };
    const request: InferRequest = {
      id: `mcp-sampling-${++samples}`,
      pid: a.pid ?? 0,
      typeName: 'Str',
      schema,
      wireSchema: wire,
      prompt,
      context: [],
      tiers,
      rendered: renderPrompt(tiers, taskText(prompt, 'Str', wire)),
      attempt: 1,
      feedback: [],
      maxTokens: a.maxTokens,
      options: { maxTokens: a.maxTokens, ...(a.temperature !== undefined ? { temperature: a.temperature } : {}) },
    };
    const reply = await host.infer(request, { emit: () => {}, signal } as InferIO);
    const read = interpret(schema, reply);
    if (read.issues.length > 0 || typeof read.value !== 'string') throw new Error(`the model's reply is not text: ${read.issues.map((i) => i.message).join('; ') || 'no value'}`);
    return { text: read.value, model: model.provider.name };
  }
  // the last thing here that can fail: a span once opened is always ended (by Run.start, else by close)
  let telemetry: RunTelemetry | undefined;
  try {
    const config = telemetryConfig(options.telemetry, env);
    if (config) {
      const program = telemetryContext.program ?? (options.file !== undefined ? nodePath.basename(options.file) : 'run');
      telemetry = await openTelemetry(config, { redact: (t) => redactor.redact(t), model: model.provider.name, program, ...(telemetryContext.resumes !== undefined ? { resumes: telemetryContext.resumes } : {}) });
    }
  } catch (e) {
    trace?.close();
    if (e instanceof TelemetryConfigError) throw new RunSetupError('usage', e.message);
    throw e;
  }
  if (telemetry) {
    const t = telemetry;
    sinks.push((e) => t.sink(e));
  }
  const host: Host = {
    output: (line) => options.onOutput?.(redactor.redact(line)),
    modelSupports: (feature) => feature === 'tools' && model.provider.nativeTools === true,
    ...(options.flushOutput ? { flushOutput: options.flushOutput } : {}),
    infer: (request, io) =>
      guard(async () => {
        // Cancelled when the process no longer wants the reply (the VM's signal) or the run is
        // interrupted (`cancelModelCalls`). The VM hands its own cancel with its signal, so no
        // controller and no AbortSignal.any is made per call (issue 45: they were a quarter of the
        // mock model's profile); another caller gets one combined signal as before.
        const { signal: given, cancel: givenCancel } = (io ?? {}) as { signal?: AbortSignal; cancel?: (reason: Error) => void };
        let signal: AbortSignal;
        let cancel: (reason: Error) => void;
        if (given && givenCancel) {
          signal = given;
          cancel = givenCancel;
        } else {
          const own = new AbortController();
          signal = given ? AbortSignal.any([given, own.signal]) : own.signal;
          cancel = (reason) => own.abort(reason);
        }
        inflight.add(cancel);
        // the images and documents the request sends, bytes included, to an editor that shows them (never journaled)
        if (request.media && request.media.length > 0) options.onMedia?.(request.media);
        if (hold) await hold({ kind: 'model', pid: request.pid, description: `waiting on a model reply (infer ${request.typeName})` });
        // where model replies and provider errors enter the VM: redacted like effect results
        let reply: InferReply;
        const streamed = redactedStreams(redactor, io);
        try {
          reply = await ask(request, { emit: streamed.emit, signal, ...(io?.approvals ? { approvals: io.approvals } : {}) } as InferIO);
        } catch (e) {
          throw redactError(redactor, e);
        } finally {
          inflight.delete(cancel);
          streamed.end();
        }
        return calibrate(request, redactReply(redactor, reply));
      }),
    tool: (request: ToolRequest) =>
      guard(async () => {
        // `ask T`: a person answers, in their own time (no tool time limit), through the run's ask port
        if (request.name === ASK_TOOL) return askPerson(askPort(), request);
        if (hold) await hold({ kind: 'effect', pid: request.pid, description: `waiting on an effect (${request.name})` });
        telemetry?.describeTool(request);
        const traceparent = telemetry?.traceparent(request.pid);
        const ctx = { ...effects, ...(request.approvals ? { approve: journaled(request.approvals) } : {}), ...(traceparent !== undefined ? { traceparent } : {}) };
        return toolTimeoutMs > 0 ? timed(ctx, request, toolTimeoutMs, clocks) : performTool(ctx, request);
      }),
    // the grant each effect's journal entry records (runtime/effects/grants.ts)
    grantOf: (effect) => {
      const g: GrantContext = { capabilities, origin: a.grantedBy ?? 'flags', cwd, knowledgeGranted: a.allowKnowledge === true, knowledgeDir: knowledge.session.dir };
      try {
        return effect.kind === 'infer' ? modelGrant(g) : toolGrant(g, effect.request);
      } catch {
        return undefined; // arguments the tool itself will refuse, with its own message
      }
    },
    ...(sinks.length > 0
      ? {
          event: (event: RunEvent) => {
            const safe = redactor.redactDeep(event);
            for (const sink of sinks) sink(safe);
          },
        }
      : {}),
  };
  return {
    host,
    redactor,
    capabilities,
    usage,
    model,
    inferRetries,
    ...(telemetry ? { telemetry } : {}),
    tokens,
    refuse: (reason) => {
      refused = reason;
    },
    chargeEarlierCalls: (calls) => {
      const counted = capabilities.model?.tokens !== undefined;
      for (const { prompt, reply } of calls) record(usage, { kind: 'model' }, MODEL_TOKENS.reported(reply) ?? (counted ? countTokens(prompt) + replyText(reply) : 0));
    },
    cancelApprovals: (reason) => {
      for (const c of openApprovals) c.abort(new Error(reason));
    },
    cancelModelCalls: (reason) => {
      const n = inflight.size;
      for (const cancel of inflight) cancel(new Error(reason));
      return n;
    },
    attachEvents: (emit) => mcp.attach(emit),
    setDurable: (d) => {
      durable = d;
    },
    allowLaunches: (bundle) => {
      launchesOf = bundle;
    },
    notes: calibration.notes,
    ...(calibrator ? { calibration: { file: calibrator.file, maps: Object.fromEntries(calibrator.maps.map((m) => [m.source, m.id])) } } : {}),
    close: () => {
      // the run's MCP servers end with it (stdin closed, then SIGTERM); their last events go to the trace first
      void mcp.closeAll();
      trace?.close();
      // a run that never started (a resume refused after the host was built): its span ends here
      void telemetry?.end({ kind: 'closed' });
      knowledge.close();
      if (model.provider.kind === 'local') void model.provider.dispose?.();
    },
  };
}
