// Ctrl-C during `turn run` (issue 25): before, the command exited 130 with nothing printed and no
// trace of it. Now the first SIGINT/SIGTERM cancels the model call in flight, writes an
// `interrupted` event to the trace, and a durable run keeps what it committed: `turn resume`
// continues it without asking the model again for a reply the journal holds.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test, after } from 'node:test';
import { slowServer, type SlowServer } from '../providers/slow-server.js';
import { BIN, turnAsync } from './run-cli.js';

const servers: SlowServer[] = [];
after(async () => {
  for (const s of servers) await s.close();
});

const PROGRAM = `struct Step { n: Num };
let a = infer Step { "First."; };
call("echo", "first " + a.n);
let b = infer Step { "Second."; };
call("echo", "second " + b.n);
return a.n + b.n;
`;

function start(args: string[], cwd: string) {
  const child = spawn(process.execPath, [BIN, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { child, exited };
}

async function until(cond: () => boolean, what: string): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > 60_000) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`${signal} during a streamed infer of a durable run: cancelled, traced, resumable without re-asking the recorded reply`, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-interrupt-'));
    fs.writeFileSync(path.join(dir, 'steps.tn'), PROGRAM);
    // the first reply is quick; the second streams slowly and would take minutes
    const s = await slowServer((_, n) => (n === 0 ? { stream: '{"value": {"n": 1}, "confidence": 0.9}' } : { stream: '{"value": {"n": 2}, "confidence": 0.9}', piece: 1, everyMs: 5_000 }));
    servers.push(s);
    const model = `openai:m?base_url=${encodeURIComponent(s.url + '/v1')}&retries=0`;
    const { child, exited } = start(['run', 'steps.tn', '--model', model, '--store', 'st', '--trace-file', 'trace.jsonl'], dir);
    await until(() => s.received.length === 2 && s.chunks[1] >= 1, 'the second call to stream');
    child.kill(signal);
    const r = await exited;
    assert.equal(r.code, signal === 'SIGINT' ? 130 : 143, r.stderr);
    assert.match(r.stdout, /^first 1$/m);
    const id = /run (\S+) \(store/.exec(r.stderr)![1];
    assert.match(r.stderr, new RegExp(`turn: interrupted by ${signal}: run ${id} is saved up to its last committed step; continue it with \`turn resume ${id} --store st\``));
    assert.doesNotMatch(r.stderr, /\n\s+at .+\.js:\d+/);
    const events = fs.readFileSync(path.join(dir, 'trace.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { kind: string; signal?: string; inflight?: number; durable?: boolean });
    const interrupted = events.find((e) => e.kind === 'interrupted');
    assert.deepEqual(interrupted && { signal: interrupted.signal, durable: interrupted.durable, inflight: interrupted.inflight }, { signal, durable: true, inflight: 1 });
    assert.ok(events.some((e) => e.kind === 'infer.delta'), 'the stream had begun');

    // resume against a server that answers at once: only the second call is asked
    const again = await slowServer(() => ({ stream: '{"value": {"n": 2}, "confidence": 0.9}' }));
    servers.push(again);
    const resumed = await turnAsync(['resume', id, '--store', 'st', '--model', `openai:m?base_url=${encodeURIComponent(again.url + '/v1')}&retries=0`, '--json'], { cwd: dir });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(again.received.length, 1, 'the first reply came from the journal');
    const asked = again.received[0].body.messages as { content: string }[];
    assert.match(asked[asked.length - 1].content, /^Second\./);
    assert.match(resumed.stdout, /^second 2$/m);
    assert.match(resumed.stdout, /^3$/m);
  });
}

test('SIGINT during a plain (not durable) run says it cannot be resumed, exit 130', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-interrupt-'));
  fs.writeFileSync(path.join(dir, 'steps.tn'), PROGRAM);
  const s = await slowServer(() => ({ hang: true }));
  servers.push(s);
  const { child, exited } = start(['run', 'steps.tn', '--model', `openai:m?base_url=${encodeURIComponent(s.url + '/v1')}&retries=0`], dir);
  await until(() => s.received.length === 1, 'the call');
  child.kill('SIGINT');
  const r = await exited;
  assert.equal(r.code, 130);
  assert.match(r.stderr, /turn: interrupted by SIGINT: the run was not durable, so it cannot be resumed/);
});
