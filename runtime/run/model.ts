// Chooses the model provider a run names (`--model`, the `turn.model` setting, else `TURN_MODEL`,
// else Turn v1's `TURN_LLM_PROVIDER` driver, else DEFAULT_MODEL: resolveModelSpec) and gives the host
// its model call: local providers answer in-process, HTTP providers go through the host's transport,
// which alone reads the API key (from the environment variable the spec names) at the moment it
// sends. A Wasm driver (`wasm:PATH`) gets the run's access: its requests need the run's network
// capability, and its `$env:` templates see only the secrets its spec allows.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { check, requireApproval, type ApprovalHook, type Capabilities } from '../effects/capabilities.js';
import { EnvVault, type Vault } from '../effects/vault.js';
import type { InferIO, InferReply, InferRequest } from '../infer/types.js';
import type { HostModels } from './options.js';
import { createProvider, exchangeFor, MAX_DRIVER_BYTES, ModelConfigError, type Dial, type DriverAccess, type Provider, type WasmDriver } from '../providers/index.js';

export type { InferRequest };

/** The model every run uses unless told otherwise: deterministic values synthesized from the schema. */
export const DEFAULT_MODEL = 'mock';

export interface Model {
  provider: Provider;
  infer(request: InferRequest, io?: InferIO): Promise<InferReply>;
  /** a Wasm driver's model (`wasm:PATH`): its file and the secret names its templates may read */
  driver?: WasmDriver;
}

/** A model spec that cannot be used (a usage error on the command line). */
export class UnknownModelError extends Error {}

/** A script fixture that cannot be read or is malformed (reported like an unreadable program). */
export class ModelInputError extends Error {}

/** What of the run a Wasm driver's model calls may use (the other providers need none of it). */
export interface ModelAccess {
  /** the run's capabilities: a driver's HTTP request needs network access to its host (default: none) */
  capabilities?: Capabilities;
  /** asked when the network capability says its requests need approval (default: denied) */
  approve?: ApprovalHook;
  /** where a driver's allowed secrets are looked up first (default: TURN_SECRET_<NAME> in `env`) */
  vault?: Vault;
  /** where a relative driver path resolves (default: the process's working directory) */
  cwd?: string;
  /**
   * Tests only: where a driver's calls are sent. Maps a driver's fixed hosted origin (Turn v1's
   * drivers name `https://api.openai.com`) to a fake on 127.0.0.1; the network capability is still
   * checked against the URL the driver asked for. No flag or setting reaches it.
   */
  dial?: Dial;
  /** the embedding host's models (RunOptions.hostModels), asked before the spec is built */
  hostModels?: HostModels;
}

export function createModel(spec: string, env: Record<string, string | undefined> = process.env, access: ModelAccess = {}): Model {
  let hosted;
  try {
    hosted = access.hostModels?.(spec);
  } catch (e) {
    throw new UnknownModelError(e instanceof Error ? e.message : String(e)); // a spec the host names but cannot read
  }
  if (hosted) return { provider: hosted, infer: exchangeFor(hosted) };
  let setup;
  try {
    setup = createProvider(spec, {
      readFile: (path) => {
        const st = fs.statSync(path);
        if (st.isDirectory()) throw new Error('it is a directory');
        if (st.size > 16 * 1024 * 1024) throw new Error('it is larger than 16 MiB');
        return fs.readFileSync(path, 'utf8');
      },
      readBinary: (file) => {
        const full = path.resolve(access.cwd ?? process.cwd(), file);
        const st = fs.statSync(full);
        if (st.isDirectory()) throw new Error('it is a directory');
        if (st.size > MAX_DRIVER_BYTES) throw new Error(`it is larger than ${MAX_DRIVER_BYTES / 1024 / 1024} MiB`);
        return new Uint8Array(fs.readFileSync(full));
      },
      env,
    });
  } catch (e) {
    if (e instanceof ModelConfigError) {
      if (spec.startsWith('script:') || spec.startsWith('wasm:')) throw new ModelInputError(e.message);
      throw new UnknownModelError(e.message);
    }
    throw e;
  }
  const exchange = setup.driver ? setup.driver.exchange(driverAccess(setup.driver, env, access), setup.transport) : exchangeFor(setup.provider, setup.transport);
  return { provider: setup.provider, infer: (request, io) => exchange(request, io), ...(setup.driver ? { driver: setup.driver } : {}) };
}

/**
 * A driver's access: its URL is checked against the run's network capability (and approval),
 * and a secret it may use is read from the vault (TURN_SECRET_<NAME>, the secrets file, the
 * editor's vault), else from the environment variable NAME itself. The driver only ever asks
 * for names its spec allows (runtime/providers/wasm.ts checks that before asking).
 */
function driverAccess(driver: WasmDriver, env: Record<string, string | undefined>, access: ModelAccess): DriverAccess {
  const vault = access.vault ?? new EnvVault(env);
  return {
    ...(access.dial ? { dial: access.dial } : {}),
    async authorize(url, method, shown) {
      const verdict = check(access.capabilities ?? {}, { kind: 'network', url, method });
      if (!verdict.ok) throw new Error(`${verdict.message}; grant the driver's host with --allow-net (the turn.run.allowNet setting in the editor)`);
      await requireApproval(verdict.approve, { effect: 'network', summary: `${method} ${shown} (a model call of ${driver.name})` }, access.approve);
    },
    async secret(name) {
      if (!driver.secrets.includes(name)) return undefined;
      const fromVault = await vault.resolve(name);
      if (fromVault !== undefined) return fromVault;
      const v = env[name];
      return v === undefined || v === '' ? undefined : v;
    },
  };
}

/**
 * The model spec a run uses: `model` (`--model`, the `turn.model` setting), else `TURN_MODEL`,
 * else Turn v1's `TURN_LLM_PROVIDER` (llmProviderSpec), else DEFAULT_MODEL.
 */
export function resolveModelSpec(model: string | undefined, env: Record<string, string | undefined> = process.env, cwd: string = process.cwd()): string {
  const chosen = model ?? env.TURN_MODEL;
  if (chosen !== undefined) return chosen;
  const v1 = env.TURN_LLM_PROVIDER;
  if (v1 !== undefined && v1.trim() !== '') return llmProviderSpec(v1.trim(), cwd);
  return DEFAULT_MODEL;
}

/**
 * Turn v1's driver lookup: `TURN_LLM_PROVIDER=NAME` (or `NAME?OPTIONS`, the options of `wasm:`,
 * e.g. `openai?secret=OPENAI_API_KEY`) names `.turn_modules/NAME.wasm` in the working directory,
 * or Turn v1's own file name `.turn_modules/NAME_provider.wasm`; `mock` is the mock model.
 * Only the working directory is searched (Turn v1 also searches its parents).
 */
export function llmProviderSpec(value: string, cwd: string): string {
  const q = value.indexOf('?');
  const name = q < 0 ? value : value.slice(0, q);
  const query = q < 0 ? '' : value.slice(q);
  if (name === 'mock' && query === '') return 'mock';
  if (!/^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(name)) {
    throw new UnknownModelError(`TURN_LLM_PROVIDER must name a driver in .turn_modules/ (letters, digits, _, - and .), got \`${value}\``);
  }
  for (const file of [`${name}.wasm`, `${name}_provider.wasm`]) {
    const full = path.join(cwd, '.turn_modules', file);
    if (fs.existsSync(full)) return `wasm:${full}${query}`;
  }
  throw new UnknownModelError(`TURN_LLM_PROVIDER=${name}: no driver .turn_modules/${name}.wasm (nor Turn v1's .turn_modules/${name}_provider.wasm) in ${cwd}`);
}

/** `TURN_INFER_RETRIES`: re-asks after an invalid reply (default 2). */
export function inferRetriesFromEnv(env: Record<string, string | undefined> = process.env): number | undefined {
  const v = env.TURN_INFER_RETRIES;
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n > 20) throw new UnknownModelError(`TURN_INFER_RETRIES must be a whole number from 0 to 20, got \`${v}\``);
  return n;
}
