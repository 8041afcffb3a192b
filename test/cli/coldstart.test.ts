// Cold start (issue 17, docs/performance.md): the Restate SDK and the tokenizer are separate bundles
// (dist/restate-sdk.js, dist/tokenizer.js, scripts/build.mjs) that the built CLI loads only when a
// run needs them. Each check runs `turn` with a preloaded hook that writes the files in Node's
// module cache at exit: a plain run must not have loaded either bundle, and a worker or a
// token-counting run must have loaded its own. Bundling either package back into dist/cli.js (or
// requiring it at start-up) fails one of them. The last test checks that the .vsix ships every
// bundle that a shipped bundle requires beside itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { ROOT } from './run-cli.js';

const BIN = path.join(ROOT, 'bin', 'turn.js');
const SDK = path.join(ROOT, 'dist', 'restate-sdk.js');
const TOKENIZER = path.join(ROOT, 'dist', 'tokenizer.js');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-coldstart-'));
const HOOK = path.join(tmp, 'loaded-hook.js');
fs.writeFileSync(HOOK, "process.on('exit', () => require('node:fs').writeFileSync(process.env.TURN_LOADED_OUT, JSON.stringify(Object.keys(require.cache))));\n");

let n = 0;
/** `node -r HOOK bin/turn.js ARGS` (synchronously): its result and the files it had loaded. */
function turnLoading(args: string[]): { code: number | null; stdout: string; stderr: string; loaded: string[] } {
  const out = path.join(tmp, `loaded-${++n}.json`);
  const r = spawnSync(process.execPath, ['-r', HOOK, BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TURN_LOADED_OUT: out }, timeout: 300_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, loaded: JSON.parse(fs.readFileSync(out, 'utf8')) as string[] };
}

test('turn run of a hello program loads neither the Restate SDK nor the tokenizer', () => {
  const r = turnLoading(['run', path.join(ROOT, 'examples', 'hello.tn')]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'Hello, Turn!\n');
  assert.ok(r.loaded.includes(path.join(ROOT, 'dist', 'cli.js')), `the hook saw the CLI load: ${r.loaded.join(', ')}`);
  assert.ok(!r.loaded.includes(SDK), 'dist/restate-sdk.js was loaded');
  assert.ok(!r.loaded.includes(TOKENIZER), 'dist/tokenizer.js was loaded');
});

test("a durable run takes better-sqlite3's JavaScript from the CLI bundle and only its native module from node_modules", () => {
  const dir = fs.mkdtempSync(path.join(tmp, 'durable-'));
  const r = turnLoading(['run', '--store', dir, path.join(ROOT, 'examples', 'hello.tn')]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'Hello, Turn!\n');
  assert.ok(fs.existsSync(path.join(dir, 'store.db')), 'the run was stored');
  const fromPackage = r.loaded.filter((f) => f.split(path.sep).includes('better-sqlite3'));
  assert.ok(fromPackage.some((f) => f.endsWith('.node')), `its native module was loaded: ${r.loaded.join(', ')}`);
  assert.deepEqual(fromPackage.filter((f) => f.endsWith('.js')), [], 'no JavaScript file of the package was loaded from node_modules');
});

// Node's own modules that are not in its start-up snapshot and that a plain run does not use: each
// was loaded at start-up by a static import somewhere in the bundle (issue 29: the MCP server SDK,
// whose HTTP server installs Node's fetch globals, loaded undici, http2 and streams; crypto, zlib,
// http, https, worker_threads were top-level imports of modules a hello run never calls into;
// perf_hooks came with the first `performance.now()`, runtime/monotonic.ts says why; fs/promises
// with web-tree-sitter reading the grammar from a path).
const UNUSED_BY_HELLO = ['crypto', 'zlib', 'http', 'https', 'http2', 'tls', 'worker_threads', 'child_process', 'internal/deps/undici/undici', 'readline', 'perf_hooks', 'fs/promises'];
const BUILTINS_HOOK = path.join(tmp, 'builtins-hook.js');
fs.writeFileSync(BUILTINS_HOOK, "process.on('exit', () => require('node:fs').writeFileSync(process.env.TURN_LOADED_OUT, JSON.stringify(process.moduleLoadList)));\n");

/** The Node modules (`NativeModule x` entries of process.moduleLoadList) a process of `node -r BUILTINS_HOOK ARGS` had loaded at exit. */
function builtinsLoaded(args: string[], input?: string): { code: number | null; stderr: string; modules: string[] } {
  const out = path.join(tmp, `builtins-${++n}.json`);
  const r = spawnSync(process.execPath, ['-r', BUILTINS_HOOK, ...args], { cwd: ROOT, encoding: 'utf8', input, env: { ...process.env, TURN_LOADED_OUT: out, TURN_CACHE_DIR: tmp }, timeout: 300_000 });
  const list = JSON.parse(fs.readFileSync(out, 'utf8')) as string[];
  return { code: r.status, stderr: r.stderr, modules: list.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length)) };
}

test('turn run of a hello program loads none of the Node modules it does not use', () => {
  const r = builtinsLoaded([BIN, 'run', path.join(ROOT, 'examples', 'hello.tn')]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.modules.includes('vm'), `the hook saw the launcher load node:vm: ${r.modules.join(', ')}`);
  assert.deepEqual(UNUSED_BY_HELLO.filter((m) => r.modules.includes(m)), []);
});

// The JSON Schema validator (ajv) is initialised on first use (scripts/build.mjs, `lazyClasses`):
// its stand-in lists what it loaded under Symbol.for('turn.lazyLoaded'), which this hook writes out.
const LAZY_HOOK = path.join(tmp, 'lazy-hook.js');
fs.writeFileSync(LAZY_HOOK, "process.on('exit', () => require('node:fs').writeFileSync(process.env.TURN_LOADED_OUT, JSON.stringify(globalThis[Symbol.for('turn.lazyLoaded')] ?? [])));\n");

function lazyLoaded(args: string[]): { code: number | null; stdout: string; stderr: string; lazy: string[] } {
  const out = path.join(tmp, `lazy-${++n}.json`);
  const r = spawnSync(process.execPath, ['-r', LAZY_HOOK, BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, TURN_LOADED_OUT: out }, timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, lazy: JSON.parse(fs.readFileSync(out, 'utf8')) as string[] };
}

test('turn run of a hello program never initialises the JSON Schema validator; a run that validates loads it and its messages', () => {
  const hello = lazyLoaded(['run', path.join(ROOT, 'examples', 'hello.tn')]);
  assert.equal(hello.code, 0, hello.stderr);
  assert.equal(hello.stdout, 'Hello, Turn!\n');
  assert.deepEqual(hello.lazy, []);
  // a script model's fixture is checked against its JSON Schema with ajv: a stray key is its message
  const fixture = path.join(tmp, 'replies.json');
  fs.writeFileSync(fixture, JSON.stringify({ replies: [{ value: 4, colour: 'red' }] }));
  const prog = path.join(tmp, 'ask.tn');
  fs.writeFileSync(prog, 'let n = infer Num { "2 + 2?"; };\ncall("echo", n);\n');
  const bad = lazyLoaded(['run', '--model', `script:${fixture}`, prog]);
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /replies\[0\]: must NOT have additional properties \("colour"\)/);
  assert.ok(bad.lazy.some((m) => m.startsWith('ajv')), `ajv was not loaded: ${JSON.stringify(bad.lazy)}`);
  // and a good fixture's answer is validated against the type and printed
  fs.writeFileSync(fixture, JSON.stringify({ replies: [{ value: 4 }] }));
  const good = lazyLoaded(['run', '--model', `script:${fixture}`, prog]);
  assert.equal(good.code, 0, good.stderr);
  assert.equal(good.stdout, '4\n');
});

test('turn lsp to its first diagnostics loads neither child_process nor crypto (the language server libraries require them for other transports)', () => {
  const messages = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } },
    { jsonrpc: '2.0', method: 'initialized', params: {} },
    { jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: 'file:///tmp/x.tn', languageId: 'turn', version: 1, text: 'let x = ;' } } },
    { jsonrpc: '2.0', id: 2, method: 'shutdown' },
    { jsonrpc: '2.0', method: 'exit' },
  ];
  const input = messages.map((m) => JSON.stringify(m)).map((body) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`).join('');
  const r = builtinsLoaded([BIN, 'lsp', '--stdio'], input);
  assert.ok(r.modules.includes('vm'), `the hook saw the launcher load node:vm: ${r.modules.join(', ')} (${r.stderr})`);
  assert.deepEqual(['child_process', 'crypto', 'http', 'zlib', 'perf_hooks'].filter((m) => r.modules.includes(m)), []);
});

test('a run whose context outgrows its budget loads the tokenizer, and counts real tokens', () => {
  const p = path.join(tmp, 'ctx.tn');
  fs.writeFileSync(p, 'context.append("the quick brown fox");\ncontext.append("the quick brown fox");\ncall("echo", "ok");\n');
  const r = turnLoading(['run', '--trace', '--context-working', '5', p]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.loaded.includes(TOKENIZER), `dist/tokenizer.js was not loaded: ${r.loaded.join(', ')}`);
  assert.ok(!r.loaded.includes(SDK), 'dist/restate-sdk.js was loaded');
  // 4 o200k_base tokens (19 bytes): the first entry moves to P2 when the second does not fit in 5
  const demote = r.stderr.split('\n').filter((l) => l.includes('"context.demote"')).map((l) => JSON.parse(l) as { tokens: number });
  assert.deepEqual(demote.map((e) => e.tokens), [4]);
});

test('turn serve loads the Restate SDK to start its worker', async () => {
  // a real admin API stand-in on 127.0.0.1 that refuses the registration: the worker is up (its
  // SDK loaded) by then, and `turn serve` exits with the admin API's message
  const admin = http.createServer((req, res) => {
    req.resume();
    res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'not today' }));
  });
  await new Promise<void>((resolve) => admin.listen(0, '127.0.0.1', resolve));
  try {
    const out = path.join(tmp, 'loaded-serve.json');
    const url = `http://127.0.0.1:${(admin.address() as AddressInfo).port}`;
    const child = spawn(process.execPath, ['-r', HOOK, BIN, 'serve', '--restate-admin', url, '--port', '0'], { cwd: ROOT, env: { ...process.env, TURN_LOADED_OUT: out }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 1, stderr);
    assert.match(stderr, /refused to register .*not today/);
    const loaded = JSON.parse(fs.readFileSync(out, 'utf8')) as string[];
    assert.ok(loaded.includes(SDK), `dist/restate-sdk.js was not loaded: ${loaded.join(', ')}`);
    assert.ok(!loaded.includes(TOKENIZER), 'dist/tokenizer.js was loaded');
  } finally {
    admin.close();
  }
});

test('every bundle a shipped bundle loads on first use ships in the .vsix too', () => {
  const whitelist = fs.readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8').split('\n').filter((l) => l.startsWith('!')).map((l) => l.slice(1));
  const shipped = whitelist.filter((f) => /^dist\/[^/*]+\.js$/.test(f));
  assert.ok(shipped.includes('dist/cli.js') && shipped.includes('dist/extension.js'));
  const loaded = new Set<string>();
  for (const bundle of shipped) {
    for (const m of fs.readFileSync(path.join(ROOT, bundle), 'utf8').matchAll(/\brequire\("\.\/([^"]+)"\)/g)) loaded.add(`dist/${m[1]}`);
  }
  assert.ok(loaded.has('dist/restate-sdk.js') && loaded.has('dist/tokenizer.js'), `bundles loaded on first use: ${[...loaded].join(', ')}`);
  for (const file of loaded) {
    assert.ok(whitelist.includes(file), `.vscodeignore ships ${file}`);
    assert.ok(fs.existsSync(path.join(ROOT, file)), `the build makes ${file}`);
  }
});

// The V8 code cache of the CLI (bin/code-cache.js, issue 29): `npm run build` writes one per command
// into dist/code-cache/, a run of another build or Node writes one into the user's cache folder at
// exit, and a cache whose tag does not match the bundle (a rebuilt dist/) is never used.
const CODE_CACHE = path.join(ROOT, 'bin', 'code-cache.js');

const LAUNCH = path.join(tmp, 'launch.js');
fs.writeFileSync(LAUNCH, `require(${JSON.stringify(CODE_CACHE)}).loadCached(process.argv[2], 'run').main(process.argv.slice(3));\n`);

/** `node launch.js SCRIPT ARGS`: loads SCRIPT as bin/turn.js loads the CLI (a launcher file: `node -e` would put its text in execArgv, which the cache's tag holds). */
function cached(script: string, cacheDir: string, args: string[] = []): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [LAUNCH, script, ...args], {
    encoding: 'utf8',
    env: { ...process.env, TURN_CACHE_DIR: cacheDir, TURN_CODE_CACHE_DEBUG: '1', TURN_CODE_CACHE: '', TURN_CODE_CACHE_WRITE: '' },
    timeout: 300_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('the built CLI starts from the code cache the build wrote', () => {
  const cacheDir = fs.mkdtempSync(path.join(tmp, 'user-cache-'));
  const r = spawnSync(process.execPath, [BIN, 'run', path.join(ROOT, 'examples', 'hello.tn')], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, TURN_CACHE_DIR: cacheDir, TURN_CODE_CACHE_DEBUG: '1', TURN_CODE_CACHE: '', TURN_CODE_CACHE_WRITE: '' },
    timeout: 300_000,
  });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, 'Hello, Turn!\n');
  assert.match(r.stderr, new RegExp(`code cache: hit ${path.join(ROOT, 'dist', 'code-cache', 'run.bin').replace(/[.\\/]/g, '\\$&')}`));
  // the run's parse cache (cli/parse-cache.ts) lives there too
  assert.deepEqual(fs.readdirSync(cacheDir), ['parse-cache'], 'no code cache written to the user cache when the build cache fits');
});

test('a bundle without a fitting cache writes one at exit, uses it next time, and never uses it once the bundle changed', () => {
  const dist = fs.mkdtempSync(path.join(tmp, 'dist-'));
  const cacheDir = fs.mkdtempSync(path.join(tmp, 'user-cache-'));
  const bundle = path.join(dist, 'cli.js');
  const write = (answer: string, build: string) => {
    fs.writeFileSync(bundle, `exports.main = (args) => { const f = (x) => x + ${JSON.stringify(answer)}; process.stdout.write(f(args.join(',')) + '\\n'); };\n`);
    fs.writeFileSync(path.join(dist, 'build-id'), build + '\n');
  };
  write('-one', 'build-1');
  const first = cached(bundle, cacheDir, ['a']);
  assert.equal(first.stdout, 'a-one\n', first.stderr);
  assert.match(first.stderr, /code cache: miss \(run\)/);
  assert.match(first.stderr, /code cache: wrote .*run-[0-9a-f]{8}\.bin/);
  const second = cached(bundle, cacheDir, ['b']);
  assert.equal(second.stdout, 'b-one\n', second.stderr);
  assert.match(second.stderr, /code cache: hit .*run-[0-9a-f]{8}\.bin/);
  assert.doesNotMatch(second.stderr, /wrote/);

  // a rebuilt bundle of the same length: only its build id tells it apart, and the old cache is not used
  write('-two', 'build-2');
  const third = cached(bundle, cacheDir, ['c']);
  assert.equal(third.stdout, 'c-two\n', third.stderr);
  assert.match(third.stderr, /code cache: miss \(run\)/);
  assert.equal(fs.readdirSync(path.join(cacheDir, 'code-cache')).length, 1, 'the stale cache of build-1 was removed');

  // a cache file with the right tag but bytes V8 refuses: compiled as without a cache, then rewritten
  const [file] = fs.readdirSync(path.join(cacheDir, 'code-cache'));
  const full = path.join(cacheDir, 'code-cache', file);
  const bytes = fs.readFileSync(full);
  const nl = bytes.indexOf(10);
  fs.writeFileSync(full, Buffer.concat([bytes.subarray(0, nl + 1), Buffer.from('not a V8 code cache')]));
  const fourth = cached(bundle, cacheDir, ['d']);
  assert.equal(fourth.stdout, 'd-two\n', fourth.stderr);
  assert.match(fourth.stderr, /code cache: rejected /);
  assert.match(fourth.stderr, /code cache: wrote /);
  assert.match(cached(bundle, cacheDir, ['e']).stderr, /code cache: hit /);
});

test('a bundle with non-ASCII text is read as UTF-8 (an ASCII one as latin1), from the cache and without it', () => {
  const dist = fs.mkdtempSync(path.join(tmp, 'dist-'));
  const cacheDir = fs.mkdtempSync(path.join(tmp, 'user-cache-'));
  const bundle = path.join(dist, 'cli.js');
  // a regular expression literal keeps its character as it is, as esbuild leaves it
  fs.writeFileSync(bundle, "exports.main = (args) => { process.stdout.write(String(/^é — ✓$/.test(args[0])) + ' é — ✓\\n'); };\n");
  fs.writeFileSync(path.join(dist, 'build-id'), 'build-utf8\n');
  for (let i = 0; i < 2; i++) {
    const r = cached(bundle, cacheDir, ['é — ✓']);
    assert.equal(r.stdout, 'true é — ✓\n', r.stderr);
  }
});

test('TURN_CODE_CACHE=off loads the bundle with a plain require', () => {
  const r = spawnSync(process.execPath, [BIN, 'version'], { encoding: 'utf8', env: { ...process.env, TURN_CODE_CACHE: 'off', TURN_CODE_CACHE_DEBUG: '1' }, timeout: 300_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^turn /);
  assert.doesNotMatch(r.stderr, /code cache/);
});
