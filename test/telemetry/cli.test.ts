// `turn run` exports over OTLP/HTTP when the standard OTEL_* variables say so, from the built CLI:
// the OpenTelemetry packages are a bundle apart (dist/telemetry.js, scripts/build.mjs) that a run
// without telemetry never loads, a collector on 127.0.0.1 receives the run's spans as protobuf with
// the headers OTEL_EXPORTER_OTLP_HEADERS gives, a collector that is down fails nothing, and a bad
// setting is a usage error with a message, not a stack trace.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { JS_STACK, ROOT } from '../cli/run-cli.js';

const BIN = path.join(ROOT, 'bin', 'turn.js');
const TELEMETRY = path.join(ROOT, 'dist', 'telemetry.js');
const HELLO = path.join(ROOT, 'examples', 'hello.tn');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-otel-cli-'));
const HOOK = path.join(tmp, 'loaded-hook.js');
fs.writeFileSync(HOOK, "process.on('exit', () => require('node:fs').writeFileSync(process.env.TURN_LOADED_OUT, JSON.stringify(Object.keys(require.cache))));\n");

/** The OTEL_* variables of the test's own environment stay out of the child's. */
const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_')));

let n = 0;
function turnLoading(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; loaded: string[] }> {
  const out = path.join(tmp, `loaded-${++n}.json`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', HOOK, BIN, ...args], { cwd: ROOT, env: { ...clean, ...env, TURN_LOADED_OUT: out }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, loaded: fs.existsSync(out) ? (JSON.parse(fs.readFileSync(out, 'utf8')) as string[]) : [] }));
  });
}

interface Export {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

const collectors: http.Server[] = [];
after(() => {
  for (const c of collectors) c.close();
});

async function collector(): Promise<{ url: string; received: Export[] }> {
  const received: Export[] = [];
  const server = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(parts) });
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  collectors.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

test('a run without telemetry loads no OpenTelemetry', async () => {
  const r = await turnLoading(['run', HELLO], {});
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'Hello, Turn!\n');
  assert.ok(r.loaded.includes(path.join(ROOT, 'dist', 'cli.js')), 'the hook saw the CLI load');
  assert.ok(!r.loaded.includes(TELEMETRY), 'dist/telemetry.js was loaded');
  assert.deepEqual(r.loaded.filter((f) => f.includes('@opentelemetry')), []);
  // and it is not inside the CLI's own bundle either (a static import would put it there, run or not)
  assert.ok(!fs.readFileSync(path.join(ROOT, 'dist', 'cli.js'), 'utf8').includes('BatchSpanProcessor'), 'the OpenTelemetry SDK is bundled into dist/cli.js');
  assert.ok(fs.readFileSync(TELEMETRY, 'utf8').includes('BatchSpanProcessor'), 'dist/telemetry.js holds the SDK');
});

test('OTEL_EXPORTER_OTLP_ENDPOINT: the run exports its spans as OTLP protobuf, with the configured headers and service name', async () => {
  const c = await collector();
  const r = await turnLoading(['run', HELLO], { OTEL_EXPORTER_OTLP_ENDPOINT: c.url, OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k%2D1', OTEL_SERVICE_NAME: 'hello-svc' });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, 'Hello, Turn!\n');
  assert.ok(r.loaded.includes(TELEMETRY), 'the telemetry bundle was loaded');
  assert.equal(c.received.length, 1, 'one export, flushed before the CLI exits');
  const [e] = c.received;
  assert.equal(e.url, '/v1/traces');
  assert.equal(e.headers['content-type'], 'application/x-protobuf');
  assert.equal(e.headers['x-collector-key'], 'k-1');
  // protobuf keeps strings as UTF-8 bytes
  const text = e.body.toString('latin1');
  assert.ok(text.includes('invoke_workflow hello.tn'), 'the run span');
  assert.ok(text.includes('invoke_agent main'), 'the main process span');
  assert.ok(text.includes('hello-svc'), 'the service name');
});

test('a collector that is down fails nothing; a bad endpoint is a usage error with a message', async () => {
  const c = await collector();
  const port = new URL(c.url).port;
  collectors.pop()!.close();
  await new Promise((r) => setTimeout(r, 0));
  const down = await turnLoading(['run', HELLO], { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_EXPORTER_OTLP_TIMEOUT: '2000' });
  assert.equal(down.code, 0, down.stderr);
  assert.equal(down.stdout, 'Hello, Turn!\n');
  const bad = await turnLoading(['run', HELLO], { OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://collector' });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /OTEL_EXPORTER_OTLP_ENDPOINT: the OTLP endpoint must be http or https, got ftp:/);
  assert.doesNotMatch(bad.stderr, JS_STACK);
  assert.equal(bad.stdout, '');
});
