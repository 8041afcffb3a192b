// Start-up from a V8 startup snapshot (issue 45): is Node 20's userland snapshot
// (`node --build-snapshot`, then `node --snapshot-blob BLOB ARGS`) a faster start for `turn` than
// the code cache the launcher uses (bin/code-cache.js)? The bench builds a snapshot of the built
// CLI (dist/cli.js) in a temporary folder, times that build, and measures `turn run hello.tn` from
// it beside the launcher's path and beside `node -e ''` and an empty snapshot (Node's own cost of
// starting from a user snapshot), all as fresh OS processes, alternated.
//
// A snapshot entry may `require` only Node's builtins, so the entry wraps the bundle with a
// `require` that returns a builtin or, for a package (ajv's runtime parts, re2js), a stand-in
// that requires it on first use, after deserialization. One top-level value of the bundle cannot
// be snapshotted: Node 20 removes SharedArrayBuffer while it builds a snapshot, and the knowledge
// store makes an Int32Array over one for its lock wait at load (runtime/knowledge); the entry
// lends it a plain ArrayBuffer, so this snapshot is a measurement, not a shippable CLI (a knowledge
// lock wait from it would throw). docs/performance.md, *Start-up from a snapshot*, has the figures.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { measurePair, row, type Row } from './harness.js';

const ROOT = path.join(__dirname, '..');
const CLI = path.join(ROOT, 'dist', 'cli.js');
const BIN = path.join(ROOT, 'bin', 'turn.js');
const HELLO = path.join(ROOT, 'examples', 'hello.tn');

/** The snapshot entry's source: the bundle as a CommonJS module body, its packages required after deserialization. */
export function snapshotEntry(cli: string): string {
  const source = fs.readFileSync(cli, 'latin1');
  return `'use strict';
const builtin = require;
const CLI = ${JSON.stringify(cli)};
let real;
function requireLater(id) {
  if (builtin('node:module').isBuiltin(id)) return builtin(id);
  let m;
  const load = () => (m ??= (real ??= builtin('node:module').createRequire(CLI))(id));
  return new Proxy(function () {}, {
    get: (_, k) => load()[k],
    has: (_, k) => k in load(),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_, k) => { const d = Reflect.getOwnPropertyDescriptor(load(), k); return d && { ...d, configurable: true }; },
    apply: (_, self, argv) => Reflect.apply(load(), self, argv),
    construct: (_, argv) => Reflect.construct(load(), argv),
  });
}
if (typeof SharedArrayBuffer === 'undefined') globalThis.SharedArrayBuffer = ArrayBuffer;
const mod = { exports: {} };
(function (exports, require, module, __filename, __dirname) {
${source}
})(mod.exports, requireLater, mod, CLI, ${JSON.stringify(path.dirname(cli))});
builtin('node:v8').startupSnapshot.setDeserializeMainFunction(() => mod.exports.runAsProcess(process.argv.slice(1)));
`;
}

/** Builds BLOB from ENTRY with this Node; its wall time (ms). */
function buildSnapshot(entry: string, blob: string): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, ['--snapshot-blob', blob, '--build-snapshot', entry], { cwd: path.dirname(entry), encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`node --build-snapshot failed: ${r.stderr.slice(-500)}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function spawnOk(args: string[], env: NodeJS.ProcessEnv = process.env, expect?: string): void {
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', env });
  if (r.status !== 0 || (expect !== undefined && !r.stdout.includes(expect))) throw new Error(`node ${args.join(' ')} failed: ${r.stderr.slice(0, 300)}`);
}

export async function snapshotBenchmarks(): Promise<Row[]> {
  if (!fs.existsSync(CLI)) return [];
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-snapshot-bench-'));
  try {
    const entry = path.join(dir, 'entry.js');
    const blob = path.join(dir, 'cli.blob');
    fs.writeFileSync(entry, snapshotEntry(CLI));
    const buildMs = buildSnapshot(entry, blob);
    const emptyEntry = path.join(dir, 'empty.js');
    const emptyBlob = path.join(dir, 'empty.blob');
    fs.writeFileSync(emptyEntry, "require('node:v8').startupSnapshot.setDeserializeMainFunction(() => {});\n");
    buildSnapshot(emptyEntry, emptyBlob);
    const mb = (f: string) => `${(fs.statSync(f).size / 1e6).toFixed(1)} MB`;

    const fromSnapshot = () => spawnOk(['--snapshot-blob', blob, 'run', HELLO], process.env, 'Hello, Turn!');
    const fromCodeCache = () => spawnOk([BIN, 'run', HELLO], process.env, 'Hello, Turn!');
    const nodeFloor = () => spawnOk(['-e', '']);
    const emptySnapshot = () => spawnOk(['--snapshot-blob', emptyBlob]);
    const vsCache = await measurePair(fromSnapshot, fromCodeCache, { warmup: 1, samples: 7 });
    const vsFloor = await measurePair(fromSnapshot, nodeFloor, { warmup: 1, samples: 7 });
    const emptyVsFloor = await measurePair(emptySnapshot, nodeFloor, { warmup: 1, samples: 7 });
    const note = `a snapshot of dist/cli.js (${mb(blob)}, built in ${(buildMs / 1000).toFixed(1)} s by \`node --build-snapshot\`; an empty one is ${mb(emptyBlob)}); measured only, not the launch path (docs/performance.md, *Start-up from a snapshot*)`;
    return [
      row('start-up: `turn run hello.tn` from a V8 startup snapshot ÷ from the code cache (ms)', vsCache.ours, '`node bin/turn.js run hello.tn` (the code cache)', vsCache.anchor, note),
      row("start-up: `turn run hello.tn` from a V8 startup snapshot ÷ `node -e ''` (ms)", vsFloor.ours, "`node -e ''`", vsFloor.anchor, 'whole process, wall, alternated'),
      row("start-up: an empty user snapshot ÷ `node -e ''` (ms)", emptyVsFloor.ours, "`node -e ''`", emptyVsFloor.anchor, "what Node itself adds to start from a user snapshot: the snapshot's floor"),
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  (async () => {
    const { markdownTable } = await import('./harness.js');
    process.stdout.write(markdownTable(await snapshotBenchmarks()) + '\n');
  })().catch((e) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
