// Test helpers: a restate-server on free loopback ports with a temporary base dir, `turn serve`
// workers as child processes (so they can be SIGKILLed), and the built CLI.
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { startBalancer, type Balancer } from '../../runtime/restate/balancer.js';
import { BIN, ROOT, turnAsync, type AsyncCliResult } from '../cli/run-cli.js';

export { ROOT } from '../cli/run-cli.js';
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

/**
 * A restate-server on free ports. Its log (`TURN_RESTATE_LOG_FILTER`, default `warn`) is copied to
 * the file named by `TURN_RESTATE_KEEP_LOG` when it stops: `warn,restate_invoker=info` shows every
 * retried invocation and its cause.
 */
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
      RESTATE_LOG_FILTER: process.env.TURN_RESTATE_LOG_FILTER ?? 'warn',
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
      if (process.env.TURN_RESTATE_KEEP_LOG) fs.copyFileSync(path.join(dir, 'server.log'), process.env.TURN_RESTATE_KEEP_LOG);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A restate-server with a balancer in front of its workers, the `turn serve` workers started for it
 * and the temporary folders of the runs submitted to it; `close` SIGKILLs every worker, stops the
 * balancer and the server and removes the folders.
 */
export class Cluster {
  /** every worker started, live or killed */
  readonly workers: WorkerProcess[] = [];
  private readonly dirs: string[] = [];

  private constructor(readonly server: RestateServer, readonly balancer: Balancer) {}

  static async start(): Promise<Cluster> {
    const server = await startRestateServer();
    return new Cluster(server, await startBalancer([]));
  }

  /**
   * A worker behind the balancer, on a port of its own choosing (a port picked here and bound later
   * could be taken in between: by another test's server, or as the source port of any outgoing
   * connection). It registers the balancer's address, and Restate's discovery of that address goes
   * through the balancer, so the worker joins the rotation as soon as it says where it listens, before
   * it registers. A failed start leaves the rotation as it was.
   */
  async addWorker(env: NodeJS.ProcessEnv = {}): Promise<WorkerProcess> {
    let joined: string | undefined;
    try {
      const w = await startWorkerProcess(['--restate-admin', this.server.admin, '--advertise', this.balancer.url, '--port', '0'], env, (url) => {
        joined = url;
        this.balancer.workers = [...this.balancer.workers, url];
      });
      this.workers.push(w);
      return w;
    } catch (e) {
      if (joined) this.balancer.workers = this.balancer.workers.filter((u) => u !== joined);
      throw e;
    }
  }

  /** Takes `w` out of the balancer's rotation and SIGKILLs it. */
  async kill(w: WorkerProcess): Promise<void> {
    this.balancer.workers = this.balancer.workers.filter((u) => u !== w.url);
    w.child.kill('SIGKILL');
    await w.exited;
  }

  /**
   * What Restate holds of every invocation not yet completed, one line each (status, retries, the
   * last failure): what a test prints when its runs stop making progress, so a hang names its cause.
   */
  async openInvocations(): Promise<string> {
    const query = "SELECT id, target, status, retry_count, last_failure, last_attempt_deployment_id, modified_at FROM sys_invocation WHERE status != 'completed'";
    const res = await fetch(`${this.server.admin}/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query }),
    });
    const rows = ((await res.json()) as { rows?: Record<string, unknown>[] }).rows ?? [];
    return rows.map((r) => Object.entries(r).map(([k, v]) => `${k}=${String(v).slice(0, 200)}`).join(' ')).join('\n') || '(none)';
  }

  /** A temporary folder holding `program` as p.tn. */
  workdir(program: string, prefix = 'turn-restate-run-'): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    this.dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'p.tn'), program);
    return dir;
  }

  async close(): Promise<void> {
    for (const w of this.workers) w.child.kill('SIGKILL');
    await Promise.all(this.workers.map((w) => w.exited));
    await this.balancer.close();
    await this.server.stop();
    for (const d of this.dirs) fs.rmSync(d, { recursive: true, force: true });
  }
}

export interface WorkerProcess {
  child: ChildProcess;
  url: string;
  exited: Promise<void>;
  stderr(): string;
}

/**
 * `turn serve` as a child process; resolves once it has registered. `onListening` is called with its
 * URL as soon as it says where it serves (before it registers).
 */
export function startWorkerProcess(args: string[], env: NodeJS.ProcessEnv = {}, onListening?: (url: string) => void): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env: { ...process.env, TURN_TEST_KEY: 'k', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  let url: string | undefined;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
      if (url === undefined) {
        const m = /serving on (http:\/\/\S+)/.exec(err);
        if (m) {
          url = m[1];
          onListening?.(url);
        }
      }
      if (url !== undefined && /registered .* with the Restate admin API/.test(err)) resolve({ child, url, exited, stderr: () => err });
    });
    child.stdout.resume();
    child.once('exit', (code) => reject(new Error(`turn serve exited (${code}): ${err}`)));
  });
}

export type Cli = AsyncCliResult;

/** The built CLI in `cwd` with the fake provider's key. */
export function turn(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Cli> {
  return turnAsync(args, { cwd, env: { TURN_TEST_KEY: 'k', ...env } });
}
