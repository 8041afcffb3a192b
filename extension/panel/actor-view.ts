// How the run panel shows a process that is not running in the panel (a journal step's replay, a
// stored run's snapshot): its context tiers with their tokens, every text clipped. No `vscode` import.
import { countTokens } from '../../runtime/index.js';
import type { ActorView, ContextView } from '../protocol/panel.js';

export const MAX_TEXT = 4_000;

/** A text the panel shows, cut to `max` characters with a note of how many more there were. */
export function clip(s: string, max = MAX_TEXT): string {
  return s.length > max ? `${s.slice(0, max)} … (${s.length - max} more characters)` : s;
}

/** A value as JSON text, or as `String(v)` when JSON cannot hold it. */
export function json(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return String(v);
  }
}

/** A process's parts, its texts rendered and not yet clipped; its context tiers as entry texts. */
export type ActorParts = Omit<ActorView, 'context' | 'restarts'> & {
  context: { P0: string[]; P1: string[]; P2: string[]; limits: ContextView['limits'] };
};

/** One process as the panel shows it: texts clipped, each context entry with its tokens, no restarts, demotions or drops known. */
export function actorView(parts: ActorParts): ActorView {
  const { context, memory, mailbox, result, error, ...rest } = parts;
  const entries = (xs: string[]) => xs.map((text) => ({ text: clip(text), tokens: countTokens(text) }));
  const P0 = entries(context.P0);
  const P1 = entries(context.P1);
  const P2 = entries(context.P2);
  const sum = (xs: { tokens: number }[]) => xs.reduce((a, x) => a + x.tokens, 0);
  return {
    ...rest,
    restarts: 0,
    context: {
      P0, P1, P2,
      tokens: { P0: sum(P0), P1: sum(P1), P2: sum(P2) },
      limits: { ...context.limits },
      demoted: { entries: 0, tokens: 0 },
      dropped: { entries: 0, tokens: 0 },
    },
    memory: memory.map((m) => ({ key: m.key, value: clip(m.value) })),
    mailbox: mailbox.map((m) => clip(m)),
    result: result === null ? null : clip(result),
    error: error === null ? null : clip(error),
  };
}
