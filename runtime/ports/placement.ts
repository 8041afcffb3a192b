// The placement port (docs/scale-out.md, "Processes spread over workers"). The VM holds an optional
// `placement: ChildPlacement`; when it is undefined (every run but a Restate run that asked for
// it) every child runs in the VM that spawned it. When set, a spawned child whose closure the port
// accepts becomes a local *proxy* process that waits on one effect tool (`REMOTE_CHILD_TOOL`):
// the child runs elsewhere, and the effect's value is its outcome. The proxy keeps the child's pid,
// so `gather`, `wait`, scopes, links, monitors and cancellation treat it as any other process.
import type { ClosureVal, Value } from '../values/index.js';
import type { ToolRequest } from './host.js';

/** The effect tool a placed child's proxy waits on (idempotent: re-asked with the same key after a crash). */
export const REMOTE_CHILD_TOOL = '__remote_child';

export interface ChildPlacement {
  /** The effect that runs `closure(args)` elsewhere (name `REMOTE_CHILD_TOOL`), or null: run it here. */
  place(closure: ClosureVal, args: Value[], pid: number): Omit<ToolRequest, 'pid'> | null;
  /** The child's outcome from the effect's value: its result, or the value it failed with, and the lines it printed. */
  settle(value: unknown): ({ ok: true; value: Value } | { ok: false; error: Value }) & { output: string[] };
}
