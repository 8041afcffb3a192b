// Every reply shape Turn v1's host accepts from a driver's transform_response (issue 25): `result`
// (text or JSON), and the legacy OpenAI-shaped `choices[0].message.content` with its `usage`, which
// Turn v1's Ollama, Anthropic and Grok drivers return. Before, the legacy shape failed with
// `transform_response returned neither "result", "error" nor a tool call`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { driverReply } from '../../runtime/providers/wasm.js';
import { interpret } from '../../runtime/infer/driver.js';

const SCHEMA = { type: 'object', title: 'Tag', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false };

test('result as text, and as a JSON value', () => {
  assert.deepEqual(driverReply({ jsonrpc: '2.0', id: 1, result: '{"name": "a"}' }), { text: '{"name": "a"}', meta: {} });
  assert.deepEqual(driverReply({ result: { name: 'a' } }), { text: '{"name":"a"}', meta: {} });
});

test('the legacy OpenAI-shaped reply: content, finish reason and usage (either naming)', () => {
  const r = driverReply({ choices: [{ message: { role: 'assistant', content: '{"value": {"name": "b"}, "confidence": 0.7}' }, finish_reason: 'stop' }], usage: { prompt_tokens: 12, completion_tokens: 5 } }, { driver: 'ollama.wasm' });
  assert.equal(r.text, '{"value": {"name": "b"}, "confidence": 0.7}');
  assert.equal(r.finishReason, 'stop');
  assert.deepEqual(r.usage, { inputTokens: 12, outputTokens: 5 });
  assert.deepEqual(r.meta, { driver: 'ollama.wasm' });
  const i = interpret(SCHEMA, r);
  assert.deepEqual(i.value, { name: 'b' });
  assert.equal(i.confidence?.value, 0.7);
  // Anthropic's driver: input/output tokens, and a max_tokens stop is a cut-off
  const a = driverReply({ choices: [{ message: { content: '{"name": "c"}' }, finish_reason: 'max_tokens' }], usage: { input_tokens: 3, output_tokens: 4 } });
  assert.equal(a.finishReason, 'length');
  assert.deepEqual(a.usage, { inputTokens: 3, outputTokens: 4 });
  // Turn v1's Ollama, Anthropic and Grok drivers report only {"total_tokens": N}, the one count
  // Turn v1's host reads
  assert.deepEqual(driverReply({ choices: [{ message: { content: 'x' } }], usage: { total_tokens: 17 } }).usage, { totalTokens: 17 });
  // no usage at all is fine
  assert.equal(driverReply({ choices: [{ message: { content: 'x' } }] }).usage, undefined);
  assert.equal(driverReply({ choices: [{ message: { content: 'x' } }], usage: { total_tokens: -1 } }).usage, undefined);
});

test('malformed replies are refused with a message that names the shapes', () => {
  assert.throws(() => driverReply({ choices: [{}] }), /"choices" without choices\[0\]\.message\.content/);
  assert.throws(() => driverReply({ foo: 1 }), /neither "result", "error", "choices" \(the legacy reply\) nor a tool call/);
});

// Turn v1's eight drivers themselves, built from their crates, run in v1-drivers.test.ts.
