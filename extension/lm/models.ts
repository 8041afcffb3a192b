// VS Code's own language models as Turn models: the spec `vscode:` (the first model
// `vscode.lm.selectChatModels()` gives), `vscode:VENDOR` or `vscode:VENDOR/FAMILY`. The runtime
// asks the editor for them through RunOptions.hostModels (runs started in the extension host: the
// run panel, the debugger, the Test Explorer); the CLI refuses the spec. This file holds the logic
// against `LmApi`, the part of `vscode.lm` it uses, so test/extension/ drives it with a fake; the
// binding to the real API is extension/lm/vscode-lm.ts.
import { hostChatProvider, ProviderError, type ChatTurn, type HostChat, type HostChatBounds, type HostModels } from '../../runtime/index.js';

export const VSCODE_PREFIX = 'vscode:';

/** A chat model as `vscode.LanguageModelChat` describes it (the fields used here). */
export interface LmChatModel {
  readonly id: string;
  readonly name: string;
  readonly vendor: string;
  readonly family: string;
  readonly version?: string;
  sendRequest(messages: unknown[], options: { justification?: string; modelOptions?: Record<string, unknown> }, token: unknown): PromiseLike<{ text: AsyncIterable<string> }>;
  countTokens(text: string, token?: unknown): PromiseLike<number>;
}

/** What of `vscode.lm` (and the message and cancellation classes) a `vscode:` model needs. */
export interface LmApi {
  selectChatModels(selector?: { vendor?: string; family?: string }): PromiseLike<readonly LmChatModel[]>;
  userMessage(text: string): unknown;
  assistantMessage(text: string): unknown;
  /** a CancellationTokenSource: `token` goes to the API, `cancel()` fires it */
  cancellation(): { token: unknown; cancel(): void; dispose(): void };
}

export interface VscodeSpec {
  vendor?: string;
  family?: string;
}

/** A vendor or family name: what VS Code's model identifiers are made of. */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/**
 * The selector a `vscode:` spec names: undefined for another spec; throws (a usage error at the
 * run's start) for a malformed one.
 */
export function parseVscodeSpec(spec: string): VscodeSpec | undefined {
  if (!spec.startsWith(VSCODE_PREFIX)) return undefined;
  const rest = spec.slice(VSCODE_PREFIX.length);
  if (rest === '') return {};
  const parts = rest.split('/');
  if (parts.length > 2 || !parts.every((p) => NAME.test(p))) {
    throw new Error(`model \`${spec}\`: a VS Code model is vscode:, vscode:VENDOR or vscode:VENDOR/FAMILY (letters, digits, ., _ and -), e.g. vscode:copilot/gpt-4o`);
  }
  return parts.length === 1 ? { vendor: parts[0] } : { vendor: parts[0], family: parts[1] };
}

/** The spec that names a model: `vscode:VENDOR/FAMILY` (what the picker writes into turn.model). */
export function specOf(model: Pick<LmChatModel, 'vendor' | 'family'>): string {
  return `${VSCODE_PREFIX}${model.vendor}/${model.family}`;
}

/** One line per model for a picker or the walkthrough: `vscode:copilot/gpt-4o — GPT-4o`. */
export function describeModel(model: Pick<LmChatModel, 'vendor' | 'family' | 'name'>): string {
  return `${specOf(model)} — ${model.name}`;
}

/** What a run tells VS Code it uses the model for (shown in the consent prompt). */
export const JUSTIFICATION = 'Turn runs your program: its `infer` expressions ask this model for typed values.';

/**
 * The `vscode:` models as the runtime's host models. The model is chosen at the run's first model
 * call (not when the run starts, so a run that never infers never asks), then kept for the run.
 */
export function vscodeHostModels(api: LmApi, bounds: Partial<HostChatBounds> = {}): HostModels {
  return (spec) => {
    const selector = parseVscodeSpec(spec);
    if (!selector) return undefined;
    return hostChatProvider(vscodeChat(api, spec, selector), bounds);
  };
}

export function vscodeChat(api: LmApi, spec: string, selector: VscodeSpec): HostChat {
  let chosen: Promise<LmChatModel> | undefined;
  const model = (): Promise<LmChatModel> =>
    (chosen ??= Promise.resolve(api.selectChatModels(selector)).then(async (models) => {
      const first = models[0];
      if (first) return first;
      chosen = undefined; // a model may be installed before the next call
      const any = await Promise.resolve(api.selectChatModels()).catch(() => [] as readonly LmChatModel[]);
      throw new ProviderError(
        `no VS Code language model matches ${spec}` +
          (any.length > 0 ? `; the models VS Code has: ${any.slice(0, 10).map(specOf).join(', ')}` : '; VS Code has none: install a chat model extension (GitHub Copilot, or one that adds a model) ') +
          ' (Turn: Pick a VS Code Language Model)',
        false,
      );
    }));
  return {
    name: spec,
    async send(turns: ChatTurn[], o) {
      const m = await model();
      const source = api.cancellation();
      const onAbort = () => source.cancel();
      o.signal.addEventListener('abort', onAbort, { once: true });
      try {
        const messages = turns.map((t) => (t.role === 'user' ? api.userMessage(t.content) : api.assistantMessage(t.content)));
        let response;
        try {
          response = await m.sendRequest(messages, { justification: JUSTIFICATION }, source.token);
        } catch (e) {
          throw new ProviderError(`${spec} (${m.id}) refused the request: ${lmErrorText(e)}`, false);
        }
        for await (const piece of response.text) {
          if (o.signal.aborted) break;
          o.onText(piece);
        }
        return { meta: { modelId: m.id, vendor: m.vendor, family: m.family, ...(m.version ? { version: m.version } : {}) } };
      } finally {
        o.signal.removeEventListener('abort', onAbort);
        source.dispose();
      }
    },
    async countTokens(text, signal) {
      const m = await model();
      const source = api.cancellation();
      const onAbort = () => source.cancel();
      signal.addEventListener('abort', onAbort, { once: true });
      try {
        return await m.countTokens(text, source.token);
      } finally {
        signal.removeEventListener('abort', onAbort);
        source.dispose();
      }
    },
  };
}

/** A LanguageModelError's code and message (NoPermissions: the user did not allow it; Blocked; NotFound). */
function lmErrorText(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const code = (e as { code?: unknown }).code;
  const why = code === 'NoPermissions' ? ' (the user did not allow Turn to use this model)' : '';
  return `${typeof code === 'string' && code !== '' ? `${code}: ` : ''}${e.message}${why}`;
}
