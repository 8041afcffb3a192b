// The host side of the VM's effect tools: performs `fs_read`, `http_request`, `env_get`, ... with
// the run's capabilities and vault (see runtime/effects/tools.ts), and gates model calls by the
// model budget. Shared by the CLI and the editor, which differ only in the vault and approval hook.
import { check, record, requireApproval, type ApprovalHook, type Capabilities, type Usage } from './capabilities.js';
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

/**
 * Wraps a model call so it spends the `model` capability's call budget (refused past it) and, when
 * the run needs approval for model calls (`--approve-effects model`), asks `approve` first: a
 * refusal stops the call before any request leaves. Every run's host is built with this (the CLI,
 * the panel, the debugger, the Restate worker: runtime/run/host.ts).
 */
export function budgetedModel<A extends unknown[], R>(
  capabilities: Capabilities,
  usage: Usage,
  call: (...args: A) => Promise<R>,
  approval?: { approve: ApprovalHook | undefined; summary: (...args: A) => string; pid?: (...args: A) => number | undefined },
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const verdict = check(capabilities, { kind: 'model' }, usage);
    // with model calls granted, a refusal is the budget the run has spent: an outcome, not a refusal a resume may lift
    if (!verdict.ok) throw new EffectDenied(verdict.message, capabilities.model !== undefined);
    if (verdict.approve) {
      if (!approval) throw new EffectDenied('a model call needs approval, and this host cannot ask for it');
      await requireApproval(true, { effect: 'model', summary: approval.summary(...args), pid: approval.pid?.(...args) }, approval.approve);
    }
    record(usage, { kind: 'model' });
    return call(...args);
  };
}
