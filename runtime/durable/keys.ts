// The journal's key scheme, in one place. Every journal entry carries a *logical key* as its
// idempotency key, `turn:<run>:<key>`, where <key> names the step by what the program did, not by
// when its write landed:
//   e<n>.<k>  attempt k of the n-th effect (an `infer`; each model exchange is one entry)
//   e<n>      the n-th effect, a host tool (files, HTTP, env, clock and random tools)
//   c<n>      the n-th `call("now")` reading
//   t<n>      the n-th timer check of the scheduler that woke a sleeper (or decided a wait)
//   w<n>      the n-th scheduler wait where several effects were pending: which finished first
//   s<n>      the n-th `suspend;`
//   o<n>      the n-th output line (`call("echo", ...)`): intent = to print, ok = shown
//   d<seq>    a decision about the unknown step <seq> (`turn resolve ... --retry | --ok | --error`)
//   m<n>      a migration to another bytecode (`turn resume --migrate`)
//   r<seq>    the host refused step <seq> before sending it (a secret not set, a grant, an approval):
//             the step stays unrun and runs again on resume
//   a<step>.<j>  the j-th approval asked for step <step> (`ae3.1`: effect e3's first; `ae5.2.1`: an
//             infer attempt's): the question as an intent, the decision (who, what, when) as its outcome
//   g<n>      the n-th agent started, with the capabilities it was granted (a migration may not widen them)
// Effects are numbered when they start, which the scheduler does in a deterministic order, so the
// keys are stable across replays even when two effects' writes interleave differently.

/** The idempotency key of logical step `logical` of run `runId`. */
export function journalKey(runId: string, logical: string): string {
  return `turn:${runId}:${logical}`;
}

/** The logical step of an idempotency key of run `runId`, or null when it is not one of its keys. */
export function logicalKey(runId: string, idempotencyKey: string | null): string | null {
  const prefix = `turn:${runId}:`;
  return idempotencyKey !== null && idempotencyKey.startsWith(prefix) ? idempotencyKey.slice(prefix.length) : null;
}

/** The key of a decision (retry, result or error) about the unknown step `seq`. */
export const decisionKey = (runId: string, seq: number): string => journalKey(runId, `d${seq}`);

/** The key of the refusal (before sending) of step `seq`: the step runs again on resume. */
export const refusalKey = (runId: string, seq: number): string => journalKey(runId, `r${seq}`);

/** The key of the run's n-th migration to other bytecode. */
export const migrationKey = (runId: string, n: number): string => journalKey(runId, `m${n}`);

/** Logical keys a replay consumes (effects, clocks, timers, suspends, which effect came first, output lines); decisions and migrations are not replayed. */
export const REPLAYED_KEY = /^[ectswo]/;

/** The key of the n-th agent's grants (checked on replay, not consumed as a step: runtime/durable/index.ts). */
export const GRANT_KEY = /^g\d+$/;

/** The logical key of the j-th approval asked for journal step `step` (`e3`, `e5.1`). */
export const approvalStep = (step: string, j: number): string => `a${step}.${j}`;

/** The logical part of an idempotency key, whatever its run (`turn:<run>:<key>`). */
function logicalPart(idempotencyKey: string | null): string | null {
  if (idempotencyKey === null || !idempotencyKey.startsWith('turn:')) return null;
  return idempotencyKey.slice(idempotencyKey.lastIndexOf(':') + 1);
}

/**
 * The effects (by seq) that stopped at their first approval: it was asked (journaled as an intent)
 * but never decided — the run was interrupted at the prompt, or the process died there. An effect
 * asks its first approval before it does anything (capability check, approval, then the effect:
 * docs/authority.md), so nothing of it was performed, and a resume may run it again.
 */
export function stoppedAtApproval(entries: readonly { seq: number; status: string; idempotencyKey: string | null }[]): Set<number> {
  const undecided = new Set<string>();
  for (const e of entries) {
    const key = logicalPart(e.idempotencyKey);
    if (key !== null && key.startsWith('a') && key.endsWith('.1') && e.status !== 'ok') undecided.add(key.slice(1, -2));
  }
  const out = new Set<number>();
  if (undecided.size === 0) return out;
  for (const e of entries) {
    const key = logicalPart(e.idempotencyKey);
    if (key !== null && undecided.has(key)) out.add(e.seq);
  }
  return out;
}
