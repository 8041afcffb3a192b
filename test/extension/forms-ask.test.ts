// `ask T` and approvals in the typed answer form (issue 43): the question views the answer webview
// shows (extension/forms/ask.ts, approval.ts), the host's reading of the webview's answer against
// them (never trusted), and the Runs view's "Answer…" action on a run that waits on a question.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JournalEntry, RunRecord, RunStore } from '../../runtime/index.js';
import { ASK_TOOL } from '../../runtime/index.js';
import { askQuestionView, askView } from '../../extension/forms/ask.js';
import { approvalDecision, approvalQuestionView } from '../../extension/forms/approval.js';
import { readAnswer } from '../../extension/forms/answer.js';
import { isQuestionView } from '../../extension/forms/protocol.js';
import { actionsOf, listRunItems } from '../../extension/runs/model.js';

const DECISION = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['approve', 'deny'] }, note: { type: 'string' } },
  required: ['verdict'],
  additionalProperties: false,
};
const answer = (choice: string, value?: unknown) => ({ type: 'answer' as const, v: 1 as const, choice, resume: false, ...(value === undefined ? {} : { value: JSON.stringify(value) }) });

test('an ask is the typed form of T: a wrong value is refused at its field, a forged choice too, a T is taken', () => {
  const view = askQuestionView(askView({ typeName: 'Decision', schema: DECISION, prompt: 'Approve the trade?\nIt is large.', pid: 1, location: { path: '/w/p.tn', line: 7, column: 9 }, attempt: 1 }));
  assert.ok(isQuestionView(view));
  assert.deepEqual(view.facts.slice(0, 3), ['Approve the trade?', 'It is large.', 'asked at p.tn:7; the answer must be of type Decision, and is journaled']);
  assert.deepEqual(view.schema, DECISION);
  const wrong = readAnswer(view, answer('answer', { verdict: 'maybe' }));
  assert.equal(wrong.ok, false);
  assert.ok(!wrong.ok && wrong.issues.some((i) => i.path === '/verdict'), JSON.stringify(wrong));
  const extra = readAnswer(view, answer('answer', { verdict: 'deny', admin: true }));
  assert.equal(extra.ok, false, 'a field T does not have is refused');
  assert.equal(readAnswer(view, answer('skip')).ok, false, 'a choice the question did not offer is refused');
  const ok = readAnswer(view, answer('answer', { verdict: 'deny', note: 'too large' }));
  assert.deepEqual(ok.ok ? ok.answer.value : ok, { verdict: 'deny', note: 'too large' });
  // a re-ask says why the last answer was refused
  const again = askQuestionView(askView({ typeName: 'Decision', schema: DECISION, prompt: 'x', pid: 1, location: { path: 'p.tn', line: 7, column: 1 }, attempt: 2, errors: [{ path: '/verdict', message: 'must be one of approve, deny' }] }));
  assert.ok(again.facts.some((f) => f.includes('refused') && f.includes('/verdict')));
});

test('an approval in the form: effect, request, the grant it needs; allow once or deny; closing denies', () => {
  const view = approvalQuestionView({ effect: 'network', summary: 'POST https://api.example/issues', pid: 3 });
  assert.ok(isQuestionView(view));
  assert.equal(view.request?.headline, 'POST https://api.example/issues');
  assert.deepEqual(view.request?.parts.map((p) => p.label), ['effect', 'grant it needs']);
  assert.deepEqual(view.choices.map((c) => c.label), ['Allow once', 'Deny']);
  const allow = readAnswer(view, answer('allow'));
  assert.equal(approvalDecision(allow.ok ? allow.answer : undefined), 'approve');
  const deny = readAnswer(view, answer('deny'));
  assert.equal(approvalDecision(deny.ok ? deny.answer : undefined), 'deny');
  assert.equal(readAnswer(view, answer('allow_always')).ok, false, 'no choice the form did not offer');
  assert.equal(approvalDecision(undefined), 'deny');
});

test('a run waiting on a question has "Answer…" in the Runs view; one waiting on nothing does not', () => {
  const bytes = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
  const run = (id: string): RunRecord => ({ id, entry: 'p.tn', status: 'waiting', meta: {}, createdAt: 1, updatedAt: 2 }) as unknown as RunRecord;
  const ask: JournalEntry = { runId: 'a', seq: 1, kind: 'tool', name: ASK_TOOL, pid: 1, inputHash: null, status: 'intent', idempotencyKey: 'a:e1', idempotent: true, request: bytes({ name: ASK_TOOL, args: ['Num', {}, 'n?'] }), payload: null, createdAt: 1, completedAt: null };
  const journals: Record<string, JournalEntry[]> = { a: [ask], b: [{ ...ask, runId: 'b', status: 'ok', payload: bytes(3) }] };
  const store = { listRuns: () => [run('a'), run('b')], readJournal: (id: string) => journals[id] } as unknown as RunStore;
  const [a, b] = listRunItems(store);
  assert.deepEqual(a.questions, [1]);
  assert.equal(actionsOf(a).answer, true);
  assert.equal(actionsOf(b).answer, false);
});
