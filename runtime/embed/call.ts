// One call of a closure a Turn module exports (its top-level `return {"name": turn(...) {...}}`),
// as a generated typed client makes it (`turn gen ts`, docs/embedding.md): the arguments are
// checked against the parameters' JSON Schema before any run starts, the call is a run of a small
// program that `use`s the module and calls the entry, and its value is checked against the return
// type's schema before it reaches TypeScript. The confidence comes back beside the value.
//
// A durable call (`store` and `id`) is a durable run with that id: called again with the same id
// (an app restarted after a crash, a retried request), it returns the recorded value of a finished
// run, or resumes the run from its journal, so no model call it recorded is made again.
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { turnString } from '../absorb/module.js';
import { bytesJson } from '../durable/index.js';
import { checkArguments, outputProblems, ProtocolError } from '../mcp/serve/validate.js';
import { TurnError } from './errors.js';
import { checkRunId, resumeRun, startRun, type StartOptions, type TurnResult, type TurnRun, type Usage } from './run.js';
import { sha256Hex } from '../hash.js';
import type { TurnOptions } from './options.js';
import { openStore } from './store.js';

/** Per-call options: a run's, and `id` for a durable call (with `store`). */
export interface CallOptions extends TurnOptions {
  /** names a durable call: the same id later returns its value or resumes it (needs `store`) */
  id?: string;
}

/** What a generated function receives from a call. */
export interface CallResult<T = unknown> {
  value: T;
  /** how likely the value is right, 0..1 (1 for a value no model made) */
  confidence: number;
  /** the durable run's id */
  runId?: string;
  usage: Usage;
  /** the run was not made again: its recorded value was returned */
  recorded?: boolean;
}

/** The schemas a generated client holds for one export. */
export interface ExportSchemas {
  /** an object of the parameters by name */
  input: object;
  output: object;
}

/** A call whose run ended without a value: the result says how. */
export class TurnCallError extends TurnError {
  override name = 'TurnCallError';
  constructor(
    message: string,
    readonly result: TurnResult,
  ) {
    super('run', message);
  }
}

/** Durable calls in flight in this process, by store file and id: one id is never run twice at once. */
const inFlight = new Set<string>();

/** The most JSON values (every array element, object member and scalar) a call's arguments may hold. */
export const MAX_ARGUMENT_VALUES = 1_000_000;

/**
 * The arguments as plain JSON, each one's text: a cyclic value, a BigInt, or more than
 * MAX_ARGUMENT_VALUES values (a structure sharing its parts, which a walk would visit
 * exponentially often) is refused, counted as it is serialized rather than after.
 */
function argumentsJson(key: string, args: unknown[]): string[] {
  let values = 0;
  const count = (_k: string, v: unknown): unknown => {
    if (++values > MAX_ARGUMENT_VALUES) throw new TurnError('invalid', `invalid arguments for ${key}: more than ${MAX_ARGUMENT_VALUES} values`);
    return v;
  };
  return args.map((v, i) => {
    try {
      return JSON.stringify(v ?? null, count);
    } catch (e) {
      if (e instanceof TurnError) throw e;
      throw new TurnError('invalid', `invalid arguments for ${key}: argument ${i + 1} is not JSON data (${e instanceof Error ? e.message.split('\n')[0] : String(e)})`);
    }
  });
}

function callProgram(file: string, key: string, json: string[]): string {
  const values = json.map((text) => `call("json_parse", ${turnString(text)})`);
  return [
    `let exported = use ${turnString(path.resolve(file))};`,
    `let result = exported[${turnString(key)}](${values.join(', ')});`,
    // the confidence travels with the value, so a finished durable run's stored result holds both
    `return {"value": result, "confidence": confidence result};`,
    '',
  ].join('\n');
}

function failure(key: string, r: TurnResult): string {
  switch (r.status) {
    case 'failed':
      return `${key}: ${r.error.path}:${r.error.line}:${r.error.column}: ${r.error.message}`;
    case 'suspended':
      return `${key}: the run suspended (run ${r.runId}); call again with the same id to resume it`;
    case 'waiting':
      return `${key}: the run waits (run ${r.runId}): ${r.reason}`;
    case 'stopped':
    case 'aborted':
      return `${key}: the run ${r.status === 'stopped' ? 'was stopped' : 'was aborted'}: ${r.reason}`;
    case 'done':
      return `${key}: done`;
  }
}

/** The value and confidence out of the call program's `{"value": ..., "confidence": ...}`. */
function unpack(key: string, json: unknown): { value: unknown; confidence: number } {
  const o = json as { value?: unknown; confidence?: unknown } | null;
  if (o === null || typeof o !== 'object' || typeof o.confidence !== 'number') throw new TurnError('invalid', `${key}: the stored result is not a call's result`);
  return { value: o.value ?? null, confidence: o.confidence };
}

function checkOutput(key: string, value: unknown, schemas: ExportSchemas | undefined): void {
  if (!schemas) return;
  const problems = outputProblems(value, schemas.output);
  if (problems !== undefined) throw new TurnError('invalid', `the result of ${key} does not fit its declared type: ${problems}`);
}

/**
 * Calls export `key` of the Turn module `file` with `args` (in parameter order; `params` names
 * them for the input check). Throws TurnError: `invalid` for arguments or a result that break the
 * schemas, TurnCallError (`run`) for a run that ended without a value, others for setup.
 */
export async function callExport(
  file: string,
  key: string,
  args: unknown[],
  options: CallOptions & { params?: string[]; schemas?: ExportSchemas } = {},
): Promise<CallResult> {
  const { params, schemas } = options;
  const json = argumentsJson(key, args);
  // checked as what the run will get: the arguments parsed back from their JSON
  const parsed = json.map((text) => JSON.parse(text) as unknown);
  if (schemas) {
    const named = Object.fromEntries((params ?? []).map((p, i) => [p, parsed[i] ?? null]).filter(([, v]) => v !== null));
    try {
      checkArguments(key, named, schemas.input);
    } catch (e) {
      if (e instanceof ProtocolError) throw new TurnError('invalid', e.message);
      throw e;
    }
  }
  const id = Object.hasOwn(options, 'id') ? options.id : undefined;
  const program = callProgram(file, key, json);
  if (id === undefined) return finish(key, await startScratch(program, options), schemas);
  checkRunId(id);
  if (options.store === undefined) throw new TurnError('usage', `${key}: a call id names a durable call: give a store too`);
  // the store, held open for the lookup and the run (a folder is opened here and closed after)
  const held = typeof options.store === 'string' ? openStore(options.store) : options.store;
  const flight = `${held.file}\0${id}`;
  if (inFlight.has(flight)) {
    if (held !== options.store) held.close();
    throw new TurnError('usage', `${key}: the call ${id} is already running in this process`);
  }
  inFlight.add(flight);
  try {
    const callOptions = { ...options, store: held };
    // what the id names: this export with these arguments (another call under the same id is refused, never
    // answered with this one's value); not the module's path, so an app moved to another folder still resumes
    const call = sha256Hex(JSON.stringify([key, json]));
    const record = held.runStore.getRun(id);
    if (record === null) return finish(key, await startScratch(program, { ...callOptions, id, meta: { call } }), schemas);
    if (record.meta.call !== call) throw new TurnError('usage', `${key}: the call id ${id} names another call in this store (another export, or other arguments)`);
    if (record.status === 'done') {
      const { value, confidence } = unpack(key, (storedJson(record.result) as { json?: unknown } | null)?.json);
      checkOutput(key, value, schemas);
      return { value, confidence, runId: id, usage: { modelCalls: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0 }, recorded: true };
    }
    if (record.status === 'failed') {
      const e = storedJson(record.result) as { message?: unknown } | null;
      throw new TurnError('refused', `${key}: the call ${id} failed before: ${typeof e?.message === 'string' ? e.message : 'see turn inspect ' + id}`);
    }
    return finish(key, await resumeRun(id, callOptions), schemas);
  } finally {
    inFlight.delete(flight);
    if (held !== options.store) held.close();
  }
}

/** A stored run's result, decoded; a damaged one is a store error. */
function storedJson(bytes: Uint8Array | null): unknown {
  if (bytes === null) return null;
  try {
    return bytesJson(bytes);
  } catch (e) {
    throw new TurnError('store', `a stored call's result cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** A new run of the call program, written in a private scratch folder removed when the run is set up (a durable run keeps its code in the store). */
async function startScratch(text: string, options: StartOptions): Promise<TurnRun> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'turn-call-'));
  try {
    const program = path.join(dir, 'call.tn');
    fs.writeFileSync(program, text, { mode: 0o600 });
    return await startRun(program, options);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function finish(key: string, run: TurnRun, schemas: ExportSchemas | undefined): Promise<CallResult> {
  const r = await run.result();
  if (r.status !== 'done') throw new TurnCallError(failure(key, r), r);
  const { value, confidence } = unpack(key, r.value);
  checkOutput(key, value, schemas);
  return { value, confidence, ...(r.runId !== undefined ? { runId: r.runId } : {}), usage: r.usage };
}

