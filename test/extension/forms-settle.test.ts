// The settle form (issue 43): an unknown outcome's question as the answer webview shows it
// (extension/runs/settle-form.ts: the request readably, the choices in order, the result's typed
// form), the host's reading of the webview's answer (extension/forms/answer.ts: never trusted),
// and the answer webview's protocol (extension/forms/protocol.ts).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JournalEntry } from '../../runtime/index.js';
import { unknownSteps } from '../../extension/runs/model.js';
import { readableRequest, settlementOf, settleQuestion } from '../../extension/runs/settle-form.js';
import { readAnswer } from '../../extension/forms/answer.js';
import { elicitationAnswer, elicitationQuestion } from '../../extension/forms/elicitation.js';
import { isAnswerHostMessage, isAnswerWebviewMessage, isQuestionView } from '../../extension/forms/protocol.js';

const bytes = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
const T0 = Date.UTC(2026, 11, 1, 9, 30, 0);
const entry = (seq: number, name: string, status: JournalEntry['status'], request: unknown, payload?: unknown): JournalEntry => ({
  runId: 'r1', seq, kind: 'tool', name, pid: 1, inputHash: null, status, idempotencyKey: `r1:e${seq}`, idempotent: false,
  request: bytes(request), payload: payload === undefined ? null : bytes(payload), createdAt: T0 + seq, completedAt: status === 'ok' ? T0 + seq + 1 : null,
});
const unknownOf = (name: string, args: unknown[], before: JournalEntry[] = []) => unknownSteps('r1', [...before, entry(before.length + 1, name, 'intent', { name, args, grant: { network: 'x' } })])[0];

describe('the request, readably', () => {
  test('an HTTP request is its method and URL, its headers, query and body pretty; not the envelope', () => {
    const s = unknownOf('http_request', [null, 'post', 'https://pay.example/charges', { headers: { 'content-type': 'application/json' }, query: { dry: 'no' }, body: '{"amount":25,"currency":"EUR"}' }]);
    const r = readableRequest(s);
    assert.equal(r.headline, 'POST https://pay.example/charges');
    assert.deepEqual(r.parts.map((p) => p.label), ['Headers', 'Query', 'Body']);
    assert.equal(r.parts[0].text, 'content-type: application/json');
    assert.equal(r.parts[2].text, '{\n  "amount": 25,\n  "currency": "EUR"\n}', 'a JSON body in a string is pretty, not escaped');
    assert.ok(r.parts.every((p) => !p.text.includes('"args"') && !p.text.includes('grant')), 'the envelope is not shown');
  });

  test("Turn v1's http_get/http_post, another tool's arguments, a clipped request", () => {
    assert.equal(readableRequest(unknownOf('http_get', ['https://x.example/a'])).headline, 'GET https://x.example/a');
    const post = readableRequest(unknownOf('http_post', [{ url: 'https://x.example/b', body: { k: 1 } }]));
    assert.equal(post.headline, 'POST https://x.example/b');
    assert.deepEqual(post.parts, [{ label: 'Body', text: '{\n  "k": 1\n}' }]);
    const charge = readableRequest(unknownOf('charge', [{ amount: 25 }, 'EUR']));
    assert.equal(charge.headline, 'charge(…)');
    assert.deepEqual(charge.parts, [{ label: 'Argument 1', text: '{\n  "amount": 25\n}' }, { label: 'Argument 2', text: 'EUR' }]);
    const clipped = readableRequest({ ...unknownOf('charge', []), request: '{"name":"charge","args":[{"a":"xxx…' });
    assert.deepEqual(clipped, { headline: 'charge', parts: [{ label: 'Request (clipped)', text: '{"name":"charge","args":[{"a":"xxx…' }] });
  });
});

describe('the settle question', () => {
  test('choices in order: it happened (the typed result), it did not happen (a message), run it again; the result typed by its tool', () => {
    const q = settleQuestion(unknownOf('math_random', []), true);
    assert.deepEqual(q.choices.map((c) => [c.id, c.label, c.takes]), [
      ['result', 'It happened: enter its result', 'value'], ['error', 'It did not happen', 'message'], ['retry', 'Run it again', 'nothing'],
    ]);
    assert.deepEqual(q.schema, { type: 'number' });
    assert.match(q.choices[2].detail, /not known to be safe/);
    assert.ok(isQuestionView(q));
    assert.match(q.facts.join('\n'), /^Sent at: 2026-12-01 09:30:00 UTC$/m);
  });

  test('the result starts from what the same effect returned before; an untyped tool takes any JSON', () => {
    const earlier = entry(1, 'charge', 'ok', { name: 'charge', args: [] }, { id: 'ch_1' });
    const q = settleQuestion(unknownOf('charge', [], [earlier]), false);
    assert.deepEqual(q.value, { id: 'ch_1' });
    assert.equal(q.schema, null);
    assert.equal(q.resumable, false);
  });

  test('each answer is its settlement', () => {
    assert.deepEqual(settlementOf({ choice: 'result', resume: true, value: { id: 'ch_2' } }), { ok: { id: 'ch_2' } });
    assert.deepEqual(settlementOf({ choice: 'error', resume: false, message: 'declined' }), { error: 'declined' });
    assert.deepEqual(settlementOf({ choice: 'retry', resume: true }), { retry: true });
  });
});

describe("the host's reading of the webview's answer", () => {
  const q = settleQuestion(unknownOf('math_random', []), true);
  test('a well-typed result is taken, with settle and resume as one answer', () => {
    assert.deepEqual(readAnswer(q, { type: 'answer', v: 1, choice: 'result', value: '0.5', resume: true }), { ok: true, answer: { choice: 'result', resume: true, value: 0.5 } });
    assert.deepEqual(readAnswer(q, { type: 'answer', v: 1, choice: 'error', message: '  declined ', resume: false }), { ok: true, answer: { choice: 'error', resume: false, message: 'declined' } });
  });

  test('an ill-typed result, an empty message, a choice not offered, and a resume not offered are refused or dropped', () => {
    const bad = readAnswer(q, { type: 'answer', v: 1, choice: 'result', value: '"half"', resume: true });
    assert.equal(bad.ok, false);
    assert.match((bad as { message: string }).message, /the result is refused: \/: /);
    assert.equal(readAnswer(q, { type: 'answer', v: 1, choice: 'result', resume: true }).ok, false, 'no value');
    assert.equal(readAnswer(q, { type: 'answer', v: 1, choice: 'error', message: '   ', resume: true }).ok, false);
    assert.equal(readAnswer(q, { type: 'answer', v: 1, choice: 'error', message: 'x'.repeat(2001), resume: true }).ok, false);
    assert.match((readAnswer(q, { type: 'answer', v: 1, choice: 'delete-everything', resume: true }) as { message: string }).message, /not one of the choices/);
    const settleOnly = { ...q, resumable: false };
    assert.deepEqual(readAnswer(settleOnly, { type: 'answer', v: 1, choice: 'retry', resume: true }), { ok: true, answer: { choice: 'retry', resume: false } });
  });

  test('the protocol: each side checks what it receives', () => {
    assert.ok(isAnswerWebviewMessage({ type: 'answer', v: 1, choice: 'result', value: '1', resume: false }));
    assert.equal(isAnswerWebviewMessage({ type: 'answer', v: 1, choice: 'result', value: 1, resume: false }), false);
    assert.equal(isAnswerWebviewMessage({ type: 'answer', v: 2, choice: 'result', resume: false }), false);
    assert.equal(isAnswerWebviewMessage({ type: 'answer', v: 1, choice: 'result' }), false);
    assert.ok(isAnswerHostMessage({ type: 'refused', v: 1, message: 'no', issues: [{ path: '/a', message: 'is required' }] }));
    assert.equal(isAnswerHostMessage({ type: 'refused', v: 1, message: 'no', issues: [{ path: 1 }] }), false);
    assert.equal(isAnswerHostMessage({ type: 'question', v: 1, question: { ...q, choices: [] } }), false);
  });
});

describe("an MCP server's question (elicitation) in the form", () => {
  const q = { key: 'q-0123456789ab', server: 'shop', mode: 'form' as const, message: 'Which size?', requestedSchema: { type: 'object', properties: { size: { type: 'string', enum: ['S', 'M'] }, count: { type: 'integer', minimum: 1 } }, required: ['size'] } };

  test("the question is the server's message and the form of its requested schema: Answer or Decline", () => {
    const view = elicitationQuestion(q)!;
    assert.ok(isQuestionView(view));
    assert.deepEqual(view.choices.map((c) => [c.id, c.takes]), [['accept', 'value'], ['decline', 'nothing']]);
    assert.equal(view.schema, q.requestedSchema);
    assert.match(view.facts.join('\n'), /Which size\?[\s\S]*--answer q-0123456789ab=/);
    assert.equal(elicitationQuestion({ ...q, mode: 'url', url: 'https://x.example' }), null, 'a URL question goes to the next answerer');
  });

  test('an answer is checked against the schema on the host, and only flat values go back', () => {
    const view = elicitationQuestion(q)!;
    assert.equal(readAnswer(view, { type: 'answer', v: 1, choice: 'accept', value: '{"size": "XL"}', resume: false }).ok, false);
    assert.equal(readAnswer(view, { type: 'answer', v: 1, choice: 'accept', value: '{"size": "S", "count": 0}', resume: false }).ok, false);
    const read = readAnswer(view, { type: 'answer', v: 1, choice: 'accept', value: '{"size": "S", "count": 2}', resume: false });
    assert.ok(read.ok);
    assert.deepEqual(elicitationAnswer(read.answer), { action: 'accept', content: { size: 'S', count: 2 } });
    assert.deepEqual(elicitationAnswer({ choice: 'accept', resume: false, value: { a: 'x', nested: { b: 1 }, list: ['p'], mixed: [1] } }), { action: 'accept', content: { a: 'x', list: ['p'] } });
    assert.deepEqual(elicitationAnswer({ choice: 'decline', resume: false }), { action: 'decline' });
  });
});
