// A stale recording's readable difference (runtime/testing/stale-diff.ts): the parts of the
// rendered request that changed, then the first differing lines, recorded against now, wrapped to
// a width with the character where they part; and the Test Explorer's message shows it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestLines } from '../../runtime/testing/cassette.js';
import { staleDiff } from '../../runtime/index.js';
import { shownMessage } from '../../extension/testing/results.js';

const schema = { type: 'object', properties: { priority: { enum: ['low', 'high'] }, urgent: { type: 'boolean' } }, required: ['priority', 'urgent'], additionalProperties: false };
/** The first paragraph, its wrapped lines joined. */
const head = (text: string) => text.split('\n\n')[0].replace(/\n/g, ' ');
const request = (prompt: string, s: unknown = schema) =>
  requestLines('Triage', 1, { system: ['You triage support tickets.'], context: ['Ticket: the app crashes on start'], prompt, feedback: [] }, s).join('\n');

test('a changed prompt: named, the differing lines shown recorded against now, from where they part', () => {
  const long = 'Classify the ticket below by priority and say whether it is urgent; answer in the format given; keep it short and plain.';
  const text = staleDiff(request(long), request(long.replace('keep it short', 'keep it very short')), { width: 60 });
  assert.equal(head(text), 'The request differs from the recording in its prompt (the same: system, context, schema).');
  assert.match(text, /^prompt:$/m);
  const recorded = text.split('\n').find((l) => l.startsWith('  recorded: '))!;
  assert.ok(recorded.startsWith('  recorded: …'), 'a long line is shown from a little before its difference');
  assert.match(text, /keep it very short/);
  assert.match(text, /\(they differ from character \d+\)/);
  for (const line of text.split('\n')) assert.ok(line.length <= 60, `wrapped at 60: ${line}`);
});

test('a changed schema: the schema lines that differ, not a wall of minified JSON', () => {
  const text = staleDiff(request('Classify.'), request('Classify.', { ...schema, properties: { ...schema.properties, urgent: { type: 'string' } } }));
  assert.equal(head(text), 'The request differs from the recording in its schema (the same: system, context, prompt).');
  assert.match(text, /recorded: +"type": "boolean"/);
  assert.match(text, /now: +"type": "string"/);
  assert.doesNotMatch(text, /additionalProperties/, 'only the lines that differ');
});

test('equal requests give no text; many differences are cut with a count', () => {
  assert.equal(staleDiff(request('a'), request('a')), '');
  const many = staleDiff(['x1', 'x2', 'x3', 'x4', 'x5', 'x6'].join('\n'), ['y1', 'y2', 'y3', 'y4', 'y5', 'y6'].join('\n'), { maxChanges: 2 });
  assert.match(many, /… and 4 more differing lines$/);
});

test('the Test Explorer shows the readable difference as the stale message, and both requests for the side-by-side view', () => {
  const recorded = request('Classify the ticket.');
  const now = request('Classify the ticket, please.');
  const shown = shownMessage({ name: 't', file: 'a_test.tn', line: 3, column: 1, status: 'stale', message: 'a_test.tn:3:1: stale recording: the program now sends a request the recording does not hold', output: [], durationMs: 1, requests: { recorded, now } } as never, '/w');
  assert.match(shown.text, /^a_test\.tn:3:1: stale recording: .*\n\nThe request differs from the recording in its prompt/);
  assert.match(shown.text, /now: +Classify the ticket, please\./);
  assert.deepEqual(shown.diff, { expected: recorded, actual: now });
});
