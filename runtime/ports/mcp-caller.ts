// The MCP client of a run that `turn mcp` serves (runtime/mcp/serve/), as the run's host tools see
// it: `call("progress", ...)`, `call("mcp_elicit", ...)`, `call("mcp_sample", ...)` and `call("mcp_roots")`
// (runtime/mcp/caller-tools.ts) reach the caller through this port, which serving builds for each
// call. A run that is not served has none: progress is then dropped, and asking is refused.

/**
 * The caller's questions. A durable run cut short while one waited (its answer not journaled) asks it
 * again when resumed: asking twice costs nothing, and the answer is journaled once it comes.
 */
export const CALLER_QUESTION_TOOLS: ReadonlySet<string> = new Set(['mcp_elicit', 'mcp_sample', 'mcp_roots']);

export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

/**
 * Every question takes an optional `key`: the name the program gives it. On 2026-07-28 a question is
 * an entry of an `input_required` result's `inputRequests`, and the key is that entry's name (the
 * client answers under it); without one the server makes one up. On 2025-11-25 it is not sent.
 */
export interface McpCaller {
  /** a progress notification, when the caller gave a progress token (else nothing is sent) */
  progress(progress: number, total?: number, message?: string): void;
  /** `elicitation/create` (form mode) to the caller; rejects when it declared no elicitation capability */
  elicit(message: string, requestedSchema: Record<string, unknown>, signal?: AbortSignal, key?: string): Promise<ElicitAnswer>;
  /** `sampling/createMessage` to the caller; rejects when it declared no sampling capability */
  sample(request: { messages: unknown[]; maxTokens: number; systemPrompt?: string }, signal?: AbortSignal, key?: string): Promise<Record<string, unknown>>;
  /** `roots/list` to the caller: its `{"roots": [...]}`; rejects when it declared no roots capability */
  roots(signal?: AbortSignal, key?: string): Promise<Record<string, unknown>>;
}
