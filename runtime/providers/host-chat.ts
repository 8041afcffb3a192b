// A model the embedding host supplies (RunOptions.hostModels): the editor's `vscode:` models, which
// are VS Code's Language Model API (`vscode.lm`) and exist only inside the extension host. The host
// gives a plain chat (`HostChat`: turns in, streamed text out, a token count); this file makes it a
// provider like the others. Such chats have no structured output and no system role, so the schema
// travels in the prompt (the task text every request ends with), the system text opens the first
// user turn, and the reply is validated and re-asked by the infer driver, as for any provider
// without strict mode. A host chat is outside input: the reply is bounded in characters, its first
// piece and each silence between pieces in time, and a cancelled call stops at once.
import type { InferIO, InferReply, InferRequest } from '../infer/types.js';
import { chatTurns, type ChatTurn } from './messages.js';
import { refuseMedia } from './media-parts.js';
import { ProviderError, type LocalProvider } from './types.js';

export type { ChatTurn };

/** What the host does for one model call. */
export interface HostChat {
  /** the model spec it answers, e.g. `vscode:copilot/gpt-4o` (the provider's name in traces and token summaries) */
  name: string;
  /**
   * Sends the turns; calls `onText` with each piece of the reply as it streams; resolves when the
   * reply is complete (its meta: the model's id, never a secret). Must stop when `signal` aborts.
   */
  send(turns: ChatTurn[], o: { signal: AbortSignal; onText(piece: string): void; maxTokens?: number }): Promise<{ meta?: Record<string, unknown> }>;
  /** the model's own token count of a text (`countTokens`); undefined: no usage is reported */
  countTokens?(text: string, signal: AbortSignal): Promise<number>;
}

export interface HostChatBounds {
  /** the most characters of one reply (default 1 MiB of text) */
  maxReplyChars: number;
  /** from sending to the first piece of the reply (default 300 000 ms: a consent prompt, a slow local model) */
  firstPieceTimeoutMs: number;
  /** the longest silence between pieces once the reply started (default 60 000 ms) */
  idleTimeoutMs: number;
}

export const DEFAULT_HOST_CHAT_BOUNDS: HostChatBounds = { maxReplyChars: 1024 * 1024, firstPieceTimeoutMs: 300_000, idleTimeoutMs: 60_000 };

/**
 * The turns a chat without a system role is sent: the system text (P0) opens the first user turn;
 * the rest (the context, the task with the reply's schema, the re-asks with their errors) as
 * chatTurns makes them for every chat provider.
 */
export function hostChatTurns(request: InferRequest): ChatTurn[] {
  const { system, turns } = chatTurns(request);
  if (!system) return turns;
  return [{ role: 'user', content: `${system}\n\n${turns[0].content}` }, ...turns.slice(1)];
}

export function hostChatProvider(chat: HostChat, bounds: Partial<HostChatBounds> = {}): LocalProvider {
  const b = { ...DEFAULT_HOST_CHAT_BOUNDS, ...bounds };
  return {
    kind: 'local',
    name: chat.name,
    async answer(request: InferRequest, io?: InferIO): Promise<InferReply> {
      refuseMedia(request, chat.name, () => false, 'a host chat model takes text only');
      const given = (io as { signal?: AbortSignal } | undefined)?.signal;
      if (given?.aborted) throw cancelled(chat.name, given);
      const turns = hostChatTurns(request);
      // the call's own signal: the run's Stop (given), a time bound or the size bound abort it
      const own = new AbortController();
      const stop = (e: ProviderError) => {
        if (!own.signal.aborted) own.abort(e);
      };
      const onGiven = () => stop(cancelled(chat.name, given!));
      given?.addEventListener('abort', onGiven, { once: true });
      let timer: ReturnType<typeof setTimeout> | undefined;
      const arm = (ms: number, what: string) => {
        clearTimeout(timer);
        timer = setTimeout(() => stop(new ProviderError(`${chat.name} ${what} (${ms} ms)`, false)), ms);
      };
      let text = '';
      let pieces = 0;
      const t0 = performance.now();
      // settles with the first of: the reply, the chat's failure, an abort (whatever the chat does with its signal)
      const aborted = new Promise<never>((_, reject) => {
        own.signal.addEventListener('abort', () => reject(own.signal.reason as Error), { once: true });
      });
      aborted.catch(() => {});
      try {
        arm(b.firstPieceTimeoutMs, 'sent nothing in time');
        const maxTokens = request.sampling?.maxTokens ?? request.maxTokens;
        const sent = chat
          .send(turns, {
            signal: own.signal,
            ...(maxTokens !== undefined ? { maxTokens } : {}),
            onText: (piece) => {
              if (own.signal.aborted || typeof piece !== 'string' || piece.length === 0) return;
              if (text.length + piece.length > b.maxReplyChars) {
                stop(new ProviderError(`${chat.name} sent a reply longer than ${b.maxReplyChars} characters`, false));
                return;
              }
              text += piece;
              pieces++;
              arm(b.idleTimeoutMs, 'went silent');
              io?.emit({ kind: 'infer.delta', delta: piece, tokens: pieces, elapsedMs: Math.round(performance.now() - t0) });
            },
          })
          .catch((e: unknown) => {
            if (own.signal.aborted) throw own.signal.reason as Error;
            throw e instanceof ProviderError ? e : new ProviderError(`${chat.name} failed: ${e instanceof Error ? e.message : String(e)}`, false);
          });
        const { meta } = await Promise.race([sent, aborted]);
        clearTimeout(timer);
        if (own.signal.aborted) throw own.signal.reason as Error;
        const usage = chat.countTokens ? await countUsage(chat, turns, text, own.signal, aborted) : undefined;
        return {
          text,
          ...(usage ? { usage } : {}),
          meta: { model: chat.name, ...safeMeta(meta), generationMs: Math.round(performance.now() - t0) },
        };
      } finally {
        clearTimeout(timer);
        given?.removeEventListener('abort', onGiven);
      }
    },
  };
}

/** Tokens in (every turn sent) and out (the reply), by the model's own count; none when it cannot count. */
async function countUsage(chat: HostChat, turns: ChatTurn[], reply: string, signal: AbortSignal, aborted: Promise<never>): Promise<InferReply['usage']> {
  try {
    const counts = await Promise.race([Promise.all([...turns.map((t) => chat.countTokens!(t.content, signal)), chat.countTokens!(reply, signal)]), aborted]);
    if (!counts.every((n) => Number.isSafeInteger(n) && n >= 0)) return undefined;
    const outputTokens = counts.pop()!;
    return { inputTokens: counts.reduce((a, n) => a + n, 0), outputTokens };
  } catch (e) {
    if (signal.aborted) throw e;
    return undefined; // a count that failed is a missing count, not a failed call
  }
}

/** The host's meta, kept only as short strings and numbers (it is journaled with the reply). */
function safeMeta(meta: Record<string, unknown> | undefined): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  if (!meta || typeof meta !== 'object') return out;
  for (const [k, v] of Object.entries(meta).slice(0, 16)) {
    if (k === 'model' || k === 'generationMs') continue;
    if (typeof v === 'string') out[k] = v.slice(0, 200);
    else if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  }
  return out;
}

function cancelled(name: string, signal: AbortSignal): ProviderError {
  const r: unknown = signal.reason;
  const why = r instanceof Error ? r.message : typeof r === 'string' ? r : 'aborted';
  return new ProviderError(`the call to ${name} was cancelled: ${why}`, false);
}
