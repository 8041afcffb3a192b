// Processes of one run spread over workers (docs/scale-out.md, "Processes spread over workers").
//
// Parent side (`restatePlacement`, the VM's placement port): a run submitted with `spread` places
// every child it spawns (`spawn`, `spawn_link`, `spawn_each`, a scope's `task`) whose closure and
// arguments are plain data (no pid, no identity handle) while its parent has no context. The VM
// keeps a proxy process with the child's pid waiting on one effect, `REMOTE_CHILD_TOOL`, journaled
// like any effect of the run (intent before it leaves, outcome recorded, replayed never re-run).
// Performing it starts the Restate service `TurnChild` through the ingress with the effect's
// journal key (`turn:<run>:e<n>`) as Restate's idempotency key, and attaches to its result: a
// parent replayed or retried after a crash asks again with the same key and gets the same child.
// Cancelling the proxy (a scope, a link, `cancel`) cancels the child's invocation.
//
// Child side (`turnChildService`): one `TurnChild/run` invocation, on whichever worker the balancer
// picks, compiles the run's sources (checked against the bytecode hash), runs the closure as the
// main process of a fresh VM with the run's host options (`buildHost`, the one host assembly), and
// returns its outcome as serialized values plus the lines it printed (runtime/run/placed.ts). The
// child's work is one Restate `ctx.run` step: if its worker dies, Restate runs it again from the
// start elsewhere, so a child may perform only effects that are safe to repeat (a model call, a
// GET, a read); any other is refused in the child with a clear error (the parent's slot is a ChildError).
import * as os from 'node:os';
import * as restate from '@restatedev/restate-sdk';
import type { Bundle } from '../compile/bundle.js';
import { compileStored } from '../durable/runs.js';
import { REMOTE_CHILD_TOOL, type ChildPlacement } from '../ports/placement.js';
import type { ToolRequest } from '../ports/host.js';
import { runPlacedChild } from '../run/index.js';
import type { RunOptions } from '../run/options.js';
import { decodeValue, encodeValue } from '../store/serialize.js';
import { Cell, ClosureVal, IdentityVal, PidVal, StructVal, Uncertain, VecVal, type Value } from '../values/index.js';
import { RestateError } from './client.js';
import type { Submission } from './codec.js';

/** The Restate service a placed child runs in. */
export const CHILD_SERVICE = 'TurnChild';

/** What the parent's worker sends to start a child. */
export interface ChildInput {
  runId: string;
  /** the effect's journal key in the parent (`turn:<run>:e<n>`), also Restate's idempotency key */
  key: string;
  sources: string;
  bytecodeHash: string;
  options: RunOptions;
  /** `encodeValue([closure, ...args])`, base64 */
  closure: string;
}

/** A child's outcome: values serialized with `encodeValue` (base64), the lines it printed, the worker that ran it. */
export type ChildOutcome = ({ ok: true; value: string } | { ok: false; error: string }) & { output: string[]; worker: string };

const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
const unb64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'base64'));

/** True when `v` holds nothing that names something in this VM (a pid, an identity handle), nor a value we do not know. */
export function placeable(root: Value): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (seen.has(v)) continue;
    seen.add(v);
    if (v instanceof PidVal || v instanceof IdentityVal) return false;
    if (Array.isArray(v)) stack.push(...(v as unknown[]));
    else if (v instanceof Map) stack.push(...v.values());
    else if (v instanceof StructVal) stack.push(...v.fields.values());
    else if (v instanceof ClosureVal) stack.push(...v.cells);
    else if (v instanceof Cell) stack.push(v.v);
    else if (v instanceof Uncertain) stack.push(v.v);
    else if (!(v instanceof VecVal)) return false;
  }
  return true;
}

function errorValue(type: string, message: string): Value {
  return new Map<string, Value>([
    ['type', type],
    ['message', message],
  ]);
}

/** The ingress call that starts (or finds again, by its key) a child and waits for its outcome. */
async function runRemote(ingress: string, admin: string, input: ChildInput, signal: AbortSignal | undefined): Promise<ChildOutcome> {
  const post = async (url: string, init: RequestInit): Promise<unknown> => {
    let res: Response;
    try {
      res = await fetch(url, init);
    } catch (e) {
      if (signal?.aborted) throw e;
      throw new RestateError(`cannot reach the Restate ingress at ${ingress} to run a child (${(e as Error).message})`);
    }
    const text = await res.text();
    if (!res.ok) throw new RestateError(`the Restate ingress refused a child of run ${input.runId}: ${text || res.statusText}`, res.status);
    return JSON.parse(text);
  };
  const sent = (await post(`${ingress}/${CHILD_SERVICE}/run/send`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': input.key },
    body: JSON.stringify(input),
    signal,
  })) as { invocationId: string };
  const cancel = () => {
    // the parent no longer waits: the child's invocation is cancelled (Restate cancellation)
    void fetch(`${admin}/invocations/${encodeURIComponent(sent.invocationId)}/cancel`, { method: 'PATCH' }).catch(() => undefined);
  };
  signal?.addEventListener('abort', cancel, { once: true });
  try {
    return (await post(`${ingress}/restate/invocation/${encodeURIComponent(sent.invocationId)}/attach`, { method: 'GET', signal })) as ChildOutcome;
  } finally {
    signal?.removeEventListener('abort', cancel);
  }
}

/** The placement port of a run submitted with `spread`, on a worker that reaches the ingress and admin API. */
export function restatePlacement(urls: { ingress: string; admin: string }, runId: string, sub: Submission): ChildPlacement & { perform(request: ToolRequest): Promise<unknown> } {
  return {
    place(closure: ClosureVal, args: Value[]) {
      const all: Value[] = [closure, ...args];
      if (!placeable(all)) return null;
      return { name: REMOTE_CHILD_TOOL, args: [b64(encodeValue(all))] };
    },
    settle(value: unknown) {
      const o = value as ChildOutcome;
      if (o.ok) return { ok: true, value: decodeValue(unb64(o.value)) as Value, output: o.output };
      return { ok: false, error: decodeValue(unb64(o.error)) as Value, output: o.output };
    },
    perform(request: ToolRequest) {
      if (!request.idempotencyKey) return Promise.reject(new Error('a placed child needs the journal key of a durable run'));
      const input: ChildInput = { runId, key: request.idempotencyKey, sources: sub.sources, bytecodeHash: sub.bytecodeHash, options: sub.options, closure: String(request.args[0]) };
      return runRemote(urls.ingress, urls.admin, input, (request as { signal?: AbortSignal }).signal);
    },
  };
}

const bundles = new Map<string, Promise<Bundle>>();

/** Runs one placed child in a fresh VM on this worker: its outcome, never a thrown error. */
export async function runChild(input: ChildInput, cwd: string, worker: string, cancelled?: AbortSignal): Promise<ChildOutcome> {
  const fail = (type: string, message: string): ChildOutcome => ({ ok: false, error: b64(encodeValue(errorValue(type, message))), output: [], worker });
  let bundle: Bundle;
  try {
    let b = bundles.get(input.bytecodeHash);
    if (!b) bundles.set(input.bytecodeHash, (b = compileStored(unb64(input.sources))));
    bundle = await b;
  } catch (e) {
    bundles.delete(input.bytecodeHash);
    return fail('PlacementError', `this worker cannot compile the run's sources: ${(e as Error).message}`);
  }
  if (bundle.version !== input.bytecodeHash) {
    return fail('PlacementError', `this worker compiles run ${input.runId} to bytecode ${bundle.version.slice(0, 12)}, not ${input.bytecodeHash.slice(0, 12)}: its workers run another Turn`);
  }
  const [closure, ...args] = decodeValue(unb64(input.closure)) as Value[];
  if (!(closure instanceof ClosureVal)) return fail('PlacementError', 'a placed child must be a closure');
  // a parent never places a child that holds a pid or a handle (placeable): an input that does was
  // not written by one, and a handle in it would be a credential minted from bytes anyone could send
  if (![closure, ...args].every(placeable)) return fail('PlacementError', 'a placed child cannot hold a pid or an identity handle');
  const output: string[] = [];
  try {
    const options = { ...input.options, cwd, authority: { ...input.options.authority, approve: input.options.authority?.approve ?? 'none' }, onOutput: (line: string) => output.push(line) };
    const r = await runPlacedChild(bundle, options, closure, args, cancelled);
    return r.ok ? { ok: true, value: b64(encodeValue(r.value)), output, worker } : { ok: false, error: b64(encodeValue(r.error)), output, worker };
  } catch (e) {
    return fail('PlacementError', (e as Error).message);
  }
}

/** The `TurnChild` service: one placed child per invocation, its work one journaled step. */
export function turnChildService(cwd: string, worker = `${os.hostname()}:${process.pid}`) {
  return restate.service({
    name: CHILD_SERVICE,
    handlers: {
      run: async (ctx: restate.Context, input: ChildInput): Promise<ChildOutcome> => ctx.run('child', () => runChild(input, cwd, worker, ctx.request().attemptCompletedSignal)),
    },
  });
}
