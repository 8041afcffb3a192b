// The host's check of an answer a typed form sent (extension host side, no `vscode`): the webview
// validates as a person types (schema-form.ts), but a webview is never trusted, so every answer —
// a what-if's edited value, a settled effect's result, a waiting run's answer — is parsed here
// within bounds and validated with the runtime's validator (Ajv and the `@check` predicates: the
// one that checks model replies) before anything is forked, settled or resumed. It is the check
// `ask` answers get everywhere (runtime/ask/answer.ts): one bound, one validator.
export { checkAskAnswerText as checkAnswer, MAX_ASK_ANSWER_BYTES as MAX_ANSWER_BYTES, type CheckedAskAnswer as Checked } from '../../runtime/index.js';
