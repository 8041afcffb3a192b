// Approvals in a durable run (docs/authority.md, "Approval"): the durable layer gives each effect a
// `JournaledApprovals` that replays the decision its journal holds for the effect's n-th approval,
// or asks and journals the answer (who decided, what, when) before the effect goes on. A resume
// therefore never asks a person again about what they already decided.

/** What an approval asks about (never a secret). */
export interface ApprovalAsked {
  /** the capability category: network, files, model, env, run, ... */
  effect: string;
  summary: string;
  pid?: number;
}

/** A decision, and who made it (`--approve all`, the terminal, the editor, the host). */
export interface ApprovalAnswer {
  decision: 'approve' | 'deny';
  by: string;
}

/** The approvals of one effect: `ask` is called only when the journal holds no decision for this one. */
export type JournaledApprovals = (request: ApprovalAsked, ask: () => Promise<ApprovalAnswer>) => Promise<'approve' | 'deny'>;
