// `turn serve`: a worker process that hosts Turn runs as Restate handlers (the TurnRun workflow,
// workflow.ts) on an HTTP/2 endpoint, registered with the Restate admin API.
import './polyfill.js';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import * as restate from '@restatedev/restate-sdk';
import { turnRunWorkflow } from './workflow.js';
import { turnChildService } from './placement.js';
import { registerDeployment } from './client.js';

export interface Worker {
  /** the worker's own endpoint, http://127.0.0.1:PORT */
  url: string;
  /** the URI registered with Restate (the worker's, or the balancer's in front of it) */
  registered: string | null;
  close(): Promise<void>;
}

export interface WorkerOptions {
  /** the Restate admin API (e.g. http://127.0.0.1:9070); registration is skipped without it */
  admin?: string;
  /** the port to listen on (0: any free one) */
  port?: number;
  host?: string;
  /** the URI to register instead of the worker's own (a load balancer in front of several workers) */
  advertise?: string;
  /** where file effects of the runs resolve (default: the process's cwd) */
  cwd?: string;
  /**
   * the Restate ingress, where a run submitted with `spread` starts its placed children (default:
   * $TURN_RESTATE_INGRESS, else the admin API's host on port 8080)
   */
  ingress?: string;
  /** the SDK's log lines (default: errors only, on standard error; TURN_DEBUG=1 shows everything) */
  log?: restate.LoggerTransport;
  /**
   * called with the worker's own URL once it listens, before it registers: a balancer in front of it
   * (--advertise) must route to it by then, since Restate's discovery of the advertised URL reaches
   * the workers through that balancer
   */
  onListening?: (url: string) => void;
}

/** The SDK's errors on standard error; its info and warnings (a 404 answered, a replay) only with TURN_DEBUG. */
function quietLog(meta: restate.LogMetadata, message?: unknown, ...rest: unknown[]): void {
  if (meta.level !== 'error' && !process.env.TURN_DEBUG) return;
  const text = [message, ...rest].map((x) => (x instanceof Error ? (process.env.TURN_DEBUG ? x.stack : x.message) : String(x))).join(' ');
  process.stderr.write(`turn serve: ${meta.context?.invocationTarget ?? 'restate'}: ${text}\n`);
}

/** The ingress by default: the admin API's host on port 8080. */
function ingressOf(admin: string): string {
  const u = new URL(admin);
  u.port = '8080';
  return u.origin;
}

/** Starts a worker; registers it (or `advertise`) with the admin API when `admin` is given. */
export async function startWorker(options: WorkerOptions = {}): Promise<Worker> {
  const cwd = options.cwd ?? process.cwd();
  const urls = options.admin ? { admin: new URL(options.admin).origin, ingress: new URL(options.ingress ?? process.env.TURN_RESTATE_INGRESS ?? ingressOf(options.admin)).origin } : undefined;
  const handler = restate.createEndpointHandler({ services: [turnRunWorkflow(cwd, urls), turnChildService(cwd)], logger: options.log ?? quietLog });
  const server = http2.createServer(handler);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  options.onListening?.(url);
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sessions) s.destroy();
      server.close(() => resolve());
    });
  let registered: string | null = null;
  if (options.admin) {
    try {
      registered = options.advertise ?? url;
      await registerDeployment(options.admin, registered);
    } catch (e) {
      await close();
      throw e;
    }
  }
  return { url, registered, close };
}
