// Model specs (`--model`, `TURN_MODEL`, the `turn.model` setting) to providers:
//   mock
//   script:FILE
//   openai:MODEL[?OPTIONS]      OpenAI or any OpenAI-compatible server (vLLM, LM Studio, ...);
//                               with api=responses, OpenAI's Responses API (openai-responses.ts)
//   ollama:MODEL[?OPTIONS]      openai: with base_url http://127.0.0.1:11434/v1 and no key needed;
//                               with api=native, Ollama's own /api/chat (NDJSON stream; ollama.ts)
//   azure:DEPLOYMENT[?OPTIONS]  Azure OpenAI chat completions: endpoint, api_version, auth (key|entra)
//   gemini:MODEL[?OPTIONS]      Google's Gemini API: generateContent / streamGenerateContent
//   bedrock:MODEL_ID[?OPTIONS]  AWS Bedrock's Converse / ConverseStream, SigV4-signed by the host
//   anthropic:MODEL[?OPTIONS]
//   wasm:PATH[?OPTIONS]         a Turn v1 provider driver (WebAssembly; runtime/providers/wasm.ts)
//   llama:PATH.gguf[?OPTIONS]   a GGUF model in process with node-llama-cpp (runtime/providers/llama.ts):
//                               context_size, threads, gpu (0|1), max_tokens, temperature, load_timeout (s)
// OPTIONS are `key=value` pairs joined by `&`: base_url, api_key_env, max_tokens, temperature,
// stream (1|0), and the transport's connect_timeout_ms, first_byte_timeout_ms, idle_timeout_ms,
// timeout_ms (the deadline of the whole call), max_reply_bytes, max_frame_bytes, retries,
// backoff_ms, max_wait_ms, concurrency; for openai
// also structured (strict|schema|json|none) and logprobs (1|0); for anthropic also version; wasm
// takes secret, call_timeout_ms and the transport options. See docs/inference.md.
import { anthropicProvider, ANTHROPIC_DEFAULT_BASE } from './anthropic.js';
import { AZURE_DEFAULT_API_VERSION, azureProvider } from './azure.js';
import { GEMINI_DEFAULT_BASE, geminiProvider } from './gemini.js';
import { bedrockProvider } from './bedrock.js';
import { mockProvider } from './mock.js';
import { OPENAI_DEFAULT_BASE, openaiProvider, type OpenAIOptions } from './openai.js';
import { openaiResponsesProvider } from './openai-responses.js';
import { scriptProvider } from './script.js';
import { llamaOptions, llamaProvider } from './llama.js';
import { ollamaProvider } from './ollama.js';
import { ModelConfigError, type Provider, type TransportOptions } from './types.js';
import { loadWasmDriver, parseSecretNames, type WasmDriver } from './wasm.js';

export * from './types.js';
export { exchangeFor, envSecrets, redactedCall, concurrencyFor, type SecretSource, type Exchange, type Dial } from './transport.js';
export { readFrames, type FrameReader } from './frames.js';
export { mockProvider } from './mock.js';
export { scriptProvider, parseScript } from './script.js';
export { openaiProvider, strictCompatible, type OpenAIOptions } from './openai.js';
export { openaiResponsesProvider } from './openai-responses.js';
export { azureProvider, AZURE_DEFAULT_API_VERSION, type AzureOptions } from './azure.js';
export { geminiProvider, GEMINI_DEFAULT_BASE, type GeminiOptions } from './gemini.js';
export { bedrockProvider, BEDROCK_TOOL, type BedrockOptions } from './bedrock.js';
export { signRequest, type SigV4Credentials } from './sigv4.js';
export { anthropicProvider, TOOL_NAME, type AnthropicOptions } from './anthropic.js';
export { chatTurns } from './messages.js';
export { hostChatProvider, hostChatTurns, DEFAULT_HOST_CHAT_BOUNDS, type HostChat, type HostChatBounds, type ChatTurn } from './host-chat.js';
export { ollamaProvider, type OllamaOptions } from './ollama.js';
export { llamaProvider, loadLlamaModule, LLAMA_PACKAGE, type LlamaOptions, type LlamaProvider } from './llama.js';
export { loadWasmDriver, inferEnvelope, driverReply, MEMORY_CAP_BYTES, MAX_DRIVER_BYTES, type WasmDriver, type DriverAccess } from './wasm.js';

/**
 * The API keys a model may send, as `[variable, key]` pairs read from `env` (and from the process
 * environment, which the transport reads): an HTTP provider's `keyEnv` (`api_key_env`, else
 * OPENAI_API_KEY / ANTHROPIC_API_KEY / OLLAMA_API_KEY), and `more` variables (a Wasm driver's
 * `secret=` names). The host registers them with its Redactor at build time, so a model that
 * repeats its key, or an error that quotes it, is redacted before the program or the trace sees it.
 */
export function providerKeys(provider: Provider, env: Record<string, string | undefined> = process.env, more: readonly string[] = []): [string, string][] {
  const names = new Set(more);
  if (provider.kind === 'http' && provider.keyEnv) names.add(provider.keyEnv);
  if (provider.kind === 'http') for (const name of provider.secretEnvs ?? []) names.add(name);
  const out: [string, string][] = [];
  for (const name of names) {
    for (const key of new Set([env[name], process.env[name]])) if (key) out.push([name, key]);
  }
  return out;
}

export interface ModelSetup {
  provider: Provider;
  transport: Partial<TransportOptions>;
  /** a Wasm driver (`wasm:PATH`): the model call is its `exchange`, given the run's access */
  driver?: WasmDriver;
}

export interface SpecEnv {
  /** reads a fixture file; throws with a message when it cannot */
  readFile(path: string): string;
  env: Record<string, string | undefined>;
  /** reads a Wasm driver's bytes; throws with a message when it cannot */
  readBinary?(path: string): Uint8Array;
}

const TRANSPORT = ['connect_timeout_ms', 'first_byte_timeout_ms', 'idle_timeout_ms', 'timeout_ms', 'max_reply_bytes', 'max_frame_bytes', 'retries', 'backoff_ms', 'max_wait_ms', 'concurrency'];
const COMMON = ['base_url', 'api_key_env', ...TRANSPORT, 'max_tokens', 'temperature', 'stream'];

function options(spec: string, query: string, allowed: string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (!query) return out;
  for (const part of query.split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    const k = decodeURIComponent(eq < 0 ? part : part.slice(0, eq));
    const v = decodeURIComponent(eq < 0 ? '' : part.slice(eq + 1));
    if (!allowed.includes(k)) throw new ModelConfigError(`model \`${spec}\`: unknown option \`${k}\` (options: ${allowed.join(', ')})`);
    out.set(k, v);
  }
  return out;
}

function num(spec: string, o: Map<string, string>, key: string, min: number, integer = true): number | undefined {
  const v = o.get(key);
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < min || (integer && !Number.isInteger(n))) {
    throw new ModelConfigError(`model \`${spec}\`: option ${key} needs ${integer ? 'a whole number' : 'a number'} >= ${min}, got \`${v}\``);
  }
  return n;
}

/** A spec's transport options (0 turns a time limit off; a byte bound is at least 1). */
function transport(spec: string, o: Map<string, string>): Partial<TransportOptions> {
  const t: Partial<TransportOptions> = {};
  const set = <K extends keyof TransportOptions>(key: K, option: string) => {
    const v = num(spec, o, option, 0);
    if (v !== undefined) t[key] = v;
  };
  set('connectTimeoutMs', 'connect_timeout_ms');
  set('firstByteTimeoutMs', 'first_byte_timeout_ms');
  set('idleTimeoutMs', 'idle_timeout_ms');
  set('totalTimeoutMs', 'timeout_ms');
  for (const [key, option] of [['maxReplyBytes', 'max_reply_bytes'], ['maxFrameBytes', 'max_frame_bytes']] as const) {
    const v = num(spec, o, option, 1);
    if (v !== undefined) t[key] = v;
  }
  set('retries', 'retries');
  set('backoffMs', 'backoff_ms');
  set('maxWaitMs', 'max_wait_ms');
  set('concurrency', 'concurrency');
  return t;
}

function flag(spec: string, o: Map<string, string>, key: string, fallback: boolean): boolean {
  const v = o.get(key);
  if (v === undefined) return fallback;
  if (v !== '0' && v !== '1') throw new ModelConfigError(`model \`${spec}\`: ${key} must be 0 or 1, got \`${v}\``);
  return v === '1';
}

function baseUrl(spec: string, v: string, option = 'base_url'): string {
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new ModelConfigError(`model \`${spec}\`: ${option} must be an http(s) URL, got \`${v}\``);
  }
  return v;
}

export function createProvider(spec: string, env: SpecEnv): ModelSetup {
  if (spec === 'mock') return { provider: mockProvider(), transport: {} };
  const colon = spec.indexOf(':');
  const kind = colon < 0 ? spec : spec.slice(0, colon);
  const rest = colon < 0 ? '' : spec.slice(colon + 1);
  if (kind === 'vscode') {
    // the editor answers these (RunOptions.hostModels); anywhere else there is no VS Code to ask
    throw new ModelConfigError(
      `model \`${spec}\`: a vscode: model is one of VS Code's own language models (vscode.lm), which exist only inside the editor: ` +
        'runs started from the Turn extension (the run panel, the debugger, the Test Explorer) can use it. Here name another model ' +
        '(openai:MODEL, ollama:MODEL, llama:PATH.gguf, ...), or replay a recording made with it (turn test)',
    );
  }
  if (kind === 'script') {
    if (!rest) throw new ModelConfigError('`script:FILE` needs a fixture file name');
    let text: string;
    try {
      text = env.readFile(rest);
    } catch (e) {
      throw new ModelConfigError(`cannot read the script fixture ${rest}: ${(e as Error).message}`);
    }
    return { provider: scriptProvider(rest, text), transport: {} };
  }
  const q = rest.indexOf('?');
  const model = q < 0 ? rest : rest.slice(0, q);
  const query = q < 0 ? '' : rest.slice(q + 1);
  if (kind === 'openai' || kind === 'ollama') {
    if (!model) throw new ModelConfigError(`\`${kind}:MODEL\` needs a model name`);
    const o = options(spec, query, [...COMMON, 'structured', 'logprobs', 'api']);
    const api = o.get('api') ?? (kind === 'ollama' ? 'openai' : 'chat');
    const apis = kind === 'ollama' ? ['openai', 'native'] : ['chat', 'responses'];
    if (!apis.includes(api)) throw new ModelConfigError(`model \`${spec}\`: api must be ${apis.join(' or ')}, got \`${api}\``);
    if (api === 'native') {
      return {
        provider: ollamaProvider({
          model,
          baseUrl: baseUrl(spec, o.get('base_url') ?? 'http://127.0.0.1:11434'),
          apiKeyEnv: o.get('api_key_env') ?? 'OLLAMA_API_KEY',
          maxTokens: num(spec, o, 'max_tokens', 1),
          temperature: num(spec, o, 'temperature', 0, false),
          stream: flag(spec, o, 'stream', true),
        }),
        transport: transport(spec, o),
      };
    }
    const base = baseUrl(spec, o.get('base_url') ?? (kind === 'ollama' ? 'http://127.0.0.1:11434/v1' : env.env.OPENAI_BASE_URL ?? OPENAI_DEFAULT_BASE));
    const structured = o.get('structured') ?? 'strict';
    if (!['strict', 'schema', 'json', 'none'].includes(structured)) {
      throw new ModelConfigError(`model \`${spec}\`: structured must be strict, schema, json or none, got \`${structured}\``);
    }
    const lp = o.get('logprobs') ?? '1';
    if (lp !== '0' && lp !== '1') throw new ModelConfigError(`model \`${spec}\`: logprobs must be 0 or 1, got \`${lp}\``);
    const openaiOptions: OpenAIOptions = {
      model,
      baseUrl: base,
      apiKeyEnv: o.get('api_key_env') ?? (kind === 'ollama' ? 'OLLAMA_API_KEY' : 'OPENAI_API_KEY'),
      keyRequired: kind === 'openai' && new URL(base).hostname === 'api.openai.com',
      structured: structured as 'strict',
      logprobs: lp === '1',
      maxTokens: num(spec, o, 'max_tokens', 1),
      temperature: num(spec, o, 'temperature', 0, false),
      stream: flag(spec, o, 'stream', true),
      ...(kind === 'ollama' ? { imagesOnly: true } : {}),
    };
    return { provider: api === 'responses' ? openaiResponsesProvider(openaiOptions) : openaiProvider(openaiOptions), transport: transport(spec, o) };
  }
  if (kind === 'azure') {
    if (!model) throw new ModelConfigError('`azure:DEPLOYMENT` needs a deployment name');
    const o = options(spec, query, ['endpoint', 'api_version', 'auth', 'api_key_env', ...TRANSPORT, 'max_tokens', 'temperature', 'stream', 'structured', 'logprobs']);
    const endpoint = o.get('endpoint') ?? env.env.AZURE_OPENAI_ENDPOINT;
    if (!endpoint) throw new ModelConfigError(`model \`${spec}\`: no endpoint: set endpoint=https://RESOURCE.openai.azure.com in the spec or AZURE_OPENAI_ENDPOINT`);
    const auth = o.get('auth') ?? 'key';
    if (auth !== 'key' && auth !== 'entra') throw new ModelConfigError(`model \`${spec}\`: auth must be key or entra, got \`${auth}\``);
    const structured = o.get('structured') ?? 'strict';
    if (!['strict', 'schema', 'json', 'none'].includes(structured)) throw new ModelConfigError(`model \`${spec}\`: structured must be strict, schema, json or none, got \`${structured}\``);
    return {
      provider: azureProvider({
        model,
        endpoint: baseUrl(spec, endpoint, 'endpoint'),
        apiVersion: o.get('api_version') ?? env.env.OPENAI_API_VERSION ?? AZURE_DEFAULT_API_VERSION,
        auth,
        ...(o.has('api_key_env') ? { credentialEnv: o.get('api_key_env') } : {}),
        structured: structured as 'strict',
        logprobs: flag(spec, o, 'logprobs', true),
        maxTokens: num(spec, o, 'max_tokens', 1),
        temperature: num(spec, o, 'temperature', 0, false),
        stream: flag(spec, o, 'stream', true),
      }),
      transport: transport(spec, o),
    };
  }
  if (kind === 'gemini') {
    if (!model) throw new ModelConfigError('`gemini:MODEL` needs a model name');
    const o = options(spec, query, [...COMMON, 'structured']);
    const structured = o.get('structured') ?? 'schema';
    if (!['schema', 'json', 'none'].includes(structured)) throw new ModelConfigError(`model \`${spec}\`: structured must be schema, json or none, got \`${structured}\``);
    return {
      provider: geminiProvider({
        model,
        baseUrl: baseUrl(spec, o.get('base_url') ?? env.env.GEMINI_BASE_URL ?? GEMINI_DEFAULT_BASE),
        apiKeyEnv: o.get('api_key_env') ?? 'GEMINI_API_KEY',
        structured: structured as 'schema',
        maxTokens: num(spec, o, 'max_tokens', 1),
        temperature: num(spec, o, 'temperature', 0, false),
        stream: flag(spec, o, 'stream', true),
      }),
      transport: transport(spec, o),
    };
  }
  if (kind === 'bedrock') {
    if (!model) throw new ModelConfigError('`bedrock:MODEL_ID` needs a model id');
    const o = options(spec, query, ['region', 'base_url', 'access_key_env', 'secret_key_env', 'session_token_env', 'structured', ...TRANSPORT, 'max_tokens', 'temperature', 'stream']);
    const region = o.get('region') ?? env.env.AWS_REGION ?? env.env.AWS_DEFAULT_REGION;
    if (!region) throw new ModelConfigError(`model \`${spec}\`: no region: set region=us-east-1 (or another) in the spec, or AWS_REGION`);
    if (!/^[a-z0-9-]{1,32}$/.test(region)) throw new ModelConfigError(`model \`${spec}\`: region must be an AWS region name such as us-east-1, got \`${region}\``);
    const structured = o.get('structured') ?? 'tool';
    if (structured !== 'tool' && structured !== 'prompt') throw new ModelConfigError(`model \`${spec}\`: structured must be tool or prompt, got \`${structured}\``);
    const base = o.get('base_url') ?? env.env.BEDROCK_BASE_URL;
    return {
      provider: bedrockProvider({
        model,
        region,
        ...(base !== undefined ? { baseUrl: baseUrl(spec, base) } : {}),
        accessKeyEnv: o.get('access_key_env') ?? 'AWS_ACCESS_KEY_ID',
        secretKeyEnv: o.get('secret_key_env') ?? 'AWS_SECRET_ACCESS_KEY',
        sessionTokenEnv: o.get('session_token_env') ?? 'AWS_SESSION_TOKEN',
        structured,
        maxTokens: num(spec, o, 'max_tokens', 1),
        temperature: num(spec, o, 'temperature', 0, false),
        stream: flag(spec, o, 'stream', true),
      }),
      transport: transport(spec, o),
    };
  }
  if (kind === 'anthropic') {
    if (!model) throw new ModelConfigError('`anthropic:MODEL` needs a model name');
    const o = options(spec, query, [...COMMON, 'version']);
    return {
      provider: anthropicProvider({
        model,
        baseUrl: baseUrl(spec, o.get('base_url') ?? env.env.ANTHROPIC_BASE_URL ?? ANTHROPIC_DEFAULT_BASE),
        apiKeyEnv: o.get('api_key_env') ?? 'ANTHROPIC_API_KEY',
        maxTokens: num(spec, o, 'max_tokens', 1),
        temperature: num(spec, o, 'temperature', 0, false),
        version: o.get('version') ?? '2023-06-01',
        stream: flag(spec, o, 'stream', true),
      }),
      transport: transport(spec, o),
    };
  }
  if (kind === 'llama') {
    const o = options(spec, query, ['context_size', 'threads', 'gpu', 'max_tokens', 'temperature', 'load_timeout']);
    return { provider: llamaProvider(llamaOptions(spec, model, (k) => o.get(k))), transport: {} };
  }
  if (kind === 'wasm') {
    if (!model) throw new ModelConfigError('`wasm:PATH` needs the path of a driver module (.wasm)');
    const o = options(spec, query, ['secret', 'call_timeout_ms', ...TRANSPORT]);
    let bytes: Uint8Array;
    try {
      if (!env.readBinary) throw new Error('no file access here');
      bytes = env.readBinary(model);
    } catch (e) {
      throw new ModelConfigError(`cannot read the Wasm driver ${model}: ${(e as Error).message}`);
    }
    const driver = loadWasmDriver(model, bytes, { secrets: parseSecretNames(spec, o.get('secret')), callTimeoutMs: num(spec, o, 'call_timeout_ms', 1) });
    return { provider: driver.provider, transport: transport(spec, o), driver };
  }
  throw new ModelConfigError(`unknown model \`${spec}\`: use mock, script:FILE, openai:MODEL, ollama:MODEL, azure:DEPLOYMENT, gemini:MODEL, bedrock:MODEL_ID, anthropic:MODEL, wasm:PATH or llama:PATH.gguf`);
}
