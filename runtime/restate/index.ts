// Turn runs on Restate (docs/scale-out.md): the worker (`turn serve`), the client of the ingress
// and admin APIs (`turn submit`, and `--restate` for runs, inspect, resume, resolve; the editor's
// Runs view), and a balancer for several workers on one machine. The worker and its SDK are loaded
// only when a worker starts.
import type { Worker, WorkerOptions } from './worker.js';

export {
  RestateError, defaultAdminUrl, registerDeployment, newRestateRunId, submitRun, runStatus, runDump, resumeRestateRun, resolveRestateRun, waitForRun,
  listRestateRuns, type RestateRunRow,
} from './client.js';
export { SERVICE as RESTATE_SERVICE, type Submission, type RunSummary, type RunDump, type Wake } from './codec.js';
export { inspectRestateRun, storeFromDump } from './inspect.js';
export { startBalancer, type Balancer } from './balancer.js';
export type { Worker, WorkerOptions } from './worker.js';

/** Starts a worker hosting Turn runs as Restate handlers, registered with the admin API. */
export async function startRestateWorker(options: WorkerOptions): Promise<Worker> {
  const { startWorker } = await import('./worker.js');
  return startWorker(options);
}
