// The Runs view on a Restate server (issue 16; extension/runs/restate-model.ts), without VS Code:
// against a real restate-server and `turn serve` workers on 127.0.0.1 (test/restate/harness.ts),
// it lists the server's runs with their status, shows a run as the run panel does, resumes a
// suspended run, settles an unknown outcome (the POST is never sent again), and says clearly what
// is wrong with an unreachable server, a malformed URL or a run that is not there. Uses the built
// CLI (`turn submit`, `turn serve`): run `npm run build` first.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { waitForRun } from '../../runtime/index.js';
import { listRestateItems, restateActionsOf, restateRunView, resumeOnRestate, settleOnRestate, summaryText } from '../../extension/runs/restate-model.js';
import { readRestateSettings, type RestateSettings } from '../../extension/settings.js';
import { Cluster, NO_SERVER, freePort, turn, type RestateServer, type WorkerProcess } from '../restate/harness.js';

let cluster: Cluster;
let server: RestateServer;
let settings: RestateSettings;

/** A worker the balancer then sends every call to. */
async function worker(): Promise<WorkerProcess> {
  const w = await cluster.addWorker();
  cluster.balancer.workers = [w.url];
  return w;
}

const workdir = (program: string): string => cluster.workdir(program, 'turn-runs-restate-');

before(async () => {
  if (NO_SERVER) return;
  cluster = await Cluster.start();
  server = cluster.server;
  settings = { ingress: server.ingress, admin: server.admin };
});

after(() => cluster?.close());

test('the settings: no Restate root without turn.restate.ingressUrl; the admin URL defaults to the ingress host on 9070', () => {
  const get = (values: Record<string, unknown>) => <T>(key: string, dflt: T): T => (key in values ? (values[key] as T) : dflt);
  assert.equal(readRestateSettings(get({})), undefined);
  assert.equal(readRestateSettings(get({ 'restate.ingressUrl': '  ' })), undefined);
  assert.deepEqual(readRestateSettings(get({ 'restate.ingressUrl': 'http://10.0.0.5:8080' })), { ingress: 'http://10.0.0.5:8080', admin: 'http://10.0.0.5:9070' });
  assert.deepEqual(readRestateSettings(get({ 'restate.ingressUrl': 'http://h:8080', 'restate.adminUrl': 'http://a:1' })), { ingress: 'http://h:8080', admin: 'http://a:1' });
});

test('a suspended run on Restate: listed with its status, shown as the panel shows it, resumed from the view', { skip: NO_SERVER }, async () => {
  await worker();
  const dir = workdir('call("echo", "one");\nsuspend;\ncall("echo", "two");\nreturn 7;\n');
  const sub = await turn(['submit', 'p.tn', '--restate', server.ingress], dir);
  assert.equal(sub.code, 0, sub.stderr);
  const id = sub.stdout.trim();
  assert.equal((await waitForRun(server.ingress, id)).status, 'suspended');

  const item = (await listRestateItems(settings)).find((i) => i.id === id);
  assert.ok(item, 'the run is listed');
  assert.equal(item.state, 'suspended');
  assert.equal(item.entry, 'p.tn');
  assert.deepEqual(restateActionsOf(item), { resume: true, settle: false });

  const view = await restateRunView(settings, id, 3);
  assert.equal(view.status, 'suspended');
  assert.equal(view.stored, null, 'no local store: no scrubber or what-if on it');
  assert.deepEqual(view.output.slice(1), ['one'], 'what it printed, from the server');
  assert.ok(view.timeline.some((t) => t.kind === 'tool.request' && t.summary === 'effect __suspend'), 'the journal is the timeline (drawn as a live run\'s events)');
  assert.ok(view.actors.some((a) => a.pid === 1), 'the processes come from the snapshot');

  const done = await resumeOnRestate(settings, id);
  assert.equal(done.status, 'done');
  assert.deepEqual(done.output, ['one', 'two']);
  assert.equal(summaryText(done), `run ${id} is done: 7`);
  const after = (await listRestateItems(settings)).find((i) => i.id === id)!;
  assert.equal(after.state, 'done');
  assert.deepEqual(restateActionsOf(after), { resume: false, settle: false });
  await assert.rejects(resumeOnRestate(settings, id), new RegExp(`^Error: run ${id} is done: it waits for no resume$`), 'a finished run cannot be resumed');
});

test('an unknown outcome on Restate: listed under its run with the request, settled from the view, never sent again', { skip: NO_SERVER }, async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const received: string[] = [];
  let seen!: () => void;
  const reached = new Promise<void>((r) => (seen = r));
  const svc: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(String(req.headers['idempotency-key']));
      seen();
      void held.then(() => res.end('{}'));
    });
  });
  await new Promise<void>((r) => svc.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(svc.address() as { port: number }).port}`;
  try {
    const a = await worker();
    const dir = workdir(`let net = use "std/net";\nlet r = net.post(null, "${url}/charge", {"amount": 42});\ncall("echo", "charged");\nreturn r["status"];\n`);
    const sub = await turn(['submit', 'p.tn', '--restate', server.ingress, '--allow-net', '127.0.0.1:*'], dir);
    assert.equal(sub.code, 0, sub.stderr);
    const id = sub.stdout.trim();
    await reached; // the POST is in flight: its intent is in Restate's journal
    await worker(); // the balancer now sends to the new worker only
    a.child.kill('SIGKILL');
    await a.exited;
    release();
    assert.equal((await waitForRun(server.ingress, id)).status, 'waiting');

    const item = (await listRestateItems(settings)).find((i) => i.id === id)!;
    assert.equal(item.state, 'waiting');
    assert.deepEqual(restateActionsOf(item), { resume: false, settle: true });
    assert.equal(item.unknown.length, 1);
    const step = item.unknown[0];
    assert.equal(step.runId, id);
    assert.match(step.request, /\/charge/, 'the request the effect made');

    const done = await settleOnRestate(settings, id, step.seq, { ok: { status: 200, body: '{}' } });
    assert.equal(done.status, 'done');
    assert.deepEqual(done.output, ['charged']);
    assert.equal(received.length, 1, 'the POST was not sent again');
  } finally {
    release();
    svc.close();
  }
});

test('bad input: an unreachable server, a malformed URL and a run that is not there are one clear line each', { skip: NO_SERVER }, async () => {
  const port = await freePort(); // nothing listens there
  const nowhere = { ingress: `http://127.0.0.1:${port}`, admin: `http://127.0.0.1:${port}` };
  await assert.rejects(listRestateItems(nowhere), (e: Error) => {
    assert.match(e.message, new RegExp(`^cannot reach the Restate admin API at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\): is restate-server running, and are turn\\.restate\\.ingressUrl`));
    assert.doesNotMatch(e.message, /\n\s+at /, 'no stack trace');
    return true;
  });
  await assert.rejects(listRestateItems({ ingress: 'localhost', admin: 'localhost' }), /^Error: turn\.restate\.adminUrl must be a URL such as http:\/\/127\.0\.0\.1:8080, got `localhost`$/);
  await assert.rejects(restateRunView(settings, 'no-such-run', 1), /^Error: no run no-such-run on the Restate server at http:\/\/127\.0\.0\.1:\d+$/);
  await assert.rejects(resumeOnRestate(settings, 'no-such-run'), /no run no-such-run/);
});
