// A GGUF model run inside the Turn process with node-llama-cpp (`llama:PATH.gguf[?OPTIONS]`;
// docs/inference.md, *A local model in process*). node-llama-cpp is an optional peer dependency:
// it is loaded on first use, never bundled, and its absence is a clear message. The reply is
// decoded under a grammar made from the wire schema (the type's JSON Schema as
// node-llama-cpp's JSON-schema grammar), so it always parses. One context sequence serves all the
// calls of a run, one at a time: the tokens a call shares with the previous one (the system text,
// the context, the schema) are kept and not evaluated again. `usage.cachedTokens` reports them.
// A model file is outside input: its header is checked against its size before llama.cpp sees it
// (gguf.ts), and a load has a deadline (`load_timeout`) and ends when the call is cancelled (an
// interruption: SIGINT, SIGTERM).
import * as path from 'node:path';
import * as vm from 'node:vm';
import { GgufError, checkGgufHeader } from './gguf.js';
import { chatTurns } from './messages.js';
import type { InferIO, InferReply, InferRequest } from '../infer/types.js';
import { ModelConfigError, ProviderError, type LocalProvider } from './types.js';
import { refuseMedia } from './media-parts.js';

export interface LlamaOptions {
  /** the .gguf file, resolved against the working directory */
  file: string;
  contextSize: number;
  /** threads for evaluation (default: node-llama-cpp's choice) */
  threads?: number;
  /** offload to a GPU when there is one (default false: CPU, the same everywhere) */
  gpu: boolean;
  maxTokens?: number;
  temperature?: number;
  /** the most loading the model may take, in ms (`load_timeout`, seconds; default DEFAULT_LOAD_TIMEOUT_MS) */
  loadTimeoutMs?: number;
}

/** How long a model may take to load by default: 5 minutes (a large model from a slow disk). */
export const DEFAULT_LOAD_TIMEOUT_MS = 300_000;

export const LLAMA_PACKAGE = 'node-llama-cpp';

/* The package's surface used here (it is an optional peer: its types may be absent). */
interface Token {
  readonly __token?: never;
}
interface TokenMeter {
  usedInputTokens: number;
  usedOutputTokens: number;
}
interface Sequence {
  contextTokens: Token[];
  tokenMeter: TokenMeter;
}
interface Context {
  getSequence(): Sequence;
  dispose(): Promise<void>;
}
interface Grammar {
  readonly __grammar?: never;
}
interface LoadedModel {
  createContext(o: { contextSize: number; threads?: number; sequences?: number }): Promise<Context>;
}
interface Llama {
  loadModel(o: { modelPath: string; loadSignal?: AbortSignal }): Promise<LoadedModel>;
  createGrammarForJsonSchema(schema: unknown): Promise<Grammar>;
}
interface ChatHistoryItem {
  type: 'system' | 'user' | 'model';
  text?: string;
  response?: string[];
}
interface ChatSession {
  setChatHistory(h: ChatHistoryItem[]): void;
  getChatHistory(): ChatHistoryItem[];
  promptWithMeta(
    text: string,
    o: { grammar?: Grammar; maxTokens?: number; temperature?: number; seed?: number; signal?: AbortSignal; onTextChunk?: (t: string) => void },
  ): Promise<{ responseText: string; stopReason: string }>;
  dispose(o?: { disposeSequence?: boolean }): void;
}
interface LlamaModule {
  getLlama(o?: { gpu?: false | 'auto'; logLevel?: string }): Promise<Llama>;
  LlamaChatSession: new (o: { contextSequence: Sequence; systemPrompt?: string; autoDisposeSequence?: boolean }) => ChatSession;
}

/**
 * A true dynamic import (node-llama-cpp is an ES module), kept as such by the CommonJS bundle. It is
 * compiled here, at first use, as a script of its own with Node's default module loader: `import()`
 * in code compiled by `vm.Script` without a loader fails with "A dynamic import callback was not
 * specified", and the `turn` command loads its bundle that way (bin/code-cache.js). Node 20 also
 * drops a script's loader when the script is restored from a V8 code cache, so the bundle's own code
 * (and a `new Function` it creates) cannot import on a warm start whatever bin/code-cache.js passes.
 * Without the loader constant (Node before 20.12) the bundle is loaded by a plain require, where a
 * `new Function` import works.
 */
function importModule(specifier: string): Promise<unknown> {
  const loader = vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER;
  if (loader === undefined) return (new Function('specifier', 'return import(specifier)') as (s: string) => Promise<unknown>)(specifier);
  // the file name is where a package name resolves from: beside this code (dist/ in the bundle), as a plain import would
  const load = vm.runInThisContext('(specifier) => import(specifier)', { filename: path.join(__dirname, 'llama-import.js'), importModuleDynamically: loader }) as (s: string) => Promise<unknown>;
  return quietly(() => load(specifier));
}

/**
 * Node prints an ExperimentalWarning the first time the main context's loader is used by a script;
 * it is how Turn loads an optional package, not an experiment the user asked about, so that one
 * warning is kept off standard error (as runtime/store/node-sqlite.ts does for node:sqlite).
 */
function quietly<T>(f: () => T): T {
  const emit = process.emitWarning;
  process.emitWarning = ((w: string | Error, ...rest: unknown[]) => {
    const text = typeof w === 'string' ? w : w.message;
    if (text.includes('USE_MAIN_CONTEXT_DEFAULT_LOADER')) return;
    return (emit as (...a: unknown[]) => void).call(process, w, ...rest);
  });
  try {
    return f();
  } finally {
    process.emitWarning = emit;
  }
}

let loading: Promise<LlamaModule> | undefined;

/** node-llama-cpp, loaded once; a missing package is a ProviderError that says how to install it. */
export function loadLlamaModule(): Promise<LlamaModule> {
  loading ??= importModule(LLAMA_PACKAGE).then(
    (m) => m as LlamaModule,
    (e: unknown) => {
      loading = undefined;
      const code = (e as { code?: string }).code;
      const missing = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
      throw new ProviderError(
        missing
          ? `the llama: provider needs the package ${LLAMA_PACKAGE}, which is not installed: run \`npm install ${LLAMA_PACKAGE}\` where turn is installed (it is optional, so Turn does not ship it)`
          : `cannot load ${LLAMA_PACKAGE}: ${(e as Error).message}`,
      );
    },
  );
  return loading;
}

/** Loaded models, per file and GPU choice: the runs of one process share them. */
const models = new Map<string, Promise<{ llama: Llama; model: LoadedModel; loadMs: number }>>();

/**
 * `work` given a signal, settled by the first of: `work`, `timeoutMs` passing (its signal aborted
 * and a ProviderError naming `load_timeout`), or `cancel` aborting (a ProviderError saying so).
 * llama.cpp loads in native threads and may not stop at once; the caller does not wait for it.
 */
export function loadWithin<T>(work: (signal: AbortSignal) => Promise<T>, timeoutMs: number, cancel: AbortSignal | undefined, what: string): Promise<T> {
  const own = new AbortController();
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const settle = (f: () => void): void => {
      clearTimeout(timer);
      cancel?.removeEventListener('abort', onCancel);
      f();
    };
    const stop = (error: Error): void =>
      settle(() => {
        own.abort(error);
        reject(error);
      });
    const onCancel = (): void => stop(new ProviderError(`loading ${what} was cancelled`));
    timer = setTimeout(() => stop(new ProviderError(`loading ${what} took longer than ${timeoutMs / 1000} s (raise the model option load_timeout, in seconds)`)), timeoutMs);
    if (cancel?.aborted) return onCancel();
    cancel?.addEventListener('abort', onCancel, { once: true });
    work(own.signal).then(
      (v) => settle(() => resolve(v)),
      (e: Error) => settle(() => reject(e)),
    );
  });
}

function loadModel(file: string, gpu: boolean, timeoutMs: number, cancel: AbortSignal | undefined): Promise<{ llama: Llama; model: LoadedModel; loadMs: number }> {
  const key = `${gpu ? 'gpu' : 'cpu'}:${file}`;
  let m = models.get(key);
  if (!m) {
    m = (async () => {
      const mod = await loadLlamaModule();
      // before llama.cpp trusts the header's counts (a crafted one asked it for 2^62 tensors)
      try {
        checkGgufHeader(file);
      } catch (e) {
        if (e instanceof GgufError) throw new ProviderError(e.message);
        throw e;
      }
      const t0 = performance.now();
      return loadWithin(
        async (signal) => {
          const llama = await mod.getLlama({ gpu: gpu ? 'auto' : false, logLevel: 'error' });
          let model: LoadedModel;
          try {
            model = await llama.loadModel({ modelPath: file, loadSignal: signal });
          } catch (e) {
            throw new ProviderError(`cannot load the model ${file}: ${(e as Error).message}`);
          }
          return { llama, model, loadMs: Math.round(performance.now() - t0) };
        },
        timeoutMs,
        cancel,
        `the model ${path.basename(file)}`,
      );
    })();
    m.catch(() => models.delete(key));
    models.set(key, m);
  }
  return m;
}

export interface LlamaProvider extends LocalProvider {
  /** frees the run's context (the model stays loaded for other runs of the process) */
  dispose(): Promise<void>;
}

export function llamaProvider(o: LlamaOptions): LlamaProvider {
  const file = path.resolve(o.file);
  let state: Promise<{ mod: LlamaModule; llama: Llama; context: Context; sequence: Sequence; loadMs: number }> | undefined;
  const grammars = new WeakMap<object, Promise<Grammar>>();
  let queue: Promise<unknown> = Promise.resolve();
  let first = true;

  const ready = (signal: AbortSignal | undefined) =>
    (state ??= (async () => {
      const mod = await loadLlamaModule();
      const { llama, model, loadMs } = await loadModel(file, o.gpu, o.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS, signal);
      let context: Context;
      try {
        context = await model.createContext({ contextSize: o.contextSize, ...(o.threads ? { threads: o.threads } : {}), sequences: 1 });
      } catch (e) {
        throw new ProviderError(`cannot create a context of ${o.contextSize} tokens for ${file}: ${(e as Error).message} (lower context_size)`);
      }
      return { mod, llama, context, sequence: context.getSequence(), loadMs };
    })().catch((e: unknown) => {
      state = undefined;
      throw e;
    }));

  const grammarFor = (llama: Llama, schema: object): Promise<Grammar> => {
    let g = grammars.get(schema);
    if (!g) {
      g = llama.createGrammarForJsonSchema(schema).catch((e: unknown) => {
        throw new ProviderError(`the schema cannot be made a decoding grammar: ${(e as Error).message}`);
      });
      grammars.set(schema, g);
    }
    return g;
  };

  async function answer(request: InferRequest, io?: InferIO): Promise<InferReply> {
    refuseMedia(request, `llama:${o.file}`, () => false, 'the in-process provider reads text only (use a provider that takes images: openai, anthropic, gemini, bedrock, ollama)');
    const signal = (io as { signal?: AbortSignal } | undefined)?.signal;
    const { mod, llama, sequence, loadMs } = await ready(signal);
    if (signal?.aborted) throw new ProviderError(`the call to ${file} was cancelled`);
    const grammar = await grammarFor(llama, boundedForGrammar(request.wireSchema));
    const { system, turns } = chatTurns(request);
    const session = new mod.LlamaChatSession({ contextSequence: sequence, ...(system ? { systemPrompt: system } : {}), autoDisposeSequence: false });
    try {
      // earlier turns (a re-ask's rejected replies and their errors) as history; the last user turn is the prompt
      const history: ChatHistoryItem[] = session.getChatHistory().filter((h) => h.type === 'system');
      for (const t of turns.slice(0, -1)) history.push(t.role === 'user' ? { type: 'user', text: t.content } : { type: 'model', response: [t.content] });
      session.setChatHistory(history);
      const before = { ...sequence.tokenMeter, usedInputTokens: sequence.tokenMeter.usedInputTokens, usedOutputTokens: sequence.tokenMeter.usedOutputTokens };
      const t0 = performance.now();
      let tokens = 0;
      const maxTokens = request.sampling?.maxTokens ?? o.maxTokens ?? request.maxTokens;
      const temperature = request.sampling?.temperature ?? o.temperature;
      let result: { responseText: string; stopReason: string };
      try {
        result = await session.promptWithMeta(turns[turns.length - 1].content, {
          grammar,
          ...(maxTokens !== undefined ? { maxTokens } : {}),
          ...(temperature !== undefined ? { temperature } : {}),
          ...(request.sampling?.seed !== undefined ? { seed: request.sampling.seed } : {}),
          ...(signal ? { signal } : {}),
          onTextChunk: (delta) => {
            tokens++;
            io?.emit({ kind: 'infer.delta', delta, tokens, elapsedMs: Math.round(performance.now() - t0) });
          },
        });
      } catch (e) {
        if (signal?.aborted) throw new ProviderError(`the call to ${file} was cancelled`);
        throw new ProviderError(`the model ${path.basename(file)} failed: ${(e as Error).message}`);
      }
      const evaluated = sequence.tokenMeter.usedInputTokens - before.usedInputTokens;
      const output = sequence.tokenMeter.usedOutputTokens - before.usedOutputTokens;
      const promptTokens = Math.max(evaluated, sequence.contextTokens.length - output);
      const reply: InferReply = {
        text: result.responseText,
        usage: { inputTokens: promptTokens, outputTokens: output, cachedTokens: Math.max(0, promptTokens - evaluated) },
        meta: {
          model: `llama:${path.basename(file)}`,
          evaluatedPromptTokens: evaluated,
          generationMs: Math.round(performance.now() - t0),
          ...(first ? { loadMs } : {}),
        },
      };
      first = false;
      if (result.stopReason === 'maxTokens') reply.finishReason = 'length';
      else if (result.stopReason) reply.finishReason = result.stopReason;
      return reply;
    } finally {
      session.dispose({ disposeSequence: false });
    }
  }

  return {
    kind: 'local',
    name: `llama:${o.file}`,
    // one call at a time on the run's one sequence, in the order they were asked
    answer(request, io) {
      const next = queue.then(() => answer(request, io));
      queue = next.catch(() => undefined);
      return next;
    },
    async dispose() {
      const s = state;
      state = undefined;
      if (s) await (await s).context.dispose().catch(() => undefined);
    },
  };
}

const bounded = new WeakMap<object, object>();
/** Confidence steps the grammar allows: node-llama-cpp's JSON-schema grammar has no minimum/maximum, so [0, 1] becomes these values. */
const CONFIDENCE_STEPS = Array.from({ length: 21 }, (_, i) => i / 20);

/** The wire schema for the grammar: a number bounded to [0, 1] (the confidence) as an enum of steps, so it cannot run on. */
export function boundedForGrammar(schema: object): object {
  let b = bounded.get(schema);
  if (!b) {
    const walk = (s: unknown): unknown => {
      if (Array.isArray(s)) return s.map(walk);
      if (!s || typeof s !== 'object') return s;
      const o = s as Record<string, unknown>;
      if (o.type === 'number' && o.minimum === 0 && o.maximum === 1) return { enum: CONFIDENCE_STEPS, ...(o.description ? { description: o.description } : {}) };
      return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, walk(v)]));
    };
    b = walk(schema) as object;
    bounded.set(schema, b);
  }
  return b;
}

/** Options of a `llama:` spec (checked here, so a bad one is a usage error before the run starts). */
export function llamaOptions(spec: string, file: string, get: (key: string) => string | undefined): LlamaOptions {
  if (!file) throw new ModelConfigError('`llama:PATH` needs the path of a GGUF model file (e.g. llama:models/gemma-3-270m-q4_k_m.gguf)');
  const int = (key: string, min: number): number | undefined => {
    const v = get(key);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new ModelConfigError(`model \`${spec}\`: option ${key} needs a whole number >= ${min}, got \`${v}\``);
    return n;
  };
  const t = get('temperature');
  const temperature = t === undefined ? undefined : Number(t);
  if (temperature !== undefined && (!Number.isFinite(temperature) || temperature < 0)) throw new ModelConfigError(`model \`${spec}\`: option temperature needs a number >= 0, got \`${t}\``);
  const gpu = get('gpu') ?? '0';
  if (gpu !== '0' && gpu !== '1') throw new ModelConfigError(`model \`${spec}\`: gpu must be 0 or 1, got \`${gpu}\``);
  const loadTimeout = int('load_timeout', 1);
  return {
    file,
    contextSize: int('context_size', 256) ?? 4096,
    threads: int('threads', 1),
    gpu: gpu === '1',
    maxTokens: int('max_tokens', 1),
    temperature,
    ...(loadTimeout !== undefined ? { loadTimeoutMs: loadTimeout * 1000 } : {}),
  };
}
