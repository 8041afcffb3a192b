// Native tool calls in a durable run (issue 42): each model round and each tool call is its own
// journaled effect. The run is SIGKILLed (TURN_CRASH_AT, a real child process) at each journal write
// in turn and resumed: a recorded round's reply and a recorded call's outcome are reused, so neither
// tool call runs twice (each appends a line to a file: the count is the proof), and a call whose
// outcome the kill left unknown is reported as unknown, never run again on its own. No sleeps: every
// wait is on a child process's exit. It runs twice: with a script fixture, and against a fake
// server speaking OpenAI's tool-call wire (the request's `tool` messages say which round it is).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runIdOf, turnAsync } from './helpers.js';
import { fakeServer, openaiCompletion } from '../providers/fake-server.js';

const PROGRAM = `struct Done { note: Str };
let fs = use "std/fs";
let first = turn() -> Str { fs.append(null, "out/log.txt", "first\\n"); return "first done"; };
let second = turn() -> Str { fs.append(null, "out/log.txt", "second\\n"); return "second done"; };
let r = infer Done with { tools: [first, second] } { "Call first, then second."; };
return r.note;
`;

// one call per round, so the kill can fall between the two calls; `round` picks the entry of the
// round the run is at, so a resume that replays the first rounds gets the entry of the next one
const SCRIPT = {
  replies: [
    { round: 0, tool_calls: [{ name: 'first', arguments: {} }], repeat: true },
    { round: 1, tool_calls: [{ name: 'second', arguments: {} }], repeat: true },
    { round: 2, value: { note: 'both done' }, repeat: true },
  ],
};

function setUp(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-durable-tools-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), PROGRAM);
  fs.writeFileSync(path.join(dir, 's.json'), JSON.stringify(SCRIPT));
  fs.mkdirSync(path.join(dir, 'out'));
  return dir;
}

/** OpenAI's wire: a reply asking for one tool (`tool_calls`, no content), as its API documents it. */
function toolCallReply(name: string, id: string) {
  const body = openaiCompletion('', { finish: 'tool_calls' });
  body.choices[0].message = { role: 'assistant', content: null, refusal: null, tool_calls: [{ id, type: 'function', function: { name, arguments: '{}' } }] } as never;
  return body;
}

/** The fake server: the round is the number of `tool` results the request carries. */
async function wireModel(): Promise<string> {
  const server = await fakeServer((req) => {
    const messages = (req.json.messages ?? []) as { role: string }[];
    const round = messages.filter((m) => m.role === 'tool').length;
    if (round === 0) return { status: 200, body: toolCallReply('first', 'call_first') };
    if (round === 1) return { status: 200, body: toolCallReply('second', 'call_second') };
    return { status: 200, body: openaiCompletion(JSON.stringify({ value: { note: 'both done' }, confidence: 0.9 })) };
  });
  after(() => server.close());
  return `openai:gpt-test?base_url=${server.url}/v1&api_key_env=TURN_TEST_KEY&retries=0`;
}

let model = 'script:s.json';
const args = (dir: string) => ['--model', model, '--allow-write', 'out', '--store', path.join(dir, 'st')];
const logOf = (dir: string) => (fs.existsSync(path.join(dir, 'out', 'log.txt')) ? fs.readFileSync(path.join(dir, 'out', 'log.txt'), 'utf8') : '');

/** Kills the run after each journal write in turn and resumes it (the test below, per model). */
async function killAtEveryWrite(): Promise<void> {
  const clean = setUp();
  const whole = await turnAsync(['run', 'p.tn', ...args(clean), '--json'], clean);
  assert.equal(whole.code, 0, whole.stderr);
  assert.equal(whole.stdout.trim(), '"both done"');
  assert.equal(logOf(clean), 'first\nsecond\n');

  let between = 0;
  let unknown = 0;
  for (let k = 1; k <= 30; k++) {
    const dir = setUp();
    const killed = await turnAsync(['run', 'p.tn', ...args(dir), '--json'], dir, { TURN_CRASH_AT: `${k}:after` });
    if (killed.code === 0) break; // past the run's last write: every point before it was tried
    assert.equal(killed.signal ?? 'SIGKILL', 'SIGKILL', killed.stderr);
    const atKill = logOf(dir);
    const id = runIdOf(killed.stderr);
    const resumed = await turnAsync(['resume', id, ...args(dir), '--json'], dir);
    const what = `kill after write ${k} (log then: ${JSON.stringify(atKill)}): ${resumed.stderr.slice(-300)}`;
    if (resumed.code === 0) {
      // done: each tool ran exactly once over the killed run and its resume, and the value bound
      assert.equal(logOf(dir), 'first\nsecond\n', what);
      assert.equal(resumed.stdout.trim(), '"both done"', what);
      if (atKill === 'first\n') between++;
    } else {
      // the kill fell between a call's intent and its outcome: unknown, and not run again by itself
      assert.match(resumed.stderr, /turn resolve/, what);
      assert.ok(!/first\n.*first\n|second\n.*second\n/s.test(logOf(dir)), what);
      unknown++;
    }
  }
  assert.ok(between >= 1, 'at least one kill fell after the first call and before the second, and its resume finished');
  assert.ok(unknown >= 1, 'a kill inside a call left it unknown');
}

test('a durable run killed between two tool calls resumes without repeating either, and its value binds (script fixture)', { timeout: 300_000 }, async () => {
  model = 'script:s.json';
  await killAtEveryWrite();
});

test("the same against OpenAI's tool-call wire (a fake server): no tool call repeats across a kill and its resume", { timeout: 300_000 }, async () => {
  model = await wireModel();
  await killAtEveryWrite();
});
