// Repeated runs, warm against cold (issue 45): N runs of examples/hello.tn as N fresh `turn run`
// processes, against the same N runs one after another in one Node process that is already
// started (the runtime's own entry, `startRun`, as `turn test`, watch mode, `turn mcp` and the
// editor's server run programs: each is one long-lived process). What the warm side saves is
// the process start and the bundle's load, paid once instead of N times.
//
// Each warm run is a new Run (a fresh VM, process table, mailboxes, memory and host): what a run
// shares with the one before it is the process's module-level caches (parsed grammar, compiled
// schemas and regular expressions, compiled loops keyed by bytecode). docs/performance.md,
// *Repeated runs, warm*, lists the module-level state of runtime/ and what of it a run could see.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { startRun } from '../runtime/index.js';
import { measurePair, row, type Row } from './harness.js';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'turn.js');
const HELLO = path.join(ROOT, 'examples', 'hello.tn');
const N = 20;

async function warmRuns(): Promise<void> {
  for (let i = 0; i < N; i++) {
    let out = '';
    const run = await startRun({ file: HELLO, cwd: ROOT, model: 'mock', onOutput: (text: string) => (out += text) });
    await run.start();
    if (!out.includes('Hello, Turn!')) throw new Error(`a warm run printed ${JSON.stringify(out)}`);
  }
}

function coldRuns(): void {
  for (let i = 0; i < N; i++) {
    const r = spawnSync(process.execPath, [BIN, 'run', HELLO], { encoding: 'utf8' });
    if (r.status !== 0 || !r.stdout.includes('Hello, Turn!')) throw new Error(`turn run hello.tn failed: ${r.stderr}`);
  }
}

export async function warmBenchmarks(): Promise<Row[]> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) return [];
  const pair = await measurePair(warmRuns, coldRuns, { warmup: 1, samples: 3 });
  const per = (s: typeof pair.ours) => ({ ...s, medianMs: s.medianMs / N, minMs: s.minMs / N, maxMs: s.maxMs / N });
  return [
    row(`repeated runs: ${N} × hello.tn in one warm process (ms per run)`, per(pair.ours), `${N} × \`turn run hello.tn\`, a process each`, per(pair.anchor),
      'each warm run a new Run (fresh VM, processes, memory, host) through the runtime entry, as `turn test`, watch mode and `turn mcp` run programs; alternated'),
  ];
}

if (require.main === module) {
  (async () => {
    const { markdownTable } = await import('./harness.js');
    process.stdout.write(markdownTable(await warmBenchmarks()) + '\n');
  })().catch((e) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
