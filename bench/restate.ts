// Turn on Restate (issue 16, docs/scale-out.md), measured in one run against its anchors:
//  - one journaled step (an `infer` against the mock model: intent + reply) through Restate — a
//    restate-server and one `turn serve` worker on this machine — beside the same program on the
//    local SQLite journal (one fsync per write);
//  - runs per second with three workers behind the balancer beside one worker (same server, same
//    runs). On a 2-core machine three workers share the cores with the server: read the ratio as
//    what a second and third process buy here, not as what three machines would.
// Needs dist/ (npm run build): the workers are `turn serve` processes.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { compileProgram, newRestateRunId, sourcesOf, startRun, submitRun, waitForRun, SEMANTICS_VERSION } from '../runtime/index.js';
import { startBalancer } from '../runtime/restate/balancer.js';
import { freePort, startRestateServer, startWorkerProcess, type WorkerProcess } from '../test/restate/harness.js';
import { perOp, quantity, row, summarize, type Row } from './harness.js';

const STEPS = 100;
const RUNS = 60;

const stepsProgram = (tag: string) => `let i = 0;
while i < ${STEPS} {
  let a = infer Str { "${tag} question " + i; };
  let i = i + 1;
}
return i;
`;

const smallProgram = (n: number) => `let a = infer Str { "first ${n}"; };
let b = infer Str { "second ${n} " + a; };
return a + b;
`;

async function submission(file: string) {
  const code = await compileProgram(file);
  return {
    entry: path.basename(file), sources: Buffer.from(sourcesOf(code.units, code.entryPath)).toString('base64'), bytecodeHash: code.bundle.version,
    semanticsVersion: SEMANTICS_VERSION, turnVersion: 'bench', options: { model: 'mock' },
  };
}

export async function restateBenchmarks(): Promise<Row[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-bench-restate-'));
  const server = await startRestateServer();
  const balancer = await startBalancer([]);
  const workers: WorkerProcess[] = [];
  const addWorker = async () => {
    const port = await freePort();
    balancer.workers = [...balancer.workers, `http://127.0.0.1:${port}`];
    workers.push(await startWorkerProcess(['--restate-admin', server.admin, '--advertise', balancer.url, '--port', String(port)]));
  };
  try {
    await addWorker();
    const restateTimes: number[] = [];
    const localTimes: number[] = [];
    for (let sample = 0; sample < 4; sample++) {
      const file = path.join(dir, `steps${sample}.tn`);
      fs.writeFileSync(file, stepsProgram(`s${sample}`));
      // Restate: submit, run to the end on the worker (each step durable in Restate's log before the next)
      const sub = await submission(file);
      const id = newRestateRunId();
      let t0 = performance.now();
      await submitRun(server.ingress, id, sub);
      const s = await waitForRun(server.ingress, id, 5);
      const restateMs = performance.now() - t0;
      if (s.status !== 'done') throw new Error(`the Restate run ended ${s.status}`);
      // local: the same program on the SQLite journal
      t0 = performance.now();
      const run = await startRun({ file, model: 'mock', store: path.join(dir, `store${sample}`) });
      const r = await run.start();
      const localMs = performance.now() - t0;
      if (r.kind !== 'done') throw new Error(`the local run ended ${r.kind}`);
      if (sample > 0) {
        restateTimes.push(restateMs);
        localTimes.push(localMs);
      }
    }
    const rows: Row[] = [
      row(
        'one journaled step (infer, mock model) through Restate',
        perOp(summarize(restateTimes), STEPS),
        'the same step on the local SQLite journal',
        perOp(summarize(localTimes), STEPS),
        `a ${STEPS}-step run submitted to restate-server + one \`turn serve\` worker on this machine, to its end; per step: intent and reply made durable in Restate's log (one entry each wait), state mirrored`,
      ),
    ];

    // throughput: the same RUNS runs with one worker, then three
    const files = Array.from({ length: RUNS }, (_, n) => {
      const f = path.join(dir, `small${n}.tn`);
      fs.writeFileSync(f, smallProgram(n));
      return f;
    });
    const subs = await Promise.all(files.map(submission));
    const throughput = async (): Promise<number> => {
      const ids = subs.map(() => newRestateRunId());
      const t0 = performance.now();
      await Promise.all(ids.map((id, i) => submitRun(server.ingress, id, subs[i])));
      for (const id of ids) {
        const s = await waitForRun(server.ingress, id, 20);
        if (s.status !== 'done') throw new Error(`a run ended ${s.status}`);
      }
      return RUNS / ((performance.now() - t0) / 1000);
    };
    await throughput(); // warm-up
    const one = await throughput();
    await addWorker();
    await addWorker();
    await throughput(); // the new workers warm up
    const three = await throughput();
    rows.push(
      row(
        `runs/s on Restate, three workers (${os.cpus().length} cores)`,
        quantity(three, 'runs/s'),
        'one worker',
        quantity(one, 'runs/s'),
        `${RUNS} runs of two model calls each (mock), submitted at once; the workers, restate-server and this process share the machine's ${os.cpus().length} cores`,
      ),
    );
    return rows;
  } finally {
    for (const w of workers) w.child.kill('SIGKILL');
    await Promise.all(workers.map((w) => w.exited));
    await balancer.close();
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  restateBenchmarks().then(
    (rows) => {
      for (const r of rows) process.stdout.write(`${r.benchmark}: ${r.ours.medianMs.toFixed(2)} ${r.ours.unit ?? 'ms'} vs ${r.anchorName} ${r.anchor.medianMs.toFixed(2)} ${r.anchor.unit ?? 'ms'} (×${r.ratio.toFixed(2)})\n`);
    },
    (e: unknown) => {
      process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exitCode = 1;
    },
  );
}
