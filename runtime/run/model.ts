// Chooses the model provider a run names (`--model`, the `turn.model` setting, else `TURN_MODEL`,
// else DEFAULT_MODEL) and gives the host its model call: local providers answer in-process, HTTP providers go
// through the host's transport, which alone reads the API key (from the environment variable
// the spec names) at the moment it sends.
import * as fs from 'node:fs';
import type { InferIO, InferReply, InferRequest } from '../infer/types.js';
import { createProvider, exchangeFor, ModelConfigError, type Provider } from '../providers/index.js';

export type { InferRequest };

/** The model every run uses unless told otherwise: deterministic values synthesized from the schema. */
export const DEFAULT_MODEL = 'mock';

export interface Model {
  provider: Provider;
  infer(request: InferRequest, io?: InferIO): Promise<InferReply>;
}

/** A model spec that cannot be used (a usage error on the command line). */
export class UnknownModelError extends Error {}

/** A script fixture that cannot be read or is malformed (reported like an unreadable program). */
export class ModelInputError extends Error {}

export function createModel(spec: string, env: Record<string, string | undefined> = process.env): Model {
  let setup;
  try {
    setup = createProvider(spec, {
      readFile: (path) => {
        const st = fs.statSync(path);
        if (st.isDirectory()) throw new Error('it is a directory');
        if (st.size > 16 * 1024 * 1024) throw new Error('it is larger than 16 MiB');
        return fs.readFileSync(path, 'utf8');
      },
      env,
    });
  } catch (e) {
    if (e instanceof ModelConfigError) {
      if (spec.startsWith('script:')) throw new ModelInputError(e.message);
      throw new UnknownModelError(e.message);
    }
    throw e;
  }
  const exchange = exchangeFor(setup.provider, setup.transport);
  return { provider: setup.provider, infer: (request, io) => exchange(request, io) };
}

/** `TURN_INFER_RETRIES`: re-asks after an invalid reply (default 2). */
export function inferRetriesFromEnv(env: Record<string, string | undefined> = process.env): number | undefined {
  const v = env.TURN_INFER_RETRIES;
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 20) throw new UnknownModelError(`TURN_INFER_RETRIES must be a whole number from 0 to 20, got \`${v}\``);
  return n;
}
