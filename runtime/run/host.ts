// The one host assembly (docs/architecture.md): the model and its call budget, the vault,
// capabilities and approvals, redaction, the trace and the knowledge store, built from a run's
// options. The CLI, the run panel, the debugger (and the durable layer wrapping it) all get their
// host here, so a budget or a capability cannot be applied in one and skipped in another.
import { budgetedModel, performTool, redactError } from '../effects/host.js';
import { capabilitiesFromFlags, CapabilityError, cliApproval, newUsage, type ApprovalHook, type Capabilities, type Usage } from '../effects/capabilities.js';
import type { EffectToolContext } from '../effects/tools.js';
import { ChainVault, EnvVault, FileVault, RedactingVault, Redactor, VaultError, type Vault } from '../effects/vault.js';
import { openTrace, type TraceSink } from '../events/trace.js';
import type { RunEvent } from '../events/index.js';
import type { InferIO, InferReply, InferRequest } from '../infer/types.js';
import { lazyKnowledge } from '../knowledge/open.js';
import type { Host, ToolRequest } from '../ports/host.js';
import { providerKeys } from '../providers/index.js';
import { createModel, inferRetriesFromEnv, ModelInputError, resolveModelSpec, UnknownModelError, type Model } from './model.js';
import { RunSetupError } from './errors.js';
import type { AuthorityOptions, RunOptions } from './options.js';

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
  close(): void;
}

const approvalHook = (approve: AuthorityOptions['approve']): ApprovalHook => {
  if (typeof approve === 'function') return approve;
  return cliApproval({ mode: approve ?? 'ask' });
};

/**
 * Performs an effect tool within `limitMs`: past it, the call fails (an `EffectError` the program
 * can catch) and its late result is dropped. The time an approval waits for a person does not
 * count: the clock starts again once the approval is decided.
 */
function timed(effects: EffectToolContext, request: ToolRequest, limitMs: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      timer = setTimeout(() => {
        reject(new Error(`${request.name} took longer than ${limitMs / 1000} s, the time limit of a tool call; raise it with --tool-timeout`));
      }, limitMs);
    };
    const approve = effects.approve;
    const ctx: EffectToolContext = approve
      ? {
          ...effects,
          approve: async (r) => {
            clearTimeout(timer);
            try {
              return await approve(r);
            } finally {
              arm();
            }
          },
        }
      : effects;
    arm();
    void performTool(ctx, request).then(resolve, reject).finally(() => clearTimeout(timer));
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
 * Builds the host of a run. `knowledgeRunId`: the id std/knowledge writes under (a durable run
 * passes its own, so a resumed run still sees its drafts). Throws RunSetupError.
 */
export async function buildHost(options: RunOptions, knowledgeRunId?: () => string): Promise<RunHost> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const a = options.authority ?? {};
  const redactor = new Redactor();

  const vaults: Vault[] = [a.vault ?? new EnvVault(env)];
  if (a.secretsFile !== undefined) {
    try {
      vaults.push(await FileVault.open(a.secretsFile));
    } catch (e) {
      if (e instanceof VaultError) throw new RunSetupError('input', e.message);
      throw e;
    }
  }
  // The redactor knows every secret the run can use before the program can see anything: the
  // vaults' in-memory secrets (TURN_SECRET_*, the --secrets file) now, the model's API key below;
  // secrets a vault must ask for (SecretStorage) when they are resolved.
  const vault = new RedactingVault(new ChainVault(vaults), redactor);
  await vault.registerReady();
  let capabilities: Capabilities;
  try {
    capabilities = capabilitiesFromFlags(
      { allowNet: a.allowNet, allowRead: a.allowRead, allowWrite: a.allowWrite, allowEnv: a.allowEnv, maxModelCalls: a.maxModelCalls, maxModelTokens: a.maxModelTokens, approve: a.approveEffects },
      cwd,
    );
  } catch (e) {
    if (e instanceof CapabilityError) throw new RunSetupError('usage', e.message);
    throw e;
  }
  const hold = options.beforeEffect;
  const base = approvalHook(a.approve);
  const approve: ApprovalHook = hold
    ? async (request) => {
        await hold({ kind: 'approval', pid: request.pid ?? 1, description: `approval needed: ${request.summary}` });
        return base(request);
      }
    : base;
  let model: Model;
  let inferRetries: number | undefined;
  const providerKeyNames = new Set<string>();
  try {
    // a Wasm driver's HTTP goes through the run's network capability, approvals and vault
    model = createModel(resolveModelSpec(options.model, env, cwd), env, { capabilities, approve, vault, cwd });
    for (const [name, key] of providerKeys(model.provider, env, model.driver?.secrets)) {
      redactor.addKnown(name, key);
      providerKeyNames.add(name);
    }
    inferRetries = options.inferRetries ?? inferRetriesFromEnv(env);
  } catch (e) {
    if (e instanceof UnknownModelError) throw new RunSetupError('usage', e.message);
    if (e instanceof ModelInputError) throw new RunSetupError('input', e.message);
    throw e;
  }
  let trace: TraceSink | undefined;
  if (options.traceFile !== undefined) {
    try {
      trace = openTrace(options.traceFile);
    } catch (e) {
      throw new RunSetupError('usage', `cannot write the trace to ${options.traceFile}: ${(e as Error).message}`);
    }
  }
  const knowledge = lazyKnowledge({ cwd, env, runId: knowledgeRunId });
  const toolTimeoutMs = options.toolTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const usage = newUsage();
  const effects: EffectToolContext = {
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
    // HTTP requests time out with the tool limit unless a call asks for less
    ...(toolTimeoutMs > 0 ? { timeoutMs: toolTimeoutMs } : {}),
  };

  let refused: string | undefined;
  const guard = <T>(f: () => Promise<T>): Promise<T> => (refused !== undefined ? Promise.reject(new Error(refused)) : f());
  const ask = budgetedModel<[InferRequest, InferIO?], InferReply>(capabilities, usage, (request, io) => model.infer(request, io), {
    approve,
    summary: (request) => `a model call to ${model.provider.name} (infer ${request.typeName})`,
    pid: (request) => request.pid,
  });
  const sinks: ((e: RunEvent) => void)[] = [];
  if (options.onEvent) sinks.push(options.onEvent);
  if (trace) sinks.push(trace.sink);
  const host: Host = {
    output: (line) => options.onOutput?.(redactor.redact(line)),
    infer: (request, io) =>
      guard(async () => {
        if (hold) await hold({ kind: 'model', pid: request.pid, description: `waiting on a model reply (infer ${request.typeName})` });
        // where model replies and provider errors enter the VM: redacted like effect results
        let reply: InferReply;
        try {
          reply = await ask(request, io);
        } catch (e) {
          throw redactError(redactor, e);
        }
        return redactReply(redactor, reply);
      }),
    tool: (request: ToolRequest) =>
      guard(async () => {
        if (hold) await hold({ kind: 'effect', pid: request.pid, description: `waiting on an effect (${request.name})` });
        return toolTimeoutMs > 0 ? timed(effects, request, toolTimeoutMs) : performTool(effects, request);
      }),
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
    refuse: (reason) => {
      refused = reason;
    },
    close: () => {
      trace?.close();
      knowledge.close();
    },
  };
}
