// Questions a served run asks its client mid-call on the 2026-07-28 revision, without a store
// (docs/mcp.md, *Asking the caller on 2026-07-28*). On this revision a server cannot send the client
// a request: it answers the call with an `input_required` result naming its questions, and the
// client calls again with the answers (`inputResponses`) and the `requestState` it was given. A
// served run is a run in this process, so the run is not started again: it stays paused here, in
// memory, at the questions it asked (`mcp.elicit`, `mcp.sample`, `mcp.roots`), and the retry's
// answers let it go on, to its value or to its next questions.
//
// - The requestState names the paused call (`mem:<id>`), the call (tool or prompt and arguments)
//   and the round; it is signed with this process's secret (request-state.ts), so a state a client
//   altered is refused by the SDK before anything here runs. A state whose round was answered
//   already (a replay) or that is being answered now is refused too: each state opens its round once.
// - Questions several processes of the run ask at once are sent together: a reply waits until the
//   run asks nothing more in one turn of the event loop (a question asked later is sent in the next
//   round: batching may differ, answers never do).
// - An answer already in the request (`inputResponses` under the question's key) answers the
//   question when it is asked, so a client that knows the questions can answer them on the first call.
//   Keys nobody asked are ignored.
// - Bounded: at most `maxRuns` calls paused at once, `maxBytes` of their questions and arguments,
//   each kept `maxAgeMs` after its last reply; a paused call past its age is stopped (its run ends
//   at its next safe point) and its state opens nothing. A question that would pass a bound fails in
//   the program (a located error it may catch), and nothing is kept.
import { nodeCrypto } from '../../hash.js';
import type { AskMethod, RequestContext } from '../serve/handlers.js';
import { INVALID_PARAMS, ProtocolError } from '../serve/validate.js';
import type { RunClaim } from './request-state.js';

export interface PausedLimits {
  /** calls paused at once */
  maxRuns: number;
  /** bytes (as JSON) of the paused calls' questions and arguments, all together */
  maxBytes: number;
  /** how long a paused call waits for its client's retry */
  maxAgeMs: number;
}

export const DEFAULT_PAUSED_LIMITS: PausedLimits = { maxRuns: 64, maxBytes: 4 * 1024 * 1024, maxAgeMs: 10 * 60 * 1000 };

/** The prefix of a paused call's id in a requestState (a durable run's id has none). */
const MEMORY = 'mem:';
/** How many turns of the event loop a reply waits for more questions at most (a run that keeps asking) */
const MAX_SETTLE_TURNS = 1000;

interface Question {
  key: string;
  method: AskMethod;
  params: Record<string, unknown>;
  bytes: number;
  resolve(answer: Record<string, unknown>): void;
  reject(e: Error): void;
}

/** What a call comes to for one request: its handler's value, or questions for the client. */
export type Settled<T> = { kind: 'done'; value: T; missing: string[] } | { kind: 'asked'; inputRequests: Record<string, { method: AskMethod; params: Record<string, unknown> }>; claim: RunClaim };

const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);
const SHORT: Record<AskMethod, string> = { 'elicitation/create': 'elicit', 'sampling/createMessage': 'sample', 'roots/list': 'roots' };

/** Why `answer` cannot be the answer to a question of `method`, or undefined when it can. */
export function answerProblem(method: AskMethod, answer: unknown): string | undefined {
  if (!isObj(answer)) return 'is not an object';
  switch (method) {
    case 'elicitation/create':
      if (answer.action !== 'accept' && answer.action !== 'decline' && answer.action !== 'cancel') return 'has no action "accept", "decline" or "cancel"';
      if (answer.content !== undefined && !isObj(answer.content)) return 'has a content that is not an object';
      return undefined;
    case 'sampling/createMessage':
      if (answer.role !== 'assistant' && answer.role !== 'user') return 'has no role';
      if (!isObj(answer.content) && !Array.isArray(answer.content)) return 'has no content';
      if (typeof answer.model !== 'string') return 'has no model';
      return undefined;
    case 'roots/list':
      if (!Array.isArray(answer.roots) || !answer.roots.every((r) => isObj(r) && typeof r.uri === 'string')) return 'has no roots list of {"uri": ...}';
      return undefined;
  }
}

/** One call of a served closure whose run may ask its client: its run goes on across the client's retries. */
class PausedCall<T> {
  readonly id = nodeCrypto().randomBytes(16).toString('base64url');
  /** the round the client's next retry answers (its requestState names it) */
  round = 0;
  /** questions asked and not answered, in the order asked */
  readonly questions = new Map<string, Question>();
  /** answers the request being served brought that no question has used yet */
  supplied = new Map<string, unknown>();
  /** the request being served now (none between a reply and the client's retry) */
  attached?: { req: RequestContext; capabilities: Record<string, unknown> | undefined };
  /** the capabilities the client declared last (a question asked between requests is checked against them) */
  capabilities: Record<string, unknown> | undefined;
  readonly controller = new AbortController();
  /** capabilities a question needed that the client had not declared */
  readonly missing = new Set<string>();
  result!: Promise<{ ok: true; value: T } | { ok: false; error: unknown }>;
  settled = false;
  held = false;
  bytes: number;
  timer?: NodeJS.Timeout;
  private asked?: () => void;
  private counter = 0;

  constructor(
    private readonly table: PausedCalls,
    readonly call: string,
    argsBytes: number,
  ) {
    this.bytes = argsBytes;
  }

  /** The request context the run is given: it stays the same across requests; each request is attached in turn. */
  context(first: RequestContext): RequestContext {
    const self = this;
    return {
      id: first.id,
      ...(first.session !== undefined ? { session: first.session } : {}),
      signal: this.controller.signal,
      notify: (method, params) => self.attached?.req.notify(method, params) ?? Promise.resolve(),
      flush: () => self.attached?.req.flush() ?? Promise.resolve(),
      logs: (level) => self.attached?.req.logs(level) ?? false,
      clientCapabilities: () => self.capabilities,
      ask: (method, params, signal, key) => self.ask(method, params, signal, key),
      missing: (capability) => self.missing.add(capability),
    };
  }

  private ask(method: AskMethod, params: Record<string, unknown>, signal: AbortSignal, key: string | undefined): Promise<Record<string, unknown>> {
    const name = key ?? `${SHORT[method]}-${++this.counter}`;
    if (this.supplied.has(name)) {
      // answered before it was asked: by this request's inputResponses
      const answer = this.supplied.get(name);
      this.supplied.delete(name);
      const problem = answerProblem(method, answer);
      return problem ? Promise.reject(new Error(`the answer to ${name} ${problem}`)) : Promise.resolve(answer as Record<string, unknown>);
    }
    if (this.questions.has(name)) return Promise.reject(new Error(`a question named ${name} already waits for its answer: give each question its own key`));
    const bytes = JSON.stringify(params).length + name.length;
    const refused = this.table.admit(this, bytes);
    if (refused) return Promise.reject(new Error(refused));
    return new Promise((resolve, reject) => {
      const q: Question = {
        key: name,
        method,
        params,
        bytes,
        resolve: (a) => {
          this.forget(q);
          resolve(a);
        },
        reject: (e) => {
          this.forget(q);
          reject(e);
        },
      };
      const abandon = () => q.reject(new Error(`${name}: not answered (the call was cancelled or expired)`));
      if (signal.aborted) return abandon();
      signal.addEventListener('abort', abandon, { once: true });
      this.questions.set(name, q);
      this.bytes += bytes;
      this.asked?.();
    });
  }

  private forget(q: Question): void {
    if (this.questions.get(q.key) !== q) return;
    this.questions.delete(q.key);
    this.bytes -= q.bytes;
  }

  /** Waits for the call's value, or for its questions once it asks nothing more this turn. */
  async settle(): Promise<'done' | 'asked'> {
    for (;;) {
      if (this.settled) return 'done';
      if (this.questions.size > 0) {
        // more questions may come from other processes of the run: wait until a turn brings none
        for (let turns = 0; turns < MAX_SETTLE_TURNS; turns++) {
          const before = this.questions.size;
          await new Promise((resolve) => setImmediate(resolve));
          if (this.settled) return 'done';
          if (this.questions.size === before) break;
        }
        if (this.questions.size > 0) return 'asked';
        continue;
      }
      await Promise.race([this.result, new Promise<void>((resolve) => (this.asked = resolve))]);
      this.asked = undefined;
    }
  }

  /** Ends the call: its run stopped, its questions refused. */
  stop(reason: string): void {
    clearTimeout(this.timer);
    this.controller.abort(new Error(reason));
    for (const q of [...this.questions.values()]) q.reject(new Error(`${q.key}: ${reason}`));
  }
}

/** The paused calls of one `turn mcp` (its 2026-07-28 serving without a store). */
export class PausedCalls {
  private readonly calls = new Map<string, PausedCall<unknown>>();

  constructor(readonly limits: PausedLimits = DEFAULT_PAUSED_LIMITS) {}

  /** How many calls are paused now (for tests and `turn mcp`'s own accounting). */
  get size(): number {
    return this.calls.size;
  }

  /** Whether the call a claim's `run` names waits here (it does not after a restart, nor once it ended or expired). */
  holds(run: string): boolean {
    return run.startsWith(MEMORY) && this.calls.has(run.slice(MEMORY.length));
  }

  /** Whether `call` may keep a question of `bytes` more: undefined if so, else why not. */
  admit(call: PausedCall<unknown>, bytes: number): string | undefined {
    const known = this.calls.has(call.id);
    if (!known && this.calls.size >= this.limits.maxRuns) return `this server holds ${this.limits.maxRuns} calls waiting for their client's answers, the most it may: try again later`;
    let held = known ? 0 : call.bytes;
    for (const c of this.calls.values()) held += c.bytes;
    if (held + bytes > this.limits.maxBytes) return `the calls waiting for answers would hold more than ${this.limits.maxBytes} bytes of questions and arguments, the most this server keeps`;
    this.calls.set(call.id, call);
    return undefined;
  }

  private drop(call: PausedCall<unknown>): void {
    if (this.calls.get(call.id) === call) this.calls.delete(call.id);
  }

  /**
   * Serves one request of a call: a new call (no claim) starts `start` with a request context whose
   * questions pause it; a retry (its claim verified by the SDK) finds the paused call, answers its
   * questions from `responses` and lets it go on. Either way, to the call's value or its next
   * questions. Throws the protocol error (invalid params) for a claim that opens nothing.
   */
  async serve<T>(request: {
    call: string;
    argsBytes: number;
    claim: RunClaim | undefined;
    responses: Record<string, unknown> | undefined;
    capabilities: Record<string, unknown> | undefined;
    req: RequestContext;
    start: (req: RequestContext) => Promise<T>;
  }): Promise<Settled<T>> {
    let paused: PausedCall<T>;
    if (request.claim === undefined) {
      paused = new PausedCall<T>(this, request.call, request.argsBytes);
      this.attach(paused, request);
      const ctx = paused.context(request.req);
      paused.result = request.start(ctx).then(
        (value) => ({ ok: true as const, value }),
        (error: unknown) => ({ ok: false as const, error }),
      );
      void paused.result.then(() => (paused.settled = true));
    } else {
      paused = this.open<T>(request.claim, request.call, request.responses);
      this.attach(paused, request);
      for (const q of [...paused.questions.values()]) {
        if (!paused.supplied.has(q.key)) continue;
        const answer = paused.supplied.get(q.key)!;
        paused.supplied.delete(q.key);
        q.resolve(answer as Record<string, unknown>);
      }
    }
    // the client gone or cancelling while this request is served stops the run
    const cancel = () => paused.stop('the client cancelled the call');
    request.req.signal.addEventListener('abort', cancel, { once: true });
    try {
      const how = await paused.settle();
      if (how === 'done') {
        this.drop(paused);
        paused.stop('the call ended');
        const r = await paused.result;
        if (r.ok) return { kind: 'done', value: r.value, missing: [...paused.missing] };
        if (paused.missing.size > 0 && r.error instanceof ProtocolError) throw new ProtocolError(r.error.code, r.error.message, { missing: [...paused.missing] });
        throw r.error;
      }
      paused.round++;
      paused.timer = setTimeout(() => {
        this.drop(paused);
        paused.stop(`its client did not answer within ${this.limits.maxAgeMs} ms`);
      }, this.limits.maxAgeMs);
      paused.timer.unref();
      const inputRequests = Object.fromEntries([...paused.questions.values()].map((q) => [q.key, { method: q.method, params: q.params }]));
      return { kind: 'asked', inputRequests, claim: { run: `${MEMORY}${paused.id}`, call: paused.call, round: paused.round } };
    } finally {
      request.req.signal.removeEventListener('abort', cancel);
      paused.attached = undefined;
      paused.supplied = new Map();
      paused.held = false;
    }
  }

  /** The paused call a verified claim names, held for this request. Throws the protocol error when it opens nothing. */
  private open<T>(claim: RunClaim, call: string, responses: Record<string, unknown> | undefined): PausedCall<T> {
    const paused = claim.run.startsWith(MEMORY) ? this.calls.get(claim.run.slice(MEMORY.length)) : undefined;
    if (!paused) throw new ProtocolError(INVALID_PARAMS, 'requestState names no call waiting here (it ended, expired, or this server restarted): call again without it');
    if (paused.call !== claim.call || claim.call !== call) throw new ProtocolError(INVALID_PARAMS, 'requestState is for another call (another tool, prompt or arguments)');
    if (paused.held) throw new ProtocolError(INVALID_PARAMS, 'requestState is being answered by another request');
    if (claim.round !== paused.round) throw new ProtocolError(INVALID_PARAMS, 'requestState was answered already (a replay): use the state of the latest reply');
    // every answer to a waiting question must be one before any is given: a wrong one resumes nothing
    for (const q of paused.questions.values()) {
      if (responses === undefined || !(q.key in responses)) continue;
      const problem = answerProblem(q.method, responses[q.key]);
      if (problem) throw new ProtocolError(INVALID_PARAMS, `inputResponses.${q.key} ${problem} (the answer to ${q.method})`);
    }
    paused.held = true;
    clearTimeout(paused.timer);
    return paused as PausedCall<T>;
  }

  private attach(paused: PausedCall<unknown>, request: { req: RequestContext; responses: Record<string, unknown> | undefined; capabilities: Record<string, unknown> | undefined }): void {
    paused.held = true;
    paused.attached = { req: request.req, capabilities: request.capabilities };
    paused.capabilities = request.capabilities;
    paused.supplied = new Map(Object.entries(request.responses ?? {}));
  }

  /** Stops every paused call (the server closes). */
  close(): void {
    for (const call of [...this.calls.values()]) {
      this.drop(call);
      call.stop('the server closed');
    }
  }
}
