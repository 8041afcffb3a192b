// The journal in plain words (extension/panel/webview/journal-words.ts): the phrases the journal
// view, the what-if sides and the scrubber show in place of the implementation's kinds and names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { grantWords, stepWords, valueWords } from '../../extension/panel/webview/journal-words.js';

test('journal kinds and host tools read as phrases; an unknown kind keeps its kind and name', () => {
  const said = (kind: string, name: string) => stepWords({ kind, name });
  assert.equal(said('infer', 'Triage'), 'model reply (Triage)');
  assert.equal(said('tool', 'http_request'), 'HTTP request');
  assert.equal(said('tool', 'fs_append'), 'appended to a file');
  assert.equal(said('tool', '__suspend'), 'suspended, waiting for a resume');
  assert.equal(said('tool', 'kb_put'), 'effect kb_put', 'a tool without a phrase is an effect by its name');
  assert.equal(said('schedule', 'effect-first'), 'which ready effect went first');
  assert.equal(said('decision', 'retry'), 'a person said: run it again');
  assert.equal(said('migrate', 'bytecode'), 'moved to the current code');
  assert.equal(said('output', 'echo'), 'printed a line');
  assert.equal(said('spawn', 'judge'), 'started a process (judge)');
  assert.equal(said('spawn', ''), 'started a process', 'an anonymous closure');
  assert.equal(said('name', 'gather'), 'a process named itself gather');
  assert.equal(said('brand-new', 'thing'), 'brand-new thing');
  assert.equal(said('constructor', 'x'), 'constructor x', 'an inherited property name is no phrase');
});

test('effect-first\'s {"index":0} is "the 1st ready effect"; other values stay as they are', () => {
  const v = (value: string) => valueWords({ kind: 'schedule', name: 'effect-first', value });
  assert.deepEqual([v('{"index":0}'), v('{"index":1}'), v('{"index":2}'), v('{"index":10}'), v('{"index":21}')], ['the 1st ready effect', 'the 2nd ready effect', 'the 3rd ready effect', 'the 11th ready effect', 'the 22nd ready effect']);
  assert.equal(v('{"index":-1}'), '{"index":-1}');
  assert.equal(v('{"index":'), '{"index":', 'not JSON: as it is');
  assert.equal(valueWords({ kind: 'infer', name: 'T', value: '{"index":0}' }), '{"index":0}');
});

test('a grant says what allowed the step: "model no budget (every run)" is "model calls: no budget, allowed in every run"', () => {
  assert.equal(grantWords('model no budget (every run)'), 'model calls: no budget, allowed in every run');
  assert.equal(grantWords('network api.x.com (turn.run.allowNet) with identity::bearer("gh")'), 'network: api.x.com, granted by turn.run.allowNet, as identity::bearer("gh")');
  assert.equal(grantWords('write /w/out (a) (b) (--allow-write, narrowed by the call)'), 'file writes: /w/out (a) (b), granted by --allow-write, narrowed by the call');
  assert.equal(grantWords('odd'), 'odd');
  assert.equal(grantWords('model no parenthesis'), 'model no parenthesis', 'a shape it does not know is shown as it is');
  const long = `network ${'x'.repeat(100_000)} (y)`;
  assert.ok(grantWords(long).length <= 1000, 'bounded');
});
