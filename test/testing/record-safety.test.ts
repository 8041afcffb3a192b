// `turn test --record` writes a recording only from a test that finished — it passed, or an assert
// failed — never from one that ended in a run-time error (before, a test whose program failed with
// `ChildError has no field urgent` replaced the committed triage recording, and plain `turn test`
// then failed 5 of 5). And `turn test` and `turn eval` take `turn run`'s options with the same
// meaning: asked for 50 tokens, `run` sent 50 where `test` sent the default (and `eval` dropped --seed).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test, after } from 'node:test';
import { fakeServer, openaiCompletion, type FakeServer } from '../providers/fake-server.js';
import { tempDir, turnAsync, JS_STACK } from './helpers.js';

const servers: FakeServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

/** A model that answers every request `{"n": n}`. */
async function model(n: number): Promise<{ server: FakeServer; spec: string }> {
  const server = await fakeServer(() => ({ status: 200, body: openaiCompletion(JSON.stringify({ value: { n }, confidence: 0.8 })) }));
  servers.push(server);
  return { server, spec: `openai:m?base_url=${encodeURIComponent(server.url + '/v1')}&retries=0` };
}

const ASKS = 'struct Answer { n: Num };\nreturn {\n    "asks": turn() {\n        let a = infer Answer { "How many legs has a cat?"; };\n        call("assert_eq", a.n, 4);\n    },\n};\n';
// the same request, then a run-time error: a field the struct does not have (read where the checker cannot see the type)
const BREAKS = ASKS.replace('call("assert_eq", a.n, 4);', 'let urgent = turn(x) { return x.urgent; };\n        call("assert_eq", urgent(a), 4);');

test('--record: a test ending in a run-time error leaves the committed recording byte-identical; an assertion failure records', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'ask_test.tn');
  const cassette = path.join(dir, 'ask_test.cassette.json');
  fs.writeFileSync(file, ASKS);
  const good = await model(4);
  const recorded = await turnAsync(['test', '--record', '--model', good.spec], { cwd: dir });
  assert.equal(recorded.code, 0, recorded.stdout + recorded.stderr);
  const committed = fs.readFileSync(cassette, 'utf8');

  // the program now fails at run time after its model exchange: nothing is written
  fs.writeFileSync(file, BREAKS);
  const other = await model(5);
  const broken = await turnAsync(['test', '--record', '--model', other.spec], { cwd: dir });
  assert.equal(broken.code, 1, broken.stdout + broken.stderr);
  assert.equal(other.server.received.length, 1, 'the test did ask the model');
  assert.match(broken.stdout, /Answer has no field urgent/);
  assert.match(broken.stdout, /kept the earlier recording \(1 exchange\): it ended in a run-time error \(.*Answer has no field urgent/);
  assert.doesNotMatch(broken.stdout + broken.stderr, JS_STACK);
  assert.equal(fs.readFileSync(cassette, 'utf8'), committed, 'the recording is byte-identical');
  assert.deepEqual(fs.readdirSync(dir).sort(), ['ask_test.cassette.json', 'ask_test.tn'], 'no temporary file left beside it');

  // the committed test still replays from it
  fs.writeFileSync(file, ASKS);
  const replay = await turnAsync(['test'], { cwd: dir });
  assert.equal(replay.code, 0, replay.stdout + replay.stderr);
  assert.match(replay.stdout, /^1 passed, 0 failed$/m);

  // a test that finished by failing an assertion is a whole run: its exchanges are recorded
  const failing = await turnAsync(['test', '--record', '--model', other.spec], { cwd: dir });
  assert.equal(failing.code, 1, failing.stdout + failing.stderr);
  assert.match(failing.stdout, /assertion failed: expected 4, got 5/);
  assert.notEqual(fs.readFileSync(cassette, 'utf8'), committed, 'recorded');
  assert.match(fs.readFileSync(cassette, 'utf8'), /\\"n\\": ?5/);
});

test('turn test and turn eval send what --max-tokens, --temperature, --consistency and --seed ask, as turn run does', async () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'ask_test.tn'), ASKS);
  fs.writeFileSync(path.join(dir, 'ask.tn'), 'struct Answer { n: Num };\nlet a = infer Answer { "How many legs has a cat?"; };\nreturn a.n;\n');
  const flags = ['--max-tokens', '50', '--temperature', '0.3', '--consistency', '3', '--seed', '7'];
  const sent = async (args: string[]): Promise<unknown[]> => {
    const m = await model(4);
    const r = await turnAsync([...args, '--model', m.spec, ...flags], { cwd: dir });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    return m.server.received.map((q) => [q.json.max_tokens, q.json.temperature, q.json.seed]);
  };
  // three samples (consistency 3), seeded 7, 8, 9
  const three = [[50, 0.3, 7], [50, 0.3, 8], [50, 0.3, 9]];
  assert.deepEqual(await sent(['run', 'ask.tn']), three, 'turn run: three samples of 50 tokens at 0.3, seeded');
  assert.deepEqual(await sent(['test', '--record']), three, 'turn test --record');
  assert.deepEqual(await sent(['eval', 'ask.tn', '--samples', '1']), three, 'turn eval of a program');
  assert.deepEqual(await sent(['eval', 'ask_test.tn', '--samples', '1']), three, 'turn eval of a test file');
});

test('turn record of a run that suspended writes a test that passes: the test resumes each suspend from its own store', async () => {
  const dir = tempDir();
  fs.writeFileSync(
    path.join(dir, 'agent.tn'),
    'struct Answer { n: Num };\nlet a = infer Answer { "first question"; };\nsuspend;\nlet b = infer Answer { "second question"; };\ncall("assert_eq", a.n + b.n, 7);\nreturn a.n + b.n;\n',
  );
  let n = 2;
  const server = await fakeServer(() => ({ status: 200, body: openaiCompletion(JSON.stringify({ value: { n: ++n }, confidence: 0.8 })) }));
  servers.push(server);
  const spec = `openai:m?base_url=${encodeURIComponent(server.url + '/v1')}&retries=0`;
  const first = await turnAsync(['run', 'agent.tn', '--model', spec], { cwd: dir });
  assert.equal(first.code, 0, first.stderr);
  const id = /suspended: (\S+)/.exec(first.stderr)![1];
  const resumed = await turnAsync(['resume', id, '--json'], { cwd: dir });
  assert.equal(resumed.code, 0, resumed.stderr);
  assert.equal(resumed.stdout, '7\n');
  await server.close();

  const recorded = await turnAsync(['record', id], { cwd: dir });
  assert.equal(recorded.code, 0, recorded.stdout + recorded.stderr);
  assert.match(recorded.stdout, /recorded 2 model exchanges/);
  // the model is gone: the test replays the two recorded replies, across the suspend
  const tested = await turnAsync(['test'], { cwd: dir });
  assert.equal(tested.code, 0, tested.stdout + tested.stderr);
  assert.match(tested.stdout, /^1 passed, 0 failed$/m);
});
