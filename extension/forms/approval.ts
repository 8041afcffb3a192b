// An approval (docs/authority.md, "Approval") as the answer webview asks it (issue 43; no `vscode`,
// tested in plain Node): the effect, its request summary, the grant that makes it need a person,
// and the choices — allow once, or deny. Closing the panel denies. The decision is journaled as
// before (runtime/ports/approval.ts): who decided is "the editor".
import type { ApprovalRequest } from '../../runtime/index.js';
import type { Answer } from './answer.js';
import type { QuestionView } from './protocol.js';

export function approvalQuestionView(request: Pick<ApprovalRequest, 'effect' | 'summary' | 'pid'>): QuestionView {
  return {
    title: `Allow a ${request.effect} effect?`,
    facts: [`The run asks to perform a ${request.effect} effect${request.pid ? ` (process #${request.pid})` : ''}. Nothing is sent until you allow it.`],
    request: {
      headline: request.summary,
      parts: [
        { label: 'effect', text: request.effect },
        { label: 'grant it needs', text: `a person's approval: \`${request.effect}\` is among the effects to approve (the turn.run.approveEffects setting, or --approve-effects)` },
      ],
    },
    choices: [
      { id: 'allow', label: 'Allow once', detail: 'perform this one effect; the next asks again', takes: 'nothing' },
      { id: 'deny', label: 'Deny', detail: 'refuse it: the program sees an EffectError (a durable run waits, and its resume asks again)', takes: 'nothing' },
    ],
    schema: null,
    resumable: false,
    action: 'Decide',
  };
}

/** The decision an answer makes; no answer (the panel closed) denies. */
export function approvalDecision(a: Answer | undefined): 'approve' | 'deny' {
  return a?.choice === 'allow' ? 'approve' : 'deny';
}
