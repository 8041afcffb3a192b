// The MCP client of a run that `turn mcp` serves (runtime/mcp/serve/), as the run's host tools see
// it: `call("progress", ...)`, `call("mcp_elicit", ...)` and `call("mcp_sample", ...)`
// (runtime/mcp/caller-tools.ts) reach the caller through this port, which serving builds for each
// call. A run that is not served has none: progress is then dropped, and asking is refused.

export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, unknown>;
}

export interface McpCaller {
  /** a progress notification, when the caller gave a progress token (else nothing is sent) */
  progress(progress: number, total?: number, message?: string): void;
  /** `elicitation/create` (form mode) to the caller; rejects when it declared no elicitation capability */
  elicit(message: string, requestedSchema: Record<string, unknown>, signal?: AbortSignal): Promise<ElicitAnswer>;
  /** `sampling/createMessage` to the caller; rejects when it declared no sampling capability */
  sample(request: { messages: unknown[]; maxTokens: number; systemPrompt?: string }, signal?: AbortSignal): Promise<Record<string, unknown>>;
}
