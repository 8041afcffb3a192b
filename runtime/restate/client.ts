// Talking to a Restate server from outside a handler: the admin API (register a worker, list runs)
// and the ingress (submit, status, inspect, resume, resolve). Every failure is a RestateError with
// one line for a person: which server, what went wrong.
import { SERVICE, type RunDump, type RunSummary, type Submission, type Wake } from './codec.js';

export class RestateError extends Error {
  override name = 'RestateError';
  constructor(
    message: string,
    /** the HTTP status when the server answered, else 0 (unreachable) */
    readonly status = 0,
  ) {
    super(message);
  }
}

/** The admin URL by default: the ingress host on port 9070. */
export function defaultAdminUrl(ingress: string): string {
  const u = new URL(ingress);
  u.port = '9070';
  return u.origin;
}

function base(url: string, what: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new RestateError(`${what} must be a URL such as http://127.0.0.1:8080, got \`${url}\``);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new RestateError(`${what} must be an http(s) URL, got \`${url}\``);
  return u.origin + u.pathname.replace(/\/$/, '');
}

async function call(url: string, init: RequestInit, what: string): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers: { 'content-type': 'application/json', accept: 'application/json', ...(init.headers ?? {}) } });
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new RestateError(`cannot reach the Restate ${what} at ${new URL(url).origin} (${cause?.code ?? cause?.message ?? (e as Error).message}); is restate-server running there?`);
  }
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: kept as text
  }
  if (!res.ok) {
    const message = typeof body === 'object' && body !== null && 'message' in body ? String((body).message) : text || res.statusText;
    throw new RestateError(message, res.status);
  }
  return body;
}

/** Registers a deployment (a worker, or a balancer in front of several) with the admin API. */
export async function registerDeployment(admin: string, uri: string): Promise<void> {
  await call(`${base(admin, '--restate-admin')}/deployments`, { method: 'POST', body: JSON.stringify({ uri, force: false }) }, 'admin API').catch((e: unknown) => {
    if (e instanceof RestateError && e.status !== 0) throw new RestateError(`the Restate admin API refused to register ${uri}: ${e.message}`, e.status);
    throw e;
  });
}

/** A run id: time-ordered, with a random suffix (as the local store makes them). */
export function newRestateRunId(): string {
  const rand = Array.from(crypto.getRandomValues(new Uint8Array(5)), (b) => b.toString(16).padStart(2, '0')).join('');
  return `${Date.now().toString(36)}-${rand}`;
}

const wf = (ingress: string, id: string, handler: string) => `${base(ingress, '--restate')}/${SERVICE}/${encodeURIComponent(id)}/${handler}`;

/** Starts run `id` (the workflow's key) without waiting for it. */
export async function submitRun(ingress: string, id: string, submission: Submission): Promise<void> {
  const r = (await call(`${wf(ingress, id, 'run')}/send`, { method: 'POST', body: JSON.stringify(submission) }, 'ingress')) as { status?: string } | null;
  // a workflow runs once per key: a second submission under the same id is not a new run
  if (r?.status === 'PreviouslyAccepted') throw new RestateError(`run ${id} exists already on the Restate server at ${new URL(ingress).origin}; submit without --id for a new run`, 409);
}

function noRun(e: unknown, id: string, ingress: string): never {
  if (e instanceof RestateError && e.status === 404) throw new RestateError(`no run ${id} on the Restate server at ${new URL(ingress).origin}`, 404);
  throw e;
}

/** How run `id` stands (what its state shows). */
export async function runStatus(ingress: string, id: string): Promise<RunSummary> {
  return (await call(wf(ingress, id, 'status'), { method: 'POST', body: 'null' }, 'ingress').catch((e: unknown) => noRun(e, id, ingress))) as RunSummary;
}

/** The run, its journal and its latest snapshot (for `turn inspect`). */
export async function runDump(ingress: string, id: string): Promise<RunDump> {
  return (await call(wf(ingress, id, 'dump'), { method: 'POST', body: 'null' }, 'ingress').catch((e: unknown) => noRun(e, id, ingress))) as RunDump;
}

/** Completes a suspended run's wait: it continues on whichever worker Restate picks. */
export async function resumeRestateRun(ingress: string, id: string): Promise<void> {
  await call(wf(ingress, id, 'resume'), { method: 'POST', body: 'null' }, 'ingress').catch((e: unknown) => noRun(e, id, ingress));
}

/** Settles an unknown step of a waiting run (as `turn resolve` does locally). */
export async function resolveRestateRun(ingress: string, id: string, decision: Wake): Promise<void> {
  await call(wf(ingress, id, 'resolve'), { method: 'POST', body: JSON.stringify(decision) }, 'ingress').catch((e: unknown) => noRun(e, id, ingress));
}

/** Waits until run `id` is no longer running (done, failed, suspended or waiting), polling its state. */
export async function waitForRun(ingress: string, id: string, everyMs = 100, past?: string): Promise<RunSummary> {
  for (;;) {
    let s: RunSummary | undefined;
    try {
      s = await runStatus(ingress, id);
    } catch (e) {
      // the run is not created yet (its workflow has not reached a worker): ask again
      if (!(e instanceof RestateError && e.status === 404)) throw e;
    }
    // `past`: the wait the caller just completed does not count
    const settled = s && s.status !== 'running' && (s.status !== 'suspended' || s.wait) && (s.status !== 'waiting' || s.wait);
    if (s && settled && (past === undefined || s.wait?.promise !== past)) return s;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** One row of `turn runs --restate`. */
export interface RestateRunRow {
  id: string;
  status: string;
  entry: string;
  createdAt: number;
  updatedAt: number;
  bytecodeHash: string;
  semanticsVersion: string;
}

/** The runs the Restate server holds (the admin API's SQL over workflow state), newest first. */
export async function listRestateRuns(admin: string): Promise<RestateRunRow[]> {
  const body = (await call(
    `${base(admin, '--restate-admin')}/query`,
    { method: 'POST', body: JSON.stringify({ query: `SELECT service_key, value_utf8 FROM state WHERE service_name = '${SERVICE}' AND key = 'run'` }) },
    'admin API',
  )) as { rows?: { service_key: string; value_utf8: string }[] };
  const rows = (body.rows ?? []).map((r) => JSON.parse(r.value_utf8) as RestateRunRow);
  return rows.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
}
