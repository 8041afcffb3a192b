// The host side of the VM's effect tools: performs `fs_read`, `http_request`, `env_get`, ... with
// the run's capabilities and vault (see runtime/effects/tools.ts), and gates model calls by the
// model budget. Shared by the CLI and the editor, which differ only in the vault and approval hook.
import { check, record, type Capabilities, type Usage } from './capabilities.js';
import { STD_TOOLS, ToolError, type EffectToolContext } from './tools.js';
import { EffectDenied } from './capabilities.js';
import type { ToolRequest } from '../ports/host.js';

/** Performs one effect tool; every value it returns has resolved secrets redacted. */
export function performTool(ctx: EffectToolContext, request: ToolRequest): Promise<unknown> {
  const tool = STD_TOOLS[request.name];
  if (!tool || !tool.effect) return Promise.reject(new ToolError(`unknown effect tool ${request.name}`));
  return Promise.resolve()
    .then(() => (tool.run)(ctx, ...request.args))
    .then((value) => (ctx.redactor ? ctx.redactor.redactDeep(value) : value));
}

/** Wraps a model call so it spends the `model` capability's call budget (refused past it). */
export function budgetedModel<A extends unknown[], R>(
  capabilities: Capabilities,
  usage: Usage,
  call: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const verdict = check(capabilities, { kind: 'model' }, usage);
    if (!verdict.ok) throw new EffectDenied(verdict.message);
    record(usage, { kind: 'model' });
    return call(...args);
  };
}
