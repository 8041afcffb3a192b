// Recordings and per-infer options: an infer's options are part of its recorded request (and of the
// fingerprint), so a recording made with other options is stale and the diff names them; a
// self-consistent infer (`consistency: k`) records its k samples and replays each, so the
// agreement — its confidence — is the recorded one.
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { JS_STACK, tempDir, turnAsync } from './helpers.js';

// no model at all on replay: a request the recording does not answer fails, never reaches a model
const OFFLINE = { TURN_MODEL: 'openai:none?base_url=http://127.0.0.1:9/v1&retries=0', OPENAI_API_KEY: '' };

function project(): string {
  const dir = tempDir();
  fs.writeFileSync(
    path.join(dir, 'vote.tn'),
    [
      'struct Verdict { decision: "approve" | "reject", reason: Str }',
      'let decide = turn(seed: Num) -> Verdict {',
      '    return infer Verdict with { consistency: 5, seed: seed } { "Should we approve?"; };',
      '};',
      'return decide;',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(dir, 'vote_test.tn'),
    [
      'return {',
      '    "five samples vote": turn() {',
      '        let decide = use "./vote";',
      '        let v = decide(3);',
      '        call("assert_eq", confidence v, CONFIDENCE);',
      '    },',
      '};',
      '',
    ].join('\n'),
  );
  return dir;
}

/** The agreement the mock model's samples under seeds 3..7 give (measured by a plain run). */
async function mockAgreement(dir: string): Promise<string> {
  fs.writeFileSync(path.join(dir, 'probe.tn'), 'let decide = use "./vote";\ncall("echo", confidence decide(3));\n');
  const r = await turnAsync(['run', 'probe.tn', '--model', 'mock'], { cwd: dir });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.trim();
}

test('a self-consistent infer records its samples and replays them: the same agreement offline', async () => {
  const dir = project();
  const agreement = await mockAgreement(dir);
  assert.ok(Number(agreement) < 1 && Number(agreement) > 0, `the mock's seeded samples disagree (got ${agreement})`);
  const file = path.join(dir, 'vote_test.tn');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('CONFIDENCE', agreement));
  const recorded = await turnAsync(['test', '--record', '--model', 'mock'], { cwd: dir });
  assert.equal(recorded.code, 0, recorded.stdout + recorded.stderr);
  const cassette = JSON.parse(fs.readFileSync(path.join(dir, 'vote_test.cassette.json'), 'utf8')) as {
    tests: Record<string, { exchanges: { request: { options?: unknown }; reply: { samples?: string[] } }[] }>;
  };
  const [exchange] = cassette.tests['five samples vote'].exchanges;
  assert.deepEqual(exchange.request.options, { seed: 3, consistency: 5 });
  assert.equal(exchange.reply.samples?.length, 5);
  const replay = await turnAsync(['test'], { cwd: dir, env: OFFLINE });
  assert.equal(replay.code, 0, replay.stdout + replay.stderr);
  assert.match(replay.stdout, /✓ five samples vote/);
});

test('an infer whose options changed since the recording is a stale recording, and the diff shows the options', async () => {
  const dir = project();
  const file = path.join(dir, 'vote_test.tn');
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('call("assert_eq", confidence v, CONFIDENCE);', 'call("assert", confidence v > 0);'));
  const recorded = await turnAsync(['test', '--record', '--model', 'mock'], { cwd: dir });
  assert.equal(recorded.code, 0, recorded.stdout + recorded.stderr);
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('decide(3)', 'decide(4)'));
  const r = await turnAsync(['test'], { cwd: dir, env: OFFLINE });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout + r.stderr, JS_STACK);
  assert.match(r.stdout, /stale recording: the program now sends a request the recording does not hold \(infer Verdict at vote\.tn:3:12\)/);
  assert.match(r.stdout, /^ {6}- options: seed: 3, consistency: 5$/m);
  assert.match(r.stdout, /^ {6}\+ options: seed: 4, consistency: 5$/m);
});
