// The tasks extension of 2026-07-28 (`io.modelcontextprotocol/tasks`) for `turn mcp --store`
// (docs/mcp.md, *Durable tasks*): a task is a durable served run (served-runs.ts) stored under the
// key `task:<id>`, so the store, not this process, is the task's record. `tasks/get`, `tasks/update`
// and `tasks/cancel` read the store, and a task outlives a kill of `turn mcp`:
//
// - a task whose run this process runs is `working`;
// - a run that ended is `completed` (its stored result: a tool's error result has `isError`) or
//   `cancelled`; a suspended one is `input_required`, asking "go on?" (the `resume` question of a
//   suspended served call), answered by `tasks/update`;
// - a run cut short by a kill (stored `running`, running nowhere) is resumed by the first
//   `tasks/get` after the restart, from its journal (an effect journaled is never sent again), and is
//   `working` meanwhile. Resumed on a poll rather than at start-up: only a client that holds the id
//   (and so still wants the task) makes it go on, and a server restarts without running anything.
//
// Ids are 128 random bits: a client reaches only the tasks whose ids it was given, and an id of
// another store names nothing here. At most `maxTasks` task runs run in this process at once.
import { nodeCrypto } from '../../hash.js';
import type { RunRecord } from '../../store/types.js';
import type { CallSetup } from '../serve/call.js';
import type { ServedTool } from '../serve/discover.js';
import { INVALID_PARAMS, ProtocolError } from '../serve/validate.js';
import { RESUME_SCHEMA, resumeQuestion } from './durable-calls.js';
import { answerProblem } from './paused-calls.js';
import type { DurableOutcome, DurableServing } from './served-runs.js';
import type { TaskLimits } from './tasks.js';

/** The question a suspended task asks, under this key of its `inputRequests`. */
export const RESUME_KEY = 'resume';
const TASK_ID = /^[\w-]{22}$/;

/** What the serving revision gives: the tool a stored run was for, and a call's setup (no request to report to). */
export interface TaskHost {
  file: string;
  tool(name: string): ServedTool | undefined;
  setup(tool: ServedTool, signal: AbortSignal): CallSetup;
  redact<T>(value: T): T;
}

const iso = (ms: number): string => new Date(ms).toISOString();
const keyOf = (id: string): string => `task:${id}`;

export class DurableTasks {
  /** the task runs this process runs now, by task id: their abort stops them (cancel) */
  private readonly here = new Map<string, AbortController>();
  /** tasks resumed by a poll in this process: a poll resumes a run cut short once, never in a loop */
  private readonly resumed = new Set<string>();
  /** tasks cancelled while their run ran here: a stopped durable run is left suspended, so it is marked cancelled once it stops */
  private readonly cancelling = new Set<string>();

  constructor(
    private readonly serving: DurableServing,
    private readonly host: TaskHost,
    readonly limits: TaskLimits,
  ) {}

  /** Starts the call as a task; its `CreateTaskResult`. */
  create(tool: ServedTool, args: Record<string, unknown>, traceparent?: string): Record<string, unknown> {
    if (this.here.size >= this.limits.maxTasks) throw new ProtocolError(-32603, `this server runs ${this.limits.maxTasks} tasks, the most it may at once: try again when one has ended`);
    const id = nodeCrypto().randomBytes(16).toString('base64url');
    this.run(id, (setup) => this.serving.call(this.host.file, tool, args, keyOf(id), setup, traceparent), tool);
    const now = iso(Date.now());
    return { resultType: 'task', ...this.envelope(id, 'working', now, now) };
  }

  /** `tasks/get`: the task as its store records it. Throws invalid params for an id that names none here. */
  async get(id: unknown): Promise<Record<string, unknown>> {
    const { taskId, record } = this.named(id);
    if (!record) return this.envelope(taskId, 'working', iso(Date.now()), iso(Date.now()));
    const at = [iso(record.createdAt), iso(record.updatedAt)] as const;
    if (this.cancelling.has(taskId)) return this.envelope(taskId, 'cancelled', ...at);
    if (this.here.has(taskId)) return this.envelope(taskId, 'working', ...at);
    const stored = this.serving.callOf(record)!;
    switch (record.status) {
      case 'done':
      case 'failed': {
        const tool = this.host.tool(stored.tool);
        if (!tool) return { ...this.envelope(taskId, 'failed', ...at), error: { code: -32603, message: `the tool ${stored.tool} is no longer served` } };
        // a run that ended answers from the store: nothing is run
        const o = await this.serving.resume(record.id, stored.call, tool, this.host.setup(tool, new AbortController().signal));
        return { ...this.envelope(taskId, 'completed', ...at), result: this.host.redact(o.kind === 'reply' ? o.result : {}) };
      }
      case 'cancelled':
        return this.envelope(taskId, 'cancelled', ...at);
      case 'suspended':
        return {
          ...this.envelope(taskId, 'input_required', ...at),
          inputRequests: { [RESUME_KEY]: { method: 'elicitation/create', params: { mode: 'form', message: resumeQuestion(stored.tool, record.id), requestedSchema: RESUME_SCHEMA } } },
        };
      default: {
        // cut short by a kill of this server's predecessor: resumed from its journal, once per process
        if (!this.resumed.has(taskId)) {
          this.resumed.add(taskId);
          this.resume(taskId, record);
        }
        return this.envelope(taskId, 'working', ...at);
      }
    }
  }

  /** `tasks/update`: the answer to a suspended task's "go on?"; yes resumes its run. */
  update(id: unknown, responses: unknown): Record<string, unknown> {
    const { taskId, record } = this.named(id);
    if (!responses || typeof responses !== 'object' || Array.isArray(responses)) throw new ProtocolError(INVALID_PARAMS, 'tasks/update takes inputResponses: an object of answers by key');
    const answer = (responses as Record<string, unknown>)[RESUME_KEY];
    if (answer === undefined || !record || record.status !== 'suspended' || this.here.has(taskId)) return {};
    const problem = answerProblem('elicitation/create', answer);
    if (problem) throw new ProtocolError(INVALID_PARAMS, `inputResponses.${RESUME_KEY} ${problem} (the answer to elicitation/create)`);
    const a = answer as { action: string; content?: Record<string, unknown> };
    if (a.action === 'accept' && a.content?.resume === true) this.resume(taskId, record);
    return {};
  }

  /** `tasks/cancel`: a run here is stopped at its next safe point, then marked cancelled; a stored one that runs nowhere is marked so at once. */
  cancel(id: unknown): Record<string, unknown> {
    const { taskId, record } = this.named(id);
    const running = this.here.get(taskId);
    if (running) {
      this.cancelling.add(taskId);
      running.abort(new Error('the task was cancelled'));
    } else if (record) this.serving.cancelStored(record.id);
    return {};
  }

  /** Stops the task runs of this process (the server closes); their runs stay in the store, resumable. */
  close(): void {
    for (const c of this.here.values()) c.abort(new Error('the server closed'));
    this.here.clear();
  }

  private named(id: unknown): { taskId: string; record: RunRecord | undefined } {
    if (typeof id !== 'string' || !TASK_ID.test(id)) throw new ProtocolError(INVALID_PARAMS, 'no such task (its id is unknown here)');
    const record = this.serving.find(keyOf(id));
    if (!record && !this.here.has(id)) throw new ProtocolError(INVALID_PARAMS, 'no such task (its id is unknown here)');
    return { taskId: id, record };
  }

  private resume(taskId: string, record: RunRecord): void {
    const stored = this.serving.callOf(record)!;
    const tool = this.host.tool(stored.tool);
    if (!tool) return;
    this.run(taskId, (setup) => this.serving.resume(record.id, stored.call, tool, setup), tool);
  }

  /** Runs a task's run in the background, tracked here until it ends (its outcome is in the store). */
  private run(taskId: string, start: (setup: CallSetup) => Promise<DurableOutcome>, tool: ServedTool): void {
    const controller = new AbortController();
    this.here.set(taskId, controller);
    // started on the next turn: a throw while starting settles the promise like a rejection does
    const outcome = Promise.resolve().then(() => start(this.host.setup(tool, controller.signal)));
    // the outcome is read back from the store by tasks/get; a failure outside the program (the store) is kept in the run's absence
    void outcome.catch(() => undefined).finally(() => {
      if (this.here.get(taskId) === controller) this.here.delete(taskId);
      if (this.cancelling.delete(taskId)) {
        const record = this.serving.find(keyOf(taskId));
        if (record) this.serving.cancelStored(record.id);
      }
    });
  }

  private envelope(taskId: string, status: string, createdAt: string, lastUpdatedAt: string): Record<string, unknown> {
    return { taskId, status, createdAt, lastUpdatedAt, ttlMs: this.limits.ttlMs, pollIntervalMs: this.limits.pollIntervalMs };
  }
}
