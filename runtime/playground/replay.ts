// Re-run on save (docs/editor.md, *Playground*): the replies of the last run, kept by the request
// they answered, so the next run gets the same reply for a request that is unchanged — the same
// type, wire schema, attempt and messages as the provider would be sent — and calls the model for
// one that changed (an edited prompt, a new context entry, a different argument). A request asked
// several times in one run with the same messages gets the recorded replies in order.
//
// Requests with images or documents, native tools, or a self-consistency sample are never
// replayed: their messages alone do not say what the model would see.
import { sha256Hex } from '../hash.js';
import type { RunEvent } from '../events/index.js';
import type { InferReply, InferRequest } from '../infer/types.js';
import { chatTurns } from '../providers/messages.js';
import { inferViews, type ChatMessage } from './view.js';

/** A reply given from the recording says so in its meta (the pane counts them). */
export const REPLAYED_META = 'replayedFromRecording';

function keyOf(type: string, schema: unknown, attempt: number, messages: ChatMessage[]): string {
  return sha256Hex(JSON.stringify([type, schema, attempt, messages]));
}

function keyOfRequest(request: InferRequest): string | undefined {
  if (request.sample !== undefined || (request.media && request.media.length > 0) || request.tools || request.toolRounds) return undefined;
  const { system, turns } = chatTurns(request);
  const messages: ChatMessage[] = [...(system !== '' ? [{ role: 'system' as const, content: system }] : []), ...turns];
  return keyOf(request.typeName, request.wireSchema, request.attempt, messages);
}

export class ReplyRecording {
  private readonly replies = new Map<string, InferReply[]>();
  private readonly used = new Map<string, number>();
  /** requests answered from the recording so far */
  replayed = 0;

  /** The replies a run's events hold (requests whose call failed or was sampled are left out). */
  static fromEvents(events: readonly RunEvent[]): ReplyRecording {
    const r = new ReplyRecording();
    const sampled = new Set(events.flatMap((e) => (e.kind === 'infer.reply' && Array.isArray(e.meta?.samples) ? [e.id] : [])));
    for (const view of inferViews(events)) {
      if (sampled.has(view.id)) continue;
      for (const a of view.attempts) {
        if (a.raw === undefined) continue;
        const key = keyOf(view.type, view.schema, a.attempt, a.messages);
        const reply: InferReply = {
          text: a.raw,
          ...(a.usage ? { usage: a.usage } : {}),
          ...(a.finishReason !== undefined ? { finishReason: a.finishReason } : {}),
          meta: { [REPLAYED_META]: true },
        };
        r.replies.set(key, [...(r.replies.get(key) ?? []), reply]);
      }
    }
    return r;
  }

  /** The next recorded reply to `request`, or undefined: the model is asked. */
  reply(request: InferRequest): InferReply | undefined {
    const key = keyOfRequest(request);
    if (key === undefined) return undefined;
    const list = this.replies.get(key);
    const n = this.used.get(key) ?? 0;
    if (!list || n >= list.length) return undefined;
    this.used.set(key, n + 1);
    this.replayed++;
    return list[n];
  }

  get size(): number {
    let n = 0;
    for (const list of this.replies.values()) n += list.length;
    return n;
  }
}
