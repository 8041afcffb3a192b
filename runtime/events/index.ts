// The run's event stream: what the runtime did (model requests and replies, retries, repairs,
// context tier demotions and drops, scoped invocations, process spawns and exits, effects). Events
// stay in the runtime — nothing here ever enters a model context; a program's context holds only
// what the program appended. The trace (`turn run --trace`), the run panel and the debugger all
// read this one union.
import { nowMs } from '../monotonic.js';
import type { ConfidenceInfo } from '../infer/confidence.js';
import type { HttpRetry, InferDelta, ToolRound, ValidationIssue } from '../infer/types.js';

/** An `infer`'s prompt as the model sees it: the context tiers in render order, then the task. */
export interface PromptView {
  P0: string[];
  P2: string[];
  P1: string[];
  task: string;
}

/** What happened, without the stream's numbering. */
export type RunEventBody =
  | { kind: 'process.spawn'; pid: number; parent: number }
  | { kind: 'process.exit'; pid: number; status: 'done' | 'failed' }
  /** `send`: who sent to whom (pid the sender, to the receiver), never the message */
  | { kind: 'process.send'; pid: number; to: number }
  | { kind: 'tool.request'; pid: number; tool: string }
  | { kind: 'tool.reply'; pid: number; tool: string; ok: boolean }
  | { kind: 'invoke.enter'; pid: number; depth: number }
  | { kind: 'invoke.exit'; pid: number; thrown: boolean }
  | { kind: 'context.demote' | 'context.drop'; pid: number; entries: number; tokens: number }
  | {
      kind: 'infer.request';
      id: string;
      pid: number;
      type: string;
      attempt: number;
      prompt: PromptView;
      /** the rejected earlier replies, as the model is told about them */
      feedback: string[];
      prefix: { hash: string; bytes: { system: number; context: number } };
      /** the wire schema the model is asked to fill */
      schema: unknown;
      /** the infer's own `with { ... }` options as written (`max_tokens`, `seed`, ...), when it has any */
      options?: Record<string, number>;
      /** native tool calls: the names of the tools offered and the rounds so far (as the journal hashes them; `turn test` records them) */
      tools?: string[];
      toolRounds?: ToolRound[];
    }
  | {
      kind: 'infer.reply';
      id: string;
      pid: number;
      attempt: number;
      raw: string;
      repairs: string[];
      errors: ValidationIssue[];
      valid: boolean;
      confidence: ConfidenceInfo | null;
      usage: { inputTokens?: number; outputTokens?: number; cachedTokens?: number; totalTokens?: number } | null;
      finishReason: string | null;
      latencyMs: number;
      meta?: Record<string, unknown>;
      /** native tool calls: the tools this reply called (the loop runs them and asks again) */
      toolCalls?: string[];
    }
  /** a tool call of an infer's tool loop (native tool calls): started (child: the pid that runs it, null when it never ran) and ended with its result as the model is told it */
  | { kind: 'infer.tool'; id: string; pid: number; call: string; name: string; state: 'start' | 'done' | 'failed'; child: number | null; arguments?: string; result?: string }
  | { kind: 'infer.error'; id: string; pid: number; attempt: number; error: string; latencyMs: number }
  /** streamed text of a reply as it arrives (rendered live by the CLI and the panel; never journaled) */
  | (InferDelta & { id: string; pid: number; attempt: number })
  /** the run was interrupted (SIGINT, SIGTERM): in-flight calls cancelled; a durable run keeps its journal and can be resumed */
  | { kind: 'interrupted'; signal: string; durable: boolean; inflight: number }
  | { kind: 'infer.retry'; id: string; pid: number; attempt: number; errors: ValidationIssue[] }
  /** an MCP server of the run started (processId: a launched server's OS process) or stopped (runtime/mcp) */
  | { kind: 'mcp.server'; pid: number; server: string; state: 'started' | 'stopped'; processId?: number }
  /** a progress notification of an MCP request process `pid` is waiting on (tool: null for a request that is not a tools/call) */
  | { kind: 'mcp.progress'; pid: number; server: string; tool: string | null; progress: number; total: number | null; message: string | null; dropped?: number }
  /** a log message an MCP server sent (pid: the process whose request was in flight, else the one that opened the session) */
  | { kind: 'mcp.log'; pid: number; server: string; level: string; logger: string | null; data: unknown; dropped?: number }
  /**
   * an MCP server asked the operator (elicitation, runtime/mcp/elicitation.ts): `answered` (by
   * whom), `refused` (nobody to ask: the server was told decline) or `waiting` (a durable run: it
   * waits for `turn resume --answer KEY=ANSWER`; `schema` is the form the editor shows)
   */
  | { kind: 'mcp.elicitation'; pid: number; server: string; key: string; mode: 'form' | 'url'; message: string; url?: string; fields: string[]; state: 'answered' | 'refused' | 'waiting'; action: 'accept' | 'decline' | 'cancel'; by: string; schema?: unknown; dropped?: number }
  /** an MCP server's sampling request, answered by the run's model (counted in its budgets) or refused */
  | { kind: 'mcp.sampling'; pid: number; server: string; outcome: 'answered' | 'refused'; model: string | null; message?: string }
  /** a resource the run subscribed to changed (`notifications/resources/updated`) */
  | { kind: 'mcp.resource'; pid: number; server: string; uri: string; dropped?: number }
  /** a server's notifications held back by the notices' bucket that no later event counted (when the run ends) */
  | { kind: 'mcp.held'; pid: number; server: string; dropped: number }
  | (HttpRetry & { id: string; pid: number });

export type RunEventKind = RunEventBody['kind'];

/** One event of a run's stream. */
export type RunEvent = RunEventBody & {
  /** 1, 2, 3.. in emission order */
  seq: number;
  /** milliseconds since the run started (the only clock reading; it never reaches a prompt) */
  ms: number;
};

/** The events of one kind (for a filter: `events.filter(isEvent('infer.reply'))`). */
export function isEvent<K extends RunEventKind>(kind: K): (e: RunEvent) => e is Extract<RunEvent, { kind: K }> {
  return (e): e is Extract<RunEvent, { kind: K }> => e.kind === kind;
}

export type EventSink = (event: RunEvent) => void;

export class EventLog {
  readonly events: RunEvent[] = [];
  private seq = 0;
  private readonly start = nowMs();

  constructor(
    private readonly sink?: EventSink,
    /** keep events in memory (`events`) as well as passing them to the sink */
    private readonly keep = true,
  ) {}

  /** Whether anyone receives events: when not, emitting costs nothing (a run without a trace). */
  get active(): boolean {
    return this.keep || this.sink !== undefined;
  }

  emit(body: RunEventBody): RunEvent | undefined {
    if (!this.keep && !this.sink) return undefined;
    const event = { seq: ++this.seq, ms: Math.round((nowMs() - this.start) * 1000) / 1000, ...body };
    if (this.keep) this.events.push(event);
    if (this.sink) {
      try {
        this.sink(event);
      } catch {
        // a trace sink that fails never fails the run
      }
    }
    return event;
  }

  ofKind<K extends RunEventKind>(kind: K): Extract<RunEvent, { kind: K }>[] {
    return this.events.filter(isEvent(kind));
  }
}

/** One event as one JSON line (the trace format). */
export function traceLine(event: RunEvent): string {
  return JSON.stringify(event);
}
