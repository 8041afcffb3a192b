// The done-when (issue 16): one restate-server, three `turn serve` workers behind a
// balancer, 200 runs that each ask a model twice and POST once; workers are SIGKILLed at moments
// drawn from a seeded generator (when the model has answered a drawn share of its calls), and
// replaced. Every run must finish with the output and result it has when run locally; the POST
// service must have performed each run's POST exactly once (an unknown outcome is surfaced and
// settled the way an operator would: --ok with what the service answered, or --retry when it never
// saw the key). Model calls whose reply was in flight at a kill are asked again (the journal's
// policy: `infer` is idempotent); they are counted and reported.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createServer } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  compileProgram, newRestateRunId, resolveRestateRun, sourcesOf, startRun, submitRun, waitForRun, SEMANTICS_VERSION, type RunSummary,
} from '../../runtime/index.js';
import { countingModel } from '../durability/helpers.js';
import { Cluster, NO_SERVER, type RestateServer, type WorkerProcess } from './harness.js';

const RUNS = Number(process.env.TURN_RESTATE_RUNS ?? 200);
const KILLS = Number(process.env.TURN_RESTATE_KILLS ?? 4);

let cluster: Cluster;
let server: RestateServer;
const live: WorkerProcess[] = [];

async function addWorker(): Promise<WorkerProcess> {
  const w = await cluster.addWorker();
  live.push(w);
  return w;
}

before(async () => {
  if (NO_SERVER) return;
  cluster = await Cluster.start();
  server = cluster.server;
});

after(() => cluster?.close());

/** A seeded generator (mulberry32): the kill moments and victims are the same on every run of the test. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const program = (n: number, url: string) => `let net = use "std/net";
let a = infer Str { "first question of run ${n}"; };
let r = net.post(null, "${url}/charge", {"run": ${n}});
let b = infer Str { "second question of run ${n} about " + a; };
call("echo", "run ${n}: " + a + " " + b);
return {"n": ${n}, "a": a, "b": b, "status": r["status"]};
`;

test(`${RUNS} runs on three workers, workers SIGKILLed ${KILLS} times: every run ends as it does locally, every POST performed once`, { timeout: 600_000, skip: NO_SERVER }, async (t) => {
  const model = await countingModel();
  const performed = new Map<string, number>();
  const posts: string[] = [];
  const svc = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const key = String(req.headers['idempotency-key']);
      posts.push(key);
      if (!performed.has(key)) performed.set(key, performed.size + 1);
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => svc.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(svc.address() as { port: number }).port}`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-restate-scale-'));
  try {
    // what each program prints and returns locally (no store, its own counting model)
    const localModel = await countingModel();
    const expected: { output: string[]; json: unknown }[] = [];
    const files: string[] = [];
    for (let n = 0; n < RUNS; n++) {
      const file = path.join(dir, `p${n}.tn`);
      fs.writeFileSync(file, program(n, url));
      files.push(file);
      const output: string[] = [];
      const run = await startRun({ file, model: localModel.spec, env: { ...process.env, TURN_TEST_KEY: 'k' }, authority: { allowNet: ['127.0.0.1:*'] }, onOutput: (l) => output.push(l) });
      const r = await run.start();
      assert.equal(r.kind, 'done');
      expected.push({ output, json: r.kind === 'done' ? r.json : null });
    }
    await localModel.server.close();
    posts.length = 0;
    performed.clear();

    for (let i = 0; i < 3; i++) await addWorker();
    const started = Date.now();
    // progress = model calls answered + runs ended; when it stands still for two minutes, say what
    // Restate holds open and what the live workers last printed (the test's timeout still decides)
    let ended = 0;
    let lastProgress = { count: -1, at: Date.now() };
    const watchdog = setInterval(() => {
      const count = model.server.received.length + ended;
      if (count !== lastProgress.count) lastProgress = { count, at: Date.now() };
      else if (Date.now() - lastProgress.at > 120_000) {
        lastProgress.at = Date.now();
        void cluster.openInvocations().then(
          (open) => console.error(`no progress for 2 min: ${ended}/${RUNS} runs ended, ${model.server.received.length} model calls, waiting on ${ids[ended]}; open invocations:\n${open}\n` +
            `the balancer forwards:\n${cluster.balancer.forwarding().join('\n') || '(nothing)'}\n` +
            live.map((w) => `worker ${w.url}:\n${w.stderr().slice(-2000)}`).join('\n')),
          (e) => console.error(`no progress for 2 min; the admin API did not answer: ${String(e)}`),
        );
      }
    }, 5_000);
    watchdog.unref();
    t.after(() => clearInterval(watchdog));
    const ids: string[] = [];
    for (let n = 0; n < RUNS; n++) {
      const code = await compileProgram(files[n]);
      const id = newRestateRunId();
      ids.push(id);
      await submitRun(server.ingress, id, {
        entry: `p${n}.tn`, sources: Buffer.from(sourcesOf(code.units, code.entryPath)).toString('base64'), bytecodeHash: code.bundle.version,
        semanticsVersion: SEMANTICS_VERSION, turnVersion: 'test', options: { model: model.spec, authority: { allowNet: ['127.0.0.1:*'] } },
      });
    }

    // kill a drawn worker when the model has answered a drawn share of its 2 x RUNS calls, and replace it
    const draw = rng(16);
    const moments = Array.from({ length: KILLS }, (_, k) => Math.floor(((k + 0.3 + 0.6 * draw()) / (KILLS + 1)) * 2 * RUNS));
    let kills = 0;
    for (const m of moments) {
      while (model.server.received.length < m) await new Promise((r) => setTimeout(r, 20));
      const victim = live.splice(Math.floor(draw() * live.length), 1)[0];
      await cluster.kill(victim);
      kills++;
      await addWorker();
    }

    // every run ends; an unknown POST is settled the way an operator would
    let settled = 0;
    const results: RunSummary[] = [];
    for (const id of ids) {
      let s = await waitForRun(server.ingress, id);
      while (s.status === 'waiting') {
        for (const seq of s.wait!.unknown) {
          const key = `turn:${id}:e2`;
          await resolveRestateRun(server.ingress, id, performed.has(key) ? { seq, ok: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' } } : { seq, retry: true });
          settled++;
        }
        s = await waitForRun(server.ingress, id, 100, s.wait!.promise);
      }
      results.push(s);
      ended++;
    }
    const seconds = (Date.now() - started) / 1000;

    for (let n = 0; n < RUNS; n++) {
      assert.equal(results[n].status, 'done', `run ${n}: ${JSON.stringify(results[n].result)}`);
      assert.deepEqual(results[n].output, expected[n].output, `run ${n}'s output`);
      assert.deepEqual((results[n].result as { json: unknown }).json, expected[n].json, `run ${n}'s result`);
      assert.equal(performed.has(`turn:${ids[n]}:e2`), true, `run ${n}'s POST was performed`);
    }
    assert.equal(performed.size, RUNS, 'one POST performed per run');
    // a resend after --retry carries the same key, so the service performs it once
    const asked = model.asked();
    const distinct = new Set(asked);
    assert.equal(distinct.size, 2 * RUNS, 'every model call was made');
    assert.equal(kills, KILLS);
    t.diagnostic(
      `${RUNS} runs in ${seconds.toFixed(1)} s with ${kills} worker kills: ${asked.length - distinct.size} model call(s) asked again (reply in flight at a kill), ` +
        `${posts.length - performed.size} POST(s) resent with their key after --retry, ${settled} unknown outcome(s) settled`,
    );
  } finally {
    svc.close();
    await model.server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
