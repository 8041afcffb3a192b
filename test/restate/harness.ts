// Test helpers: a restate-server on free loopback ports with a temporary base dir, `turn serve`
// workers as child processes (so they can be SIGKILLed), and the built CLI.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'turn.js');
const SERVER_BIN = path.join(ROOT, 'node_modules', '@restatedev', `restate-server-${process.platform}-${process.arch}`, 'bin', 'restate-server');

/** Why the Restate tests cannot run here (the npm package ships the server for some platforms only), or false. */
export const NO_SERVER: string | false = fs.existsSync(SERVER_BIN) ? false : `no restate-server binary for ${process.platform}-${process.arch} in node_modules/@restatedev`;

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

/** Resolves once `url` answers (the real condition a start waits for), or rejects after `ms`. */
export async function waitForHttp(url: string, ms = 30_000): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface RestateServer {
  ingress: string;
  admin: string;
  dir: string;
  stop(): Promise<void>;
}

export async function startRestateServer(): Promise<RestateServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-restate-'));
  const [ingress, admin, node] = [await freePort(), await freePort(), await freePort()];
  const child = spawn(SERVER_BIN, ['--base-dir', path.join(dir, 'data'), '--node-name', 'n1', '--no-logo'], {
    env: {
      ...process.env,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
      RESTATE_BIND_ADDRESS: `127.0.0.1:${node}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${node}`,
      RESTATE_LISTEN_MODE: 'tcp',
      // a killed worker's invocations are retried soon, on whichever worker the balancer picks
      RESTATE_DEFAULT_RETRY_POLICY__INITIAL_INTERVAL: '100ms',
      RESTATE_DEFAULT_RETRY_POLICY__MAX_INTERVAL: '1s',
      RESTATE_DEFAULT_RETRY_POLICY__MAX_ATTEMPTS: '1000',
      RESTATE_LOG_FILTER: 'warn',
    },
    stdio: ['ignore', 'ignore', fs.openSync(path.join(dir, 'server.log'), 'a')],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  await waitForHttp(`http://127.0.0.1:${admin}/health`);
  await waitForHttp(`http://127.0.0.1:${ingress}/restate/health`);
  return {
    ingress: `http://127.0.0.1:${ingress}`,
    admin: `http://127.0.0.1:${admin}`,
    dir,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface WorkerProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
  stderr(): string;
}

/** `turn serve` as a child process; resolves once it says where it serves. */
export function startWorkerProcess(args: string[], env: NodeJS.ProcessEnv = {}): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: { ...process.env, TURN_TEST_KEY: 'k', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /registered .* with the Restate admin API/.test(err) ? /serving on (http:\/\/\S+)/.exec(err) : null;
      if (m) resolve({ child, url: m[1], exited, stderr: () => err });
    });
    child.stdout.resume();
    child.once('exit', (code) => reject(new Error(`turn serve exited (${code}): ${err}`)));
  });
}

export interface Cli {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function turn(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Cli> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, TURN_TEST_KEY: 'k', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
