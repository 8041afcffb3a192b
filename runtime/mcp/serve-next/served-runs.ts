// `turn mcp --store DIR` (docs/mcp.md, "Durable served agents"): each `tools/call` is a durable run
// in the store, recorded under the call's idempotency key (call-key.ts), so a call is performed at
// most once however often it is asked:
//
// - a key seen before answers from its run: a run that ended gives its stored result (nothing is
//   run again); a suspended run asks its question again; a run that was cut short (`turn mcp`
//   killed mid-call) is resumed, its journaled effects replayed, never re-sent (an effect whose
//   outcome is unknown waits for a person, as in any durable run); a call still running in this
//   process is joined;
// - a run that suspends (`suspend;`) is handed back to the serving revision, which asks the client
//   (2025-11-25: elicitation; 2026-07-28: an `input_required` result whose signed requestState names
//   the run) and resumes it with `resume`.
//
// The runs go through the same call path as every served call (serve/call.ts: callEntry,
// resumeEntry), their replies are made as every tool's (serve/handlers.ts: outcomeReply). The store
// is opened once, by this process (one writer); the runs are stored like any other, so
// `turn runs --store DIR` and the editor's Runs view list them, their metadata naming the tool.
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { openStore } from '../../store/open.js';
import type { RunRecord, RunStore } from '../../store/types.js';
import { bytesJson, storeMessage } from '../../durable/index.js';
import { callEntry, resumeEntry, type CallOutcome, type CallSetup } from '../serve/call.js';
import { ServeError, type ServedTool } from '../serve/discover.js';
import { outcomeReply, valuesOf } from '../serve/handlers.js';
import { CallKeyError, callFingerprint } from './call-key.js';
import { stateSecret, RequestStateError } from './request-state.js';

/** What a durable served call comes to: a reply, or a run waiting for the client's answer. */
export type DurableOutcome = { kind: 'reply'; result: CallToolResult } | { kind: 'suspended'; runId: string; call: string };

/** What a served run records about its call (in the run's metadata, beside cwd and options). */
interface ServedMeta {
  key: string;
  tool: string;
  call: string;
  /** the caller's W3C trace context (`_meta.traceparent`), when it sent one */
  traceparent?: string;
}

const failure = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text }] });
const servedMeta = (r: RunRecord): ServedMeta | undefined => {
  const m = r.meta.mcp;
  return m && typeof m === 'object' && typeof (m as ServedMeta).key === 'string' ? (m as ServedMeta) : undefined;
};

export class DurableServing {
  /** calls running in this process, by key: a retry that arrives meanwhile waits for the same outcome */
  private readonly running = new Map<string, Promise<DurableOutcome>>();

  private constructor(
    readonly store: RunStore,
    /** signs the requestState of a run waiting for an answer (request-state.ts) */
    readonly secret: Buffer,
  ) {}

  /** Opens the store folder `dir` for serving. Throws ServeError (a store in use, unreadable, a bad secret file). */
  static open(dir: string, cwd = process.cwd()): DurableServing {
    const folder = path.resolve(cwd, dir);
    let store: RunStore;
    try {
      store = openStore(folder);
    } catch (e) {
      throw new ServeError(`--store ${dir}: ${storeMessage(e)}`);
    }
    try {
      return new DurableServing(store, stateSecret(folder));
    } catch (e) {
      store.close();
      if (e instanceof RequestStateError) throw new ServeError(`--store ${dir}: ${e.message}`);
      throw e;
    }
  }

  close(): void {
    this.store.close();
  }

  /** The run stored under `key`, if any. */
  find(key: string): RunRecord | undefined {
    return this.store.listRuns().find((r) => servedMeta(r)?.key === key);
  }

  /** The tool and call fingerprint a served run was stored with. */
  callOf(record: RunRecord): { tool: string; call: string } | undefined {
    const m = servedMeta(record);
    return m ? { tool: m.tool, call: m.call } : undefined;
  }

  /** Whether the call `key` names runs in this process now. */
  isRunning(key: string): boolean {
    return this.running.has(key);
  }

  /** Marks a stored run that runs nowhere (suspended, or cut short by a kill) cancelled: it is never resumed. */
  cancelStored(runId: string): void {
    const r = this.store.getRun(runId);
    if (r && r.status !== 'done' && r.status !== 'failed' && r.status !== 'cancelled') this.store.setRunStatus(runId, 'cancelled', null);
  }

  /**
   * Performs (or finds) the call `key` names. Throws CallKeyError when the key was first used for
   * another tool or other arguments.
   */
  call(file: string, tool: ServedTool, args: Record<string, unknown>, key: string, setup: CallSetup, traceparent?: string): Promise<DurableOutcome> {
    const call = callFingerprint(tool.name, args);
    const joined = this.running.get(key);
    const known = joined ? undefined : this.find(key);
    const meta = known ? servedMeta(known) : undefined;
    if (meta && (meta.call !== call || meta.tool !== tool.name)) {
      return Promise.reject(new CallKeyError(`this idempotency key was used for another call (run ${known!.id}); a retry sends the same tool and arguments`));
    }
    if (joined) return joined;
    // a retry of a suspended call is asked again, as the first attempt was: only an answer resumes it
    if (known?.status === 'suspended') return Promise.resolve({ kind: 'suspended', runId: known.id, call });
    const recorded: ServedMeta = { key, tool: tool.name, call, ...(traceparent ? { traceparent } : {}) };
    const outcome = known
      ? this.answerFor(known, call, tool, setup)
      : callEntry(file, tool.key, valuesOf(tool.params, args), { ...setup, durable: { store: this.store, meta: { mcp: recorded } } }).then((r) => this.outcome(r, call, tool));
    return this.track(key, outcome);
  }

  /** Resumes the suspended run `runId` for a client that answered (the claim was verified by the caller). */
  resume(runId: string, call: string, tool: ServedTool, setup: CallSetup): Promise<DurableOutcome> {
    const record = this.store.getRun(runId);
    const meta = record ? servedMeta(record) : undefined;
    if (!record || !meta || meta.call !== call || meta.tool !== tool.name) return Promise.resolve({ kind: 'reply', result: failure('no such served run') });
    return this.running.get(meta.key) ?? this.track(meta.key, this.answerFor(record, call, tool, setup));
  }

  private track(key: string, outcome: Promise<DurableOutcome>): Promise<DurableOutcome> {
    const tracked = outcome.finally(() => this.running.delete(key));
    this.running.set(key, tracked);
    return tracked;
  }

  /** The answer for a run stored before: its result, or its resume. */
  private async answerFor(record: RunRecord, call: string, tool: ServedTool, setup: CallSetup): Promise<DurableOutcome> {
    switch (record.status) {
      case 'done': {
        const stored = bytesJson(record.result) as { json?: unknown } | null;
        return { kind: 'reply', result: outcomeReply(tool, { ok: true, value: stored?.json ?? null, printed: [] }) };
      }
      case 'failed': {
        const stored = bytesJson(record.result) as { message?: string } | null;
        return { kind: 'reply', result: failure(stored?.message ?? `the run failed (run ${record.id})`) };
      }
      case 'cancelled':
        return { kind: 'reply', result: failure(`the run was cancelled (run ${record.id})`) };
      default:
        // running (this process's predecessor was killed mid-call), suspended or waiting: resume it
        return this.outcome(await resumeEntry(record.id, { ...setup, durable: { store: this.store } }), call, tool);
    }
  }

  private outcome(r: CallOutcome, call: string, tool: ServedTool): DurableOutcome {
    if (!r.ok && r.suspended !== undefined) return { kind: 'suspended', runId: r.suspended, call };
    return { kind: 'reply', result: outcomeReply(tool, r) };
  }
}

export { CallKeyError };
