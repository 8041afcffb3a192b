// Turn v1 as a peer (issue 29): the programs of the issue's side-by-side table, written in Turn v1's
// style (spec/LANGUAGE.md: `let` updates a name, `while`, `spawn`/`spawn_link`, `receive`, `remember`,
// `infer Num`, `suspend;`), run by our CLI and by a Turn v1 binary as whole OS processes, the two
// alternated (ours, v1, v1, ours ...), five samples each after a warm-up; ratio = ours ÷ v1 on
// medians. Runs only when TURN_V1_BIN names the binary (built from Turn v1's repository with
// `cargo build --release`); without it the section is skipped and the report says so.
//
// What each figure is: "start-up" is the wall time of the empty program's whole process; every
// other row is the program's process minus that side's start-up median ("in program"), divided by
// the operations where the row is per operation. The checkpoint row is the process of a program
// that remembers 5,000 entries and reaches `suspend;`, minus the same program without `suspend;`.
// TURN_V1_RUN (default `run`) is the subcommand that runs a file; TURN_V1_ENV (default
// `TURN_LLM_PROVIDER=mock`) is the environment Turn v1 answers `infer` with a mock model under;
// both runs execute in a fresh temporary folder each (a suspended run leaves its checkpoint there).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { minus, perOp, row, spawnCostProbe, type Row, type Sample } from './harness.js';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'turn.js');

interface Program {
  name: string;
  source: string;
  /** operations the in-program figure is divided by (per-operation rows) */
  ops?: number;
  unit?: string;
  /** subtract this program's time instead of the empty program's (the checkpoint row) */
  baseline?: string;
}

const N_SPAWN = 10_000;
const N_MESSAGES = 100_000;
const N_MEMORY = 100_000;
const N_INFER = 1_000;
const N_CHECKPOINT = 5_000;

const EMPTY = 'return 0;\n';
const REMEMBER = `let i = 0;\nwhile i < ${N_CHECKPOINT} {\n  remember("key_" + i, "value_" + i);\n  let i = i + 1;\n}\n`;

export const PROGRAMS: Program[] = [
  { name: '`while` sum of i < 5,000,000 (in program, ms)', source: 'let i = 0;\nlet s = 0;\nwhile i < 5000000 {\n  let s = s + i;\n  let i = i + 1;\n}\nreturn s;\n' },
  // Turn v1 applies a closure only through `call(f, ARG)`, and a closure does not see its own
  // `let` name, so fib is handed itself (a map binds the parameters by name)
  {
    name: 'fib(25) (in program, ms)',
    source: 'let fib = turn(f: Any, n: Num) -> Num {\n  if n < 2 { return n; }\n  return call(f, {"f": f, "n": n - 1}) + call(f, {"f": f, "n": n - 2});\n};\nreturn call(fib, {"f": fib, "n": 25});\n',
  },
  {
    name: `spawn_link + exit, ${N_SPAWN.toLocaleString('en')} processes (µs each)`,
    source: `let i = 0;\nwhile i < ${N_SPAWN} {\n  spawn_link turn() { return 1; };\n  let i = i + 1;\n}\nlet j = 0;\nwhile j < ${N_SPAWN} {\n  let m = receive;\n  let j = j + 1;\n}\nreturn j;\n`,
    ops: N_SPAWN,
  },
  {
    // Turn v1 has no way to name its own pid (no `self`), so two children play ping-pong, each
    // told the other's pid by a message; the parent waits for the linked one's exit signal
    name: `ping-pong, ${N_MESSAGES.toLocaleString('en')} messages (µs per message)`,
    source:
      `let b = spawn turn() {\n  let a = receive;\n  let n = 0;\n  while n < ${N_MESSAGES / 2} {\n    let m = receive;\n    send a, m;\n    let n = n + 1;\n  }\n  return n;\n};\n` +
      `let a = spawn_link turn() {\n  let b = receive;\n  let i = 0;\n  while i < ${N_MESSAGES / 2} {\n    send b, i;\n    let r = receive;\n    let i = i + 1;\n  }\n  return i;\n};\n` +
      `send b, a;\nsend a, b;\nlet done = receive;\nreturn 0;\n`,
    ops: N_MESSAGES,
  },
  {
    name: `remember + recall, ${N_MEMORY.toLocaleString('en')} entries (µs per operation, both together)`,
    source: `let i = 0;\nwhile i < ${N_MEMORY} {\n  remember("k" + i, i);\n  let i = i + 1;\n}\nlet j = 0;\nlet s = 0;\nwhile j < ${N_MEMORY} {\n  let s = s + recall("k" + j);\n  let j = j + 1;\n}\nreturn s;\n`,
    ops: 2 * N_MEMORY,
  },
  { name: `${N_INFER.toLocaleString('en')} × \`infer Num\`, mock model (ms each)`, source: `let i = 0;\nwhile i < ${N_INFER} {\n  let x = infer Num { "a number"; };\n  let i = i + 1;\n}\nreturn i;\n`, ops: N_INFER, unit: 'ms' },
  { name: `checkpoint of ${N_CHECKPOINT.toLocaleString('en')} entries: save (suspend) in the process (ms)`, source: REMEMBER + 'suspend;\nreturn i;\n', baseline: REMEMBER + 'return i;\n' },
];

type Side = 'ours' | 'v1';

function envPairs(spec: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of spec.split(/\s+/).filter(Boolean)) {
    const eq = pair.indexOf('=');
    if (eq > 0) out[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return out;
}

/** One whole-process run of `source` by one side, in a fresh folder: its wall time (ms). */
function runOnce(side: Side, source: string, v1: string): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `turn-v1-peer-${side}-`));
  try {
    fs.writeFileSync(path.join(dir, 'p.tn'), source);
    const [cmd, args, env] =
      side === 'ours'
        ? [process.execPath, [BIN, 'run', 'p.tn'], {}]
        : [v1, [...(process.env.TURN_V1_RUN ?? 'run').split(/\s+/).filter(Boolean), 'p.tn'], envPairs(process.env.TURN_V1_ENV ?? 'TURN_LLM_PROVIDER=mock')];
    const start = process.hrtime.bigint();
    const r = spawnSync(cmd, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 600_000 });
    const ms = Number(process.hrtime.bigint() - start) / 1e6;
    if (r.status !== 0) throw new Error(`${side === 'ours' ? 'turn' : 'Turn v1'} failed on a peer program (exit ${r.status}): ${(r.stderr || String(r.error)).slice(0, 300)}\n${source}`);
    return ms;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]): number => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sample = (xs: number[]): Sample => ({ medianMs: median(xs), minMs: Math.min(...xs), maxMs: Math.max(...xs), samples: xs.length });

/** Both sides on one program, alternated: raw wall times per side. */
function alternate(source: string, v1: string, samples: number): Record<Side, number[]> {
  const out: Record<Side, number[]> = { ours: [], v1: [] };
  runOnce('ours', source, v1); // warm-up: file caches, our code cache
  runOnce('v1', source, v1);
  for (let i = 0; i < samples; i++) {
    const order: Side[] = i % 2 === 0 ? ['ours', 'v1'] : ['v1', 'ours'];
    for (const side of order) out[side].push(runOnce(side, source, v1));
  }
  return out;
}

export interface TurnV1Result {
  rows: Row[];
  /** why the section did not run */
  skipped?: string;
}

export function turnV1Benchmarks(samples = 5): TurnV1Result {
  const v1 = process.env.TURN_V1_BIN;
  if (!v1) return { rows: [], skipped: 'Turn v1 peer: skipped (set TURN_V1_BIN to a Turn v1 binary, built from its repository with `cargo build --release`, to run the side-by-side rows)' };
  if (!fs.existsSync(v1)) return { rows: [], skipped: `Turn v1 peer: skipped (TURN_V1_BIN=${v1} does not exist)` };
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) return { rows: [], skipped: 'Turn v1 peer: skipped (our CLI is not built: npm run build)' };
  const empty = alternate(EMPTY, v1, samples);
  const startUp = { ours: median(empty.ours), v1: median(empty.v1) };
  const rows: Row[] = [row('Turn v1 peer: start-up, empty program (whole process, ms)', sample(empty.ours), 'Turn v1, same program', sample(empty.v1), 'both: the wall time of `run` of a one-line program as a new OS process, as the harness sees it')];
  // the same pair without the harness's own cost of starting and reaping a process (/bin/true, timed the same way, alternated with another pair)
  const probe = spawnCostProbe();
  if (probe) {
    const again = { ours: [] as number[], v1: [] as number[], spawn: [] as number[] };
    for (let i = 0; i < samples; i++) {
      again.spawn.push(probe());
      const order: Side[] = i % 2 === 0 ? ['ours', 'v1'] : ['v1', 'ours'];
      for (const side of order) again[side].push(runOnce(side, EMPTY, v1));
      again.spawn.push(probe());
    }
    const cost = median(again.spawn);
    rows.push(row('Turn v1 peer: start-up, empty program, less the harness\'s spawn cost (ms)', minus(sample(again.ours), cost), 'Turn v1, same program, less the same cost', minus(sample(again.v1), cost),
      `each side's wall time minus the median of spawnSync('/bin/true') from the same bench process (${cost.toFixed(1)} ms): what starting, waiting for and reaping any process costs the harness`));
  }
  for (const p of PROGRAMS) {
    const t = alternate(p.source, v1, samples);
    let base = startUp;
    if (p.baseline) {
      const b = alternate(p.baseline, v1, samples);
      base = { ours: median(b.ours), v1: median(b.v1) };
    }
    const inProgram = (side: Side): Sample => {
      const s = sample(t[side].map((ms) => Math.max(0, ms - base[side])));
      if (!p.ops) return s;
      const per = perOp(s, p.ops);
      return p.unit === 'ms' ? { ...per, medianMs: per.medianMs / 1000, minMs: per.minMs / 1000, maxMs: per.maxMs / 1000, unit: 'ms' } : per;
    };
    rows.push(row(`Turn v1 peer: ${p.name}`, inProgram('ours'), 'Turn v1, same program', inProgram('v1'), p.baseline ? 'process time minus the same program without `suspend;`' : 'process time minus that side\'s start-up median'));
  }
  return { rows };
}

if (require.main === module) {
  void (async () => {
    const { markdownTable } = await import('./harness.js');
    const r = turnV1Benchmarks();
    process.stdout.write(r.skipped ? r.skipped + '\n' : markdownTable(r.rows) + '\n');
  })();
}
