// What a run's model requests cost in tokens (docs/observability.md, *Costs*): counted where the
// host sends each request to the provider (runtime/run/host.ts), so a self-consistent call of k
// samples counts k requests and a provider retry counts too. A replayed call (a resumed durable
// run's journaled reply) sends nothing and counts nothing.
import type { InferIO, InferReply } from '../infer/types.js';

/** One model's requests and tokens in a run. */
export interface ModelTokens {
  /** the model as its provider names it (`openai:gpt-4o-mini`) */
  model: string;
  /** requests answered */
  calls: number;
  /** requests that failed and were sent again (HTTP 429, 5xx: runtime/providers/transport.ts) */
  retries: number;
  /** requests that failed for good */
  failed: number;
  /** prompt tokens, of which `cachedTokens` were read from the provider's prompt cache */
  inputTokens: number;
  cachedTokens: number;
  outputTokens: number;
  /** answered requests whose reply said no token counts (their tokens are not in the sums) */
  unreported: number;
}

const whole = (x: unknown): number => (typeof x === 'number' && Number.isSafeInteger(x) && x >= 0 ? x : 0);

/** The counts of a run, per model. */
export class TokenTally {
  private readonly models = new Map<string, ModelTokens>();

  private of(model: string): ModelTokens {
    let m = this.models.get(model);
    if (!m) this.models.set(model, (m = { model, calls: 0, retries: 0, failed: 0, inputTokens: 0, cachedTokens: 0, outputTokens: 0, unreported: 0 }));
    return m;
  }

  /** Sends one request through `send`, counting it, its provider retries (seen on `io`) and its reply's tokens. */
  async count(model: string, io: InferIO | undefined, send: (io: InferIO | undefined) => Promise<InferReply>): Promise<InferReply> {
    const m = this.of(model);
    const watched: InferIO | undefined = io && {
      ...io,
      emit: (e) => {
        if (e.kind === 'http.retry') m.retries++;
        io.emit(e);
      },
    };
    let reply: InferReply;
    try {
      reply = await send(watched);
    } catch (e) {
      m.failed++;
      throw e;
    }
    m.calls++;
    const u = reply.usage;
    if (!u || (u.inputTokens === undefined && u.outputTokens === undefined && u.totalTokens === undefined)) m.unreported++;
    else {
      m.inputTokens += whole(u.inputTokens);
      m.cachedTokens += whole(u.cachedTokens);
      m.outputTokens += whole(u.outputTokens);
    }
    return reply;
  }

  /** Per model, in the order first used; models never asked are absent. */
  summary(): ModelTokens[] {
    return [...this.models.values()].map((m) => ({ ...m }));
  }
}

/** Whether a model spec names a real model (not the mock, nor a script of canned replies). */
export function isRealModel(name: string): boolean {
  return !/^(mock|script)(:|$)/.test(name);
}
