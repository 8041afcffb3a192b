// `wasm:PATH`: Turn v1's provider drivers, WebAssembly modules that translate a Turn inference
// request into a provider's HTTP request and its HTTP response back (docs/inference.md, "Wasm
// provider drivers"). A driver exports `memory`, `alloc(len) -> ptr`,
// `transform_request(ptr, len) -> u64` and `transform_response(ptr, len) -> u64` (the u64 packs
// the result's pointer in its high 32 bits and its length in the low 32; UTF-8 JSON both ways).
//
// A driver is untrusted code, so:
//  - it gets no imports (a module that imports anything is refused): it can do no I/O at all;
//  - its memory is capped (MEMORY_CAP_BYTES): a larger initial memory is refused, and the
//    maximum of every memory (and table) is lowered to the cap in the module's bytes before it is
//    compiled, so memory.grow past the cap fails inside the engine;
//  - every call runs in a fresh instance inside a worker thread, under a time limit: a driver
//    that loops is stopped by terminating the worker (a synchronous loop cannot be interrupted on
//    the main thread), and a trap, a bad pointer or length, or output that is not JSON is a failed
//    model call naming the driver file, never a crash of the process;
//  - the host, not the driver, performs the HTTP call through the transport (timeouts, retries),
//    after checking its URL against the run's network capability (`authorize`);
//  - `$env:NAME` / `$env:NAME:DEFAULT` templates in the URL and the header values are filled only
//    from the secrets the spec allows (`secret=NAME,...`); a value filled in is removed from the
//    response handed back to the driver and from every error message.
import type { Worker } from 'node:worker_threads';
import type { InferIO, InferReply, InferRequest } from '../infer/types.js';
import { feedbackText } from '../infer/prompt.js';
import { httpError } from './http-errors.js';
import { chatTurns } from './messages.js';
import { exchangeFor, type Dial, type Exchange, type SecretSource } from './transport.js';
import { ModelConfigError, ProviderError, type HttpCall, type HttpProvider, type HttpResult, type LocalProvider, type TransportOptions } from './types.js';
import { refuseMedia } from './media-parts.js';

/** The most memory a driver may have: 64 MiB (1024 pages of 64 KiB). */
export const MEMORY_CAP_BYTES = 64 * 1024 * 1024;
const PAGE = 65536;
const MEMORY_CAP_PAGES = MEMORY_CAP_BYTES / PAGE;
/** The most elements a driver's table may hold. */
const TABLE_CAP = 65536;
/** The largest driver file, input handed to a driver, and result taken from one. */
export const MAX_DRIVER_BYTES = 16 * 1024 * 1024;
export const MAX_IO_BYTES = 16 * 1024 * 1024;
/** The time limit of one driver call (instantiation included), unless `call_timeout_ms` says otherwise. */
export const DEFAULT_CALL_TIMEOUT_MS = 2000;
/** How long a driver's worker thread may take to start. */
const WORKER_START_MS = 15_000;

// The parts of the WebAssembly JavaScript API used here (the project's `lib` has no DOM types).
interface WasmModule {
  readonly __brand: 'WebAssembly.Module';
}
interface WasmApi {
  Module: {
    new (bytes: Uint8Array): WasmModule;
    imports(module: WasmModule): { module: string; name: string; kind: string }[];
    exports(module: WasmModule): { name: string; kind: string }[];
  };
}
const wasmApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

export interface WasmDriverOptions {
  /** environment-variable names the driver's `$env:` templates may read */
  secrets?: string[];
  /** time limit of one driver call (default DEFAULT_CALL_TIMEOUT_MS) */
  callTimeoutMs?: number;
}

/** What a driver's model call may use of the run: network authority and the allowed secrets. */
export interface DriverAccess {
  /**
   * Resolves when the run may send `method` to `url`; rejects with the reason otherwise. `shown`
   * is the URL to show a person (an approval prompt): its origin, and its path with any secret
   * value filled into it replaced by the secret's name.
   */
  authorize(url: string, method: string, shown: string): Promise<void>;
  /** the value of the secret `name` (only ever asked for names the spec allowed), or undefined */
  secret(name: string): Promise<string | undefined>;
  /** where its calls are sent (a test maps a driver's fixed hosted origin to a fake on 127.0.0.1) */
  dial?: Dial;
}

export interface WasmDriver {
  /** the driver file as the spec names it */
  file: string;
  /** `wasm:FILE` */
  name: string;
  secrets: readonly string[];
  callTimeoutMs: number;
  /** a stand-in for the Provider slot of a model: drivers answer asynchronously, through `exchange` */
  provider: LocalProvider;
  /** the model call, with the run's access and the transport's options */
  exchange(access: DriverAccess, transport?: Partial<TransportOptions>): Exchange;
  /** stops the driver's worker thread (it is unref'd, so it never keeps a process alive) */
  close(): Promise<void>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Checks a `secret=` list: environment-variable names. Throws ModelConfigError. */
export function parseSecretNames(spec: string, value: string | undefined): string[] {
  if (value === undefined) return [];
  const names = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const n of names) {
    if (!ENV_NAME.test(n)) throw new ModelConfigError(`model \`${spec}\`: secret needs environment-variable names (letters, digits, _), got \`${n}\``);
  }
  return [...new Set(names)];
}

/**
 * Loads a driver from its bytes: checks it (valid module, no imports, the exports and their
 * types, memory within the cap) and caps its memory. Throws ModelConfigError naming `file`.
 */
export function loadWasmDriver(file: string, bytes: Uint8Array, options: WasmDriverOptions = {}): WasmDriver {
  const fail = (why: string) => new ModelConfigError(`Wasm driver ${file}: ${why}`);
  if (bytes.length > MAX_DRIVER_BYTES) throw fail(`the file is larger than ${mib(MAX_DRIVER_BYTES)}`);
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) {
    throw fail('not a WebAssembly module (no \\0asm header; compile the driver to .wasm, e.g. with wat2wasm or rustc --target wasm32-unknown-unknown)');
  }
  let module: WasmModule;
  try {
    module = new wasmApi.Module(bytes);
  } catch (e) {
    throw fail(`not a valid WebAssembly module: ${(e as Error).message}`);
  }
  const imports = wasmApi.Module.imports(module);
  if (imports.length > 0) {
    const shown = imports.slice(0, 3).map((i) => `${i.module}.${i.name} (${i.kind})`).join(', ');
    throw fail(`it imports ${shown}${imports.length > 3 ? ` and ${imports.length - 3} more` : ''}; a driver gets no imports, so it can do no I/O: the host makes the HTTP call`);
  }
  const exported = new Map(wasmApi.Module.exports(module).map((e) => [e.name, e.kind]));
  const missing = REQUIRED_EXPORTS.filter((e) => exported.get(e.name) !== e.kind).map((e) => `${e.name} (${e.kind})`);
  if (missing.length > 0) throw fail(`it does not export ${missing.join(', ')}; a driver exports memory, alloc, transform_request and transform_response`);
  let patched: Uint8Array;
  try {
    const info = inspect(bytes);
    for (const e of REQUIRED_EXPORTS) {
      if (e.kind !== 'function') continue;
      const sig = info.exportSignature(e.name);
      if (sig !== undefined && sig !== e.signature) throw new DriverShapeError(`${e.name} has the type ${sig}, but a driver's ${e.name} is ${e.signature}`);
    }
    patched = info.capped();
  } catch (e) {
    if (e instanceof DriverShapeError) throw fail(e.message);
    throw e;
  }
  let capped: WasmModule;
  try {
    capped = new wasmApi.Module(patched);
  } catch (e) {
    throw fail(`cannot be compiled with its memory capped: ${(e as Error).message}`);
  }
  const secrets = options.secrets ?? [];
  const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
  const runner = new DriverRunner(capped);
  const name = `wasm:${file}`;
  let calls = 0;
  return {
    file,
    name,
    secrets,
    callTimeoutMs,
    provider: {
      kind: 'local',
      name,
      answer() {
        throw new ProviderError(`Wasm driver ${file}: a driver answers asynchronously; call it through the model (createModel), not answer()`);
      },
    },
    exchange(access, transport = {}) {
      const ctx: CallContext = { file, name, secrets, callTimeoutMs, runner, access, transport };
      return (request, io) => driverExchange(ctx, request, ++calls, io);
    },
    close: () => runner.close(),
  };
}

const REQUIRED_EXPORTS = [
  { name: 'memory', kind: 'memory', signature: '' },
  { name: 'alloc', kind: 'function', signature: '(i32) -> i32' },
  { name: 'transform_request', kind: 'function', signature: '(i32, i32) -> i64' },
  { name: 'transform_response', kind: 'function', signature: '(i32, i32) -> i64' },
] as const;

function mib(bytes: number): string {
  const m = bytes / (1024 * 1024);
  return `${Number.isInteger(m) ? m : m.toFixed(1)} MiB`;
}

// ---------------------------------------------------------------------------------------------
// The module's bytes: function types of the exports, and the memory and table limits

class DriverShapeError extends Error {}

interface Section {
  id: number;
  /** where the section (its id byte) starts and where it ends */
  start: number;
  end: number;
  /** where its contents start */
  body: number;
}

class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public pos: number,
    readonly end: number,
  ) {}

  byte(): number {
    if (this.pos >= this.end) throw new DriverShapeError('the module ends in the middle of a section');
    return this.bytes[this.pos++];
  }

  /** an unsigned LEB128 number of at most `bits` bits */
  uleb(bits = 32): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
      if (shift >= bits + 7) throw new DriverShapeError('a number in the module is too long');
    }
    return result;
  }
}

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

const VALTYPES: Record<number, string> = { 0x7f: 'i32', 0x7e: 'i64', 0x7d: 'f32', 0x7c: 'f64', 0x7b: 'v128', 0x70: 'funcref', 0x6f: 'externref' };

interface Limits {
  min: number;
  max?: number;
}

/** The sections of a module that compiled (so its structure is sound) and what the host needs of them. */
function inspect(bytes: Uint8Array) {
  const sections: Section[] = [];
  const r = new Reader(bytes, 8, bytes.length);
  while (r.pos < bytes.length) {
    const start = r.pos;
    const id = r.byte();
    const size = r.uleb();
    const body = r.pos;
    if (body + size > bytes.length) throw new DriverShapeError('a section runs past the end of the module');
    sections.push({ id, start, end: body + size, body });
    r.pos = body + size;
  }
  const section = (id: number) => sections.find((s) => s.id === id);

  // function types: only the plain `func` form is read; anything else (GC type definitions)
  // leaves the signatures unknown, and the calls check what they get instead
  let types: string[] | undefined = [];
  const typeSection = section(1);
  if (typeSection) {
    const t = new Reader(bytes, typeSection.body, typeSection.end);
    const count = t.uleb();
    for (let i = 0; i < count && types; i++) {
      if (t.byte() !== 0x60) {
        types = undefined;
        break;
      }
      const vec = () => {
        const n = t.uleb();
        const out: string[] = [];
        for (let k = 0; k < n; k++) {
          const v = VALTYPES[t.byte()];
          if (v === undefined) return undefined;
          out.push(v);
        }
        return out;
      };
      const params = vec();
      const results = params && vec();
      if (!params || !results) types = undefined;
      else types.push(`(${params.join(', ')}) -> ${results.length === 1 ? results[0] : `(${results.join(', ')})`}`);
    }
  }
  const funcTypes: number[] = [];
  const funcSection = section(3);
  if (funcSection) {
    const f = new Reader(bytes, funcSection.body, funcSection.end);
    const count = f.uleb();
    for (let i = 0; i < count; i++) funcTypes.push(f.uleb());
  }
  const exports = new Map<string, { kind: number; index: number }>();
  const exportSection = section(7);
  if (exportSection) {
    const e = new Reader(bytes, exportSection.body, exportSection.end);
    const count = e.uleb();
    for (let i = 0; i < count; i++) {
      const len = e.uleb();
      const name = new TextDecoder().decode(bytes.subarray(e.pos, e.pos + len));
      e.pos += len;
      const kind = e.byte();
      exports.set(name, { kind, index: e.uleb() });
    }
  }

  const limits = (rd: Reader, what: string): Limits => {
    const flags = rd.byte();
    if (flags & 0x02) throw new DriverShapeError(`its ${what} is shared; a driver runs on one thread and may not share memory`);
    if (flags & 0x04) throw new DriverShapeError(`its ${what} is 64-bit; a driver's memory is 32-bit`);
    if (flags > 0x01) throw new DriverShapeError(`its ${what} uses limits this host does not know (flags 0x${flags.toString(16)})`);
    const min = rd.uleb();
    return flags & 0x01 ? { min, max: rd.uleb() } : { min };
  };
  const encodeLimits = (l: Limits, cap: number): number[] => [0x01, ...uleb(l.min), ...uleb(Math.min(l.max ?? cap, cap))];

  // memories: the initial size must be within the cap; every maximum becomes at most the cap
  let memoryPatch: number[] | undefined;
  const memorySection = section(5);
  if (memorySection) {
    const m = new Reader(bytes, memorySection.body, memorySection.end);
    const count = m.uleb();
    const out = uleb(count);
    for (let i = 0; i < count; i++) {
      const l = limits(m, 'memory');
      if (l.min > MEMORY_CAP_PAGES) {
        throw new DriverShapeError(`it asks for ${mib(l.min * PAGE)} of memory from the start, more than the ${mib(MEMORY_CAP_BYTES)} a driver may use`);
      }
      out.push(...encodeLimits(l, MEMORY_CAP_PAGES));
    }
    memoryPatch = out;
  }
  // tables: the same, in elements
  let tablePatch: number[] | undefined;
  const tableSection = section(4);
  if (tableSection) {
    const t = new Reader(bytes, tableSection.body, tableSection.end);
    const count = t.uleb();
    const out = uleb(count);
    for (let i = 0; i < count; i++) {
      const ref = t.byte();
      if (ref !== 0x70 && ref !== 0x6f) throw new DriverShapeError('it has a table of a kind this host does not know');
      const l = limits(t, 'table');
      if (l.min > TABLE_CAP) throw new DriverShapeError(`it asks for a table of ${l.min} elements, more than the ${TABLE_CAP} a driver may have`);
      out.push(ref, ...encodeLimits(l, TABLE_CAP));
    }
    tablePatch = out;
  }

  return {
    /** the type of an exported function as `(i32, i32) -> i64`, or undefined when unknown */
    exportSignature(name: string): string | undefined {
      const e = exports.get(name);
      if (!e || e.kind !== 0 || !types) return undefined;
      const t = funcTypes[e.index]; // no imports, so function indices are those of the function section
      return t === undefined ? undefined : types[t];
    },
    /** the module's bytes with every memory and table maximum at most the cap */
    capped(): Uint8Array {
      let copied = 0;
      const chunks: Uint8Array[] = [];
      for (const s of sections) {
        const patch = s.id === 5 ? memoryPatch : s.id === 4 ? tablePatch : undefined;
        if (!patch) continue;
        chunks.push(bytes.subarray(copied, s.start));
        const encoded = Uint8Array.from([s.id, ...uleb(patch.length), ...patch]);
        chunks.push(encoded);
        copied = s.end;
      }
      chunks.push(bytes.subarray(copied));
      const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.length;
      }
      return out;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Running a driver: one worker thread per driver, one fresh instance per call, one call at a time

// The worker's code (evaluated, so the bundles need no extra entry). It instantiates the module
// with no imports, writes the input through alloc, calls the function and copies the result out,
// checking every pointer and length against the memory; anything else is reported as a message.
const WORKER_SOURCE = `
'use strict';
const { parentPort, workerData } = require('node:worker_threads');
const { module: mod, capBytes, maxOutput } = workerData;
const hex = (n) => '0x' + n.toString(16).padStart(8, '0');
const size = (n) => (n < 1048576 ? n + ' bytes' : (n % 1048576 === 0 ? n / 1048576 : (n / 1048576).toFixed(1)) + ' MiB');
function run(m) {
  let stage = 'while starting (instantiating the module)';
  let memory;
  try {
    const instance = new WebAssembly.Instance(mod, {});
    const ex = instance.exports;
    memory = ex.memory;
    stage = 'in alloc';
    const input = m.input;
    const ptr = ex.alloc(input.length);
    if (typeof ptr !== 'number') return { ok: false, message: 'alloc returned a ' + typeof ptr + ', not an i32 pointer' };
    const p = ptr >>> 0;
    if (p + input.length > memory.buffer.byteLength) {
      return { ok: false, message: 'alloc(' + input.length + ') returned the pointer ' + hex(p) + ', outside its ' + size(memory.buffer.byteLength) + ' of memory' };
    }
    new Uint8Array(memory.buffer, p, input.length).set(input);
    stage = 'in ' + m.fn;
    const packed = ex[m.fn](p, input.length);
    if (typeof packed !== 'bigint') return { ok: false, message: m.fn + ' returned a ' + typeof packed + ', not an i64 (the result\\'s pointer << 32 | its length)' };
    const u = BigInt.asUintN(64, packed);
    const outPtr = Number(u >> 32n);
    const outLen = Number(u & 0xffffffffn);
    if (outLen > maxOutput) return { ok: false, message: m.fn + ' returned a length of ' + outLen + ' bytes, more than the ' + size(maxOutput) + ' a driver may return' };
    const total = memory.buffer.byteLength;
    if (outPtr + outLen > total) {
      return { ok: false, message: m.fn + ' returned ' + outLen + ' bytes at the pointer ' + hex(outPtr) + ', outside its ' + size(total) + ' of memory' };
    }
    return { ok: true, bytes: new Uint8Array(memory.buffer.slice(outPtr, outPtr + outLen)) };
  } catch (e) {
    const trap = e instanceof WebAssembly.RuntimeError || e instanceof RangeError;
    let message = (trap ? 'trapped ' : 'failed ') + stage + ': ' + (e && e.message ? e.message : String(e));
    if (memory && memory.buffer.byteLength * 2 >= capBytes) message += ' (its memory had grown to ' + size(memory.buffer.byteLength) + ' of the ' + size(capBytes) + ' cap; memory.grow past the cap fails)';
    return { ok: false, message };
  }
}
parentPort.on('message', (m) => {
  const r = run(m);
  r.id = m.id;
  parentPort.postMessage(r, r.bytes ? [r.bytes.buffer] : []);
});
parentPort.postMessage({ ready: true });
`;

/** A failed driver call; the message says what happened, without the driver's name. */
class DriverCallError extends Error {}

interface WorkerReply {
  id?: number;
  ready?: boolean;
  ok?: boolean;
  bytes?: Uint8Array;
  message?: string;
}

class DriverRunner {
  private worker: Worker | undefined;
  private ready: Promise<Worker> | undefined;
  /** the call in flight: its id, the worker it was posted to, and how to settle it */
  private pending: { id: number; worker: Worker; settle(reply: WorkerReply | Error): void } | undefined;
  private tail: Promise<unknown> = Promise.resolve();
  private seq = 0;

  constructor(private readonly module: WasmModule) {}

  /** Calls `fn` with `input`; one call at a time, each under `timeoutMs`. */
  call(fn: 'transform_request' | 'transform_response', input: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const run = this.tail.then(
      () => this.callNow(fn, input, timeoutMs),
      () => this.callNow(fn, input, timeoutMs),
    );
    this.tail = run.catch(() => undefined);
    return run;
  }

  private async callNow(fn: string, input: Uint8Array, timeoutMs: number): Promise<Uint8Array> {
    const worker = await this.start();
    const id = ++this.seq;
    const reply = await new Promise<WorkerReply | Error>((resolve) => {
      const timer = setTimeout(() => {
        this.pending = undefined;
        this.stop(worker);
        resolve(new DriverCallError(`did not finish ${fn} within ${timeoutMs} ms, so it was stopped (a driver must return; raise the limit with call_timeout_ms)`));
      }, timeoutMs);
      this.pending = {
        id,
        worker,
        settle: (r) => {
          clearTimeout(timer);
          this.pending = undefined;
          resolve(r);
        },
      };
      worker.postMessage({ id, fn, input });
    });
    if (reply instanceof Error) throw reply;
    if (!reply.ok || !reply.bytes) throw new DriverCallError(reply.message ?? `${fn} failed`);
    return reply.bytes;
  }

  private start(): Promise<Worker> {
    if (this.ready) return this.ready;
    // node:worker_threads is required when a driver first starts, not at every start of the CLI
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Worker: WorkerThread } = require('node:worker_threads') as typeof import('node:worker_threads');
    const worker = new WorkerThread(WORKER_SOURCE, {
      eval: true,
      workerData: { module: this.module, capBytes: MEMORY_CAP_BYTES, maxOutput: MAX_IO_BYTES },
      env: {},
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
    this.worker = worker;
    const ready = new Promise<Worker>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stop(worker);
        reject(new DriverCallError(`its worker thread did not start within ${WORKER_START_MS / 1000} s`));
      }, WORKER_START_MS);
      worker.on('message', (m: WorkerReply) => {
        if (m.ready) {
          clearTimeout(timer);
          resolve(worker);
        } else if (this.pending?.worker === worker && m.id === this.pending.id) {
          this.pending.settle(m);
        }
      });
      const down = (why: string) => {
        clearTimeout(timer);
        if (this.worker === worker) this.forget();
        const err = new DriverCallError(why);
        reject(err);
        if (this.pending?.worker === worker) this.pending.settle(err);
      };
      worker.on('error', (e: Error) => down(`its worker thread failed: ${e.message}`));
      worker.on('exit', (code: number) => down(`its worker thread stopped (exit code ${code})`));
      // after the listeners: adding a 'message' listener refs the worker's port again
      worker.unref();
    });
    ready.catch(() => undefined);
    this.ready = ready;
    return ready;
  }

  private forget(): void {
    this.worker = undefined;
    this.ready = undefined;
  }

  private stop(worker: Worker): void {
    if (this.worker === worker) this.forget();
    worker.terminate().catch(() => undefined);
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.forget();
    if (w) await w.terminate();
  }
}

// ---------------------------------------------------------------------------------------------
// One model call: the request envelope, transform_request, templates, the network check, the
// HTTP call through the transport, transform_response, and the reply

interface CallContext {
  file: string;
  name: string;
  secrets: readonly string[];
  callTimeoutMs: number;
  runner: DriverRunner;
  access: DriverAccess;
  transport: Partial<TransportOptions>;
}

/**
 * The JSON-RPC request handed to transform_request. `prompt` is the task (the program's prompt
 * and the reply format, then on a re-ask the rejected replies and their errors), `schema` the
 * reply's JSON Schema, `context` the process's context entries (P0, P2, P1), `tools` always
 * empty; `messages` (the exact chat turns the built-in providers send), `type` and `attempt`
 * are this implementation's additions, which Turn v1 drivers ignore.
 */
export function inferEnvelope(request: InferRequest, id: number) {
  const { system, turns } = chatTurns(request);
  const messages = system.length > 0 ? [{ role: 'system', content: system }, ...turns] : turns;
  let prompt = request.rendered.task;
  for (const f of request.feedback) {
    prompt += `\n\nYour earlier reply:\n${f.reply.length > 0 ? f.reply : '(an empty reply)'}\n\n${feedbackText(f)}`;
  }
  return {
    jsonrpc: '2.0',
    method: 'llm_infer',
    // `messages` first: a driver that scans the text for a key finds the real one before any
    // schema property of the same name
    params: { messages, prompt, schema: request.wireSchema, context: request.context, tools: [] as unknown[], type: request.typeName, attempt: request.attempt },
    id,
  };
}

async function driverExchange(ctx: CallContext, request: InferRequest, id: number, io?: InferIO): Promise<InferReply> {
  refuseMedia(request, 'a Turn v1 Wasm driver', () => false, 'its request envelope has no place for images or documents');
  const filled = new Map<string, string>(); // secret value → its name
  const scrub = (text: string): string => {
    let out = text;
    for (const [value, name] of filled) if (value.length >= 3) out = out.split(value).join(`[secret ${name}]`);
    return out;
  };
  try {
    const call = await driverRequest(ctx, request, id, filled);
    return await send(ctx, call, request, scrub, io);
  } catch (e) {
    const prefix = `Wasm driver ${ctx.file}: `;
    if (e instanceof ProviderError) {
      throw new ProviderError(scrub(e.message.startsWith(`Wasm driver ${ctx.file}`) ? e.message : prefix + e.message), e.retryable, e.status, e.retryAfterMs);
    }
    throw new ProviderError(prefix + scrub(e instanceof Error ? e.message : String(e)));
  }
}

async function callDriver(ctx: CallContext, fn: 'transform_request' | 'transform_response', value: unknown): Promise<Record<string, unknown>> {
  const input = new TextEncoder().encode(JSON.stringify(value));
  if (input.length > MAX_IO_BYTES) throw new DriverCallError(`the input to ${fn} would be ${input.length} bytes, more than the ${mib(MAX_IO_BYTES)} a driver may be given`);
  const out = await ctx.runner.call(fn, input, ctx.callTimeoutMs);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(out);
  } catch {
    throw new DriverCallError(`${fn} returned ${out.length} bytes that are not UTF-8 text`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new DriverCallError(`${fn} returned text that is not JSON (${(e as Error).message}): ${JSON.stringify(text.length > 80 ? text.slice(0, 77) + '...' : text)}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new DriverCallError(`${fn} returned ${Array.isArray(parsed) ? 'a JSON list' : `the JSON ${parsed === null ? 'null' : typeof parsed}`}, not an object`);
  }
  return parsed as Record<string, unknown>;
}

function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (e && typeof e === 'object' && typeof (e as { message?: unknown }).message === 'string') {
    const code = (e as { code?: unknown }).code;
    return (e as { message: string }).message + (typeof code === 'number' || typeof code === 'string' ? ` (code ${code})` : '');
  }
  return JSON.stringify(e) ?? String(e);
}

/** transform_request, its result checked and its templates filled. */
async function driverRequest(ctx: CallContext, request: InferRequest, id: number, filled: Map<string, string>): Promise<HttpCall> {
  const envelope = inferEnvelope(request, id);
  const r = await callDriver(ctx, 'transform_request', envelope);
  if (r.error !== undefined && r.error !== null && r.url === undefined) throw new DriverCallError(`transform_request refused the request: ${errorText(r.error)}`);
  if (typeof r.url !== 'string') throw new DriverCallError('transform_request returned no "url" (it returns {"url", "method", "headers", "body"})');
  const method = r.method === undefined ? 'POST' : r.method;
  if (typeof method !== 'string' || method.toUpperCase() !== 'POST') throw new DriverCallError(`transform_request asked for the method ${JSON.stringify(method)}; model calls are POST`);
  const headers: Record<string, string> = {};
  if (r.headers !== undefined && r.headers !== null) {
    if (typeof r.headers !== 'object' || Array.isArray(r.headers)) throw new DriverCallError('transform_request returned "headers" that are not an object of strings');
    for (const [k, v] of Object.entries(r.headers as Record<string, unknown>)) {
      if (typeof v !== 'string') throw new DriverCallError(`transform_request returned the header ${JSON.stringify(k)} with a ${v === null ? 'null' : typeof v} value, not a string`);
      if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(k)) throw new DriverCallError(`transform_request returned a header name that is not valid: ${JSON.stringify(k)}`);
      headers[k.toLowerCase()] = await fillTemplates(ctx, v, `the header ${k}`, filled);
      if (/[\r\n\0]/.test(headers[k.toLowerCase()])) throw new DriverCallError(`the header ${k} holds a line break or NUL`);
    }
  }
  const body = r.body === undefined || r.body === null ? '' : typeof r.body === 'string' ? r.body : JSON.stringify(await fillBody(ctx, r.body, requestStrings(envelope), filled));
  const url = await fillTemplates(ctx, r.url, 'the url', filled);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DriverCallError(`transform_request returned a url that is not a URL: ${JSON.stringify(r.url)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new DriverCallError(`transform_request returned a url that is not http(s): ${JSON.stringify(r.url)}`);
  return { method: 'POST', url: parsed.href, headers, body };
}

/** Every string in the request envelope, at any depth: the program's text, never the driver's. */
function requestStrings(envelope: unknown): Set<string> {
  const out = new Set<string>();
  const stack = [envelope];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') out.add(v);
    else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) stack.push(k, x);
  }
  return out;
}

/**
 * Fills the templates of a JSON body (Turn v1's drivers write `"model": "$env:OPENAI_MODEL:gpt-4o"`):
 * only a string value that is one template as a whole, and only one the driver wrote, not a
 * string of the request (a prompt or a context entry that says `$env:HOME` stays text).
 */
async function fillBody(ctx: CallContext, body: unknown, fromRequest: Set<string>, filled: Map<string, string>, at = ''): Promise<unknown> {
  if (typeof body === 'string') return WHOLE_TEMPLATE.test(body) && !fromRequest.has(body) ? fillTemplates(ctx, body, `the body's ${at || '/'}`, filled) : body;
  if (Array.isArray(body)) {
    const out: unknown[] = [];
    for (let i = 0; i < body.length; i++) out.push(await fillBody(ctx, body[i], fromRequest, filled, `${at}/${i}`));
    return out;
  }
  if (body && typeof body === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(body)) Object.defineProperty(out, k, { value: await fillBody(ctx, v, fromRequest, filled, `${at}/${k}`), enumerable: true, writable: true, configurable: true });
    return out;
  }
  return body;
}

const WHOLE_TEMPLATE = /^\$env:([A-Za-z0-9_]+)(?::([\s\S]*))?$/;

/**
 * Fills `$env:NAME` and `$env:NAME:DEFAULT` (Turn v1's syntax: NAME and DEFAULT are letters,
 * digits and `_`; the template ends at the first other character). A text that is one template
 * as a whole takes everything after `NAME:` as its DEFAULT (`$env:OPENAI_MODEL:gpt-4o`, where
 * Turn v1 would keep `-4o` after the value). NAME is read only when the spec allows it
 * (`secret=NAME`): from the vault (TURN_SECRET_NAME...) or the variable NAME. Otherwise DEFAULT
 * is used when given, and the call fails when not.
 */
async function fillTemplates(ctx: CallContext, text: string, where: string, filled: Map<string, string>): Promise<string> {
  const re = WHOLE_TEMPLATE.test(text) ? new RegExp(WHOLE_TEMPLATE.source, 'g') : /\$env:([A-Za-z0-9_]+)(?::([A-Za-z0-9_:]*))?/g;
  let out = '';
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const [whole, name, fallback] = m;
    let value: string | undefined;
    if (ctx.secrets.includes(name)) {
      value = await ctx.access.secret(name);
      if (value !== undefined) filled.set(value, name);
    } else if (fallback === undefined) {
      throw new DriverCallError(
        `${where} uses $env:${name}, which is not one of the driver's secrets (${ctx.secrets.length ? ctx.secrets.join(', ') : 'none'}); ` +
          `allow it with wasm:${ctx.file}?secret=${[...ctx.secrets, name].join(',')}`,
      );
    }
    value ??= fallback;
    if (value === undefined) throw new DriverCallError(`${where} uses $env:${name}, which is not set (set TURN_SECRET_${name}, put ${name} in the secrets file, or set ${name})`);
    out += text.slice(last, m.index) + value;
    last = m.index + whole.length;
  }
  return out + text.slice(last);
}

const retryable = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;
const NO_SECRETS: SecretSource = { get: () => undefined };

async function send(ctx: CallContext, call: HttpCall, request: InferRequest, scrub: (s: string) => string, io?: InferIO): Promise<InferReply> {
  try {
    const u = new URL(call.url);
    await ctx.access.authorize(call.url, call.method, u.origin + scrub(u.pathname));
  } catch (e) {
    throw new DriverCallError(`its request to ${call.url} is refused: ${(e as Error).message}`);
  }
  // The transport sends, times out and retries; retryable statuses (429, 5xx...) are retried by
  // it and, when they persist, fail with the server's message; every other response goes to
  // transform_response.
  let response: HttpResult | undefined;
  const oneCall: HttpProvider = {
    kind: 'http',
    name: ctx.name,
    encode: () => ({ method: 'POST', url: call.url, headers: call.headers, body: call.body }),
    decode: (res) => {
      if (retryable(res.status)) throw httpError('the model server', call.url, res);
      response = res;
      return {};
    },
  };
  const sent = await exchangeFor(oneCall, ctx.transport, NO_SECRETS, ctx.access.dial)(request, io);
  if (!response) throw new DriverCallError('no response'); // decode always sets it before returning
  const res = response;
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) headers[k] = scrub(v);
  const r = await callDriver(ctx, 'transform_response', { status: res.status, body: scrub(res.body), headers });
  const meta = { driver: ctx.file, status: res.status, ...sent.meta };
  if (r.error !== undefined && r.error !== null) throw new ProviderError(`Wasm driver ${ctx.file} reported an error: ${errorText(r.error)}`, false, res.status);
  if (r.method === 'tool_call') {
    const params = r.params as { name?: unknown } | undefined;
    const tool = typeof params?.name === 'string' ? ` (${params.name})` : '';
    throw new ProviderError(`Wasm driver ${ctx.file} answered with a tool call${tool}; tool calls from drivers are not supported: an infer asks for a value and offers no tools`, false, res.status);
  }
  return driverReply(r, meta);
}

/**
 * The reply in what transform_response returned, in every shape Turn v1's host accepts: `result`
 * (a string, or a value given as JSON), or the legacy OpenAI-shaped
 * `{"choices": [{"message": {"content": ...}}], "usage": {...}}` that Turn v1's Ollama, Anthropic
 * and Grok drivers return (its `usage` as prompt/completion or input/output tokens).
 */
export function driverReply(r: Record<string, unknown>, meta: Record<string, unknown> = {}): InferReply {
  if ('result' in r) {
    const result = r.result;
    return { text: typeof result === 'string' ? result : JSON.stringify(result) ?? 'null', meta };
  }
  if (Array.isArray(r.choices)) {
    const choice = r.choices[0] as { message?: { content?: unknown }; finish_reason?: unknown } | undefined;
    const content = choice?.message?.content;
    if (content === undefined) throw new DriverCallError('transform_response returned "choices" without choices[0].message.content');
    const reply: InferReply = { text: typeof content === 'string' ? content : JSON.stringify(content) ?? 'null', meta };
    if (typeof choice?.finish_reason === 'string') reply.finishReason = choice.finish_reason === 'max_tokens' ? 'length' : choice.finish_reason;
    const u = r.usage as { prompt_tokens?: unknown; completion_tokens?: unknown; input_tokens?: unknown; output_tokens?: unknown; total_tokens?: unknown } | undefined;
    if (u && typeof u === 'object') {
      const n = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : undefined);
      const usage: NonNullable<InferReply['usage']> = {};
      const input = n(u.prompt_tokens) ?? n(u.input_tokens);
      const output = n(u.completion_tokens) ?? n(u.output_tokens);
      if (input !== undefined) usage.inputTokens = input;
      if (output !== undefined) usage.outputTokens = output;
      // Turn v1's Ollama, Anthropic and Grok drivers report only the sum (Turn v1's host reads no other)
      if (input === undefined && output === undefined && n(u.total_tokens) !== undefined) usage.totalTokens = n(u.total_tokens);
      if (Object.keys(usage).length > 0) reply.usage = usage;
    }
    return reply;
  }
  throw new DriverCallError('transform_response returned neither "result", "error", "choices" (the legacy reply) nor a tool call');
}

