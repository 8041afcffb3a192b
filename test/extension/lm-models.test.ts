// VS Code's own language models as Turn models (`vscode:VENDOR/FAMILY`, extension/lm/models.ts),
// driven through the run API against a fake `vscode.lm`: the request carries the schema in the
// prompt (the API has no structured output), a bad reply is re-asked with its errors, the reply
// streams as infer.delta events, tokens come from countTokens, the run's Stop cancels the request's
// CancellationToken, the reply is bounded in size and time, and a recording made on such a model
// replays where there is no VS Code (`turn test`). The CLI refuses the spec.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createModel, runTestFile, RunSetupError, startRun, UnknownModelError, type RunEvent } from '../../runtime/index.js';
import { parseVscodeSpec, vscodeHostModels, type LmApi, type LmChatModel } from '../../extension/lm/models.js';

interface Sent {
  model: string;
  messages: { role: string; text: string }[];
  justification?: string;
}

interface FakeToken {
  isCancellationRequested: boolean;
  listeners: (() => void)[];
}

/** A fake `vscode.lm`: models that answer with `replies` (each a list of streamed pieces), or hang until cancelled. */
function fakeLm(o: { models?: { vendor: string; family: string }[]; replies?: string[][]; hang?: boolean; silentAfter?: string; fail?: Error } = {}) {
  const sent: Sent[] = [];
  let arrived!: () => void;
  /** resolves when the first request reaches a model */
  const firstRequest = new Promise<void>((r) => (arrived = r));
  const cancelled: string[] = [];
  const counted: string[] = [];
  const replies = [...(o.replies ?? [])];
  const make = (vendor: string, family: string): LmChatModel => ({
    id: `${vendor}-${family}-id`,
    name: `${family} by ${vendor}`,
    vendor,
    family,
    async sendRequest(messages, options, token) {
      if (o.fail) throw o.fail;
      sent.push({ model: `${vendor}/${family}`, messages: messages as Sent['messages'], ...(options.justification ? { justification: options.justification } : {}) });
      arrived();
      const t = token as FakeToken;
      const cancelledNow = new Promise<void>((r) => t.listeners.push(r));
      const pieces = replies.shift() ?? [];
      return {
        text: (async function* () {
          if (o.hang) {
            await cancelledNow;
            cancelled.push(`${vendor}/${family}`);
            return;
          }
          for (const p of pieces) yield p;
          if (o.silentAfter !== undefined) {
            yield o.silentAfter;
            await cancelledNow; // never another piece
            cancelled.push(`${vendor}/${family}`);
          }
        })(),
      };
    },
    async countTokens(text) {
      counted.push(text);
      return Math.ceil(text.length / 4);
    },
  });
  const models = (o.models ?? [{ vendor: 'fake', family: 'small' }]).map((m) => make(m.vendor, m.family));
  const api: LmApi = {
    async selectChatModels(selector) {
      return models.filter((m) => (!selector?.vendor || m.vendor === selector.vendor) && (!selector?.family || m.family === selector.family));
    },
    userMessage: (text) => ({ role: 'user', text }),
    assistantMessage: (text) => ({ role: 'assistant', text }),
    cancellation() {
      const token: FakeToken = { isCancellationRequested: false, listeners: [] };
      return {
        token,
        cancel() {
          if (token.isCancellationRequested) return;
          token.isCancellationRequested = true;
          for (const l of token.listeners) l();
        },
        dispose() {},
      };
    },
  };
  return { api, sent, cancelled, counted, firstRequest };
}

function program(text: string): { dir: string; file: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-vscode-lm-'));
  const file = path.join(dir, 'p.tn');
  fs.writeFileSync(file, text);
  return { dir, file };
}

const MOOD = `struct Mood { label: Str, score: Num };
context.system("You rate moods.");
let m = infer Mood { "How is it going?"; };
call("echo", m.label);
return m.score;
`;

test('a vscode: model answers infer through vscode.lm: schema in the prompt, streamed deltas, tokens from countTokens', async () => {
  const lm = fakeLm({ replies: [['{"value": {"label": "gl', 'ad", "score": 7}', ', "confidence": 0.8}']] });
  const { dir, file } = program(MOOD);
  const out: string[] = [];
  const events: RunEvent[] = [];
  const run = await startRun({ file, cwd: dir, model: 'vscode:fake/small', hostModels: vscodeHostModels(lm.api), onOutput: (l) => out.push(l), onEvent: (e) => events.push(e) });
  const r = await run.start();
  assert.equal(r.kind, 'done', JSON.stringify(r));
  assert.equal(r.kind === 'done' ? r.json : null, 7);
  assert.deepEqual(out, ['glad']);
  // one request: the system text opens the only user turn (the API has no system role), the schema ends it
  assert.equal(lm.sent.length, 1);
  const [msg] = lm.sent[0].messages;
  assert.equal(lm.sent[0].messages.length, 1);
  assert.equal(msg.role, 'user');
  assert.match(msg.text, /^You rate moods\./);
  assert.match(msg.text, /How is it going\?/);
  assert.match(msg.text, /"value":\{"title":"Mood","type":"object","properties":\{"label":\{"type":"string"\},"score":\{"type":"number"\}/);
  assert.ok(lm.sent[0].justification, 'a justification for the consent prompt');
  // streamed: one delta per piece, in order
  const deltas = events.filter((e) => e.kind === 'infer.delta');
  assert.deepEqual(deltas.map((e) => (e as { delta: string }).delta), ['{"value": {"label": "gl', 'ad", "score": 7}', ', "confidence": 0.8}']);
  // tokens: the model's own count of what was sent and of the reply
  const tokens = run.tokens().find((t) => t.model === 'vscode:fake/small');
  assert.ok(tokens, JSON.stringify(run.tokens()));
  assert.equal(tokens.inputTokens, Math.ceil(msg.text.length / 4));
  assert.equal(tokens.outputTokens, Math.ceil('{"value": {"label": "glad", "score": 7}, "confidence": 0.8}'.length / 4));
  assert.ok(lm.counted.includes(msg.text));
});

test('an invalid reply is re-asked with its errors, as for any provider without strict mode', async () => {
  const lm = fakeLm({ replies: [['{"value": {"label": "glad"}, "confidence": 0.8}'], ['{"value": {"label": "glad", "score": 3}, "confidence": 0.6}']] });
  const { dir, file } = program(MOOD);
  const run = await startRun({ file, cwd: dir, model: 'vscode:fake', hostModels: vscodeHostModels(lm.api), onOutput: () => {} });
  const r = await run.start();
  assert.equal(r.kind === 'done' ? r.json : r.kind, 3);
  assert.equal(lm.sent.length, 2);
  const again = lm.sent[1].messages;
  assert.deepEqual(again.map((m) => m.role), ['user', 'assistant', 'user']);
  assert.equal(again[1].text, '{"value": {"label": "glad"}, "confidence": 0.8}');
  assert.match(again[2].text, /rejected[\s\S]*score/);
});

test('`vscode:` takes the first model VS Code gives; a spec that matches none names the models there are', async () => {
  const lm = fakeLm({ models: [{ vendor: 'copilot', family: 'gpt-4o' }, { vendor: 'local', family: 'gemma' }], replies: [['{"value": {"label": "ok", "score": 1}, "confidence": 1}']] });
  const { dir, file } = program(MOOD);
  const run = await startRun({ file, cwd: dir, model: 'vscode:', hostModels: vscodeHostModels(lm.api), onOutput: () => {} });
  assert.equal((await run.start()).kind, 'done');
  assert.equal(lm.sent[0].model, 'copilot/gpt-4o');

  const none = await startRun({ file, cwd: dir, model: 'vscode:nobody/nothing', hostModels: vscodeHostModels(lm.api), onOutput: () => {}, inferRetries: 0 });
  const r = await none.start();
  assert.equal(r.kind, 'failed');
  const message = r.kind === 'failed' ? r.error.message : '';
  assert.match(message, /no VS Code language model matches vscode:nobody\/nothing; the models VS Code has: vscode:copilot\/gpt-4o, vscode:local\/gemma/);
  assert.doesNotMatch(message, /\n\s+at /, 'no JavaScript stack');
});

test('a refusal by VS Code (the user did not consent) is a model error that says so', async () => {
  const lm = fakeLm({ fail: Object.assign(new Error('Access denied'), { code: 'NoPermissions' }) });
  const { dir, file } = program(MOOD);
  const run = await startRun({ file, cwd: dir, model: 'vscode:fake/small', hostModels: vscodeHostModels(lm.api), onOutput: () => {}, inferRetries: 0 });
  const r = await run.start();
  assert.equal(r.kind, 'failed');
  assert.match(r.kind === 'failed' ? r.error.message : '', /vscode:fake\/small \(fake-small-id\) refused the request: NoPermissions: Access denied \(the user did not allow Turn to use this model\)/);
});

test("the run's Stop cancels the request's CancellationToken", async () => {
  const lm = fakeLm({ hang: true });
  const { dir, file } = program(MOOD);
  const run = await startRun({ file, cwd: dir, model: 'vscode:fake/small', hostModels: vscodeHostModels(lm.api), onOutput: () => {} });
  const done = run.start();
  await lm.firstRequest;
  run.stop('stopped from the panel');
  const r = await done;
  assert.equal(r.kind, 'stopped');
  assert.deepEqual(lm.cancelled, ['fake/small']);
});

test('a host model is outside input: a reply past the size bound and a model gone silent fail the call, and cancel it', async () => {
  const big = fakeLm({ replies: [['x'.repeat(600), 'y'.repeat(600)]] });
  const { dir, file } = program(MOOD);
  const run = await startRun({ file, cwd: dir, model: 'vscode:fake/small', hostModels: vscodeHostModels(big.api, { maxReplyChars: 1000 }), onOutput: () => {}, inferRetries: 0 });
  const r = await run.start();
  assert.equal(r.kind, 'failed');
  assert.match(r.kind === 'failed' ? r.error.message : '', /vscode:fake\/small sent a reply longer than 1000 characters/);

  const silent = fakeLm({ replies: [['{"value": ']], silentAfter: '{' });
  const run2 = await startRun({ file, cwd: dir, model: 'vscode:fake/small', hostModels: vscodeHostModels(silent.api, { idleTimeoutMs: 50 }), onOutput: () => {}, inferRetries: 0 });
  const r2 = await run2.start();
  assert.equal(r2.kind, 'failed');
  assert.match(r2.kind === 'failed' ? r2.error.message : '', /vscode:fake\/small went silent \(50 ms\)/);
  assert.deepEqual(silent.cancelled, ['fake/small'], 'the request was cancelled, not left running');

  const mute = fakeLm({ hang: true });
  const run3 = await startRun({ file, cwd: dir, model: 'vscode:fake/small', hostModels: vscodeHostModels(mute.api, { firstPieceTimeoutMs: 50 }), onOutput: () => {}, inferRetries: 0 });
  const r3 = await run3.start();
  assert.match(r3.kind === 'failed' ? r3.error.message : r3.kind, /vscode:fake\/small sent nothing in time \(50 ms\)/);
});

test('a malformed vscode: spec is refused before the run starts; the CLI (no host models) refuses vscode: saying it exists only in the editor', async () => {
  assert.deepEqual(parseVscodeSpec('vscode:'), {});
  assert.deepEqual(parseVscodeSpec('vscode:copilot'), { vendor: 'copilot' });
  assert.deepEqual(parseVscodeSpec('vscode:copilot/gpt-4o'), { vendor: 'copilot', family: 'gpt-4o' });
  assert.equal(parseVscodeSpec('openai:gpt-4o'), undefined);
  const lm = fakeLm();
  const { dir, file } = program(MOOD);
  for (const spec of ['vscode:a/b/c', 'vscode:a b', 'vscode:/x', `vscode:${'a'.repeat(200)}`]) {
    await assert.rejects(
      startRun({ file, cwd: dir, model: spec, hostModels: vscodeHostModels(lm.api), onOutput: () => {} }),
      (e: unknown) => e instanceof RunSetupError && e.kind === 'usage' && /vscode:, vscode:VENDOR or vscode:VENDOR\/FAMILY/.test(e.message),
      spec,
    );
  }
  assert.throws(() => createModel('vscode:copilot/gpt-4o', {}), (e: unknown) => e instanceof UnknownModelError && /exist only inside the editor/.test(e.message));
  await assert.rejects(startRun({ file, cwd: dir, model: 'vscode:', onOutput: () => {} }), (e: unknown) => e instanceof RunSetupError && /only inside the editor/.test(e.message));
});

test('a test recorded on a vscode: model (the Test Explorer) replays with no VS Code (turn test)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-vscode-lm-rec-'));
  fs.writeFileSync(path.join(dir, 'mood_test.tn'), `struct Mood { label: Str, score: Num };
return {
    "rates a mood": turn() {
        let m = infer Mood { "How is it going?"; };
        call("assert_eq", m.label, "glad");
    },
};
`);
  const file = path.join(dir, 'mood_test.tn');
  const lm = fakeLm({ replies: [['{"value": {"label": "glad", "score": 7}, "confidence": 0.9}']] });
  const recorded = await runTestFile(file, { mode: 'record', cwd: dir, model: 'vscode:fake/small', hostModels: vscodeHostModels(lm.api) });
  assert.equal(recorded.tests[0]?.status, 'passed', JSON.stringify(recorded));
  assert.equal(lm.sent.length, 1);
  const cassette = JSON.parse(fs.readFileSync(path.join(dir, 'mood_test.cassette.json'), 'utf8')) as { tests: Record<string, { model: string }> };
  assert.equal(cassette.tests['rates a mood'].model, 'vscode:fake/small');
  // replayed as `turn test` does: no host models, the model spec from the environment is not asked
  const replayed = await runTestFile(file, { mode: 'replay', cwd: dir });
  assert.equal(replayed.tests[0]?.status, 'passed', JSON.stringify(replayed));
  assert.equal(lm.sent.length, 1, 'the replay asked no model');
});

test('turn run --model vscode:... explains that the model exists only inside the editor (exit 64, no stack)', () => {
  const { file } = program(MOOD);
  const r = spawnSync(process.execPath, [path.join(__dirname, '../../bin/turn.js'), 'run', file, '--model', 'vscode:copilot/gpt-4o'], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 64, r.stderr);
  assert.match(r.stderr, /model `vscode:copilot\/gpt-4o`: a vscode: model is one of VS Code's own language models \(vscode\.lm\), which exist only inside the editor/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});
