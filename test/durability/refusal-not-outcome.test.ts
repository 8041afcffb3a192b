// A refusal before sending is not an outcome (docs/durability.md, *Refusals are not outcomes*):
// when the host refuses an effect before anything leaves the process — a secret that is not set,
// a grant that does not allow it — a durable run records no result for the step. The run stops
// `waiting` (exit 3, saying what was refused and how to continue), and a resume that has what was
// missing sends the request, once. Before, the refusal was journaled as the effect's error, so the
// run failed for good: resuming again with the secret set could not recover it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createServer, type Server } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { turnAsync as runCli } from '../cli/run-cli.js';
import { runIdOf, type Run } from './helpers.js';
import { anthropicMessage, fakeServer } from '../providers/fake-server.js';
import { openStore } from '../../runtime/index.js';

/** The CLI with exactly these secrets: TURN_SECRET_SVC and TURN_TEST_KEY are unset unless given. */
function turn(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return runCli(args, { cwd, env: { TURN_SECRET_SVC: undefined, TURN_TEST_KEY: undefined, ...env }, killAfterMs: 60_000 });
}

async function countingServer(): Promise<{ server: Server; url: string; auth: (string | undefined)[] }> {
  const auth: (string | undefined)[] = [];
  const server = createServer((req, res) => {
    auth.push(req.headers.authorization);
    res.end(`pong${auth.length}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, auth };
}

function folder(program: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-refusal-'));
  fs.writeFileSync(path.join(dir, 'p.tn'), program);
  return dir;
}

const lastLine = (stderr: string): string => stderr.trim().split('\n').pop() ?? '';

function journal(dir: string, id: string) {
  const st = openStore(path.join(dir, 'st'));
  try {
    return { status: st.getRun(id)!.status, entries: st.readJournal(id) };
  } finally {
    st.close();
  }
}

test('a resume without the secret stays resumable; a resume with it sends the request once', async () => {
  const svc = await countingServer();
  try {
    const dir = folder(`let net = use "std/net";
let svc = grant identity::bearer("svc");
suspend;
let reply = net.request(svc, "GET", "${svc.url}/x", {});
call("echo", reply["body"]);
`);
    const flags = ['--store', 'st', '--allow-net', '127.0.0.1:*'];
    const first = await turn(['run', 'p.tn', ...flags], dir, { TURN_SECRET_SVC: 's1' });
    assert.equal(first.code, 0, first.stderr);
    const id = runIdOf(first.stderr);

    for (let i = 0; i < 2; i++) {
      // twice: a second refusal of the same step is no error either
      const without = await turn(['resume', id, '--store', 'st'], dir);
      assert.equal(without.code, 3, without.stderr);
      assert.match(without.stderr, /refused: step \d+ \(tool `http_request`\) was refused before anything was sent: the secret "svc" for identity::bearer\("svc"\) is not set/);
      assert.match(without.stderr, new RegExp(`continue with: turn resume ${id}`));
      assert.equal(lastLine(without.stderr), `waiting: ${id}`);
      assert.doesNotMatch(without.stderr, /\n\s+at .+\.(js|ts):\d+/, 'no JavaScript stack');
      assert.equal(svc.auth.length, 0, 'nothing was sent');
      const j = journal(dir, id);
      assert.equal(j.status, 'waiting');
      const http = j.entries.filter((e) => e.kind === 'tool' && e.name === 'http_request');
      assert.equal(http.length, 1);
      assert.ok(http[0].status === 'intent' || http[0].status === 'unknown', `the refusal is not the step's outcome: ${http[0].status}`);
      assert.equal(j.entries.filter((e) => e.kind === 'refusal').length, 1, 'one refusal entry, however often it is refused');
    }

    const withSecret = await turn(['resume', id, '--store', 'st'], dir, { TURN_SECRET_SVC: 's1' });
    assert.equal(withSecret.code, 0, withSecret.stderr);
    assert.equal(withSecret.stdout, 'pong1\n');
    assert.deepEqual(svc.auth, ['Bearer s1'], 'the request is sent once, with the secret');
    assert.equal(journal(dir, id).status, 'done');
  } finally {
    svc.server.close();
  }
});

test('a model call without its API key is not an outcome either: the resume with the key asks once', async () => {
  // Anthropic's API needs a key, so a missing one is refused before the request is made
  const model = await fakeServer(() => ({ status: 200, body: anthropicMessage({ value: 'hi there', confidence: 0.9 }) }));
  const spec = `anthropic:claude-test?base_url=${model.url}&api_key_env=TURN_TEST_KEY`;
  try {
    const dir = folder(`suspend;
let s: Str = infer Str { "say hi"; };
call("echo", s);
`);
    const first = await turn(['run', 'p.tn', '--store', 'st', '--model', spec], dir, { TURN_TEST_KEY: 'k' });
    assert.equal(first.code, 0, first.stderr);
    const id = runIdOf(first.stderr);
    const without = await turn(['resume', id, '--store', 'st'], dir);
    assert.equal(without.code, 3, without.stderr);
    assert.match(without.stderr, /refused: step \d+ \(infer `Str`\) was refused before anything was sent: .*TURN_TEST_KEY is not set/);
    assert.equal(model.received.length, 0);
    assert.ok(!journal(dir, id).entries.some((e) => e.kind === 'infer' && (e.status === 'error' || e.status === 'ok')), 'no outcome recorded');
    const withKey = await turn(['resume', id, '--store', 'st'], dir, { TURN_TEST_KEY: 'k' });
    assert.equal(withKey.code, 0, withKey.stderr);
    assert.equal(withKey.stdout, 'hi there\n');
    assert.equal(model.received.length, 1, 'asked once');
  } finally {
    await model.close();
  }
});

test('a refused grant or a denied approval leaves the step unrun: a resume with it proceeds, and turn resolve --retry is accepted; a spent budget stays an outcome', async () => {
  const svc = await countingServer();
  try {
    const dir = folder(`let net = use "std/net";
let reply = net.request(null, "GET", "${svc.url}/x", {});
call("echo", reply["body"]);
`);
    const refused = await turn(['run', 'p.tn', '--store', 'st'], dir);
    assert.equal(refused.code, 3, refused.stderr);
    assert.match(refused.stderr, /refused: step 1 \(tool `http_request`\) was refused before anything was sent: .*network/);
    assert.equal(svc.auth.length, 0);
    const id = runIdOf(refused.stderr);
    // a person may also say so explicitly: the step is open, so --retry is a valid decision
    const resolved = await turn(['resolve', id, '1', '--retry', '--store', 'st'], dir);
    assert.equal(resolved.code, 0, resolved.stderr);
    const granted = await turn(['resume', id, '--store', 'st', '--allow-net', '127.0.0.1:*'], dir);
    assert.equal(granted.code, 0, granted.stderr);
    assert.equal(granted.stdout, 'pong1\n');
    assert.equal(svc.auth.length, 1);

    // a denied approval, the same way: resumed with --approve all, the request is sent
    const asks = folder(fs.readFileSync(path.join(dir, 'p.tn'), 'utf8'));
    const denied = await turn(['run', 'p.tn', '--store', 'st', '--allow-net', '127.0.0.1:*', '--approve-effects', 'network', '--approve', 'none'], asks);
    assert.equal(denied.code, 3, denied.stderr);
    assert.match(denied.stderr, /refused: step 1 \(tool `http_request`\) was refused before anything was sent: GET http:\/\/127\.0\.0\.1:\d+\/x was not approved/);
    assert.equal(svc.auth.length, 1, 'nothing more was sent');
    const approved = await turn(['resume', runIdOf(denied.stderr), '--store', 'st', '--approve', 'all'], asks);
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(approved.stdout, 'pong2\n');

    // the attack: a budget the run spent is not a refusal a resume would lift (each process counts
    // its calls afresh), so it stays the effect's error and the run fails
    const spent = folder('let a: Str = infer Str { "one"; };\nlet b: Str = infer Str { "two"; };\ncall("echo", a + b);\n');
    const over = await turn(['run', 'p.tn', '--store', 'st', '--model', 'mock', '--max-model-calls', '1'], spent);
    assert.equal(over.code, 1, over.stderr);
    assert.match(over.stderr, /runtime error: infer Str: the model call failed: the model call budget is exhausted \(1 of 1 calls used\)/);
    assert.doesNotMatch(over.stderr, /refused:|waiting:/);
  } finally {
    svc.server.close();
  }
});
