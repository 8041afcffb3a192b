// Cold start (issue 17): the wall time of `turn run examples/hello.tn` and of `turn lsp` from its
// start to the first diagnostics it publishes, each beside `node -e ''` (the floor: a Node process
// that does nothing), measured in the same run as fresh OS processes of the built CLI (dist/cli.js:
// run `npm run build` first). A note says what the CLI's start-up spends: compiling its bundle
// (and the largest packages in it), and which bundles it loads only on first use (the Restate SDK,
// the tokenizer: scripts/build.mjs).
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { measurePair, minus, row, spawnCostProbe, type Row } from './harness.js';

const ROOT = path.join(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'turn.js');
const HELLO = path.join(ROOT, 'examples', 'hello.tn');

function floor(): void {
  const r = spawnSync(process.execPath, ['-e', ''], { stdio: 'ignore' });
  if (r.status !== 0) throw new Error('node -e "" failed');
}

function hello(): void {
  const r = spawnSync(process.execPath, [BIN, 'run', HELLO], { encoding: 'utf8' });
  if (r.status !== 0 || !r.stdout.includes('Hello, Turn!')) throw new Error(`turn run hello.tn failed: ${r.stderr}`);
}

/** `turn lsp` over stdio: initialize, open hello.tn, wait for its diagnostics; then shut it down. */
function lspFirstDiagnostics(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'lsp', '--stdio'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const send = (msg: object) => {
      const body = JSON.stringify({ jsonrpc: '2.0', ...msg });
      child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    };
    let buf = Buffer.alloc(0);
    let done = false;
    child.stdout.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const head = buf.indexOf('\r\n\r\n');
        if (head < 0) return;
        const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString())?.[1]);
        if (buf.length < head + 4 + len) return;
        const msg = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString()) as { id?: number; method?: string };
        buf = buf.subarray(head + 4 + len);
        if (msg.id === 1 && !msg.method) {
          send({ method: 'initialized', params: {} });
          send({ method: 'textDocument/didOpen', params: { textDocument: { uri: `file://${HELLO}`, languageId: 'turn', version: 1, text: fs.readFileSync(HELLO, 'utf8') } } });
        }
        if (msg.method === 'textDocument/publishDiagnostics' && !done) {
          done = true;
          child.kill();
          resolve();
        }
      }
    });
    child.on('error', reject);
    child.on('exit', () => {
      if (!done) reject(new Error('turn lsp exited before publishing diagnostics'));
    });
    send({ id: 1, method: 'initialize', params: { processId: process.pid, rootUri: null, capabilities: {} } });
  });
}

const mb = (file: string): string => `${(fs.statSync(path.join(ROOT, 'dist', file)).size / 1e6).toFixed(1)} MB`;

/**
 * The largest packages in the CLI bundle (from its source map): what its compile at start-up
 * parses; and the bundles it loads only on first use (scripts/build.mjs), which hello.tn never loads.
 */
function bundleShare(): string {
  const map = path.join(ROOT, 'dist', 'cli.js.map');
  if (!fs.existsSync(map)) return 'no source map';
  const m = JSON.parse(fs.readFileSync(map, 'utf8')) as { sources: string[]; sourcesContent?: string[] };
  const by = new Map<string, number>();
  m.sources.forEach((s, i) => {
    const size = m.sourcesContent?.[i]?.length ?? 0;
    const nm = s.split('node_modules/')[1];
    const key = nm ? nm.split('/').slice(0, nm.startsWith('@') ? 2 : 1).join('/') : 'Turn itself';
    by.set(key, (by.get(key) ?? 0) + size);
  });
  const top = [...by].sort((a, b) => b[1] - a[1]).slice(0, 4);
  const lazy = [['restate-sdk.js', '`turn serve`'], ['tokenizer.js', 'a context over its budget']].filter(([f]) => fs.existsSync(path.join(ROOT, 'dist', f)));
  return (
    `dist/cli.js is ${mb('cli.js')}, started from its V8 code cache (${codeCacheNote()}); largest: ${top.map(([k, v]) => `${k} ${(v / 1e6).toFixed(1)} MB`).join(', ')}` +
    (lazy.length ? `; loaded on first use: ${lazy.map(([f, when]) => `dist/${f} ${mb(f)} (${when})`).join(', ')}` : '')
  );
}

/** The build's code caches (bin/code-cache.js): which exist and their size. */
function codeCacheNote(): string {
  const dir = path.join(ROOT, 'dist', 'code-cache');
  if (!fs.existsSync(dir)) return 'none built: run `npm run build`';
  return fs.readdirSync(dir).map((f) => `${f} ${(fs.statSync(path.join(dir, f)).size / 1e6).toFixed(1)} MB`).join(', ');
}

function helloWithoutCodeCache(): void {
  const r = spawnSync(process.execPath, [BIN, 'run', HELLO], { encoding: 'utf8', env: { ...process.env, TURN_CODE_CACHE: 'off' } });
  if (r.status !== 0 || !r.stdout.includes('Hello, Turn!')) throw new Error(`turn run hello.tn failed: ${r.stderr}`);
}

export async function coldStartBenchmarks(): Promise<Row[]> {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) return [];
  const run = await measurePair(hello, floor, { warmup: 1, samples: 7 });
  const lsp = await measurePair(lspFirstDiagnostics, floor, { warmup: 1, samples: 7 });
  const cache = await measurePair(hello, helloWithoutCodeCache, { warmup: 1, samples: 7 });
  // the harness's own cost of a process (spawnSync of /bin/true from this process), taken off both sides
  const probe = spawnCostProbe();
  const spawned = probe ? await measurePair(probe, floor, { warmup: 1, samples: 7 }) : undefined;
  const cost = spawned?.ours.medianMs ?? 0;
  const own = spawned
    ? [row("cold start: `turn run hello.tn`, less the harness's spawn cost (ms)", minus(run.ours, cost), "`node -e ''`, less the same cost", minus(run.anchor, cost),
        `each side minus the median of spawnSync('/bin/true') from the bench process (${cost.toFixed(1)} ms, measured alternated with \`node -e ''\`): the process's own start, without what starting and reaping any process costs the harness`)]
    : [];
  return [
    ...own,
    row('cold start: `turn run examples/hello.tn`, wall (ms)', run.ours, "`node -e ''`, wall", run.anchor, bundleShare()),
    row('cold start: `turn run hello.tn` from the code cache ÷ without it (ms)', cache.ours, 'TURN_CODE_CACHE=off (compiles dist/cli.js)', cache.anchor, 'the same command, alternated; the difference is what the V8 code cache saves'),
    row('cold start: `turn lsp` to its first diagnostics (ms)', lsp.ours, "`node -e ''`, wall", lsp.anchor, `initialize, didOpen of hello.tn, first publishDiagnostics; \`turn lsp\` loads the same dist/cli.js bundle (the editor starts dist/server.js, ${mb('server.js')} as built)`),
  ];
}

if (require.main === module) {
  (async () => {
    const { markdownTable } = await import('./harness.js');
    process.stdout.write(markdownTable(await coldStartBenchmarks()) + '\n');
  })().catch((e) => {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
