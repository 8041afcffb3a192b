// Test helpers for inference: run a program against a host model call, keeping every request,
// every event and the outcome.
import { compileFiles } from '../vm/harness.js';
import { runBundle, type RunOptions, type RunOutcome } from '../../runtime/vm/index.js';
import type { RunEvent } from '../../runtime/events/index.js';
import type { InferIO, InferReply, InferRequest } from '../../runtime/infer/types.js';
import { exchangeFor, mockProvider, scriptProvider, type Provider } from '../../runtime/providers/index.js';

export type Ask = (request: InferRequest, io?: InferIO) => Promise<InferReply> | InferReply;

export interface Ran {
  outcome: RunOutcome;
  lines: string[];
  events: RunEvent[];
  requests: InferRequest[];
}

export async function runWith(source: string, ask: Ask, options: RunOptions = {}): Promise<Ran> {
  const bundle = await compileFiles({ 'main.tn': source });
  const lines: string[] = [];
  const events: RunEvent[] = [];
  const requests: InferRequest[] = [];
  const outcome = await runBundle(
    bundle,
    {
      output: (l) => lines.push(l),
      infer: async (request, io) => {
        requests.push(request);
        return ask(request, io);
      },
      event: (e) => events.push(e),
    },
    options,
  );
  return { outcome, lines, events, requests };
}

export function withProvider(provider: Provider): Ask {
  const ex = exchangeFor(provider);
  return (r, io) => ex(r, io);
}

export const mock = (): Ask => withProvider(mockProvider());

export function script(replies: unknown[]): Ask {
  return withProvider(scriptProvider('test.json', JSON.stringify({ replies })));
}

/** The successful result's JSON, or a thrown Error with the failure. */
export function okJson(r: Ran): unknown {
  if (!r.outcome.ok) throw new Error(`expected success, got line ${r.outcome.error.line}: ${r.outcome.error.message}`);
  return r.outcome.json;
}

export function failure(r: Ran) {
  if (r.outcome.ok) throw new Error(`expected failure, got ${r.outcome.rendered}`);
  return r.outcome.error;
}
