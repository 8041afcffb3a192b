// The host side of the VM's effect tools: performs `fs_read`, `http_request`, `env_get`, ... with
// the run's capabilities and vault (see runtime/effects/tools.ts), and gates model calls by the
// model budget. Shared by the CLI and the editor, which differ only in the vault and approval hook.
import { BudgetExhaustedError, check, record, requireApproval, type ApprovalHook, type Capabilities, type Usage } from './capabilities.js';
import { STD_TOOLS, ToolError, type Cancellable, type EffectToolContext } from './tools.js';
import { EffectDenied } from './capabilities.js';
import type { ToolRequest } from '../ports/host.js';
import type { Redactor } from './vault.js';

/**
 * Performs one effect tool. This is where effect results enter the VM, so every value it returns
 * and every error message it throws has the run's secrets redacted, in every encoding the Redactor
 * knows (runtime/effects/vault.ts): what the program holds — and so what the journal, snapshots,
 * knowledge store, `turn inspect` and a resume see — never carries one.
 */
export function performTool(ctx: EffectToolContext, request: ToolRequest & Cancellable): Promise<unknown> {
  const tool = STD_TOOLS[request.name];
  if (!tool || !tool.effect) return Promise.reject(new ToolError(`unknown effect tool ${request.name}`));
  const own = {
    ...(request.idempotencyKey !== undefined ? { idempotencyKey: request.idempotencyKey } : {}),
    ...(request.signal ? { signal: request.signal } : {}),
    ...(ctx.mcp ? { pid: request.pid } : {}),
  };
  return Promise.resolve()
    .then(() => tool.run(Object.keys(own).length > 0 ? { ...ctx, ...own } : ctx, ...request.args))
    .then(
      (value) => (ctx.redactor ? ctx.redactor.redactDeep(value) : value),
      (e: unknown) => {
        throw ctx.redactor ? redactError(ctx.redactor, e) : e;
      },
    );
}

/** The error with its message (and stack) redacted, same object and class. */
export function redactError(redactor: Redactor, e: unknown): unknown {
  if (!(e instanceof Error) || redactor.size === 0) return e;
  const message = redactor.redact(e.message);
  if (message !== e.message) {
    e.message = message;
    if (e.stack) e.stack = redactor.redact(e.stack);
  }
  return e;
}

/** How a model call is measured against the token budget (`--max-model-tokens`). */
export interface TokenMeter<A extends unknown[], R> {
  /** the tokens the call's prompt will take, estimated before it is sent */
  prompt(...args: A): number;
  /** the tokens the call took (prompt + completion) as the provider reported them, if it did */
  reported(result: R): number | undefined;
  /** the tokens the call took, estimated (where the provider reports none and a budget needs a count) */
  estimated(result: R, ...args: A): number;
}

/**
 * The tokens a model call took, as the token budget counts them: the provider's report, else —
 * only when there is a budget to count against (the estimate loads the tokenizer) — the estimate.
 */
export function tokensSpent<A extends unknown[], R>(meter: TokenMeter<A, R>, budgeted: boolean, result: R, ...args: A): number {
  return meter.reported(result) ?? (budgeted ? meter.estimated(result, ...args) : 0);
}

/**
 * Wraps a model call so it spends the `model` capability's budgets and, when the run needs
 * approval for model calls (`--approve-effects model`), asks `approve` first: a refusal stops the
 * call before any request leaves. Every run's host is built with this (the CLI, the panel, the
 * debugger, the Restate worker: runtime/run/host.ts).
 *
 * The call budget (`--max-model-calls`) refuses the call past it (a catchable denial). The token
 * budget (`--max-model-tokens`) is checked twice: before the call, one whose estimated prompt alone
 * cannot fit in what is left is not sent; after it, the tokens it took (`tokensSpent`) are
 * recorded, and a call that took the run past the budget does not deliver its reply. Both end the
 * run (BudgetExhaustedError), at the call.
 */
export function budgetedModel<A extends unknown[], R>(
  capabilities: Capabilities,
  usage: Usage,
  call: (...args: A) => Promise<R>,
  approval?: {
    approve: ApprovalHook | undefined;
    summary: (...args: A) => string;
    pid?: (...args: A) => number | undefined;
    /** the hook of this one call, when it has its own (a durable run's: it replays a journaled decision) */
    approveFor?: (...args: A) => ApprovalHook | undefined;
  },
  meter?: TokenMeter<A, R>,
): (...args: A) => Promise<R> {
  const budget = capabilities.model?.tokens;
  return async (...args: A) => {
    if (budget !== undefined && meter) {
      const prompt = meter.prompt(...args);
      if (usage.modelTokens + prompt > budget) {
        throw new BudgetExhaustedError(
          `the model token budget of ${budget} cannot fit this call: its prompt is about ${prompt} tokens and ${Math.max(0, budget - usage.modelTokens)} are left; raise it with --max-model-tokens`,
        );
      }
    }
    const verdict = check(capabilities, { kind: 'model' }, usage);
    // with model calls granted, a refusal is the budget the run has spent: an outcome, not a refusal a resume may lift
    if (!verdict.ok) throw new EffectDenied(verdict.message, capabilities.model !== undefined);
    if (verdict.approve) {
      if (!approval) throw new EffectDenied('a model call needs approval, and this host cannot ask for it');
      const hook = approval.approveFor?.(...args) ?? approval.approve;
      await requireApproval(true, { effect: 'model', summary: approval.summary(...args), pid: approval.pid?.(...args) }, hook);
    }
    record(usage, { kind: 'model' }, 0);
    const result = await call(...args);
    if (meter) {
      const spent = tokensSpent(meter, budget !== undefined, result, ...args);
      usage.modelTokens += spent;
      if (budget !== undefined && usage.modelTokens > budget) {
        throw new BudgetExhaustedError(
          `this model call took the run past its model token budget: ${usage.modelTokens} of ${budget} tokens used (this call: ${spent}); raise it with --max-model-tokens`,
        );
      }
    }
    return result;
  };
}
