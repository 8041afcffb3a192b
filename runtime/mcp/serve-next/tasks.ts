// The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`, SEP-2663) for `turn mcp`
// without a store (docs/mcp.md, *Tasks*): a call of a task tool ("task:NAME" or
// "task-required:NAME" in the served map) from a client that declared the extension is answered at
// once with a task (`resultType: "task"`, its id, status and times), and its run goes on in this
// process; the client polls `tasks/get` (the result inlined when the run ends), answers the run's
// questions with `tasks/update` (a waiting task is `input_required` with its `inputRequests`), and
// may `tasks/cancel` it (the run stops at its next safe point).
//
// - Ids are 128 random bits: a client reaches only the tasks whose ids it was given.
// - A tool's error result is a `completed` task whose result has `isError`; `failed` is kept for
//   an error outside the program (the host, a protocol error), with that error inlined.
// - Bounded: at most `maxTasks` tasks are kept (a new one past that is refused, -32603 saying
//   so); each is kept `ttlMs` after it was made, then dropped (a run still going is stopped).
//   A task's questions count against `maxQuestions` per task.
import { nodeCrypto } from '../../hash.js';
import type { AskMethod, RequestContext } from '../serve/handlers.js';
import { INVALID_PARAMS, ProtocolError } from '../serve/validate.js';
import { answerProblem } from './paused-calls.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export interface TaskLimits {
  maxTasks: number;
  ttlMs: number;
  /** how often a client is told to poll */
  pollIntervalMs: number;
  maxQuestions: number;
}

export const DEFAULT_TASK_LIMITS: TaskLimits = { maxTasks: 256, ttlMs: 60 * 60 * 1000, pollIntervalMs: 500, maxQuestions: 32 };

type Status = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
const TERMINAL: ReadonlySet<Status> = new Set(['completed', 'failed', 'cancelled']);

interface Question {
  method: AskMethod;
  params: Record<string, unknown>;
  resolve(answer: Record<string, unknown>): void;
  reject(e: Error): void;
}

class Task {
  readonly id = nodeCrypto().randomBytes(16).toString('base64url');
  readonly createdAt = new Date().toISOString();
  lastUpdatedAt = this.createdAt;
  status: Status = 'working';
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
  readonly questions = new Map<string, Question>();
  readonly controller = new AbortController();
  timer?: NodeJS.Timeout;
  private counter = 0;

  constructor(private readonly limits: TaskLimits) {}

  private touch(status?: Status): void {
    if (status !== undefined) this.status = status;
    this.lastUpdatedAt = new Date().toISOString();
  }

  /** The request context the task's run is given: nothing to notify (nobody waits on a stream), questions parked on the task. */
  context(first: RequestContext, capabilities: Record<string, unknown> | undefined): RequestContext {
    return {
      id: first.id,
      signal: this.controller.signal,
      notify: () => Promise.resolve(),
      flush: () => Promise.resolve(),
      logs: () => false,
      clientCapabilities: () => capabilities,
      ask: (method, params, signal, key) => this.ask(method, params, signal, key),
    };
  }

  private ask(method: AskMethod, params: Record<string, unknown>, signal: AbortSignal, key: string | undefined): Promise<Record<string, unknown>> {
    const name = key ?? `${method.split('/')[0]}-${++this.counter}`;
    if (this.questions.has(name)) return Promise.reject(new Error(`a question named ${name} already waits for its answer: give each question its own key`));
    if (this.questions.size >= this.limits.maxQuestions) return Promise.reject(new Error(`the task already waits for ${this.limits.maxQuestions} answers, the most it may`));
    return new Promise((resolve, reject) => {
      const done = () => {
        this.questions.delete(name);
        if (this.status === 'input_required' && this.questions.size === 0) this.touch('working');
      };
      const q: Question = {
        method,
        params,
        resolve: (a) => {
          done();
          resolve(a);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      };
      if (signal.aborted) return reject(new Error(`${name}: the task was cancelled`));
      signal.addEventListener('abort', () => q.reject(new Error(`${name}: the task was cancelled`)), { once: true });
      this.questions.set(name, q);
      this.touch('input_required');
    });
  }

  /** Answers the waiting questions `responses` has a key of (others are ignored). Throws invalid params for an answer of the wrong shape, before any is given. */
  answer(responses: Record<string, unknown>): void {
    for (const [key, q] of this.questions) {
      if (!(key in responses)) continue;
      const problem = answerProblem(q.method, responses[key]);
      if (problem) throw new ProtocolError(INVALID_PARAMS, `inputResponses.${key} ${problem} (the answer to ${q.method})`);
    }
    for (const [key, q] of [...this.questions]) if (key in responses) q.resolve(responses[key] as Record<string, unknown>);
  }

  end(outcome: { ok: true; result: Record<string, unknown> } | { ok: false; error: unknown }): void {
    if (TERMINAL.has(this.status)) return; // cancelled meanwhile: it stays so
    if (outcome.ok) {
      this.result = outcome.result;
      this.touch('completed');
    } else {
      const e = outcome.error;
      this.error = e instanceof ProtocolError ? { code: e.code, message: e.message } : { code: -32603, message: e instanceof Error ? e.message : String(e) };
      this.touch('failed');
    }
  }

  cancel(): void {
    if (TERMINAL.has(this.status)) return;
    this.touch('cancelled');
    this.controller.abort(new Error('the task was cancelled'));
  }

  /** What `tasks/get` answers: the task, its result or error when it ended, its questions while it waits. */
  detail(): Record<string, unknown> {
    return {
      ...this.envelope(),
      ...(this.status === 'completed' && this.result ? { result: this.result } : {}),
      ...(this.status === 'failed' && this.error ? { error: this.error } : {}),
      ...(this.status === 'input_required' ? { inputRequests: Object.fromEntries([...this.questions].map(([k, q]) => [k, { method: q.method, params: q.params }])) } : {}),
    };
  }

  envelope(): Record<string, unknown> {
    return { taskId: this.id, status: this.status, createdAt: this.createdAt, lastUpdatedAt: this.lastUpdatedAt, ttlMs: this.limits.ttlMs, pollIntervalMs: this.limits.pollIntervalMs };
  }
}

/** The tasks of one `turn mcp`. */
export class Tasks {
  private readonly tasks = new Map<string, Task>();

  constructor(readonly limits: TaskLimits = DEFAULT_TASK_LIMITS) {}

  /** Starts `start` as a task; answers its `CreateTaskResult` once `tasks/get` finds it. */
  create(req: RequestContext, capabilities: Record<string, unknown> | undefined, start: (req: RequestContext) => Promise<Record<string, unknown>>): Record<string, unknown> {
    if (this.tasks.size >= this.limits.maxTasks) throw new ProtocolError(-32603, `this server keeps ${this.limits.maxTasks} tasks, the most it may: try again when one has expired`);
    const task = new Task(this.limits);
    this.tasks.set(task.id, task);
    task.timer = setTimeout(() => {
      this.tasks.delete(task.id);
      task.cancel();
    }, this.limits.ttlMs);
    task.timer.unref();
    start(task.context(req, capabilities)).then(
      (result) => task.end({ ok: true, result }),
      (error: unknown) => task.end({ ok: false, error }),
    );
    return { resultType: 'task', ...task.envelope() };
  }

  private named(id: unknown): Task {
    const task = typeof id === 'string' ? this.tasks.get(id) : undefined;
    if (!task) throw new ProtocolError(INVALID_PARAMS, 'no such task (its id is unknown, or it expired)');
    return task;
  }

  get(id: unknown): Record<string, unknown> {
    return this.named(id).detail();
  }

  update(id: unknown, responses: unknown): Record<string, unknown> {
    const task = this.named(id);
    if (!responses || typeof responses !== 'object' || Array.isArray(responses)) throw new ProtocolError(INVALID_PARAMS, 'tasks/update takes inputResponses: an object of answers by key');
    task.answer(responses as Record<string, unknown>);
    return {};
  }

  cancel(id: unknown): Record<string, unknown> {
    this.named(id).cancel();
    return {};
  }

  /** Stops every task (the server closes). */
  close(): void {
    for (const task of this.tasks.values()) {
      clearTimeout(task.timer);
      task.cancel();
    }
    this.tasks.clear();
  }
}
