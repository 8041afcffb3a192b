// `infer` with the mock model against a plain JSON mock (issue 45): 2,000 × `infer Num` in a loop,
// run the way `turn run --model mock` runs it (startRun: the run's host with its guard, redaction,
// budgets, approvals and the mock provider; no store), against the same compiled loop in the VM with
// a host that answers every model call at once with the reply's JSON text (the driver still parses
// and validates it). A second anchor is the loop in plain JavaScript: an async mock returning the
// JSON text, parsed and checked — what no interpreter can beat. Reported: time per call.
//
// Alone: node --import tsx bench/infer-mock.ts
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startRun } from '../runtime/run/index.js';
import { runBundle } from '../runtime/vm/index.js';
import { compile } from './actors.js';
import { measurePair, perOp, row, type Row } from './harness.js';

export const INFER_CALLS = 2_000;
const REPLY = '{"value": 1, "confidence": 0.9}';
const program = `let i = 0;\nwhile i < ${INFER_CALLS} {\n  let x = infer Num { "a number"; };\n  let i = i + 1;\n}\nreturn i;\n`;

export async function inferMockBenchmarks(): Promise<Row[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-bench-infer-'));
  try {
    fs.writeFileSync(path.join(dir, 'p.tn'), program);
    const bundle = await compile(program);
    const withMock = async () => {
      const run = await startRun({ file: path.join(dir, 'p.tn'), cwd: dir, model: 'mock', onOutput: () => {} });
      const out = await run.start();
      if (out.kind !== 'done' || out.json !== INFER_CALLS) throw new Error(`the mock-model loop did not finish: ${out.kind}`);
    };
    const plainHost = { output: () => {}, infer: async () => ({ text: REPLY }) };
    const withJson = async () => {
      const out = await runBundle(bundle, plainHost, { maxSteps: 0 });
      if (!out.ok || out.json !== INFER_CALLS) throw new Error('the plain-JSON loop did not finish');
    };
    const mock = async (_prompt: string): Promise<string> => REPLY;
    const inJs = async () => {
      let n = 0;
      for (let i = 0; i < INFER_CALLS; i++) {
        const v = (JSON.parse(await mock('a number')) as { value: unknown }).value;
        if (typeof v === 'number') n++;
      }
      if (n !== INFER_CALLS) throw new Error('the JavaScript loop did not finish');
    };
    const opts = { warmup: 3, samples: 11 };
    const vsJson = await measurePair(withMock, withJson, opts);
    const vsJs = await measurePair(withMock, inJs, opts);
    const calls = INFER_CALLS.toLocaleString('en');
    return [
      row(`${calls} × \`infer Num\`, mock model (startRun, no store): time per call`, perOp(vsJson.ours, INFER_CALLS), 'the same loop in the VM, host answering the reply JSON at once', perOp(vsJson.anchor, INFER_CALLS),
        'ours includes compiling the program once per sample (startRun), as `turn run` does'),
      row(`${calls} × \`infer Num\`, mock model: time per call`, perOp(vsJs.ours, INFER_CALLS), 'plain JavaScript: an async mock, JSON.parse, a type check', perOp(vsJs.anchor, INFER_CALLS)),
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  (async () => {
    const { markdownTable } = await import('./harness.js');
    process.stdout.write(`load average ${os.loadavg()[0].toFixed(2)} at the start\n`);
    process.stdout.write(markdownTable(await inferMockBenchmarks()) + '\n');
  })().catch((e) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
