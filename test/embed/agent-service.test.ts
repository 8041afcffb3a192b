// examples/agent-service (docs/embedding.md): a Hono service that calls a Turn agent per request through
// its generated client. The test lays the example out as an app (a copy, its packages linked from this
// clone: turn-vscode is the clone itself), checks the committed client is what `turn gen ts` writes,
// type-checks the service (a wrong field access fails), then starts it on 127.0.0.1 against a fake
// OpenAI-compatible model that counts its requests: real HTTP requests get typed answers, a bad
// argument is refused before any model call, and a service killed mid-run, restarted and asked again
// resumes the ticket's durable call without asking the model again what it had answered.
// Needs `npm run build`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { ROOT, turn } from '../cli/run-cli';
import { fakeServer, openaiCompletion, type FakeServer, type Received, type Scripted } from '../providers/fake-server';

const EXAMPLE = path.join(ROOT, 'examples', 'agent-service');
const app = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-agent-service-'));
fs.cpSync(EXAMPLE, app, { recursive: true, filter: (src) => !/[/\\](node_modules|\.turn)$/.test(src) });
const modules = path.join(app, 'node_modules');
fs.mkdirSync(path.join(modules, '@hono'), { recursive: true });
fs.mkdirSync(path.join(modules, '@types'), { recursive: true });
fs.symlinkSync(ROOT, path.join(modules, 'turn-vscode'), 'dir');
for (const name of ['hono', '@hono/node-server', 'tsx', 'typescript', '@types/node']) fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(modules, name), 'dir');

test('the committed client is what turn gen ts writes from agent.tn', () => {
  const r = turn(['gen', 'ts', 'agent.tn', '--out', 'src/turn'], { cwd: app });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.readFileSync(path.join(app, 'src', 'turn', 'agent.ts'), 'utf8'), fs.readFileSync(path.join(EXAMPLE, 'src', 'turn', 'agent.ts'), 'utf8'), 'regenerate it: npm run gen in examples/agent-service');
});

test('tsc --noEmit passes on the service, and a wrong field access of the generated types fails', () => {
  fs.writeFileSync(path.join(app, 'src', 'wrong.ts'), `import type { TriageReply } from './server.js';\nexport const team = (r: TriageReply): string => r.triage.department;\n`);
  const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', '.'], { cwd: app, encoding: 'utf8', timeout: 600_000 });
  fs.rmSync(path.join(app, 'src', 'wrong.ts'));
  // the only error is the planted one: server.ts and the generated client compile under strict
  assert.equal(tsc.stdout.trim(), "src/wrong.ts(2,58): error TS2339: Property 'department' does not exist on type 'Triage'.");
  assert.equal(tsc.status, 2);
});

// ---- the service against a fake model

const ROUTE = 'Route this support ticket';
const DRAFT = 'Draft a short first reply';
let holdDrafts = false;
let draftHeld: (() => void) | undefined;
const promptOf = (r: Received): string => JSON.stringify(r.json.messages ?? '');
function answer(req: Received): Scripted {
  const prompt = promptOf(req);
  if (prompt.includes(ROUTE)) return { status: 200, body: openaiCompletion(JSON.stringify({ priority: 'urgent', team: 'billing' })) };
  if (prompt.includes(DRAFT)) {
    if (holdDrafts) {
      draftHeld?.();
      return { hang: true }; // the service is killed while it waits for this reply
    }
    return { status: 200, body: openaiCompletion(JSON.stringify({ value: 'We are looking into the double charge.' })) };
  }
  return { status: 400, body: { error: { message: `unexpected prompt: ${prompt}` } } };
}
let model: FakeServer;
before(async () => {
  model = await fakeServer(answer);
});
const asked = (what: string, title: string): number => model.received.filter((r) => promptOf(r).includes(what) && promptOf(r).includes(title)).length;

const children = new Set<ChildProcess>();
after(async () => {
  for (const c of children) c.kill('SIGKILL');
  await model.close();
});

/** Starts the service; resolves with its port once it says it listens. */
function startService(): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: app,
    env: { ...process.env, PORT: '0', TURN_STORE_DIR: path.join(app, '.turn'), TURN_MODEL: `openai:fake-model?base_url=${model.url}/v1`, OPENAI_API_KEY: 'test-key' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const port = (JSON.parse(line) as { listening?: number }).listening;
      if (port !== undefined) resolve({ child, port });
    });
    child.once('exit', (code) => reject(new Error(`the service exited (${code}) before listening: ${stderr}`)));
  });
}

async function post(port: number, ticket: string, body: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`http://127.0.0.1:${port}/tickets/${ticket}/triage`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

function stopped(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

test('the service answers typed triages, refuses a bad argument, and resumes a call the restart cut short', { timeout: 600_000 }, async () => {
  let { child, port } = await startService();

  const first = await post(port, 'T1', { title: 'Charged twice for one order' });
  assert.equal(first.status, 200, JSON.stringify(first.json));
  assert.deepEqual(first.json.triage, { priority: 'urgent', team: 'billing', reply: 'We are looking into the double charge.' });
  assert.equal(first.json.runId, 'ticket-T1');
  assert.equal(first.json.modelCalls, 2);
  assert.equal(typeof first.json.confidence, 'number');

  // a bad argument: refused by the client's schema check, before any model call
  const before = model.received.length;
  const bad = await post(port, 'T2', { title: 42 });
  assert.equal(bad.status, 400);
  assert.match(String(bad.json.error), /invalid arguments for triage: \/title: must be string/);
  assert.equal(model.received.length, before, 'no model call for a refused argument');
  // hostile requests: an oversized body, a body that is not JSON, a ticket id that is no run id
  const huge = await post(port, 'T2', { title: 'x'.repeat(70 * 1024) });
  assert.equal(huge.status, 413);
  const notJson = await fetch(`http://127.0.0.1:${port}/tickets/T2/triage`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title": ' });
  assert.equal(notJson.status, 400);
  assert.equal(((await notJson.json()) as { error: string }).error, 'the request body is not JSON');
  const badId = await post(port, 'a.b', { title: 'x' });
  assert.equal(badId.status, 400);
  assert.equal(model.received.length, before, 'no model call for a refused request');

  // mid-run: the routing is answered (and journaled), the draft is being asked when the service is killed
  holdDrafts = true;
  const held = new Promise<void>((resolve) => (draftHeld = resolve));
  const cut = post(port, 'T3', { title: 'Refund never arrived' }).then(
    () => assert.fail('the request cannot be answered: the service is killed'),
    () => 'cut',
  );
  await held;
  child.kill('SIGKILL');
  await stopped(child);
  assert.equal(await cut, 'cut');
  assert.equal(asked(ROUTE, 'Refund never arrived'), 1);
  assert.equal(asked(DRAFT, 'Refund never arrived'), 1);

  // restarted, the same ticket again: the routing reply is replayed from the journal, only the draft is asked
  holdDrafts = false;
  ({ child, port } = await startService());
  const resumed = await post(port, 'T3', { title: 'Refund never arrived' });
  assert.equal(resumed.status, 200, JSON.stringify(resumed.json));
  assert.deepEqual(resumed.json.triage, { priority: 'urgent', team: 'billing', reply: 'We are looking into the double charge.' });
  assert.equal(asked(ROUTE, 'Refund never arrived'), 1, 'the routing was not asked again');
  assert.equal(asked(DRAFT, 'Refund never arrived'), 2);
  assert.equal(resumed.json.modelCalls, 1, 'only the draft, which had no reply, was asked');

  // and asked once more, the finished ticket is answered from the store: no model call at all
  const count = model.received.length;
  const again = await post(port, 'T3', { title: 'Refund never arrived' });
  assert.equal(again.status, 200);
  assert.deepEqual(again.json.triage, resumed.json.triage);
  assert.equal(again.json.modelCalls, 0);
  assert.equal(model.received.length, count);
  child.kill('SIGTERM');
  await stopped(child);
});
