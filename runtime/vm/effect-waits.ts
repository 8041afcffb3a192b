// Effect waits: the effects in flight (a model exchange, a host tool), one per process that
// yielded EFFECT. Starting one hands it to the host (or the durable layer's journaling host);
// the scheduler takes whichever settles first and resumes its process with the result.
import type { EventLog } from '../events/index.js';
import type { InferStepOutcome } from '../infer/driver.js';
import { startInfer } from '../infer/effect.js';
import type { Cancellable } from '../effects/tools.js';
import type { Host, ToolRequest } from '../ports/host.js';
import type { PendingEffect } from '../ports/effect.js';
import type { Process } from './process.js';

export type EffectResult = { kind: 'infer'; outcome: InferStepOutcome; id?: string } | { kind: 'tool'; ok: true; value: unknown } | { kind: 'tool'; ok: false; message: string };

export interface EffectWait {
  p: Process;
  effect: PendingEffect;
  promise: Promise<EffectResult>;
  /** aborts the host's work (an HTTP request, a model call) when the process no longer wants it */
  abort?: AbortController;
  /** how the effect ended, once it has (issue 17: the scheduler takes it without racing every pending effect) */
  settled?: { result: EffectResult } | { error: unknown };
}

export class EffectWaits {
  /** in start order */
  private readonly pending: EffectWait[] = [];
  /** set while the scheduler waits: an effect settled */
  private onSettle: (() => void) | undefined;
  /** model exchanges started so far (their event ids: i1, i2, ...) */
  inferSeq = 0;

  constructor(
    private readonly events: EventLog,
    private readonly inferRetries: number | undefined,
  ) {}

  get count(): number {
    return this.pending.length;
  }

  /** Hands `p`'s effect to `host` (the run's, or the durable layer's journaling host). */
  start(p: Process, host: Host): void {
    const effect = p.effect!;
    const abort = new AbortController();
    const signal = abort.signal;
    let promise: Promise<EffectResult>;
    if (effect.kind === 'infer') {
      const id = `i${++this.inferSeq}`;
      // the signal travels in the exchange's io (runtime/providers/transport.ts aborts the HTTP call)
      // with its cancel, so the host need not make a signal of its own to cancel the call (runtime/run/host.ts)
      const cancel = (reason: Error) => abort.abort(reason);
      promise = startInfer(effect.request, (request, io) => host.infer(request, { ...io, signal, cancel } as typeof io), this.events, id, this.inferRetries).then(
        (outcome) => ({ kind: 'infer' as const, outcome, id }),
      );
    } else {
      const request = effect.request;
      this.events.emit({ kind: 'tool.request', pid: p.id, tool: request.name });
      promise = Promise.resolve()
        .then(() => {
          if (!host.tool) throw new Error(`this host performs no effects (${request.name})`);
          // the signal travels with the request (runtime/effects/host.ts hands it to the effect)
          const sent: ToolRequest & Cancellable = { ...request, signal };
          return host.tool(sent);
        })
        .then(
          (value): EffectResult => ({ kind: 'tool', ok: true, value }),
          (e: unknown): EffectResult => ({ kind: 'tool', ok: false, message: e instanceof Error ? e.message : String(e) }),
        );
    }
    this.pending.push(this.track({ p, effect, promise, abort }));
  }

  /** A restored run's effect whose result is known already (issue 17). */
  restore(p: Process, result: EffectResult): void {
    this.pending.push(this.track({ p, effect: p.effect!, promise: Promise.resolve(result) }));
  }

  /** Notes when a pending effect settles, so the scheduler's wait costs O(1) promises, not one per pending effect. */
  private track(w: EffectWait): EffectWait {
    w.promise.then(
      (result) => {
        w.settled = { result };
        this.onSettle?.();
      },
      (error: unknown) => {
        w.settled = { error };
        this.onSettle?.();
      },
    );
    return w;
  }

  /** One promise for "some effect settled" (while the scheduler waits); `stopWaiting` ends it. */
  settledSignal(): Promise<'effect'> {
    return new Promise<'effect'>((resolve) => (this.onSettle = () => resolve('effect')));
  }

  stopWaiting(): void {
    this.onSettle = undefined;
  }

  /** the position (start order) of the first effect that has settled, or -1 */
  firstSettled(): number {
    return this.pending.findIndex((w) => w.settled !== undefined);
  }

  at(i: number): EffectWait {
    return this.pending[i];
  }

  /** Removes and returns the wait at position `i`. */
  take(i: number): EffectWait {
    return this.pending.splice(i, 1)[0];
  }

  /** Stops the host's work for `p`'s effect (it was cancelled). */
  abortFor(p: Process, reason: string): void {
    for (const w of this.pending) if (w.p === p) w.abort?.abort(new Error(reason));
  }

  abortAll(reason: string): void {
    for (const w of this.pending) w.abort?.abort(new Error(reason));
  }

  /** the pids waiting on an effect, in start order (a durable safe point) */
  ids(): number[] {
    return this.pending.map((w) => w.p.id);
  }
}
