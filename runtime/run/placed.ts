// A child placed on this worker by another worker's run (runtime/restate/placement.ts,
// docs/scale-out.md): `closure(args)` runs as the main process of a fresh, non-durable VM of the
// run's bundle, with the host its options build (`buildHost`, the one host assembly). Its work is
// re-run from the start if its worker dies, so it may perform only effects that are safe to
// repeat (`toolIsIdempotent`: a model call, a GET, a read); any other fails in the child with an
// error that says so.
import type { Bundle } from '../compile/bundle.js';
import { toolIsIdempotent } from '../durable/index.js';
import type { ClosureVal, Value } from '../values/index.js';
import { VM } from '../vm/index.js';
import { buildHost } from './host.js';
import type { RunOptions } from './options.js';

export type PlacedOutcome = { ok: true; value: Value } | { ok: false; error: Value };

/** Runs a placed child to its end (or until `cancelled`); throws RunSetupError when its host cannot be built. */
export async function runPlacedChild(bundle: Bundle, options: RunOptions, closure: ClosureVal, args: Value[], cancelled?: AbortSignal): Promise<PlacedOutcome> {
  const setup = await buildHost(options);
  setup.allowLaunches(bundle);
  try {
    const real = setup.host;
    const vm = new VM(
      bundle,
      {
        ...real,
        output: (line) => options.onOutput?.(setup.redactor.redact(line)),
        tool: (request) => {
          if (!toolIsIdempotent(request)) {
            return Promise.reject(new Error(`${request.name} is not safe to repeat, and a child placed on another worker is run again from its start if that worker dies: perform it in the parent (or in a child that captures a pid, which runs beside its parent)`));
          }
          return real.tool ? real.tool(request) : Promise.reject(new Error(`this host performs no effects (${request.name})`));
        },
      },
      { maxSteps: options.maxSteps, maxAlloc: options.maxAlloc, inferRetries: setup.inferRetries, ...(options.context ? { context: options.context } : {}) },
    );
    vm.entryClosure = { closure, args };
    // the invocation ended (cancelled by the parent, or its attempt is over): the VM stops
    const stop = () => vm.halt('the placed child was cancelled');
    cancelled?.addEventListener('abort', stop, { once: true });
    const outcome = await vm.run().finally(() => cancelled?.removeEventListener('abort', stop));
    if (outcome.ok) return { ok: true, value: vm.main.result };
    return { ok: false, error: vm.main.failure?.value ?? new Map<string, Value>([['type', 'RuntimeError'], ['message', outcome.error.message]]) };
  } finally {
    setup.close();
  }
}
