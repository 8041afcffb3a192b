// Writes the CLI's V8 code caches into dist/code-cache/ (bin/code-cache.js, docs/performance.md,
// *Cold start*): runs `turn run`, `turn check` and a `turn lsp` session to its first diagnostics
// once each, so that a fresh clone or the packed tarball starts warm. Called by scripts/build.mjs
// after the bundles are written; dist/build-id (the bundle's hash) tags the caches, so a cache of
// an older bundle is never used.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = join(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');
const BIN = join(ROOT, 'bin', 'turn.js');
const HELLO = join(ROOT, 'examples', 'hello.tn');
const DIR = join(ROOT, 'dist', 'code-cache');

export async function writeCodeCaches() {
  writeFileSync(join(ROOT, 'dist', 'build-id'), createHash('sha256').update(readFileSync(join(ROOT, 'dist', 'cli.js'))).digest('hex').slice(0, 32) + '\n');
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const env = { ...process.env, TURN_CODE_CACHE_WRITE: DIR, TURN_PARSE_CACHE: 'off' }; // every run parses: the cache holds the parse path
  for (const args of [['run', HELLO], ['check', HELLO]]) {
    const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`code cache: turn ${args[0]} failed: ${r.stderr || r.error}`);
  }
  await lspSession(env);
}

/** initialize, didOpen hello.tn, the first publishDiagnostics, then shutdown and exit (the cache is written at exit). */
function lspSession(env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'lsp', '--stdio'], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'inherit'] });
    const timer = setTimeout(() => child.kill(), 120_000);
    const send = (msg) => {
      const body = JSON.stringify({ jsonrpc: '2.0', ...msg });
      child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    };
    let buf = Buffer.alloc(0);
    let diagnosed = false;
    child.stdout.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      for (;;) {
        const head = buf.indexOf('\r\n\r\n');
        if (head < 0) return;
        const len = Number(/Content-Length: (\d+)/i.exec(buf.subarray(0, head).toString())?.[1]);
        if (buf.length < head + 4 + len) return;
        const msg = JSON.parse(buf.subarray(head + 4, head + 4 + len).toString());
        buf = buf.subarray(head + 4 + len);
        if (msg.id === 1 && !msg.method) {
          send({ method: 'initialized', params: {} });
          send({ method: 'textDocument/didOpen', params: { textDocument: { uri: pathToFileURL(HELLO).href, languageId: 'turn', version: 1, text: readFileSync(HELLO, 'utf8') } } });
        }
        if (msg.method === 'textDocument/publishDiagnostics' && !diagnosed) {
          diagnosed = true;
          send({ id: 2, method: 'shutdown' });
        }
        if (msg.id === 2) send({ method: 'exit' });
      }
    });
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      if (diagnosed) resolve();
      else reject(new Error('code cache: turn lsp exited before publishing diagnostics'));
    });
    send({ id: 1, method: 'initialize', params: { processId: process.pid, rootUri: null, capabilities: {} } });
  });
}
