// The settle dialog's content (extension/runs/settle-form.ts) from a journal (extension/runs/
// model.ts's unknownSteps, with the runtime's blockingUnknowns): the request pretty-printed, when
// it was sent, the last journaled step before it, the idempotency key, and the result box
// prefilled with what the same effect returned earlier in the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JournalEntry } from '../../runtime/index.js';
import { unknownSteps } from '../../extension/runs/model.js';
import { pretty, resultExample, resultPrompt, settleDetail } from '../../extension/runs/settle-form.js';

const jsonBytes = (v: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(v));
const T0 = Date.UTC(2026, 11, 1, 9, 30, 0);
const entry = (seq: number, name: string, status: JournalEntry['status'], request: unknown, payload: unknown, at: number): JournalEntry => ({
  runId: 'r1', seq, kind: 'tool', name, pid: 1, inputHash: null, status, idempotencyKey: `r1:d${seq}`, idempotent: false,
  request: jsonBytes(request), payload: payload === undefined ? null : jsonBytes(payload), createdAt: at, completedAt: status === 'ok' ? at + 5 : null,
});

const journal = [
  entry(1, 'charge', 'ok', { name: 'charge', args: [{ amount: 10, currency: 'EUR' }] }, { id: 'ch_1', status: 'succeeded' }, T0),
  entry(2, 'time_now_ms', 'ok', { name: 'time_now_ms', args: [] }, 123, T0 + 100),
  entry(3, 'charge', 'intent', { name: 'charge', args: [{ amount: 25, currency: 'EUR' }] }, undefined, T0 + 200),
];

test('an unknown step carries what is known about it', () => {
  const [s] = unknownSteps('r1', journal);
  assert.equal(s.seq, 3);
  assert.equal(s.sentAt, T0 + 200);
  assert.equal(s.idempotencyKey, 'r1:d3');
  assert.deepEqual(s.lastJournaled, { seq: 2, kind: 'tool', name: 'time_now_ms', at: T0 + 105 });
  assert.equal(s.example, JSON.stringify({ id: 'ch_1', status: 'succeeded' }), 'the result the same effect gave before');
});

test('the dialog shows the request formatted and the facts one a line; the result box starts from the known shape', () => {
  const [s] = unknownSteps('r1', journal);
  const detail = settleDetail(s);
  assert.match(detail, /^Sent at: 2026-12-01 09:30:00 UTC$/m);
  assert.match(detail, /^Last journaled step: step 2, tool time_now_ms, at 2026-12-01 09:30:00 UTC$/m);
  assert.match(detail, /^Idempotency key: r1:d3$/m);
  assert.match(detail, /^Retry: not known to be safe/m);
  const request = JSON.stringify({ name: 'charge', args: [{ amount: 25, currency: 'EUR' }] }, null, 2).replace(/^ +/gm, (sp) => '\u00a0'.repeat(sp.length));
  assert.ok(detail.endsWith(`Request of tool charge:\n${request}`), detail);
  assert.match(detail, /\n\u00a0{6}"amount": 25,\n/, 'indented (no-break spaces: the dialog collapses spaces)');
  assert.doesNotMatch(detail, /\\"/, 'no double-escaped JSON');
  assert.equal(resultExample(s), '{"id":"ch_1","status":"succeeded"}');
  assert.match(resultPrompt(s), /prefilled with what charge returned earlier in this run/);
});

test('without an earlier result the box starts from a likely shape; a clipped request stays as it is', () => {
  const [s] = unknownSteps('r1', [entry(1, 'http_request', 'intent', { name: 'http_request', args: [null, 'POST', 'https://x'] }, undefined, T0)]);
  assert.equal(s.lastJournaled, null);
  assert.match(settleDetail(s), /^Last journaled step: none/m);
  assert.deepEqual(JSON.parse(resultExample(s)), { status: 200, headers: {}, body: '' });
  assert.match(resultPrompt(s), /the shape http_request returns/);
  assert.equal(pretty('{"a": 1, "b": … (12 more characters)'), '{"a": 1, "b": … (12 more characters)');
});
