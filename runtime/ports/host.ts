// The host port: everything a running program reaches outside the VM goes through one `Host`
// (printing, model exchanges, effect tools, the event stream). The VM depends on this interface
// only; runtime/run builds the one implementation (model, budget, vault, capabilities, approvals,
// redaction, trace) and wraps it for durable runs and the debugger.
import type { RunEvent } from '../events/index.js';
import type { InferIO, InferReply, InferRequest } from '../infer/types.js';
import type { JournaledApprovals } from './approval.js';

/** What the host receives for an effect tool: plain JSON-like arguments; an identity as the IdentityHandle the host minted for it (runtime/effects/identity.ts). */
export interface ToolRequest {
  name: string;
  args: unknown[];
  pid: number;
  /** a durable run's journal key of this effect (`turn:<run>:e<n>`): the same on every retry */
  idempotencyKey?: string;
  /** a durable run's approvals of this effect (ports/approval.ts): journaled, replayed on resume */
  approvals?: JournaledApprovals;
}

/**
 * The capability that allows one effect, as its journal entry records it (issue 26, point 6):
 * the category, the part of the grant that matched (a host pattern, a file root, a variable
 * pattern, a command, a model budget), where that grant came from (a CLI flag, an editor setting,
 * the host), and the identity the program granted, when the effect uses one. Never a secret.
 */
export interface EffectGrant {
  capability: string;
  scope: string;
  from: string;
  /** `identity::bearer("github")`, granted by the program's `grant` */
  identity?: string;
}

export interface Host {
  /** `call("echo", x)`: print x as one line (already rendered to a string by the VM). */
  output(line: string): void;
  /**
   * Writes out at once the lines `output` buffered (a durable run calls it after each line, before
   * it records the line as shown in its journal: issue 26). A host that does not buffer has none.
   */
  flushOutput?(): void;
  /**
   * One model exchange for an `infer` (the VM yields the process meanwhile). The reply is the
   * model's raw text (usually) or an already-parsed value; the VM repairs, validates and re-asks
   * (runtime/infer/driver.ts). See docs/inference.md.
   */
  infer(request: InferRequest, io?: InferIO): Promise<InferReply>;
  /**
   * Whether the run's model offers an optional capability: `tools` — it sends an infer's tools
   * through its API's own tool calls (the provider's `nativeTools`). `call("model_supports", f)`.
   */
  modelSupports?(feature: string): boolean;
  /** Receives every event of the run's event stream as it happens (the trace). */
  event?(event: RunEvent): void;
  /**
   * A standard-library effect tool (`fs_read`, `http_request`, `env_get`, `time_now_ms`, ...),
   * performed by the host with the run's capabilities and vault. Rejects with an Error whose
   * message the program sees; a host without it refuses every effect tool.
   */
  tool?(request: ToolRequest): Promise<unknown>;
  /**
   * The grant that allows this effect under the run's capabilities, asked before it runs so its
   * journal entry records it (undefined: none allows it, and the effect will be refused).
   */
  grantOf?(effect: { kind: 'tool'; request: ToolRequest } | { kind: 'infer' }): EffectGrant | undefined;
}
